"""Correctness of :mod:`durak.search` on small games, against plain brute force.

The games are in ``toygames.py`` and the reference solvers in ``bruteforce.py``.  Every
alpha-beta setting (transposition table, iterative deepening, move ordering) must give the
brute-force minimax value in every position tried, at every depth; max^n with Korf's
shallow pruning must give exactly the unpruned vector and action; MCTS must find unique
best moves; PIMC and ISMCTS must see nothing but the observation; and every search must be
reproducible from its seed.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, Literal, TypeVar

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bruteforce import BruteForce, height, reachable_states
from durak.search import (
    MCTS,
    Budget,
    BudgetExhausted,
    Game,
    SearchError,
    SearchResult,
    TranspositionTable,
    TreeSettings,
    alphabeta,
    ismcts,
    maxn,
    mcts,
    pimc,
    solve,
)
from durak.search.mcts import Node
from toygames import (
    CardObs,
    CardState,
    HiddenCardGame,
    Nim,
    NimState,
    OneShot,
    RandomTree,
    RTState,
    SpyGame,
    TicTacToe,
    random_evaluator,
    shuffled_order,
)

S = TypeVar("S", bound=Hashable)
A = TypeVar("A")

NIMS = [Nim((3, 4)), Nim((2, 2, 3)), Nim((1, 2, 3), max_take=2), Nim((7,), max_take=3)]
NIM_IDS = ["nim-3-4", "nim-2-2-3", "nim-1-2-3-k2", "nim-7"]
TTT = TicTacToe()
CARDS = HiddenCardGame()


def settings_grid(order_seed: int | None = 0) -> list[dict[str, Any]]:
    """Every combination of table on/off, iterative on/off and ordering none/shuffled."""
    orders: list[Any] = [None] if order_seed is None else [None, shuffled_order(order_seed)]
    return [
        {"transpositions": tt, "iterative": it, "order": order}
        for tt, it, order in itertools.product((True, False), (True, False), orders)
    ]


def nonterminal(game: Game[S, A], root: S) -> list[S]:
    """Every reachable non-terminal state."""
    return [s for s in reachable_states(game, root) if not game.is_terminal(s)]


def check_minimax_result(
    game: Game[S, A],
    bf: BruteForce[S, A],
    state: S,
    result: SearchResult[A],
    depth: int | None = None,
) -> None:
    """``result`` is the brute-force depth-``depth`` decision at ``state``."""
    player = game.current_player(state)
    expected = bf.minimax(state, player, depth)
    assert result.player == player
    assert result.value == expected, (state, result)
    assert result.action in game.legal_actions(state)
    below = None if depth is None else depth - 1
    assert bf.minimax(game.step(state, result.action), player, below) == expected
    assert result.value_of(result.action) == result.value
    if depth is None:
        assert result.exact


# --------------------------------------------------------------------------------------
# Alpha-beta: exact values


@pytest.mark.parametrize("game", NIMS, ids=NIM_IDS)
def test_alphabeta_is_exact_in_every_nim_position(game: Nim) -> None:
    bf: BruteForce[NimState, tuple[int, int]] = BruteForce(game)
    for s in nonterminal(game, game.initial()):
        for kwargs in settings_grid():
            check_minimax_result(game, bf, s, alphabeta(game, s, **kwargs))
        check_minimax_result(game, bf, s, solve(game, s))
        check_minimax_result(game, bf, s, solve(game, s, transpositions=False))


def test_alphabeta_is_exact_in_every_tictactoe_position() -> None:
    bf: BruteForce[tuple[int, ...], int] = BruteForce(TTT)
    states = nonterminal(TTT, TTT.initial())
    assert len(states) == 4520  # 5478 reachable positions, 958 of them final
    order = shuffled_order(1)
    for s in states:
        check_minimax_result(TTT, bf, s, alphabeta(TTT, s))
        check_minimax_result(TTT, bf, s, alphabeta(TTT, s, transpositions=False, order=order))
    for s in random.Random(2).sample(states, 300):
        for kwargs in settings_grid(3):
            check_minimax_result(TTT, bf, s, alphabeta(TTT, s, **kwargs))


def random_trees(
    players: int = 2, zero_sum: bool = True, depth: int = 5
) -> st.SearchStrategy[RandomTree]:
    """Random game trees and DAGs (``width``) with the given players."""
    return st.builds(
        RandomTree,
        seed=st.integers(0, 2**32 - 1),
        players=st.just(players),
        depth=st.integers(1, depth),
        branching=st.integers(1, 4),
        zero_sum=st.just(zero_sum),
        width=st.none() | st.integers(1, 6),
    )


def some_positions(game: RandomTree, k: int, seed: int) -> list[RTState]:
    """The root and up to ``k`` other non-terminal positions of ``game``."""
    root = game.initial()
    others = nonterminal(game, root)[1:]
    rng = random.Random(seed)
    return [root, *rng.sample(others, min(k, len(others)))]


@settings(max_examples=100)
@given(random_trees(), st.integers(0, 2**16))
def test_alphabeta_is_exact_on_random_zero_sum_games(game: RandomTree, seed: int) -> None:
    bf: BruteForce[RTState, int] = BruteForce(game)
    for s in some_positions(game, 3, seed):
        if game.is_terminal(s):
            continue
        for kwargs in settings_grid(seed):
            check_minimax_result(game, bf, s, alphabeta(game, s, **kwargs))


@settings(max_examples=60)
@given(random_trees(players=3, zero_sum=False), st.integers(0, 2**16))
def test_alphabeta_is_the_paranoid_value_with_three_players(game: RandomTree, seed: int) -> None:
    bf: BruteForce[RTState, int] = BruteForce(game)
    root = game.initial()
    if game.is_terminal(root):
        return
    for kwargs in settings_grid(seed):
        check_minimax_result(game, bf, root, alphabeta(game, root, **kwargs))


# --------------------------------------------------------------------------------------
# Alpha-beta: a known value range

RANGE = (-1.0, 1.0)  # every payoff of Nim, tic-tac-toe and the zero-sum random trees


@settings(max_examples=100)
@given(random_trees(), st.integers(0, 2**16), st.sampled_from([None, 1, 3]))
def test_a_value_range_keeps_alphabeta_exact(
    game: RandomTree, seed: int, depth: int | None
) -> None:
    evaluate = random_evaluator(seed)
    bf: BruteForce[RTState, int] = BruteForce(game, evaluate)
    for s in some_positions(game, 3, seed):
        if game.is_terminal(s):
            continue
        for kwargs in settings_grid(seed):
            result = alphabeta(game, s, depth=depth, evaluate=evaluate, value_range=RANGE, **kwargs)
            check_minimax_result(game, bf, s, result, depth)
        every = alphabeta(
            game, s, depth=depth, evaluate=evaluate, value_range=RANGE, root_values=True
        )
        player = game.current_player(s)
        below = None if depth is None else depth - 1
        assert dict(every.action_values) == {
            a: bf.minimax(game.step(s, a), player, below) for a in game.legal_actions(s)
        }


def test_a_value_range_stops_at_a_proven_win() -> None:
    bf: BruteForce[tuple[int, ...], int] = BruteForce(TTT)
    states = nonterminal(TTT, TTT.initial())
    with_range = without = 0
    for s in states:
        bounded, unbounded = solve(TTT, s, value_range=RANGE), solve(TTT, s)
        check_minimax_result(TTT, bf, s, bounded)
        assert bounded.action == unbounded.action  # the first best move in search order
        with_range += bounded.stats.nodes
        without += unbounded.stats.nodes
    assert with_range < 0.8 * without
    # X to move can win at once in cell 0, the first legal move: nothing else is searched.
    s = (0, 1, 1, 2, 2, 0, 0, 0, 0)
    assert solve(TTT, s, value_range=RANGE).stats.nodes == 2
    assert solve(TTT, s).stats.nodes > 2


def test_a_kept_transposition_table_stays_exact_and_saves_work() -> None:
    """Solving the positions of a game one after another with one kept table, as solving
    agents do: every value and move is still exact, and the later solves reuse the earlier
    ones.  Both players' solves share the table: their entries must not mix."""
    bf: BruteForce[tuple[int, ...], int] = BruteForce(TTT)
    openings = [
        TTT.step(TTT.step(TTT.initial(), a), b) for a in range(9) for b in range(9) if a != b
    ]
    kept_nodes = fresh_nodes = 0
    for opening in openings:
        s = opening
        table = TranspositionTable()
        solved_for: set[int] = set()  # each player's first solve finds its table empty
        while not TTT.is_terminal(s):
            kept = solve(TTT, s, transpositions=table, value_range=RANGE)
            check_minimax_result(TTT, bf, s, kept)
            if kept.player in solved_for:
                kept_nodes += kept.stats.nodes
                fresh_nodes += solve(TTT, s, value_range=RANGE).stats.nodes
            solved_for.add(kept.player)
            s = TTT.step(s, kept.action)
        assert len(table) > 0
        table.clear()
        assert len(table) == 0
    # Most tic-tac-toe positions are draws, whose entries are mostly bounds that a new
    # root's window needs re-searched; in won positions the saving is far larger.
    assert kept_nodes < 0.8 * fresh_nodes


@pytest.mark.parametrize("bad", [(1.0, -1.0), (-math.inf, 1.0), (0.0,), (-1.0, math.nan)])
def test_a_bad_value_range_is_rejected(bad: Any) -> None:
    with pytest.raises(SearchError, match="value_range"):
        solve(TTT, TTT.initial(), value_range=bad)


def test_a_value_outside_the_value_range_is_an_error() -> None:
    game = Nim((3, 4))
    with pytest.raises(SearchError, match=r"returns gave -?1\.0 .* outside value_range"):
        solve(game, game.initial(), value_range=(-0.5, 0.5))
    with pytest.raises(SearchError, match="evaluate gave"):
        alphabeta(game, game.initial(), depth=2, evaluate=lambda s: (2.0, -2.0), value_range=RANGE)


# --------------------------------------------------------------------------------------
# Alpha-beta: depth limits


def check_depth_limited(
    game: Game[S, A],
    state: S,
    depth: int,
    evaluate: Callable[[S], Sequence[float]],
    kwargs: dict[str, Any],
    bf: BruteForce[S, A],
    exact_bf: BruteForce[S, A],
) -> None:
    """Alpha-beta at ``depth`` is brute-force depth-``depth`` minimax, and ``exact`` is
    consistent with the exact value and the game's height."""
    result = alphabeta(game, state, depth=depth, evaluate=evaluate, **kwargs)
    check_minimax_result(game, bf, state, result, depth)
    player = game.current_player(state)
    exact_value = exact_bf.minimax(state, player)
    if result.exact:
        assert result.value == exact_value, "exact=True, but not the game-theoretic value"
    if height(game, state) <= depth:
        assert result.exact, "no state at the depth limit, yet exact=False"
    if bf.minimax(state, player, depth) != exact_value:
        assert not result.exact, "the depth-limited value differs from the exact one"


@pytest.mark.parametrize("game", NIMS, ids=NIM_IDS)
def test_depth_limited_alphabeta_matches_depth_limited_minimax_in_nim(game: Nim) -> None:
    evaluate = random_evaluator(7)
    bf: BruteForce[NimState, tuple[int, int]] = BruteForce(game, evaluate)
    exact_bf: BruteForce[NimState, tuple[int, int]] = BruteForce(game)
    for s in nonterminal(game, game.initial()):
        for depth in (1, 2, 3, 5):
            for kwargs in settings_grid(depth):
                check_depth_limited(game, s, depth, evaluate, kwargs, bf, exact_bf)


def test_depth_limited_alphabeta_in_tictactoe() -> None:
    evaluate = random_evaluator(11)
    bf: BruteForce[tuple[int, ...], int] = BruteForce(TTT, evaluate)
    exact_bf: BruteForce[tuple[int, ...], int] = BruteForce(TTT)
    states = random.Random(4).sample(nonterminal(TTT, TTT.initial()), 60)
    for s in [TTT.initial(), *states]:
        for depth in (1, 2, 4):
            for kwargs in settings_grid(depth):
                check_depth_limited(TTT, s, depth, evaluate, kwargs, bf, exact_bf)


@settings(max_examples=100)
@given(random_trees(), st.integers(1, 5), st.integers(0, 2**16))
def test_depth_limited_alphabeta_on_random_games(game: RandomTree, depth: int, seed: int) -> None:
    root = game.initial()
    if game.is_terminal(root):
        return
    evaluate = random_evaluator(seed)
    bf: BruteForce[RTState, int] = BruteForce(game, evaluate)
    exact_bf: BruteForce[RTState, int] = BruteForce(game)
    for kwargs in settings_grid(seed):
        check_depth_limited(game, root, depth, evaluate, kwargs, bf, exact_bf)


def test_iterative_deepening_with_an_evaluator_and_no_depth_ends_exact() -> None:
    evaluate = random_evaluator(5)
    for game in NIMS:
        bf: BruteForce[NimState, tuple[int, int]] = BruteForce(game)
        for s in nonterminal(game, game.initial()):
            result = alphabeta(game, s, evaluate=evaluate)
            check_minimax_result(game, bf, s, result)
            assert result.exact


@pytest.mark.parametrize("nodes", [40, 90, 200, 500])
def test_a_budget_that_runs_out_keeps_the_last_completed_depth(nodes: int) -> None:
    game = Nim((3, 3, 3))
    s = game.initial()
    evaluate = random_evaluator(3)
    bf: BruteForce[NimState, tuple[int, int]] = BruteForce(game, evaluate)
    completed = alphabeta(game, s, depth=12, evaluate=evaluate, budget=Budget(nodes=nodes))
    assert 1 <= completed.stats.depth < 12
    assert completed.stats.nodes <= nodes
    check_minimax_result(game, bf, s, completed, completed.stats.depth)
    deeper = completed.stats.depth + 1
    needed = alphabeta(game, s, depth=deeper, evaluate=evaluate, iterative=False).stats.nodes
    if nodes < needed:
        with pytest.raises(BudgetExhausted):
            alphabeta(
                game,
                s,
                depth=deeper,
                evaluate=evaluate,
                iterative=False,
                budget=Budget(nodes=nodes),
            )


# --------------------------------------------------------------------------------------
# Alpha-beta: every root value


def check_root_values(
    game: Game[S, A],
    state: S,
    bf: BruteForce[S, A],
    depth: int | None = None,
    **kwargs: Any,
) -> None:
    """``root_values=True`` lists every legal action once with its child's brute-force
    value; the chosen action is a best one.  (The order of the list is checked by
    :func:`test_root_values_are_listed_in_legal_order`.)"""
    evaluate = bf.evaluate if depth is not None else None
    result = alphabeta(game, state, depth=depth, evaluate=evaluate, root_values=True, **kwargs)
    expected = bf.action_values(state, depth)
    assert len(result.action_values) == len(expected)
    assert dict(result.action_values) == dict(expected)
    assert result.value == max(v for _, v in expected)
    assert result.action in bf.best_actions(state, depth)


def test_root_values_in_nim_and_tictactoe() -> None:
    for game in NIMS:
        bf: BruteForce[NimState, tuple[int, int]] = BruteForce(game, random_evaluator(2))
        for s in nonterminal(game, game.initial()):
            for kwargs in settings_grid(1):
                check_root_values(game, s, bf, **kwargs)
                check_root_values(game, s, bf, 2, **kwargs)
    tbf: BruteForce[tuple[int, ...], int] = BruteForce(TTT, random_evaluator(2))
    for board in random.Random(5).sample(nonterminal(TTT, TTT.initial()), 150):
        check_root_values(TTT, board, tbf)
        check_root_values(TTT, board, tbf, 3, transpositions=False)


@settings(max_examples=80)
@given(random_trees(), st.integers(1, 4), st.integers(0, 2**16))
def test_root_values_on_random_games(game: RandomTree, depth: int, seed: int) -> None:
    root = game.initial()
    if game.is_terminal(root):
        return
    bf: BruteForce[RTState, int] = BruteForce(game, random_evaluator(seed))
    for kwargs in settings_grid(seed):
        check_root_values(game, root, bf, **kwargs)
        check_root_values(game, root, bf, depth, **kwargs)


def test_root_values_are_listed_in_legal_order() -> None:
    """``SearchResult.action_values`` is in legal-action order, whatever the search order
    (a move-ordering hook, or the table's best move first in iterative deepening)."""
    evaluate = random_evaluator(2)
    for game in NIMS:
        for s in nonterminal(game, game.initial()):
            legal = game.legal_actions(s)
            for kwargs in settings_grid(1):
                for depth in (None, 2):
                    ev = evaluate if depth is not None else None
                    result = alphabeta(
                        game, s, depth=depth, evaluate=ev, root_values=True, **kwargs
                    )
                    assert [a for a, _ in result.action_values] == legal, kwargs


def without_time(result: SearchResult[A]) -> SearchResult[A]:
    """``result`` with its clock time zeroed, to compare two searches."""
    return attrs.evolve(result, stats=result.stats.without_time())


def test_alphabeta_reports_depths_table_size_and_breaks_ties_in_search_order() -> None:
    evaluate = random_evaluator(3)
    for game in NIMS:
        bf: BruteForce[NimState, tuple[int, int]] = BruteForce(game)
        for s in nonterminal(game, game.initial()):
            high = height(game, s)
            table = TranspositionTable()
            kept = alphabeta(game, s, transpositions=table)
            assert kept.stats.tree_size == len(table) > 0
            assert alphabeta(game, s, transpositions=False).stats.tree_size == 0
            for depth in (1, 3):
                deep = alphabeta(game, s, depth=depth, evaluate=evaluate)
                # Deepening stops at the limit, or sooner once a search is exact.
                assert 1 <= deep.stats.iterations <= min(depth, high)
                assert deep.exact or deep.stats.iterations == depth
                assert deep.exact or high > depth
            capped = alphabeta(game, s, depth=3, evaluate=evaluate, budget=Budget(iterations=1))
            assert capped.stats.iterations == 1
            timed = alphabeta(game, s, budget=Budget(seconds=3600.0))  # a limit never met
            assert without_time(timed) == without_time(kept)
            # Without a table or deepening, the hook's order alone decides among equals.
            backwards = alphabeta(
                game, s, order=lambda _, legal: legal[::-1], transpositions=False, iterative=False
            )
            best = bf.best_actions(s)
            assert backwards.action == best[-1]


def test_solve_is_alphabeta_to_the_end_with_its_settings() -> None:
    game = RandomTree(5, zero_sum=True, depth=5, branching=3)
    root = game.initial()
    table = TranspositionTable()
    grid: list[dict[str, Any]] = [
        {},
        {"order": shuffled_order(5)},
        {"transpositions": False, "root_values": True},
        {"transpositions": table, "value_range": (-1.0, 1.0)},
        {"budget": Budget(nodes=10_000), "root_values": True, "order": shuffled_order(6)},
    ]
    for kwargs in grid:
        table.clear()
        solved = solve(game, root, **kwargs)
        table.clear()
        assert without_time(solved) == without_time(alphabeta(game, root, **kwargs)), kwargs
    assert solve(game, root).stats.tree_size > 0  # a table by default


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


# --------------------------------------------------------------------------------------
# MCTS


def unique_best(game: Game[S, A], bf: BruteForce[S, A], state: S) -> A | None:
    """The only action of greatest minimax value, if there is exactly one."""
    best = bf.best_actions(state)
    return best[0] if len(best) == 1 else None


def test_mcts_finds_the_unique_best_move_in_nim_and_tictactoe() -> None:
    picked = 0
    for game in NIMS:
        bf: BruteForce[NimState, tuple[int, int]] = BruteForce(game)
        for s in nonterminal(game, game.initial()):
            best = unique_best(game, bf, s)
            if best is not None:
                assert mcts(game, s, budget=Budget(iterations=1500), rng=picked).action == best
                picked += 1
    tbf: BruteForce[tuple[int, ...], int] = BruteForce(TTT)
    candidates = [
        board
        for board in nonterminal(TTT, TTT.initial())
        if board.count(0) <= 6 and unique_best(TTT, tbf, board) is not None
    ]
    for board in random.Random(7).sample(candidates, 40):
        result = mcts(TTT, board, budget=Budget(iterations=3000), rng=picked)
        assert result.action == unique_best(TTT, tbf, board), board
        picked += 1
    assert picked > 80


def dominant_action(game: RandomTree, state: RTState) -> int | None:
    """A root action whose worst leaf for the mover beats the best leaf of every other."""
    p = game.current_player(state)
    ranges = []
    for a in game.legal_actions(state):
        leaves = [
            game.returns(t)[p]
            for t in reachable_states(game, game.step(state, a))
            if game.is_terminal(t)
        ]
        ranges.append((min(leaves), max(leaves)))
    for a, (low, _) in enumerate(ranges):
        if all(low > high for b, (_, high) in enumerate(ranges) if b != a):
            return a
    return None


def test_mcts_finds_the_unique_best_move_on_random_games() -> None:
    # Depth 4: on deeper random trees UCT can need far more simulations to escape a
    # shallow decoy (a good early leaf next to a deep, better line).
    tried = 0
    for seed in range(300):
        game = RandomTree(seed, players=2, depth=4, branching=3, zero_sum=True)
        root = game.initial()
        best = unique_best(game, BruteForce(game), root)
        if best is None:
            continue
        assert mcts(game, root, budget=Budget(iterations=5000), rng=seed).action == best, seed
        tried += 1
        if tried == 40:
            break
    assert tried == 40
    dominated = 0
    for seed in range(2000):
        game = RandomTree(seed, players=3, depth=4, branching=3)
        root = game.initial()
        if game.is_terminal(root) or len(game.legal_actions(root)) < 2:
            continue
        best = dominant_action(game, root)
        if best is None:
            continue
        assert mcts(game, root, budget=Budget(iterations=1000), rng=seed).action == best, seed
        dominated += 1
        if dominated == 10:
            break
    assert dominated == 10


def test_mcts_progressive_bias_steers_early_and_fades() -> None:
    """A heuristic that prefers the root's worst move (and the first move elsewhere): an
    overwhelming bias makes UCT follow it, a moderate one fades with the visits (Chaslot et
    al. 2008), and bias 0 is plain UCT."""
    nim = Nim((3, 4, 5))
    bf: BruteForce[NimState, tuple[int, int]] = BruteForce(nim)
    tried = 0
    for s in nonterminal(nim, nim.initial()):
        best = unique_best(nim, bf, s)
        legal = nim.legal_actions(s)
        if best is None or len(legal) < 3 or tried == 12:
            continue
        values = dict(bf.action_values(s))
        worst = min(legal, key=lambda a: values[a])

        def misleading(
            state: NimState, actions: Sequence[tuple[int, int]], worst: tuple[int, int] = worst
        ) -> tuple[int, int]:
            # A heuristic may rely on the game's order (Durak's greedy move does).
            assert list(actions) == list(nim.legal_actions(state))
            return worst if worst in actions else actions[0]

        budget = Budget(iterations=1500)
        steered = mcts(
            nim, s, budget=budget, rng=tried, settings=TreeSettings(heuristic=misleading, bias=1e6)
        )
        assert steered.action == worst
        faded = mcts(
            nim, s, budget=budget, rng=tried, settings=TreeSettings(heuristic=misleading, bias=1.0)
        )
        assert faded.action == best, s
        plain = mcts(nim, s, budget=budget, rng=tried)
        assert same(
            plain,
            mcts(
                nim,
                s,
                budget=budget,
                rng=tried,
                settings=TreeSettings(heuristic=misleading, bias=0),
            ),
        )
        tried += 1
    assert tried == 12
    with pytest.raises(SearchError, match="heuristic"):
        MCTS(nim, settings=TreeSettings(bias=0.5))


def test_mcts_statistics_and_the_class_interface() -> None:
    game = Nim((2, 3, 4))
    root = game.initial()
    result = mcts(game, root, budget=Budget(iterations=700), rng=3)
    assert result.stats.iterations == 700
    assert [a for a, _ in result.visits] == game.legal_actions(root)
    assert sum(n for _, n in result.visits) == 700
    assert result.action == max(result.visits, key=lambda av: av[1])[0]
    assert result.value == result.value_of(result.action)
    assert result.vector is not None and len(result.vector) == 2
    searcher: MCTS[NimState, tuple[int, int]] = MCTS(game)
    first = searcher.search(root, budget=Budget(iterations=700), rng=3)
    assert first.action == result.action and first.visits == result.visits
    assert first.stats.without_time() == result.stats.without_time()
    # The next search from a child continues with the statistics gathered below it.
    child = game.step(root, result.action)
    again = searcher.search(child, budget=Budget(iterations=300), rng=4)
    assert sum(n for _, n in again.visits) > 300
    assert again.player == 1 and [a for a, _ in again.visits] == game.legal_actions(child)


class CountingNim(Nim):
    """Nim that counts its ``step`` calls."""

    steps = 0

    def step(self, state: NimState, action: tuple[int, int]) -> NimState:
        """As Nim, counted."""
        CountingNim.steps += 1
        return super().step(state, action)


def test_mcts_with_a_value_function_does_not_roll_out() -> None:
    """With ``evaluate``, each simulation steps once (to its new leaf); with the exact
    value function MCTS finds the unique winning moves."""
    game = CountingNim((2, 3, 4))
    bf: BruteForce[NimState, tuple[int, int]] = BruteForce(Nim((2, 3, 4)))  # steps uncounted

    def exact(s: NimState) -> tuple[float, float]:
        v = bf.minimax(s, 0)
        return (v, -v)

    for s in nonterminal(game, game.initial())[:60]:
        CountingNim.steps = 0
        result = mcts(
            game, s, budget=Budget(iterations=400), rng=1, settings=TreeSettings(evaluate=exact)
        )
        assert CountingNim.steps == result.stats.tree_size - 1
        best = unique_best(game, bf, s)
        if best is not None:
            assert result.action == best
    CountingNim.steps = 0
    result = mcts(game, game.initial(), budget=Budget(iterations=50), rng=1)
    assert CountingNim.steps > result.stats.tree_size - 1


def test_mcts_and_ismcts_choose_the_most_visited_action() -> None:
    """Even after few simulations, when a rarely tried action has the best mean."""
    deal, obs = card_position()
    p = CARDS.current_player(deal)
    for seed in range(20):
        budget = Budget(iterations=12 + seed)
        results = [
            mcts(TTT, TTT.initial(), budget=budget, rng=seed),
            ismcts(CARDS, obs, player=p, budget=budget, rng=seed),
        ]
        for result in results:
            visits = dict(result.visits)
            assert sum(visits.values()) == budget.iterations
            assert visits[result.action] == max(visits.values())
            assert result.value == result.value_of(result.action)


# --------------------------------------------------------------------------------------
# Determinism


def same(a: SearchResult[Any], b: SearchResult[Any]) -> bool:
    """Equal results but for the time taken."""
    return a.stats.without_time() == b.stats.without_time() and (
        (a.action, a.value, a.player, a.action_values, a.visits, a.vector, a.exact)
        == (b.action, b.value, b.player, b.action_values, b.visits, b.vector, b.exact)
    )


def card_position() -> tuple[CardState, CardObs]:
    """A first-trick position of the card game and its mover's observation."""
    s = CARDS.deal(3)
    return s, CARDS.observe(s, CARDS.current_player(s))


def searches() -> Iterator[tuple[str, Callable[[int | random.Random], SearchResult[Any]]]]:
    """Every algorithm, as a function of its rng."""
    nim = Nim((3, 4, 5))
    tree = RandomTree(6, players=3, depth=5, branching=3)  # 5 plies, 3 root actions
    ev = random_evaluator(1)
    budget = Budget(iterations=300)
    s, obs = card_position()
    p = CARDS.current_player(s)

    def world_search(w: CardState, r: random.Random) -> SearchResult[int]:
        return mcts(CARDS, w, budget=Budget(iterations=30), rng=r)

    yield "alphabeta", lambda r: alphabeta(nim, nim.initial(), depth=4, evaluate=ev)
    yield "solve", lambda r: solve(nim, nim.initial(), root_values=True)
    yield "maxn", lambda r: maxn(tree, tree.initial(), bounds=(0.0, 1.0))
    yield "mcts", lambda r: mcts(nim, nim.initial(), budget=budget, rng=r)
    yield "mcts-nodes", lambda r: mcts(nim, nim.initial(), budget=Budget(nodes=3000), rng=r)
    yield "pimc", lambda r: pimc(CARDS, obs, worlds=8, search=world_search, rng=r)
    yield (
        "pimc-mean",
        lambda r: pimc(CARDS, obs, worlds=8, search=world_search, combine="mean", rng=r),
    )
    yield (
        "pimc-visits",
        lambda r: pimc(CARDS, obs, worlds=8, search=world_search, combine="visits", rng=r),
    )
    yield "ismcts", lambda r: ismcts(CARDS, obs, player=p, budget=budget, rng=r)
    yield (
        "mcts-puct",
        lambda r: mcts(
            nim, nim.initial(), budget=budget, rng=r, settings=TreeSettings(prior=uniform)
        ),
    )
    yield (
        "ismcts-puct",
        lambda r: ismcts(
            CARDS, obs, player=p, budget=budget, rng=r, settings=TreeSettings(prior=uniform)
        ),
    )


#: The searches whose seed is used: some other seed searches differently.
SEEDED: tuple[str, ...] = ("mcts", "mcts-nodes", "pimc", "pimc-mean", "pimc-visits", "ismcts")
SEEDED += ("mcts-puct", "ismcts-puct")


@pytest.mark.parametrize(("name", "run"), list(searches()), ids=[n for n, _ in searches()])
def test_every_search_is_reproducible_from_its_seed(
    name: str, run: Callable[[int | random.Random], SearchResult[Any]]
) -> None:
    first = run(12)
    assert same(first, run(12))
    assert same(first, run(random.Random(12)))
    if name in SEEDED:
        assert any(not same(first, run(seed)) for seed in range(5))


# --------------------------------------------------------------------------------------
# Errors


def test_bad_input_raises_search_error() -> None:
    game = Nim((2, 2))
    end: NimState = ((0, 0), 0)
    s = game.initial()
    assert game.is_terminal(end)
    searches: list[Callable[[], object]] = [
        lambda: alphabeta(game, end),
        lambda: solve(game, end),
        lambda: maxn(game, end),
        lambda: mcts(game, end, budget=Budget(iterations=10), rng=0),
        lambda: alphabeta(game, s, depth=2),
        lambda: maxn(game, s, depth=2),
        lambda: mcts(game, s, budget=Budget(), rng=0),
        lambda: MCTS(game).search(s, budget=Budget(), rng=0),
        lambda: solve(game, end, budget=Budget(nodes=100)),
    ]
    for search in searches:
        with pytest.raises(SearchError):
            search()
    deal, obs = card_position()
    p = CARDS.current_player(deal)
    with pytest.raises(SearchError):
        ismcts(CARDS, obs, player=p, budget=Budget(), rng=0)
    with pytest.raises(SearchError):
        ismcts(CARDS, obs, player=1 - p, budget=Budget(iterations=5), rng=0)
    with pytest.raises(SearchError):
        pimc(CARDS, obs, worlds=3, rng=0, combine="mean", search=lambda w, r: solve(CARDS, w))
    with pytest.raises(SearchError, match="visits"):
        pimc(CARDS, obs, worlds=3, rng=0, combine="visits", search=lambda w, r: solve(CARDS, w))
    over = next(t for t in reachable_states(CARDS, deal) if CARDS.is_terminal(t))
    end_obs = CARDS.observe(over, p)
    with pytest.raises(SearchError):
        ismcts(CARDS, end_obs, player=p, budget=Budget(iterations=5), rng=0)
    bad: dict[str, Any]
    for bad in ({"iterations": 0}, {"nodes": -1}, {"seconds": 0}, {"iterations": 1.5}):
        with pytest.raises(SearchError):
            Budget(**bad)


def test_an_exact_search_that_runs_out_of_budget_raises() -> None:
    game = Nim((3, 3, 3))
    s = game.initial()
    needed = alphabeta(game, s, iterative=False).stats.nodes
    searches: list[Callable[[], object]] = [
        lambda: solve(game, s, budget=Budget(nodes=needed // 2)),
        lambda: alphabeta(game, s, iterative=False, budget=Budget(nodes=3)),
        lambda: alphabeta(
            game, s, depth=6, evaluate=random_evaluator(0), iterative=False, budget=Budget(nodes=3)
        ),
        lambda: maxn(game, s, budget=Budget(nodes=3)),
    ]
    for search in searches:
        with pytest.raises(BudgetExhausted):
            search()
    # A budget the search does not reach changes nothing.
    assert same(
        alphabeta(game, s, iterative=False, budget=Budget(nodes=2 * needed)),
        alphabeta(game, s, iterative=False),
    )


# --------------------------------------------------------------------------------------
# Imperfect information: the hidden-card game


def card_positions() -> list[tuple[CardState, CardObs]]:
    """Decision points of a few deals (one true state per distinct observation)."""
    seen: dict[CardObs, CardState] = {}
    for seed in range(6):
        deal = CARDS.deal(seed, leader=seed % 2)
        for s in reachable_states(CARDS, deal):
            if not CARDS.is_terminal(s) and len(CARDS.legal_actions(s)) > 1:
                seen.setdefault(CARDS.observe(s, CARDS.current_player(s)), s)
    return [(s, o) for o, s in seen.items()]


def world_values(obs: CardObs) -> dict[int, list[float]]:
    """For each legal action, its exact value in every consistent world (same order)."""
    out: dict[int, list[float]] = {}
    for w in CARDS.worlds(obs):
        for a, v in BruteForce(CARDS).action_values(w):
            out.setdefault(a, []).append(v)
    return out


def replays(world: CardState) -> bool:
    """Whether the plays of ``world`` are legal from the deal they imply."""
    hands = tuple(
        tuple(sorted((*h, *(c for q, c in world.plays if q == p))))
        for p, h in enumerate(world.hands)
    )
    s = CardState((hands[0], hands[1]), (), world.leader)
    for _, card in world.plays:
        if card not in CARDS.legal_actions(s):
            return False
        s = CARDS.step(s, card)
    return s == world


def test_the_hidden_card_game_is_consistent_and_has_both_kinds_of_positions() -> None:
    dominant = depends = 0
    for s, obs in card_positions():
        p = CARDS.current_player(s)
        worlds = CARDS.worlds(obs)
        assert s in worlds
        assert all(CARDS.observe(w, p) == obs and replays(w) for w in worlds)
        assert len(set(worlds)) == len(worlds)
        values = world_values(obs)
        best_everywhere = [
            a
            for a, vs in values.items()
            if all(v >= max(ws[i] for ws in values.values()) for i, v in enumerate(vs))
        ]
        dominant += bool(best_everywhere)
        depends += not best_everywhere
    assert dominant >= 5 and depends >= 5


def test_the_hidden_card_game_samples_every_consistent_world_uniformly() -> None:
    rng = random.Random(8)
    for _, obs in card_positions()[::10]:
        worlds = CARDS.worlds(obs)
        n = 40 * len(worlds)
        counts = Counter(CARDS.sample_world(obs, rng) for _ in range(n))
        assert set(counts) == set(worlds)
        # Each count is Binomial(n, 1/k) with mean 40: 40 ± 6 standard deviations.
        assert all(2 <= c <= 80 for c in counts.values()), counts


def other_world(s: CardState, obs: CardObs) -> CardState:
    """A different true state with the same observation."""
    return next(w for w in CARDS.worlds(obs) if w != s)


@pytest.mark.parametrize("combine", ["vote", "mean", "visits"])
def test_pimc_sees_only_the_observation(combine: Literal["vote", "mean", "visits"]) -> None:
    for s, obs in card_positions()[::7]:
        if len(CARDS.worlds(obs)) < 2:
            continue
        results = []
        for truth in (s, other_world(s, obs)):
            obs_t = CARDS.observe(truth, CARDS.current_player(truth))
            assert obs_t == obs
            spy = SpyGame(CARDS, truth, [obs_t])

            def world_search(
                w: CardState, r: random.Random, spy: SpyGame[CardState, int, CardObs] = spy
            ) -> SearchResult[int]:
                assert any(w is x for x in spy.sampled), "search got an unsampled world"
                if combine == "visits":
                    return mcts(spy, w, budget=Budget(iterations=30), rng=r)
                return alphabeta(spy, w, root_values=True)

            result = pimc(spy, obs_t, worlds=6, search=world_search, combine=combine, rng=9)
            assert len(spy.sampled) >= 6 and spy.calls > 0
            results.append(result)
        assert same(results[0], results[1])


def test_pimc_draws_its_worlds_from_the_sampler_it_is_given() -> None:
    positions = [(s, o) for s, o in card_positions() if len(CARDS.worlds(o)) >= 2][::9]
    assert positions
    for _, obs in positions:
        chosen = CARDS.worlds(obs)[-1]
        asked: list[CardObs] = []
        searched: list[CardState] = []

        def sample(o: CardObs, r: random.Random, chosen: CardState = chosen) -> CardState:
            asked.append(o)  # noqa: B023 (used before the next iteration)
            return chosen

        def world_search(w: CardState, r: random.Random) -> SearchResult[int]:
            searched.append(w)  # noqa: B023 (used before the next iteration)
            return alphabeta(CARDS, w, root_values=True)

        result = pimc(
            CARDS, obs, worlds=5, search=world_search, combine="mean", rng=2, sample=sample
        )
        assert asked == [obs] * 5 and all(w is chosen for w in searched)
        exact = alphabeta(CARDS, chosen, root_values=True)
        assert dict(result.action_values) == pytest.approx(dict(exact.action_values))


def test_ismcts_sees_only_the_observation() -> None:
    for s, obs in card_positions()[::5]:
        if len(CARDS.worlds(obs)) < 2:
            continue
        p = CARDS.current_player(s)
        results = []
        for truth in (s, other_world(s, obs)):
            obs_t = CARDS.observe(truth, p)
            spy = SpyGame(CARDS, truth, [obs_t])
            results.append(ismcts(spy, obs_t, player=p, budget=Budget(iterations=200), rng=4))
            assert len(spy.sampled) >= 200
        assert same(results[0], results[1])


def test_pimc_mean_converges_to_the_expectation_over_worlds() -> None:
    """With alphabeta's exact root values, PIMC's mean for each action is the average of the
    sampled worlds' values; over ``n`` uniform worlds and payoffs in [-1, 1] Hoeffding gives
    ``P(|mean - expectation| >= t) <= 2 exp(-n t^2 / 2)``: about 1e-6 for n = 600, t = 0.22."""
    n, tolerance = 600, 0.22
    positions = [(s, o) for s, o in card_positions() if len(CARDS.worlds(o)) >= 4][::6]
    assert len(positions) >= 4
    for s, obs in positions:
        exact = {a: sum(vs) / len(vs) for a, vs in world_values(obs).items()}
        per_world: list[SearchResult[int]] = []

        def world_search(w: CardState, r: random.Random) -> SearchResult[int]:
            result = alphabeta(CARDS, w, root_values=True)
            per_world.append(result)  # noqa: B023 (used before the next iteration)
            return result

        result = pimc(CARDS, obs, worlds=n, search=world_search, combine="mean", rng=1)
        assert len(per_world) == n
        legal = list(CARDS.legal_actions(s))
        assert [a for a, _ in result.action_values] == legal
        for a, mean in result.action_values:
            sampled = sum(r.value_of(a) for r in per_world) / n
            assert math.isclose(mean, sampled, abs_tol=1e-9)
            assert abs(mean - exact[a]) < tolerance, (obs, a, mean, exact[a])
        assert result.value_of(result.action) == max(v for _, v in result.action_values)
        assert result.value == result.value_of(result.action)
        assert result.stats.iterations == n


def test_pimc_vote_picks_the_majority() -> None:
    for w0, obs in card_positions()[::4]:
        chosen: list[int] = []

        def world_search(w: CardState, r: random.Random) -> SearchResult[int]:
            result = mcts(CARDS, w, budget=Budget(iterations=40), rng=r)
            chosen.append(result.action)  # noqa: B023 (used before the next iteration)
            return result

        result = pimc(CARDS, obs, worlds=15, search=world_search, rng=2)
        votes = Counter(chosen)
        assert sum(votes.values()) == 15
        assert result.visits == tuple((a, votes[a]) for a in CARDS.legal_actions(w0))
        assert votes[result.action] == max(votes.values())


def test_pimc_visits_picks_the_most_visited_over_all_worlds() -> None:
    decisive = 0
    for w0, obs in card_positions()[::4]:
        per_world: list[SearchResult[int]] = []

        def world_search(w: CardState, r: random.Random) -> SearchResult[int]:
            result = mcts(CARDS, w, budget=Budget(iterations=40), rng=r)
            per_world.append(result)  # noqa: B023 (used before the next iteration)
            return result

        result = pimc(CARDS, obs, worlds=15, search=world_search, combine="visits", rng=2)
        summed: Counter[int] = Counter()
        for r in per_world:
            summed.update(dict(r.visits))
        legal = CARDS.legal_actions(w0)
        assert result.visits == tuple((a, summed[a]) for a in legal)
        assert sum(summed.values()) == 15 * 40
        assert summed[result.action] == max(summed.values())
        votes = Counter(r.action for r in per_world)
        decisive += votes[result.action] < max(votes.values())
    # Somewhere the summed visits overrule the majority vote, so the two modes differ.
    assert decisive > 0


def test_pimc_reports_the_searchers_player_and_its_worlds_statistics() -> None:
    obs = next(o for w, o in card_positions() if CARDS.current_player(w) == 1)
    per_world: list[SearchResult[int]] = []

    def world_search(w: CardState, r: random.Random) -> SearchResult[int]:
        result = mcts(CARDS, w, budget=Budget(iterations=r.randrange(5, 40)), rng=r)
        per_world.append(result)
        return result

    result = pimc(CARDS, obs, worlds=6, search=world_search, rng=4)
    assert result.player == 1
    assert result.stats.iterations == len(per_world) == 6
    assert result.stats.nodes == sum(r.stats.nodes for r in per_world)
    assert result.stats.depth == max(r.stats.depth for r in per_world)
    assert result.stats.tree_size == max(r.stats.tree_size for r in per_world)
    assert len({r.stats.tree_size for r in per_world}) > 1  # so the maximum is a choice
    single = pimc(CARDS, obs, worlds=1, search=world_search, rng=4)
    assert single.stats.iterations == 1 and single.stats.nodes == per_world[-1].stats.nodes


def test_pimc_gives_nan_for_a_choice_no_world_valued() -> None:
    _, obs = card_positions()[0]

    def unvalued(w: CardState, r: random.Random) -> SearchResult[int]:
        return SearchResult(CARDS.legal_actions(w)[-1], 0.0, CARDS.current_player(w))

    result = pimc(CARDS, obs, worlds=3, search=unvalued, rng=0)
    assert math.isnan(result.value) and result.action_values == ()
    assert result.visits[-1][1] == 3


def test_pimc_vote_ranks_an_action_no_world_chose_below_every_chosen_one() -> None:
    _, obs = card_positions()[0]
    calls = itertools.count()

    def scripted(w: CardState, r: random.Random) -> SearchResult[int]:
        # World 0 chooses the last action, valuing only the first one (and that highly);
        # world 1 chooses the first action, valuing nothing.
        first, *_, last = CARDS.legal_actions(w)
        player = CARDS.current_player(w)
        if next(calls) % 2 == 0:
            return SearchResult(last, 0.0, player, ((first, 0.9),))
        return SearchResult(first, 0.0, player)

    result = pimc(CARDS, obs, worlds=1, search=scripted, rng=0)
    assert result.action == CARDS.legal_actions(CARDS.sample_world(obs, random.Random(0)))[-1]
    tied = pimc(CARDS, obs, worlds=2, search=scripted, rng=0)
    # One vote each: the valued action wins the tie over the unvalued one.
    assert tied.action == CARDS.legal_actions(CARDS.sample_world(obs, random.Random(0)))[0]
    assert tied.value == 0.9


def forced_after(s: CardState) -> bool:
    """Whether every move after the mover's next one is forced, in every world."""
    p = CARDS.current_player(s)
    obs = CARDS.observe(s, p)
    for w in CARDS.worlds(obs):
        for a in CARDS.legal_actions(w):
            for t in reachable_states(CARDS, CARDS.step(w, a)):
                if len(CARDS.legal_actions(t)) > 1:
                    return False
    return True


def forced_tail_positions() -> list[tuple[CardState, CardObs]]:
    """Decision points of 60 deals after which every move is forced, in every world."""
    seen: dict[CardObs, CardState] = {}
    for seed in range(60):
        for s in reachable_states(CARDS, CARDS.deal(seed, leader=seed % 2)):
            if not CARDS.is_terminal(s) and len(CARDS.legal_actions(s)) > 1:
                seen.setdefault(CARDS.observe(s, CARDS.current_player(s)), s)
    return [(s, o) for o, s in seen.items() if forced_after(s)]


def test_ismcts_finds_the_move_that_is_best_in_every_world() -> None:
    """Where the rest of the game is forced, a move at least as good as every other in each
    world and better in some has the highest expected payoff; ISMCTS must choose it."""
    found = 0
    for s, obs in forced_tail_positions():
        values = world_values(obs)
        for a, vs in values.items():
            others = [ws for b, ws in values.items() if b != a]
            if all(all(v >= w for v, w in zip(vs, ws, strict=True)) and vs != ws for ws in others):
                p = CARDS.current_player(s)
                result = ismcts(CARDS, obs, player=p, budget=Budget(iterations=1500), rng=found)
                assert result.action == a, (obs, values, result)
                found += 1
    assert found >= 10


def clear_best_positions() -> Iterator[
    tuple[CardState, CardObs, dict[int, list[float]], list[tuple[float, int]]]
]:
    """Forced-tail positions whose best action's expected payoff over the worlds beats the
    next one by 0.25 or more; with the per-world values and the sorted (mean, action)."""
    for s, obs in forced_tail_positions():
        values = world_values(obs)
        means = sorted(((sum(vs) / len(vs), a) for a, vs in values.items()), reverse=True)
        if means[0][0] - means[1][0] >= 0.25:
            yield s, obs, values, means


def test_ismcts_finds_the_best_move_in_expectation_over_worlds() -> None:
    """Where the rest of the game is forced, each root action's payoff is a fixed function
    of the uniformly sampled world, so ISMCTS's means converge to the expectations over the
    consistent worlds: with a clear margin it must choose the best one."""
    tried = 0
    for s, obs, values, means in clear_best_positions():
        p = CARDS.current_player(s)
        result = ismcts(CARDS, obs, player=p, budget=Budget(iterations=1500), rng=tried)
        assert result.action == means[0][1], (obs, means, result)
        for a, v in result.action_values:
            assert abs(v - sum(values[a]) / len(values[a])) < 0.5
        tried += 1
    assert tried >= 10


def test_ismcts_progressive_bias_steers_early_and_fades() -> None:
    """A heuristic that prefers the worst move: an overwhelming bias makes ISMCTS follow it,
    a moderate one fades as visits grow (Chaslot et al. 2008), and bias 0 is plain ISMCTS."""
    tried = 0
    for s, obs, _, means in clear_best_positions():
        worst = means[-1][1]

        def misleading(state: CardState, legal: Sequence[int], worst: int = worst) -> int:
            assert list(legal) == list(CARDS.legal_actions(state))
            return worst if worst in legal else legal[-1]

        p = CARDS.current_player(s)
        budget = Budget(iterations=1500)
        steered = ismcts(
            CARDS,
            obs,
            player=p,
            budget=budget,
            rng=tried,
            settings=TreeSettings(heuristic=misleading, bias=1e6),
        )
        assert steered.action == worst
        faded = ismcts(
            CARDS,
            obs,
            player=p,
            budget=budget,
            rng=tried,
            settings=TreeSettings(heuristic=misleading, bias=2.0),
        )
        assert faded.action == means[0][1], (obs, means, faded)
        plain = ismcts(CARDS, obs, player=p, budget=budget, rng=tried)
        unbiased = ismcts(
            CARDS,
            obs,
            player=p,
            budget=budget,
            rng=tried,
            settings=TreeSettings(heuristic=misleading, bias=0.0),
        )
        assert same(plain, unbiased)
        tried += 1
    assert tried >= 10
    with pytest.raises(SearchError, match="bias"):
        ismcts(CARDS, obs, player=p, budget=budget, rng=0, settings=TreeSettings(bias=-1.0))
    with pytest.raises(SearchError, match="heuristic"):
        ismcts(CARDS, obs, player=p, budget=budget, rng=0, settings=TreeSettings(bias=1.0))


# --------------------------------------------------------------------------------------
# PUCT: a policy prior (and a value function) guiding MCTS and ISMCTS


def uniform(state: Any, legal: Sequence[Any]) -> list[float]:
    return [1 / len(legal)] * len(legal)


def test_puct_with_a_uniform_prior_decides_as_uct_in_nim_and_tictactoe() -> None:
    """With nothing to prefer, PUCT is a different formula for the same exploration; on
    the positions with one best move, both find it."""
    compared = 0
    for game in NIMS:
        bf: BruteForce[NimState, tuple[int, int]] = BruteForce(game)
        for s in nonterminal(game, game.initial()):
            best = unique_best(game, bf, s)
            if best is None:
                continue
            uct = mcts(game, s, budget=Budget(iterations=1500), rng=compared)
            guided = mcts(
                game,
                s,
                budget=Budget(iterations=1500),
                rng=compared,
                settings=TreeSettings(prior=uniform),
            )
            assert uct.action == guided.action == best, s
            compared += 1
    tbf: BruteForce[tuple[int, ...], int] = BruteForce(TTT)
    boards = [
        b
        for b in nonterminal(TTT, TTT.initial())
        if b.count(0) <= 6 and unique_best(TTT, tbf, b) is not None
    ]
    for board in random.Random(8).sample(boards, 30):
        plain = mcts(TTT, board, budget=Budget(iterations=3000), rng=compared)
        steered = mcts(
            TTT,
            board,
            budget=Budget(iterations=3000),
            rng=compared,
            settings=TreeSettings(prior=uniform),
        )
        assert plain.action == steered.action == unique_best(TTT, tbf, board), board
        compared += 1
    assert compared > 70


def test_ismcts_with_a_uniform_prior_decides_as_plain_ismcts() -> None:
    tried = 0
    for s, obs, _, means in clear_best_positions():
        p = CARDS.current_player(s)
        budget = Budget(iterations=1500)
        plain = ismcts(CARDS, obs, player=p, budget=budget, rng=tried)
        guided = ismcts(
            CARDS, obs, player=p, budget=budget, rng=tried, settings=TreeSettings(prior=uniform)
        )
        assert plain.action == guided.action == means[0][1], (obs, means)
        tried += 1
    assert tried >= 10


def test_ismcts_uses_the_guides_it_is_given() -> None:
    calls: Counter[str] = Counter()

    def rollout(s: CardState, r: random.Random) -> int:
        calls["rollout"] += 1
        return CARDS.legal_actions(s)[0]

    def value(s: CardState) -> tuple[float, float]:
        calls["evaluate"] += 1
        return (0.0, 0.0)

    w0, obs = card_positions()[0]
    p = CARDS.current_player(w0)
    budget = Budget(iterations=5)
    ismcts(CARDS, obs, player=p, budget=budget, rng=1, settings=TreeSettings(rollout=rollout))
    assert calls["rollout"] > 0 and calls["evaluate"] == 0
    calls.clear()
    ismcts(CARDS, obs, player=p, budget=budget, rng=1, settings=TreeSettings(evaluate=value))
    assert calls["evaluate"] > 0 and calls["rollout"] == 0
    # One simulation: the preferred action is expanded first, even with a small bias.
    game = OneShot((0.25, -0.5, 0.75))

    def last(s: int, legal: Sequence[int]) -> int:
        return legal[-1]

    hinted = ismcts(
        game,
        -1,
        player=0,
        budget=Budget(iterations=1),
        rng=0,
        settings=TreeSettings(heuristic=last, bias=0.5),
    )
    assert hinted.visits == ((0, 0), (1, 0), (2, 1))
    # Each simulation of a one-shot game visits the root and one leaf.
    assert ismcts(game, -1, player=0, budget=Budget(iterations=9), rng=1).stats.nodes == 18


def test_mcts_is_a_fresh_tree_search_with_every_setting() -> None:
    root = (1, 1, 0, 2, 2, 0, 0, 0, 0)  # X to move wins at 2: stopping early pays
    budget = Budget(iterations=200)

    def first(state: tuple[int, ...], _: random.Random) -> int:
        return TTT.legal_actions(state)[0]

    def centre(state: tuple[int, ...], legal: Sequence[int]) -> int:
        return 4 if 4 in legal else legal[0]

    grid: list[dict[str, Any]] = [
        {"c": 0.3},
        {"rollout": first},
        {"evaluate": lambda s: (0.0, 0.0)},
        {"heuristic": centre, "bias": 2.0},
        {"prior": lambda s, legal: [1 / len(legal)] * len(legal), "c": 2.0},
        {"stop_early": True},
    ]
    for kwargs in grid:
        settings: TreeSettings[tuple[int, ...], int] = TreeSettings(**kwargs)
        fresh = MCTS(TTT, reuse_depth=0, settings=settings).search(root, budget=budget, rng=7)
        assert without_time(mcts(TTT, root, budget=budget, rng=7, settings=settings)) == (
            without_time(fresh)
        ), kwargs
    assert (
        mcts(
            TTT, root, budget=budget, rng=7, settings=TreeSettings(stop_early=True)
        ).stats.iterations
        < 200
    )


def puct_visits(payoffs: Sequence[float], prior: Sequence[float], c: float, n: int) -> list[int]:
    """The root visits of ``n`` PUCT simulations of a one-shot choice, from the rule alone:
    each simulation takes the first action with the best ``mean + c * P * sqrt(N) / (1 +
    visits)``, where an untried action's mean is the mean payoff of the tried ones (0 before
    any) and ``sqrt(N)`` is taken as 1 before the first simulation."""
    visits = [0] * len(payoffs)
    for done in range(n):
        total = sum(v * x for v, x in zip(visits, payoffs, strict=True))
        untried = total / done if done else 0.0
        scale = math.sqrt(done) if done else 1.0
        scores = [
            (payoffs[a] if visits[a] else untried) + c * prior[a] * scale / (1 + visits[a])
            for a in range(len(payoffs))
        ]
        visits[scores.index(max(scores))] += 1
    return visits


ONE_SHOTS = [
    ((0.5, -0.25, 0.75, 0.0), (0.1, 0.5, 0.25, 0.15), 1.5),
    ((-0.5, 0.25, 0.125, 1.0), (0.4, 0.3, 0.2, 0.1), 0.75),
    ((0.25, 0.25, -1.0), (0.2, 0.2, 0.6), 3.0),  # equal scores: the first action wins
]


@pytest.mark.parametrize(("payoffs", "prior", "c"), ONE_SHOTS)
def test_puct_root_visits_follow_the_rule(
    payoffs: tuple[float, ...], prior: tuple[float, ...], c: float
) -> None:
    game = OneShot(payoffs)
    expected = list(enumerate(puct_visits(payoffs, prior, c, 40)))
    budget = Budget(iterations=40)

    def policy(_: int, legal: Sequence[int]) -> list[float]:
        return [prior[a] for a in legal]

    searcher = MCTS(game, settings=TreeSettings(c=c, prior=policy))
    tree = searcher.search(game.initial(), budget=budget, rng=0)
    info = ismcts(
        game,
        game.initial(),
        player=0,
        budget=budget,
        rng=0,
        settings=TreeSettings(c=c, prior=policy),
    )
    for result in (tree, info):
        assert list(result.visits) == expected
        assert dict(result.action_values) == {a: payoffs[a] for a, n in expected if n}
        assert result.action == max(expected, key=lambda an: an[1])[0]
    assert searcher.root is not None
    assert {a: child.mean() for a, child in searcher.root.children} == {
        a: payoffs[a] for a, n in expected if n
    }
    assert Node(game.initial(), -1, [0]).mean() == 0.0  # before any visit


def perfect_guides(
    game: Any, bf: BruteForce[Any, Any]
) -> tuple[Callable[[Any, Sequence[Any]], list[float]], Callable[[Any], tuple[float, ...]]]:
    """A prior on the best moves only and the exact value (two players, zero-sum)."""

    def prior(state: Any, legal: Sequence[Any]) -> list[float]:
        best = set(bf.best_actions(state))
        return [1 / len(best) if a in best else 0.0 for a in legal]

    def value(state: Any) -> tuple[float, float]:
        v = bf.minimax(state, 0)
        return (v, -v)

    return prior, value


def test_puct_with_a_perfect_prior_and_value_needs_few_simulations() -> None:
    """With the exact value at the leaves and the prior on the best moves, 8 simulations
    find the best move of every position with one; UCT with the same 8 misses some."""
    tbf: BruteForce[tuple[int, ...], int] = BruteForce(TTT)
    prior, value = perfect_guides(TTT, tbf)
    boards = [
        b
        for b in nonterminal(TTT, TTT.initial())
        if b.count(0) >= 5 and unique_best(TTT, tbf, b) is not None
    ]
    budget = Budget(iterations=8)
    missed = 0
    for i, board in enumerate(random.Random(3).sample(boards, 60)):
        best = unique_best(TTT, tbf, board)
        guided = mcts(
            TTT, board, budget=budget, rng=i, settings=TreeSettings(prior=prior, evaluate=value)
        )
        assert guided.action == best, board
        missed += mcts(TTT, board, budget=budget, rng=i).action != best
    assert missed > 0


def test_ismcts_with_a_perfect_prior_finds_the_best_move_quickly() -> None:
    """In the hidden-card game, a prior on each world's best moves and the exact world
    values find the move best in expectation within 60 determinizations."""
    bf: BruteForce[CardState, int] = BruteForce(CARDS)
    prior, value = perfect_guides(CARDS, bf)
    tried = 0
    for s, obs, _, means in clear_best_positions():
        p = CARDS.current_player(s)
        result = ismcts(
            CARDS,
            obs,
            player=p,
            budget=Budget(iterations=60),
            rng=tried,
            settings=TreeSettings(prior=prior, evaluate=value),
        )
        assert result.action == means[0][1], (obs, means, result)
        tried += 1
    assert tried >= 10


def test_a_bad_prior_is_refused() -> None:
    game = Nim((2, 3))
    s = game.initial()

    def short(state: Any, legal: Sequence[Any]) -> list[float]:
        return [1.0]

    def negative(state: Any, legal: Sequence[Any]) -> list[float]:
        return [-0.5] + [1.0] * (len(legal) - 1)

    for bad in (short, negative):
        with pytest.raises(SearchError, match="prior must give one probability"):
            mcts(game, s, budget=Budget(iterations=10), rng=0, settings=TreeSettings(prior=bad))
    with pytest.raises(SearchError, match="bias or a prior"):
        mcts(
            game,
            s,
            budget=Budget(iterations=10),
            rng=0,
            settings=TreeSettings(prior=uniform, heuristic=lambda st, legal: legal[0], bias=1.0),
        )
    deal, obs = card_position()
    with pytest.raises(SearchError, match="prior must give one probability"):
        ismcts(
            CARDS,
            obs,
            player=CARDS.current_player(deal),
            budget=Budget(iterations=5),
            rng=0,
            settings=TreeSettings(prior=short),
        )
