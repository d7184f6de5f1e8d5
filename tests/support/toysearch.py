"""Shared pieces of the ``tests/search/test_toys_*`` files: the toy games' instances, position
generators and result checks (the games are in ``toygames.py`` and ``imperfect_games.py``,
brute force in ``bruteforce.py``)."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator, Sequence
from typing import Any, TypeVar

import attrs
from hypothesis import strategies as st

from durak.search import (
    Game,
    SearchResult,
)
from tests.support.bruteforce import BruteForce, reachable_states
from tests.support.imperfect_games import CardObs, CardState, HiddenCardGame
from tests.support.toygames import Nim, RandomTree, TicTacToe, shuffled_order

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


def without_time(result: SearchResult[A]) -> SearchResult[A]:
    """``result`` with its clock time zeroed, to compare two searches."""
    return attrs.evolve(result, stats=result.stats.without_time())


def unique_best(game: Game[S, A], bf: BruteForce[S, A], state: S) -> A | None:
    """The only action of greatest minimax value, if there is exactly one."""
    best = bf.best_actions(state)
    return best[0] if len(best) == 1 else None


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


def uniform(state: Any, legal: Sequence[Any]) -> list[float]:
    return [1 / len(legal)] * len(legal)
