"""The lifecycle of an inferring agent (:class:`~durak.agents.inference.inferring.Inferring`):
what it builds for which option, what it keeps during a game and drops after, and when it
weighs worlds; and a guide model's priming (issue 65: survivors of the mutation runs)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import cast

import pytest

import durak.agents.inference.inferring as inferring_module
from durak.agents import make_agent
from durak.agents.guides import Guidance, Guide
from durak.agents.inference.agent_model import AgentModel
from durak.agents.inference.inferring import SURE, Inferring
from durak.agents.inference.opponents import GreedyModel, GuideModel, MixModel
from durak.agents.inference.posterior import CANDIDATES, ArgmaxGuideModel, PosteriorModel
from durak.agents.optional import MissingAgentExtraError
from durak.rules import Observation, Rules, Visibility, new_game, observe
from tests.support.played_logs import played_log


def _inferring(spec: str) -> Inferring:
    return cast(Inferring, make_agent(spec))


@pytest.mark.parametrize("infer", ["greedy", "auto"])
def test_the_candidates_are_built_for_auto_alone(infer: str) -> None:
    agent = _inferring(f"mcts:limit=5,infer={infer}")
    assert set(agent.candidates_built) == (set(CANDIDATES) if infer == "auto" else set())
    assert len(agent.auto_guide) == (infer == "auto")


def test_auto_shares_the_network_the_search_already_loaded() -> None:
    agent = _inferring("ismcts:limit=5,prior=dmc,opponent=auto")
    (guide,) = agent.auto_guide
    assert guide is agent.guides["dmc"]


def test_auto_goes_without_the_network_where_no_dmc_guide_is_registered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(inferring_module, "guide_names", lambda: {})
    agent = _inferring("mcts:limit=5,infer=auto")
    assert agent.auto_guide == [] and set(agent.candidates_built) == set(CANDIDATES)


def test_auto_goes_without_the_network_where_its_extra_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def missing(name: str) -> Guide:
        raise MissingAgentExtraError(f"{name} needs torch")

    monkeypatch.setattr(inferring_module, "make_guide", missing)
    agent = _inferring("mcts:limit=5,infer=auto")
    assert agent.auto_guide == [] and set(agent.candidates_built) == set(CANDIDATES)
    assert agent.candidate_names(observe(new_game(Rules(), 1), 0)) == CANDIDATES


@pytest.mark.parametrize("visibility", [False, True, "full"])
def test_auto_mixes_the_candidates_with_the_agents_settings(visibility: Visibility) -> None:
    agent = _inferring("mcts:limit=5,infer=auto,epsilon=0.2,draws=3,model_temperature=0.5")
    observation = observe(new_game(Rules(), 1), 0, visibility)
    cache: dict[Observation, Sequence[float]] = {}
    rng = random.Random(0)
    model = agent.auto_model(observation, cache, rng)
    assert agent.candidate_names(observation) == (*CANDIDATES, "dmc")
    *scripted, dmc = model.models
    assert scripted == [
        AgentModel(agent.candidates_built[name], 0.2, 3, rng, visibility) for name in CANDIDATES
    ]
    assert all(cast(AgentModel, m).rng is rng for m in scripted)
    # the network's scores go in the decision's cache, shared with the search
    assert dmc == ArgmaxGuideModel(Guidance(agent.auto_guide[0], 0.5, cache), 0.2)
    assert dmc.guidance.cache is cache
    assert model.weights == {}  # no game started: the prior


@pytest.mark.parametrize("visibility", [False, True, "full"])
def test_an_agent_spec_model_is_seeded_from_the_decisions_generator(
    visibility: Visibility,
) -> None:
    agent = _inferring("mcts:limit=5,infer=lowest,epsilon=0.2,draws=3")
    observation = observe(new_game(Rules(), 1), 0, visibility)
    rng, twin = random.Random(5), random.Random(5)
    model = agent.model("lowest", {}, rng, observation)
    seed = twin.getrandbits(64)
    assert rng.getstate() == twin.getstate()  # 64 bits drawn, no more
    assert isinstance(model, AgentModel)
    assert model == AgentModel(agent.agents["lowest"], 0.2, 3, model.rng, visibility)
    assert model.rng.getstate() == random.Random(seed).getstate()


@pytest.mark.parametrize("kind", ["dmc", "mix"])
def test_a_guided_model_shares_the_decisions_score_cache(kind: str) -> None:
    agent = _inferring(f"mcts:limit=5,infer={kind},model_temperature=0.5,mix=0.25")
    observation = observe(new_game(Rules(), 1), 0)
    cache: dict[Observation, Sequence[float]] = {}
    model = agent.model(kind, cache, random.Random(0), observation)
    guided = model if kind == "dmc" else cast(MixModel, model).first
    guidance = cast(GuideModel, guided).guidance
    assert guidance == Guidance(agent.guides["dmc"], 0.5, cache) and guidance.cache is cache
    if kind == "mix":
        assert model == MixModel(guided, GreedyModel(0.1), 0.25)


@pytest.mark.parametrize(
    ("spec", "logs", "posteriors"),
    [
        ("mcts:limit=5", False, False),
        ("mcts:limit=5,infer=greedy", True, False),
        ("mcts:limit=5,infer=auto", True, True),
        ("ismcts:limit=5,opponent=auto", True, True),
    ],
)
def test_a_game_keeps_a_log_with_inference_and_posteriors_with_auto_until_it_ends(
    spec: str, logs: bool, posteriors: bool
) -> None:
    agent = _inferring(spec)
    log, _ = played_log()
    agent.game_started(log.start)
    assert set(agent.logs) == ({0} if logs else set())
    assert set(agent.posteriors) == ({0} if posteriors else set())
    agent.game_ended(log.start, None)
    assert agent.logs == {} and agent.posteriors == {}


def test_a_seat_that_never_started_ends_without_a_trace() -> None:
    agent = _inferring("mcts:limit=5,infer=auto,carry=true")
    log, _ = played_log()
    agent.game_ended(log.start, None)
    assert agent.carried == {} and agent.logs == {} and agent.posteriors == {}


def _heard(agent: Inferring, moves: int = 6) -> Observation:
    """Start a game of seat 0 and tell the agent its moves; the latest observation."""
    log, _ = played_log(moves=moves)
    agent.game_started(log.start)
    for mover, action, observation in log.moves:
        agent.action_taken(mover, action, observation)
    return log.latest


def test_an_agent_without_auto_is_sure_of_no_opponent() -> None:
    agent = _inferring("mcts:limit=5,infer=greedy")
    assert agent.sure_opponent(_heard(agent), random.Random(0)) is None


def test_worlds_are_weighed_only_at_the_logs_latest_observation() -> None:
    agent = _inferring("mcts:limit=5,infer=greedy,candidates=4")
    latest = _heard(agent)
    assert agent.belief(latest, random.Random(0), {}) is not None
    earlier = agent.logs[0].moves[0][2]
    assert agent.belief(earlier, random.Random(0), {}) is None


def test_worlds_are_weighed_with_the_agents_candidates_and_chain(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = _inferring("mcts:limit=5,infer=greedy,candidates=4,chain=3,epsilon=0.2")
    latest = _heard(agent)
    asked: list[tuple[object, ...]] = []

    def weigh(*args: object, **kwargs: object) -> None:
        asked.append((*args, kwargs))

    monkeypatch.setattr(inferring_module, "weigh_worlds", weigh)
    rng = random.Random(0)
    agent.belief(latest, rng, {})
    assert asked == [(agent.logs[0], GreedyModel(0.2), 4, rng, {"steps": 3})]


def test_worlds_are_not_weighed_without_infer_though_auto_keeps_a_log() -> None:
    agent = _inferring("ismcts:limit=5,opponent=auto")
    latest = _heard(agent)
    assert agent.logs[0].latest == latest
    assert agent.belief(latest, random.Random(0), {}) is None


class _Zeros:
    """A guide scoring every legal action 0."""

    def action_values(self, observation: Observation) -> list[float]:
        return [0.0] * len(observation.legal_actions)

    def action_values_many(self, observations: Sequence[Observation]) -> list[list[float]]:
        return [self.action_values(o) for o in observations]


@pytest.mark.parametrize("kind", ["softmax", "argmax"])
def test_a_guide_model_primes_its_guidance_with_the_movers_views(kind: str) -> None:
    _, state = played_log(moves=4)
    guidance = Guidance(cast(Guide, _Zeros()), 1.0)
    model = GuideModel(guidance) if kind == "softmax" else ArgmaxGuideModel(guidance, 0.1)
    model.prime([state])
    assert list(guidance.cache) == [observe(state, state.turn)]


@pytest.mark.parametrize(("infer", "loaded"), [("greedy", False), ("dmc", True), ("mix", True)])
def test_a_guided_model_loads_the_network_at_construction(infer: str, loaded: bool) -> None:
    agent = _inferring(f"mcts:limit=5,infer={infer}")
    assert ("dmc" in agent.guides) == loaded


@pytest.mark.parametrize(("top", "sure"), [(SURE, "lowest"), (math.nextafter(SURE, 0), None)])
def test_an_opponent_is_sure_from_exactly_sure_on(
    top: float, sure: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = _inferring("mcts:limit=5,infer=auto")
    latest = _heard(agent)
    row = (1 - top, top, 0.0, 0.0)
    monkeypatch.setattr(Inferring, "auto_model", lambda self, *args: PosteriorModel((), {1: row}))
    assert agent.posteriors[0].names[1] == "lowest"
    assert agent.sure_opponent(latest, random.Random(0)) == sure
