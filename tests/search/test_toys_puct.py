"""PUCT: a policy prior (and a value function) guiding MCTS and ISMCTS.

Part of the correctness tests of :mod:`durak.search` on small games, against plain brute
force: the games are in ``toygames.py`` and ``imperfect_games.py``, the reference solvers in
``bruteforce.py`` and the shared positions and checks in ``toysearch.py``.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from durak.search import (
    MCTS,
    Budget,
    SearchError,
    TreeSettings,
    ismcts,
    mcts,
)
from durak.search.mcts import Node
from tests.support.bruteforce import BruteForce
from tests.support.imperfect_games import CardState, OneShot
from tests.support.toygames import Nim, NimState
from tests.support.toysearch import (
    CARDS,
    NIMS,
    TTT,
    card_position,
    card_positions,
    clear_best_positions,
    nonterminal,
    uniform,
    unique_best,
    without_time,
)

# --------------------------------------------------------------------------------------
# PUCT: a policy prior (and a value function) guiding MCTS and ISMCTS


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
