"""``opponent=auto`` and ``infer=auto`` (issue 50): the posterior over candidate agents
learned from each opponent's moves finds the agent it plays, per seat, per game or
carried across games, and is a proper distribution; same seed, same decisions.

The numbers of moves are :data:`~durak.agents.inference.posterior.FIND_WITHIN`'s, as its
module documents: a scripted ``greedy`` within it (``greedy`` and ``smart`` choose alike
in nearly every position, so this takes longest), ``lowest`` within half of it and
``random`` within an eighth, each on five seeds none of which chose it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence

import attrs
import pytest

from durak.agents import make_agent
from durak.agents.inference.posterior import CANDIDATES, FIND_WITHIN, PosteriorModel
from durak.agents.searchers.ismcts import IsmctsAgent
from durak.agents.strongest import network_fits
from durak.arena.play.game import play_game
from durak.rules import (
    Action,
    GameState,
    Rules,
    is_terminal,
    legal_actions,
    loser,
    new_game,
    observe,
    step,
)

#: A cheap search: these tests check the posterior, not strength.
AUTO = "ismcts:opponent=auto,limit=20"


def auto_agent(spec: str = AUTO) -> IsmctsAgent:
    agent = make_agent(spec)
    assert isinstance(agent, IsmctsAgent)
    return agent


def weights_of(loglik: dict[str, float]) -> dict[str, float]:
    """A log-likelihood row as normalized weights."""
    top = max(loglik.values())
    raw = {c: math.exp(x - top) for c, x in loglik.items()}
    total = sum(raw.values())
    return {c: x / total for c, x in raw.items()}


def weight_after(opponent: str, seed: int, moves: int) -> float:
    """The posterior weight of ``opponent`` on itself at the agent's first decision after it
    has counted ``moves`` of the opponent's moves: a match with ``carry=true``, a new deal
    from ``seed`` each game, seats swapped each game."""
    agent, other = auto_agent("ismcts:opponent=auto,limit=5,carry=true"), make_agent(opponent)
    rng, before = random.Random(seed), 0  # opponent moves counted in earlier games
    for g in range(10 * moves):
        me, state, seen, counted = g % 2, new_game(Rules(), seed * 1000 + g), 0, 0
        agent.game_started(observe(state, me))
        while not is_terminal(state):
            p = state.turn
            if p == me:
                action = agent.act(observe(state, me), rng)
                counted = seen  # every opponent move so far, counted by this decision
                if before + counted >= moves:
                    posterior = agent.posteriors[me]
                    return dict(zip(posterior.names, posterior.weights(1 - me), strict=True))[
                        opponent
                    ]
            else:
                action = other.act(observe(state, p), rng)
                seen += 1
            state = step(state, action)
            agent.action_taken(p, action, observe(state, me))
        agent.game_ended(observe(state, me), loser(state))
        before += counted
    raise AssertionError("the games ended before the moves were counted")


#: Seeds no tuning looked at (FIND_WITHIN and the filter's size were set on others).
SEEDS = [31, 32, 33, 34, 35]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_scripted_greedy_is_found_within_the_documented_moves(seed: int) -> None:
    """``greedy`` alone, not ``greedy`` and ``smart`` together, at 0.95."""
    assert weight_after("greedy", seed, FIND_WITHIN) >= 0.95


@pytest.mark.parametrize("seed", SEEDS)
def test_a_scripted_lowest_is_found_within_half_of_them(seed: int) -> None:
    assert weight_after("lowest", seed, FIND_WITHIN // 2) >= 0.95


@pytest.mark.parametrize("seed", SEEDS)
def test_a_scripted_random_is_found_within_an_eighth_of_them(seed: int) -> None:
    assert weight_after("random", seed, FIND_WITHIN // 8) >= 0.95


def test_random_is_found_within_one_game() -> None:
    agent = auto_agent(AUTO + ",carry=true")
    play_game(Rules(), [make_agent("random"), agent], 702)
    assert weights_of(agent.carried[1])["random"] >= 0.95


def test_each_opponent_has_its_own_posterior_with_three_players() -> None:
    """Seat 1 plays ``random``, seat 2 ``greedy``: 60 moves of one game tell them apart."""
    # (Telling greedy from lowest takes more: test_four_games_find_lowest.)
    agent = auto_agent()
    others = {1: make_agent("random"), 2: make_agent("greedy")}
    state, rng = new_game(Rules(players=3), 704), random.Random(5)
    agent.game_started(observe(state, 0))
    for _ in range(60):
        p = state.turn
        action = (agent if p == 0 else others[p]).act(observe(state, p), rng)
        state = step(state, action)
        agent.action_taken(p, action, observe(state, 0))
    model = agent.auto_model(agent.logs[0].latest, {}, rng)  # counts the moves not yet counted
    posterior = agent.posteriors[0]
    random_seat = dict(zip(posterior.names, posterior.weights(1), strict=True))
    greedy_seat = dict(zip(posterior.names, posterior.weights(2), strict=True))
    assert random_seat["random"] >= 0.95, random_seat
    assert greedy_seat["random"] <= 0.01, greedy_seat
    # dmc is a candidate where its network fits (the 3-player one ships, issue 51)
    assert ("dmc" in posterior.names) == network_fits(Rules(players=3))
    assert set(model.weights) == {1, 2}
    for seat in (1, 2):
        assert model.weights[seat] == posterior.weights(seat)
        assert all(x >= 0 for x in model.weights[seat])
        assert math.isclose(sum(model.weights[seat]), 1.0)


def _some_states(seed: int, count: int) -> list[GameState]:
    rng, state = random.Random(seed), new_game(Rules(), seed)
    states: list[GameState] = []
    while len(states) < count:
        legal = legal_actions(state)
        if len(legal) > 1:
            states.append(state)
        state = step(state, rng.choice(legal))
    return states


def test_the_search_mixture_is_a_proper_distribution_for_any_posterior() -> None:
    agent = auto_agent()
    root = observe(new_game(Rules(), 1), 0)
    rng = random.Random(3)
    prior = agent.auto_model(root, {}, rng)
    assert isinstance(prior, PosteriorModel)
    for k, state in enumerate(_some_states(6, 30)):
        legal = legal_actions(state)
        skewed = [rng.random() ** 8 for _ in prior.models]
        weights = {state.turn: tuple(x / sum(skewed) for x in skewed)}
        for model in (prior, PosteriorModel(prior.models, weights)):
            p = model.policy(state, legal)
            assert all(x > 0 for x in p) and math.isclose(sum(p), 1.0), (k, p)
            assert model.rollout(state, random.Random(k)) in legal


@attrs.frozen
class _Sure:
    """A model certain of the first legal action (a forced move's only one)."""

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        return [1.0] + [0.0] * (len(legal) - 1)

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        return legal_actions(state)[0]

    def prime(self, states: Iterable[GameState]) -> None:
        pass


def test_the_mixture_of_certain_models_never_exceeds_one() -> None:
    """Regression: weights that sum to 1 in exact arithmetic summed to 1.0000000000000002
    in floating point, and the search refused that prior (a forfeit in a 400-game match
    against ``smart``)."""
    weights = (
        *(0.06497508948610788, 0.23596546127215418, 0.2549100110755437),
        *(0.21015011885826262, 0.23399931930793164),
    )
    model = PosteriorModel((_Sure(),) * len(weights), {0: weights})
    assert sum(w for _, w in model.mixture(0)) > 1  # the rounding the fix must absorb
    state = new_game(Rules(), 1)
    legal = legal_actions(state)
    p = model.policy(state, legal)
    assert all(0 <= x <= 1 for x in p) and p[0] == 1.0, p


def test_a_candidate_below_the_threshold_leaves_the_mixture_but_not_the_posterior() -> None:
    agent = auto_agent()
    prior = agent.auto_model(observe(new_game(Rules(), 1), 0), {}, random.Random(0))
    n = len(prior.models)
    tiny = (1e-4,) + ((1 - 1e-4) / (n - 1),) * (n - 1)
    model = PosteriorModel(prior.models, {1: tiny})
    assert [m for m, _ in model.mixture(1)] == list(prior.models[1:])
    assert len(model.mixture(0)) == n  # a seat without a posterior: the uniform prior


def test_the_prior_is_uniform_and_each_game_starts_from_it_without_carry() -> None:
    agent = auto_agent()
    play_game(Rules(), [agent, make_agent("greedy")], 705)
    first = observe(new_game(Rules(), 706), 0)
    assert not agent.carried  # without carry nothing is kept
    agent.game_started(first)
    w = agent.posteriors[0].weights(1)
    assert w == pytest.approx([1 / len(w)] * len(w))
    assert agent.posteriors[0].names[: len(CANDIDATES)] == CANDIDATES


def test_carry_starts_the_next_game_from_the_last_posterior_by_seat_offset() -> None:
    agent = auto_agent(AUTO + ",carry=true")
    play_game(Rules(), [make_agent("random"), agent], 707)  # the agent in seat 1
    kept = weights_of(agent.carried[1])
    agent.game_started(observe(new_game(Rules(), 708), 0))  # now in seat 0
    assert dict(zip(agent.posteriors[0].names, agent.posteriors[0].weights(1), strict=True)) == (
        pytest.approx(kept)
    )
    assert kept["random"] > 0.95


@pytest.mark.parametrize(
    "spec", [AUTO, "ismcts:infer=auto,candidates=4,limit=20", "mcts:infer=auto,limit=5,samples=2"]
)
def test_same_seed_same_decisions(spec: str) -> None:
    games = [play_game(Rules(), [make_agent(spec), make_agent("smart")], 709) for _ in range(2)]
    assert games[0].actions == games[1].actions
