"""The searches of :mod:`durak.search` on Durak, against brute force.

Small endgames of the 12-card deck (``Rules(lowest_rank=12)``: the talon is empty after the
deal) are reached by seeded random play until few cards are left and the game tree below
is small; plain memoized minimax and max^n (``bruteforce.py``) value them exactly.  The
imperfect-information searches are checked on the 24-card deck, where the talon and the
opponent's hand are hidden.  A last test checks that ``durak.search`` never imports the
Durak rules (the dependency points one way).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from durak.rules import (
    Action,
    DurakGame,
    GameState,
    Observation,
    Rules,
    is_terminal,
    legal_actions,
    new_game,
    observe,
    sample_world,
    step_unchecked,
)
from durak.search import (
    MCTS,
    Budget,
    SearchResult,
    TranspositionTable,
    alphabeta,
    ismcts,
    maxn,
    mcts,
    pimc,
    solve,
)
from tests.support.bruteforce import BruteForce
from tests.support.leak_spy import SpyGame

TWO = Rules(lowest_rank=12)
TWO_TRANSFER = Rules(lowest_rank=12, transfer=True)
THREE = Rules(players=3, lowest_rank=12, hand_size=4)
#: 24 cards, 6 each: 12 cards stay hidden in the talon.
HIDDEN = Rules(lowest_rank=9)


def cards_in_play(s: GameState) -> int:
    """Cards in the hands and on the table."""
    return sum(len(h) for h in s.hands) + sum(1 + (d is not None) for _, d in s.table)


def states_below(s: GameState, cap: int) -> int:
    """How many states are reachable from ``s``, counting at most ``cap + 1``."""
    seen = {s}
    stack = [s]
    while stack:
        x = stack.pop()
        for a in legal_actions(x):
            t = step_unchecked(x, a)
            if t not in seen:
                seen.add(t)
                if len(seen) > cap:
                    return len(seen)
                stack.append(t)
    return len(seen)


def endgames(
    rules: Rules, count: int, max_states: int, min_states: int = 20, cards: int = 6
) -> list[GameState]:
    """``count`` endgames of ``rules``: from ``new_game(rules, seed)`` for seeds 0, 1, ...,
    seeded random play to the first position with at most ``cards`` cards in play where the
    player to move has a choice; kept if ``min_states``..``max_states`` states are reachable
    from it (so that brute force stays fast and the position is not trivial)."""
    out: list[GameState] = []
    seed = 0
    while len(out) < count:
        rng = random.Random(seed)
        s = new_game(rules, seed)
        seed += 1
        while not is_terminal(s):
            la = legal_actions(s)
            if len(la) > 1 and cards_in_play(s) <= cards:
                if min_states <= states_below(s, max_states) <= max_states:
                    out.append(s)
                break
            s = step_unchecked(s, la[rng.randrange(len(la))])
    return out


def keyed_order(seed: int) -> Callable[[GameState, Sequence[Action]], list[Action]]:
    """A move-ordering hook: actions sorted by a seeded hash of their text (a fixed
    permutation of every action set, the same in every process)."""

    def order(state: GameState, actions: Sequence[Action]) -> list[Action]:
        return sorted(actions, key=lambda a: zlib.crc32(f"{seed}:{a}".encode()))

    return order


def hand_evaluator(s: GameState) -> tuple[float, ...]:
    """A crude value: fewer cards is better; zero-sum, within [-1, 1]."""
    sizes = [len(h) for h in s.hands]
    mean = sum(sizes) / len(sizes)
    return tuple((mean - n) / 12 for n in sizes)


def same(a: SearchResult[Any], b: SearchResult[Any]) -> bool:
    """Equal results but for the time taken."""
    return a.stats.without_time() == b.stats.without_time() and (
        (a.action, a.value, a.player, a.action_values, a.visits, a.vector, a.exact)
        == (b.action, b.value, b.player, b.action_values, b.visits, b.vector, b.exact)
    )


def check_exact(
    game: DurakGame, bf: BruteForce[GameState, Action], s: GameState, result: SearchResult[Action]
) -> None:
    """``result`` is the brute-force exact decision at ``s``."""
    player = game.current_player(s)
    value = bf.minimax(s, player)
    assert result.player == player
    assert result.value == value
    assert result.exact
    assert result.action in game.legal_actions(s)
    assert bf.minimax(game.step(s, result.action), player) == value


# --------------------------------------------------------------------------------------
# The exact solver


@pytest.mark.parametrize(
    ("rules", "count"), [(TWO, 300), (TWO_TRANSFER, 150)], ids=["2p-12c", "2p-12c-transfer"]
)
def test_solve_agrees_with_brute_force_on_endgames(rules: Rules, count: int) -> None:
    game = DurakGame(rules)
    bf: BruteForce[GameState, Action] = BruteForce(game)
    positions = endgames(rules, count, 400)
    order = keyed_order(1)
    for i, s in enumerate(positions):
        check_exact(game, bf, s, solve(game, s))
        check_exact(game, bf, s, solve(game, s, transpositions=False, order=order))
        check_exact(game, bf, s, alphabeta(game, s, iterative=False))
        check_exact(game, bf, s, solve(game, s, order=order, value_range=game.value_range))
        if i % 5 == 0:
            result = solve(game, s, root_values=True, order=order, value_range=game.value_range)
            check_exact(game, bf, s, result)
            expected = bf.action_values(s)
            assert len(result.action_values) == len(expected)
            assert dict(result.action_values) == dict(expected)


def test_a_kept_table_makes_the_later_solves_of_a_game_nearly_free() -> None:
    rules = Rules(lowest_rank=12)  # complete deals: every card is known from the start
    game = DurakGame(rules)
    kept_nodes = fresh_nodes = 0
    for seed in range(10):
        s = new_game(rules, seed)
        table = TranspositionTable()
        solved_for: set[int] = set()  # each player's first solve finds its table empty
        while not game.is_terminal(s):
            kept = solve(game, s, transpositions=table, value_range=game.value_range)
            fresh = solve(game, s, value_range=game.value_range)
            assert kept.value == fresh.value
            if kept.player in solved_for:
                kept_nodes += kept.stats.nodes
                fresh_nodes += fresh.stats.nodes
            solved_for.add(kept.player)
            s = game.step(s, kept.action)
    assert kept_nodes < 0.2 * fresh_nodes


def test_depth_limited_alphabeta_agrees_with_brute_force_on_endgames() -> None:
    game = DurakGame(TWO)
    bf: BruteForce[GameState, Action] = BruteForce(game, hand_evaluator)
    exact: BruteForce[GameState, Action] = BruteForce(game)
    for s in endgames(TWO, 60, 400):
        player = game.current_player(s)
        for depth in (1, 3, 6):
            for tt in (True, False):
                result = alphabeta(game, s, depth=depth, evaluate=hand_evaluator, transpositions=tt)
                assert result.value == bf.minimax(s, player, depth)
                assert bf.minimax(game.step(s, result.action), player, depth - 1) == result.value
                if result.exact:
                    assert result.value == exact.minimax(s, player)


# --------------------------------------------------------------------------------------
# Max^n


def test_maxn_with_pruning_agrees_with_brute_force_on_three_player_endgames() -> None:
    game = DurakGame(THREE)
    assert game.payoff_bounds == (-1.0, 0.0)
    order = keyed_order(2)
    plain: BruteForce[GameState, Action] = BruteForce(game)
    ordered: BruteForce[GameState, Action] = BruteForce(game, order=order)
    pruned_nodes = full_nodes = 0
    for s in endgames(THREE, 80, 600):
        vector, action = plain.maxn(s)
        for bounds in (game.payoff_bounds, None):
            result = maxn(game, s, bounds=bounds)
            assert (result.vector, result.action) == (vector, action)
            assert result.value == vector[game.current_player(s)]
            assert result.exact
        pruned_nodes += maxn(game, s, bounds=game.payoff_bounds).stats.nodes
        full_nodes += maxn(game, s).stats.nodes
        vector, action = ordered.maxn(s)
        result = maxn(game, s, bounds=game.payoff_bounds, order=order)
        assert (result.vector, result.action) == (vector, action)
        paranoid = maxn(game, s, paranoid=True)
        assert paranoid.value == plain.minimax(s, game.current_player(s))
        # The paranoid value lies in the game's value range (-1 to 1/2 with three players).
        assert solve(game, s, value_range=game.value_range).value == paranoid.value
    assert game.value_range == (-1.0, 0.5)
    assert pruned_nodes < full_nodes


def test_maxn_with_pruning_on_two_player_transfer_endgames() -> None:
    game = DurakGame(TWO_TRANSFER)
    bf: BruteForce[GameState, Action] = BruteForce(game)
    for s in endgames(TWO_TRANSFER, 40, 400):
        vector, action = bf.maxn(s)
        result = maxn(game, s, bounds=game.payoff_bounds)
        assert (result.vector, result.action) == (vector, action)
        assert result.value == bf.minimax(s, game.current_player(s))


# --------------------------------------------------------------------------------------
# MCTS


def test_mcts_finds_the_unique_winning_move() -> None:
    game = DurakGame(TWO)
    bf: BruteForce[GameState, Action] = BruteForce(game)
    found = 0
    for s in endgames(TWO, 200, 150):
        values = bf.action_values(s)
        winning = [a for a, v in values if v == 1.0]
        if len(winning) != 1 or len(values) < 2:
            continue
        result = mcts(game, s, budget=Budget(iterations=2000), rng=found)
        assert result.action == winning[0], (s, values, result)
        found += 1
        if found == 20:
            break
    assert found == 20


# --------------------------------------------------------------------------------------
# Imperfect information


def twin_states(seed: int, plies: int) -> tuple[GameState, GameState, int]:
    """Two different states of the 24-card game that the player to move cannot tell
    apart: a seeded random position and a different world sampled from its observation."""
    rng = random.Random(seed)
    s = new_game(HIDDEN, seed)
    for _ in range(plies):
        la = legal_actions(s)
        s = step_unchecked(s, la[rng.randrange(len(la))])
    assert not is_terminal(s)
    p = s.turn
    obs = observe(s, p)
    other = next(w for w in (sample_world(obs, rng) for _ in range(100)) if w != s)
    assert observe(other, p) == obs
    return s, other, p


def world_search(
    game: Any,
) -> Callable[[GameState, random.Random], SearchResult[Action]]:
    """A perfect-information search of one world for PIMC: a short MCTS."""

    def search(world: GameState, rng: random.Random) -> SearchResult[Action]:
        return mcts(game, world, budget=Budget(iterations=40), rng=rng)

    return search


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pimc_and_ismcts_decide_from_the_observation_alone(seed: int) -> None:
    game = DurakGame(HIDDEN)
    first, second, p = twin_states(seed, 3 * seed)
    results: dict[str, list[SearchResult[Action]]] = {"pimc": [], "mean": [], "ismcts": []}
    for truth in (first, second):
        obs = observe(truth, p)
        spy: SpyGame[GameState, Action, Observation] = SpyGame(game, truth, [obs])
        results["pimc"].append(pimc(spy, obs, worlds=5, search=world_search(spy), rng=seed))
        spy = SpyGame(game, truth, [obs])
        results["mean"].append(
            pimc(spy, obs, worlds=5, search=world_search(spy), combine="mean", rng=seed)
        )
        spy = SpyGame(game, truth, [obs])
        results["ismcts"].append(
            ismcts(spy, obs, player=p, budget=Budget(iterations=150), rng=seed)
        )
        assert spy.calls > 0 and len(spy.sampled) >= 150
    for name, (a, b) in results.items():
        assert same(a, b), name


def test_the_spy_catches_a_search_that_uses_the_true_state() -> None:
    game = DurakGame(HIDDEN)
    truth, _, p = twin_states(4, 2)
    obs = observe(truth, p)
    spy: SpyGame[GameState, Action, Observation] = SpyGame(game, truth, [obs])
    with pytest.raises(AssertionError, match="not produced"):
        mcts(spy, truth, budget=Budget(iterations=5), rng=0)


# --------------------------------------------------------------------------------------
# Determinism


def test_every_search_is_reproducible_on_durak() -> None:
    game = DurakGame(TWO)
    endgame = endgames(TWO, 1, 3000)[0]
    opening = new_game(TWO, 5)
    hidden = DurakGame(HIDDEN)
    truth, _, p = twin_states(6, 4)
    obs = observe(truth, p)
    runs: list[Callable[[int | random.Random], SearchResult[Action]]] = [
        lambda r: solve(game, endgame),
        lambda r: alphabeta(game, opening, depth=4, evaluate=hand_evaluator),
        lambda r: maxn(game, endgame, bounds=game.payoff_bounds),
        lambda r: mcts(game, opening, budget=Budget(iterations=200), rng=r),
        lambda r: MCTS(game).search(opening, budget=Budget(nodes=2000), rng=r),
        lambda r: pimc(hidden, obs, worlds=4, search=world_search(hidden), rng=r),
        lambda r: ismcts(hidden, obs, player=p, budget=Budget(iterations=100), rng=r),
    ]
    for run in runs:
        assert same(run(3), run(3))
        assert same(run(3), run(random.Random(3)))


_SCRIPT = """
import random
from durak.rules import DurakGame, Rules, new_game, observe
from durak.search import Budget, alphabeta, ismcts, maxn, mcts, pimc
game = DurakGame(Rules(lowest_rank=9))
s = new_game(game.rules, 8)
obs = observe(s, s.turn)
def world(w, r):
    return mcts(game, w, budget=Budget(iterations=30), rng=r)
for result in (
    mcts(game, s, budget=Budget(iterations=150), rng=1),
    ismcts(game, obs, player=s.turn, budget=Budget(iterations=100), rng=1),
    pimc(game, obs, worlds=3, search=world, rng=1),
    alphabeta(game, s, depth=3, evaluate=lambda t: (0.0, 0.0)),
    maxn(game, s, depth=2, evaluate=lambda t: (0.0, 0.0), bounds=game.payoff_bounds),
):
    print(result.action, result.value, result.action_values, result.visits, result.vector)
    print(result.stats.without_time())
"""


def test_results_do_not_depend_on_the_hash_seed_of_the_process() -> None:
    outputs = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert next(iter(outputs)).count("SearchStats") == 5
