"""Max^n with Korf's shallow pruning: the unpruned result, and pruning that prunes.

Part of the correctness tests of :mod:`durak.search` on small games, against plain brute
force: the games are in ``toygames.py`` and ``imperfect_games.py``, the reference solvers in
``bruteforce.py`` and the shared positions and checks in ``toysearch.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from durak.search import (
    Budget,
    Game,
    SearchError,
    SearchResult,
    alphabeta,
    maxn,
)
from tests.support.bruteforce import BruteForce, height, reachable_states
from tests.support.toygames import (
    Nim,
    NimState,
    RandomTree,
    RTState,
    random_evaluator,
    shuffled_order,
)
from tests.support.toysearch import (
    NIMS,
    TTT,
    A,
    S,
    check_minimax_result,
    nonterminal,
    random_trees,
    without_time,
)

# --------------------------------------------------------------------------------------
# Max^n


def check_maxn(
    game: Game[S, A],
    state: S,
    bounds: tuple[float, float] | None,
    order: Callable[[S, Sequence[A]], Sequence[A]] | None = None,
    depth: int | None = None,
    evaluate: Callable[[S], Sequence[float]] | None = None,
) -> SearchResult[A]:
    """``maxn`` returns exactly the brute-force max^n vector and action (same order)."""
    bf: BruteForce[S, A] = BruteForce(game, evaluate, order)
    vector, action = bf.maxn(state, depth)
    result = maxn(game, state, depth=depth, evaluate=evaluate, order=order, bounds=bounds)
    player = game.current_player(state)
    assert result.vector == vector
    assert result.action == action
    assert result.player == player
    assert result.value == vector[player]
    if depth is None:
        assert result.exact
    return result


@settings(max_examples=150)
@given(
    st.integers(3, 4).flatmap(lambda n: random_trees(players=n, zero_sum=False)),
    st.integers(0, 2**16),
)
def test_maxn_with_and_without_shallow_pruning_is_brute_force_maxn(
    game: RandomTree, seed: int
) -> None:
    root = game.initial()
    if game.is_terminal(root):
        return
    for order in (None, shuffled_order(seed)):
        for bounds in (None, (0.0, 1.0)):
            check_maxn(game, root, bounds, order)


@settings(max_examples=100)
@given(
    st.integers(2, 4).flatmap(lambda n: random_trees(players=n, zero_sum=False)),
    st.integers(1, 4),
    st.integers(0, 2**16),
)
def test_depth_limited_maxn_is_brute_force_maxn(game: RandomTree, depth: int, seed: int) -> None:
    root = game.initial()
    if game.is_terminal(root):
        return
    evaluate = random_evaluator(seed, game.players, zero_sum=False)
    for order in (None, shuffled_order(seed)):
        for bounds in (None, (0.0, 1.0)):
            result = check_maxn(game, root, bounds, order, depth, evaluate)
            if height(game, root) <= depth:
                assert result.exact


@settings(max_examples=60)
@given(random_trees(), st.integers(0, 2**16))
def test_maxn_on_two_player_zero_sum_games_is_minimax(game: RandomTree, seed: int) -> None:
    root = game.initial()
    if game.is_terminal(root):
        return
    bf: BruteForce[RTState, int] = BruteForce(game)
    for bounds in (None, (-1.0, 0.0)):
        result = check_maxn(game, root, bounds, shuffled_order(seed))
        assert result.value == bf.minimax(root, game.current_player(root))


@settings(max_examples=80)
@given(
    st.integers(2, 4).flatmap(lambda n: random_trees(players=n, zero_sum=False)),
    st.integers(0, 2**16),
)
def test_paranoid_maxn_is_alphabeta(game: RandomTree, seed: int) -> None:
    root = game.initial()
    if game.is_terminal(root):
        return
    bf: BruteForce[RTState, int] = BruteForce(game)
    result = maxn(game, root, paranoid=True, order=shuffled_order(seed))
    check_minimax_result(game, bf, root, result)
    assert result.value == alphabeta(game, root).value


def test_maxn_in_nim_and_tictactoe() -> None:
    for game in NIMS:
        for s in nonterminal(game, game.initial()):
            check_maxn(game, s, (-1.0, 0.0))
    for board in random.Random(6).sample(nonterminal(TTT, TTT.initial()), 100):
        check_maxn(TTT, board, None)
        check_maxn(TTT, board, (-1.0, 0.0), shuffled_order(1))


def paths(game: Game[S, A], state: S) -> int:
    """The number of nodes of the game tree below ``state`` (``state`` included)."""
    return 1 + sum(paths(game, game.step(state, a)) for a in game.legal_actions(state))


def check_maxn_report(
    game: Game[S, A],
    state: S,
    bounds: tuple[float, float] | None,
    depth: int | None = None,
    evaluate: Callable[[S], Sequence[float]] | None = None,
) -> None:
    """What ``maxn`` reports besides its decision: the root values (every legal action's
    brute-force max^n entry for the mover with ``root_values``, else the chosen action's
    alone), whether it is exact, and its statistics (depths completed, deepest ply)."""
    bf: BruteForce[S, A] = BruteForce(game, evaluate)
    player = game.current_player(state)
    below = None if depth is None else depth - 1
    kwargs: dict[str, Any] = {"depth": depth, "evaluate": evaluate, "bounds": bounds}
    full = maxn(game, state, root_values=True, **kwargs)
    expected = [
        (a, bf.maxn(game.step(state, a), below)[0][player]) for a in game.legal_actions(state)
    ]
    assert list(full.action_values) == expected
    chosen = maxn(game, state, **kwargs)
    assert chosen.action_values == ((chosen.action, chosen.value),)
    high = height(game, state)
    exact = depth is None or high <= depth
    for result in (full, chosen):
        assert result.exact == exact
        assert result.stats.iterations == (1 if depth is None else min(depth, high))
        assert result.stats.nodes >= len(game.legal_actions(state)) + 1
        if bounds is None:  # nothing pruned: the deepest ply is the tree's or the limit
            assert result.stats.depth == (high if depth is None else min(depth, high))
    if bounds is None and depth is None:  # one search, nothing pruned: every path once
        assert full.stats.nodes == chosen.stats.nodes == paths(game, state)
    if depth is not None:
        capped = maxn(game, state, budget=Budget(iterations=1), **kwargs)
        assert capped.stats.iterations == 1
    timed = maxn(game, state, budget=Budget(seconds=3600.0), **kwargs)  # a limit never met
    assert without_time(timed) == without_time(chosen)
    once = maxn(game, state, iterative=False, **kwargs)
    assert once.stats.iterations == 1
    assert (once.action, once.vector) == (chosen.action, chosen.vector)


def paths_within(game: Game[S, A], state: S, depth: int) -> int:
    """The number of nodes at most ``depth`` plies below ``state`` (``state`` included)."""
    if depth == 0:
        return 1
    return 1 + sum(
        paths_within(game, game.step(state, a), depth - 1) for a in game.legal_actions(state)
    )


@pytest.mark.parametrize("seed", [5, 6, 7, 8])
def test_maxn_counts_the_nodes_of_every_depth_it_deepens_through(seed: int) -> None:
    game = RandomTree(seed, players=3, depth=5, branching=3)
    root = game.initial()
    assert height(game, root) == 5
    evaluate = random_evaluator(seed, 3, zero_sum=False)
    for depth in (1, 2, 3):
        result = maxn(game, root, depth=depth, evaluate=evaluate)  # no bounds: nothing pruned
        assert result.stats.iterations == depth
        assert result.stats.nodes == sum(paths_within(game, root, d) for d in range(1, depth + 1))


def test_maxn_root_values_are_exact_under_shallow_pruning() -> None:
    # Pruning below one root action must not cut another's value short: root_values
    # searches each root action with a full window.
    for seed in range(60):
        for depth in (3, 4):
            game = RandomTree(seed, players=3, depth=depth, branching=3)
            root = game.initial()
            if game.is_terminal(root):
                continue
            bf: BruteForce[RTState, int] = BruteForce(game, None)
            player = game.current_player(root)
            expected = [
                (a, bf.maxn(game.step(root, a), None)[0][player]) for a in game.legal_actions(root)
            ]
            result = maxn(game, root, bounds=(0.0, 1.0), root_values=True)
            assert list(result.action_values) == expected, (seed, depth)


def test_a_frontier_value_outside_the_range_names_the_state() -> None:
    game = Nim((2, 3))
    root = game.initial()
    first = game.step(root, game.legal_actions(root)[0])
    with pytest.raises(SearchError) as raised:
        alphabeta(game, root, depth=1, evaluate=lambda s: (2.0, -2.0), value_range=(-1.0, 1.0))
    assert str(raised.value) == f"evaluate gave 2.0 at {first!r}, outside value_range [-1.0, 1.0]"


def test_maxn_reports_root_values_exactness_and_statistics() -> None:
    for seed in range(12):
        game = RandomTree(seed, players=3, depth=4, branching=3)
        root = game.initial()
        if game.is_terminal(root):
            continue
        evaluate = random_evaluator(seed, 3, zero_sum=False)
        for bounds in (None, (0.0, 1.0)):
            check_maxn_report(game, root, bounds)
            for depth in (1, 2, 6):
                check_maxn_report(game, root, bounds, depth, evaluate)


def test_paranoid_maxn_passes_every_setting_to_alphabeta() -> None:
    game = RandomTree(6, players=3, depth=5, branching=3)
    root = game.initial()
    # Deeper than every depth below, with a choice at the root: each setting shows.
    assert height(game, root) == 5 and len(game.legal_actions(root)) == 3
    evaluate = random_evaluator(6, 3, zero_sum=False)
    order = shuffled_order(6)
    grid: list[dict[str, Any]] = [
        {},
        {"depth": 2, "evaluate": evaluate},
        {"depth": 3, "evaluate": evaluate, "iterative": False},
        {"order": order, "root_values": True},
        {"depth": 4, "evaluate": evaluate, "budget": Budget(nodes=40)},
        {"depth": 4, "evaluate": evaluate, "budget": Budget(iterations=2), "order": order},
    ]
    for kwargs in grid:
        paranoid = maxn(game, root, paranoid=True, **kwargs)
        direct = alphabeta(game, root, **kwargs)
        assert attrs.evolve(paranoid, stats=paranoid.stats.without_time()) == attrs.evolve(
            direct, stats=direct.stats.without_time()
        ), kwargs


def test_maxn_refuses_payoffs_outside_its_pruning_bounds() -> None:
    game = Nim((2, 3))
    with pytest.raises(SearchError):
        maxn(game, game.initial(), bounds=(0.0, 0.0))  # Nim pays -1 to the loser
    with pytest.raises(SearchError):
        maxn(game, game.initial(), bounds=(-1.0, -0.5))  # and its payoffs sum to 0


# --------------------------------------------------------------------------------------
# Pruning prunes


def test_shallow_pruning_visits_fewer_nodes() -> None:
    with_bounds = without = 0
    for seed in range(40):
        game = RandomTree(seed, players=3, depth=5, branching=3)
        root = game.initial()
        if game.is_terminal(root):
            continue
        pruned = maxn(game, root, bounds=(0.0, 1.0)).stats.nodes
        full = maxn(game, root).stats.nodes
        assert pruned <= full
        assert full <= len(reachable_states(game, root))
        with_bounds += pruned
        without += full
    assert with_bounds < without


@attrs.frozen
class Shifted:
    """``game`` with every payoff lowered by ``by`` (nothing else changes)."""

    game: RandomTree
    by: float

    @property
    def num_players(self) -> int:
        """As ``game``."""
        return self.game.num_players

    def legal_actions(self, s: RTState) -> list[int]:
        """As ``game``."""
        return self.game.legal_actions(s)

    def step(self, s: RTState, a: int) -> RTState:
        """As ``game``."""
        return self.game.step(s, a)

    def current_player(self, s: RTState) -> int:
        """As ``game``."""
        return self.game.current_player(s)

    def is_terminal(self, s: RTState) -> bool:
        """As ``game``."""
        return self.game.is_terminal(s)

    def returns(self, s: RTState) -> tuple[float, ...]:
        """``game``'s returns less ``by`` each."""
        return tuple(x - self.by for x in self.game.returns(s))


def test_shallow_pruning_is_the_same_after_shifting_every_payoff() -> None:
    """Korf's bound moves with the payoffs: lowering every payoff of a 3-player game by
    1/4 (bounds ``(0, 1)`` become ``(-1/4, 1/4)``) must prune exactly the same nodes."""
    pruned = 0
    for seed in range(30):
        game = RandomTree(seed, players=3, depth=5, branching=3)
        root = game.initial()
        if game.is_terminal(root):
            continue
        plain = check_maxn(game, root, (0.0, 1.0))  # against brute force
        shifted = maxn(Shifted(game, 0.25), root, bounds=(-0.25, 0.25))
        assert shifted.stats.nodes == plain.stats.nodes
        assert shifted.action == plain.action
        assert shifted.vector == tuple(x - 0.25 for x in plain.vector or ())
        pruned += maxn(game, root).stats.nodes - plain.stats.nodes
    assert pruned > 0


def test_transpositions_and_alphabeta_prune_in_nim() -> None:
    game = Nim((3, 3, 3))
    root = game.initial()
    with_table = alphabeta(game, root, iterative=False).stats.nodes
    without = alphabeta(game, root, iterative=False, transpositions=False).stats.nodes
    assert with_table < without
    # Plain minimax visits every path: alpha-beta without a table visits fewer.
    paths: dict[NimState, int] = {}

    def tree_size(s: NimState) -> int:
        if s not in paths:
            paths[s] = 1 + sum(tree_size(game.step(s, a)) for a in game.legal_actions(s))
        return paths[s]

    assert without < tree_size(root)
