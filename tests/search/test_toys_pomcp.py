"""The best-response search (POMCP against fixed other players) on the hidden-card game,
against a brute-force best response over the searcher's own histories.

The other player's policy is fixed (it plays its highest legal card, or a uniformly
random one); the brute force takes, at every history of the searcher, the action of the
highest expected payoff over every world consistent with the root observation (each
equally likely, as ``sample_world`` draws them), each world moving on by the fixed policy.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence

import pytest

from durak.search import Budget, LeafBatch, SearchError, TreeSettings
from durak.search.pomcp import best_response
from tests.support.imperfect_games import CardObs, CardState
from tests.support.toysearch import CARDS, card_positions


def highest(state: CardState, rng: random.Random) -> int:
    """The fixed policy: the highest legal card."""
    return max(CARDS.legal_actions(state))


def uniform(state: CardState, rng: random.Random) -> int:
    """The fixed randomised policy: a uniform legal card."""
    legal = CARDS.legal_actions(state)
    return legal[rng.randrange(len(legal))]


def replies(state: CardState, policy: str) -> list[tuple[int, float]]:
    """The fixed policy's moves at ``state`` with their probabilities."""
    legal = CARDS.legal_actions(state)
    if policy == "highest":
        return [(max(legal), 1.0)]
    return [(a, 1.0 / len(legal)) for a in legal]


def advance(state: CardState, me: int, p: float, policy: str) -> list[tuple[CardState, float]]:
    """Every state where ``me`` moves next or the game ends, with its probability."""
    if CARDS.is_terminal(state) or CARDS.current_player(state) == me:
        return [(state, p)]
    out = []
    for a, q in replies(state, policy):
        out += advance(CARDS.step(state, a), me, p * q, policy)
    return out


def br_values(worlds: Sequence[tuple[CardState, float]], me: int, policy: str) -> dict[int, float]:
    """Per action of ``me`` (to move in every world, one observation), the best response's
    expected payoff (weights not normalized)."""
    out = {}
    for a in CARDS.legal_actions(worlds[0][0]):
        total = 0.0
        groups: dict[CardObs, list[tuple[CardState, float]]] = defaultdict(list)
        for s, p in worlds:
            for t, q in advance(CARDS.step(s, a), me, p, policy):
                if CARDS.is_terminal(t):
                    total += q * CARDS.returns(t)[me]
                else:
                    groups[CARDS.observe(t, me)].append((t, q))
        out[a] = total + sum(max(br_values(g, me, policy).values()) for g in groups.values())
    return out


def exact(obs: CardObs, policy: str) -> dict[int, float]:
    """The best response's value of each root action, normalized."""
    worlds = CARDS.worlds(obs)
    values = br_values([(w, 1.0) for w in worlds], obs[0], policy)
    return {a: v / len(worlds) for a, v in values.items()}


def positions() -> list[tuple[CardState, CardObs]]:
    """Decision points whose best action is clear (by 0.15), a few per deal."""
    out = []
    for s, obs in card_positions():
        values = sorted(exact(obs, "highest").values(), reverse=True)
        if len(values) > 1 and values[0] - values[1] > 0.15:
            out.append((s, obs))
    return out[::4]


@pytest.mark.parametrize("policy", ["highest", "uniform"])
def test_the_search_converges_to_the_brute_force_best_response(policy: str) -> None:
    respond = highest if policy == "highest" else uniform
    checked = 0
    for s, obs in positions():
        values = exact(obs, policy)
        best = max(values.values())
        result = best_response(
            CARDS,
            obs,
            player=CARDS.current_player(s),
            respond=respond,
            budget=Budget(iterations=4000),
            rng=3,
        )
        assert values[result.action] == pytest.approx(best, abs=0.02), (obs, values)
        assert result.value == pytest.approx(best, abs=0.1)
        checked += 1
    assert checked >= 5


def test_a_small_budget_is_further_from_the_best_response_than_a_large_one() -> None:
    def error(iterations: int) -> float:
        total = 0.0
        for s, obs in positions():
            values = exact(obs, "highest")
            for seed in range(4):
                result = best_response(
                    CARDS,
                    obs,
                    player=CARDS.current_player(s),
                    respond=highest,
                    budget=Budget(iterations=iterations),
                    rng=seed,
                )
                total += max(values.values()) - values[result.action]
        return total

    assert error(4) > error(2000) + 0.5


def test_the_same_seed_gives_the_same_decision_and_statistics() -> None:
    s, obs = positions()[0]
    me, budget = CARDS.current_player(s), Budget(iterations=300)
    run = [
        best_response(CARDS, obs, player=me, respond=uniform, budget=budget, rng=11)
        for _ in range(2)
    ]
    assert run[0].action == run[1].action and run[0].visits == run[1].visits


def test_a_leaf_batch_or_a_wrong_player_is_refused() -> None:
    s, obs = positions()[0]
    me = CARDS.current_player(s)
    with pytest.raises(SearchError, match="not to move"):
        best_response(
            CARDS, obs, player=1 - me, respond=highest, budget=Budget(iterations=5), rng=1
        )
    batch = TreeSettings[CardState, int](
        batch=LeafBatch(size=2, evaluate=lambda xs: [(0.0, 0.0) for _ in xs])
    )
    with pytest.raises(SearchError, match="no batch"):
        best_response(
            CARDS, obs, player=me, respond=highest, budget=Budget(iterations=5), rng=1,
            settings=batch,
        )  # fmt: skip
