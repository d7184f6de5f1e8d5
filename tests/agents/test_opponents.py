"""Opponent models in search: they change only the other players' nodes.

With the opponent model equal to the searcher's own policy the decisions are today's (the
same seed, the same decisions); a model is only ever asked where another player moves; and
a different model does change some decisions (so the first test can fail).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import attrs
import pytest

import durak.search
from durak.agents import make_agent
from durak.agents.inference.inferring import opponent_model
from durak.agents.inference.opponents import GreedyModel, MixModel, by_mover, most_likely
from durak.agents.searchers import ismcts as ismcts_agent
from durak.agents.searchers.options import searched_game
from durak.arena.play.game import play_game
from durak.rules import Action, GameState, Rules, legal_actions
from durak.search import SearchResult
from durak.testing.games import random_game_observations
from tests.support.extras import require_extra

#: Observations with a choice from a few random 36-card games (the bundled model's game).
CHOICES = [o for o in random_game_observations(Rules(), 2, 21) if len(o.legal_actions) > 1][::3]


def searched(
    spec: str, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[tuple[tuple[Action, int], ...], tuple[tuple[Action, float], ...]]]:
    """The root visits and values of the agent's search at every observation of
    :data:`CHOICES` (seeded by its index): the whole search, not only its decision."""
    seen = []
    real = durak.search.ismcts  # the search the agent calls (the agent's module imports it)

    def recording(*args: Any, **kwargs: Any) -> SearchResult[Action]:
        result = real(*args, **kwargs)
        seen.append((result.visits, result.action_values))
        return result

    monkeypatch.setattr(ismcts_agent, "ismcts", recording)
    agent = make_agent(spec)
    for k, o in enumerate(CHOICES):
        agent.act(o, random.Random(k))
    monkeypatch.undo()
    return seen


@pytest.mark.parametrize("own", ["ismcts:limit=60", "ismcts:limit=60,bias=0"])
def test_an_opponent_model_equal_to_the_searchers_own_changes_nothing(
    own: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The greedy model without errors is the searcher's own greedy rollout and biased
    move: every root visit count and value is that of the search without it."""
    plain = searched(own, monkeypatch)
    assert plain == searched(f"{own},opponent=greedy,epsilon=0", monkeypatch)


@pytest.mark.parametrize(
    ("own", "model"),
    [
        ("ismcts:limit=60", "opponent=greedy,epsilon=0.3"),
        ("ismcts:limit=60,simulation=random", "opponent=greedy,epsilon=0"),
    ],
)
def test_a_different_opponent_model_changes_the_search(
    own: str, model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """So the test above can fail: a model unlike the searcher's own changes it."""
    plain = searched(own, monkeypatch)
    modelled = searched(f"{own},{model}", monkeypatch)
    assert len(plain) == len(modelled) and plain != modelled


@attrs.define
class Spy:
    """A greedy model that records the player to move at every call."""

    movers: list[int] = attrs.field(factory=list)

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        self.movers.append(state.turn)
        return GreedyModel(0.2).policy(state, legal)

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        self.movers.append(state.turn)
        return GreedyModel(0.2).rollout(state, rng)


@pytest.mark.parametrize("spec", ["ismcts:limit=40,opponent=greedy", "ismcts:limit=40,bias=0"])
def test_the_model_is_asked_only_where_another_player_moves(
    spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = Spy()
    monkeypatch.setattr(ismcts_agent.IsmctsAgent, "model", lambda self, kind, *_: spy)
    agent = make_agent(spec + ("" if "opponent" in spec else ",opponent=greedy"))
    for k, o in enumerate(CHOICES[:4]):
        agent.act(o, random.Random(k))
        assert spy.movers and o.player not in spy.movers
        spy.movers.clear()


def test_by_mover_picks_the_hook_of_the_player_to_move() -> None:
    o = CHOICES[0]
    state = searched_game(o).sample_world(o, random.Random(0))
    hook = by_mover(state.turn, lambda s, x: ("own", x), lambda s, x: ("other", x))
    assert hook(state, 1) == ("own", 1)
    other = by_mover(1 - state.turn, lambda s, x: ("own", x), lambda s, x: ("other", x))
    assert other(state, 2) == ("other", 2)


def test_models_are_distributions_over_the_legal_actions() -> None:
    rng = random.Random(5)
    for o in CHOICES[:10]:
        state = searched_game(o).sample_world(o, rng)
        legal = legal_actions(state)
        for model in (
            GreedyModel(0.0),
            GreedyModel(0.3),
            MixModel(GreedyModel(0), GreedyModel(1), 0.5),
        ):
            p = model.policy(state, legal)
            assert len(p) == len(legal) and abs(sum(p) - 1) < 1e-9 and min(p) >= 0
            assert model.rollout(state, rng) in legal
        assert most_likely(GreedyModel(0.3), state, legal) == GreedyModel(0).rollout(state, rng)


@pytest.mark.parametrize(
    "spec",
    [
        "pomcp:limit=2,target=openspiel-ismcts:simulations=2;worlds=1;rollouts=1",
        "ismcts:limit=2,opponent=openspiel-ismcts:simulations=2;worlds=1;rollouts=1",
    ],
)
def test_a_target_with_a_parameter_named_policy_is_asked_to_act(spec: str) -> None:
    """openspiel-ismcts has a spec parameter ``policy`` (a string): it states no policy, and
    a model or a best response that took it for one called the string (a forfeit)."""
    require_extra("pyspiel")
    rules = Rules(lowest_rank=10, hand_size=3)
    record = play_game(rules, [make_agent(spec, rules), make_agent("greedy")], seed=4)
    assert record.forfeit is None and record.actions


@pytest.mark.parametrize("kind", ["dmc", "mix"])
def test_a_guided_model_without_a_guide_is_refused_by_name(kind: str) -> None:
    with pytest.raises(ValueError) as refused:
        opponent_model(kind, 0.1, 0.5, None)
    assert str(refused.value) == f"the {kind} opponent model needs a guide"
    assert isinstance(opponent_model("greedy", 0.1, 0.5, None), GreedyModel)  # needs none
