"""Alpha-beta: exact values, a value range, depth limits, every root value.

Part of the correctness tests of :mod:`durak.search` on small games, against plain brute
force: the games are in ``toygames.py`` and ``imperfect_games.py``, the reference solvers in
``bruteforce.py`` and the shared positions and checks in ``toysearch.py``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from durak.search import (
    Budget,
    BudgetExhausted,
    Game,
    SearchError,
    TranspositionTable,
    alphabeta,
    solve,
)
from tests.support.bruteforce import BruteForce, height
from tests.support.toygames import (
    Nim,
    NimState,
    RandomTree,
    RTState,
    random_evaluator,
    shuffled_order,
)
from tests.support.toysearch import (
    NIM_IDS,
    NIMS,
    TTT,
    A,
    S,
    check_minimax_result,
    nonterminal,
    random_trees,
    settings_grid,
    without_time,
)

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
