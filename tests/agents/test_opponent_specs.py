"""Any agent spec as the opponent model of a search (``opponent=SPEC``, ``infer=SPEC``):
ISMCTS-BR, the search exploiter of issue 49.

The model is the agent's own choice on the mover's observation (one-hot for a
deterministic agent, the exact law of a randomized one that states it, else estimated
from seeded draws); the exploiter plays legal, reproducible games that ignore the hidden
cards; bad specs are one :class:`SpecError` line; and the named models (``greedy``,
``dmc``, ``mix``) play exactly the moves they played before agent specs were accepted.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence

import attrs
import pytest
from typer.testing import CliRunner

from durak.agents import SpecError, make_agent
from durak.agents import base as agents_base
from durak.agents.base import Agent, replacements
from durak.agents.heuristics.simple import RandomAgent
from durak.agents.inference.agent_model import AgentModel
from durak.agents.inference.belief import weigh_worlds
from durak.agents.inference.opponents import GreedyModel
from durak.agents.inference.record import GameLog
from durak.agents.interface.policies import PolicyError
from durak.agents.searchers.best_response import TargetPolicy
from durak.agents.searchers.exploiter import ismcts_exploiter_spec, search_exploiter_spec
from durak.agents.searchers.ismcts import IsmctsAgent
from durak.arena.play.game import play_game
from durak.cli.app import app
from durak.rules import (
    Action,
    GameState,
    Observation,
    Rules,
    is_terminal,
    legal_actions,
    new_game,
    observe,
    step,
)
from durak.testing.worlds import fill, hidden_slots
from durak.web.policy import AgentPolicy
from tests.support.cli_checks import one_error
from tests.support.extras import require_extra

#: A 20-card game: short, with a talon and hidden cards.
SMALL = Rules(lowest_rank=10, hand_size=4)
#: The heuristic targets and their exploiters at a small budget.
TARGETS = ["random", "lowest", "greedy", "smart"]


def exploiter(target: str, limit: int = 30) -> str:
    """A cheap ISMCTS-BR spec against ``target``."""
    return search_exploiter_spec(target, limit) + ",candidates=6,draws=4"


def actions_of(spec: str, target: str, rules: Rules, seed: int) -> list[Action]:
    """The actions of one seeded game of ``spec`` (seat 0) against ``target``."""
    agents = [make_agent(spec, rules), make_agent(target, rules)]
    return list(play_game(rules, agents, seed).actions)


def states_of(rules: Rules, seed: int) -> list[GameState]:
    """The states of a seeded random game with a choice for the player to move."""
    rng = random.Random(seed)
    state, seen = new_game(rules, seed), []
    while not is_terminal(state):
        if len(legal_actions(state)) > 1:
            seen.append(state)
        state = step(state, rng.choice(legal_actions(state)))
    return seen


@pytest.mark.parametrize("target", [*TARGETS, "dmc"])
def test_the_exploiter_plays_legal_reproducible_games(target: str) -> None:
    """``play_game`` without a referee raises on an illegal action; the same seed gives
    the same game, another seed another."""
    rules, limit = SMALL, 30
    if target == "dmc":
        require_extra("torch")
        rules, limit = Rules(), 10  # the bundled network's game; a network call per move
    spec = exploiter(target, limit)
    first = actions_of(spec, target, rules, 3)
    assert first == actions_of(spec, target, rules, 3)
    assert first != actions_of(spec, target, rules, 4)


def test_the_search_exploiter_values_its_leaves_by_the_network_and_the_solver() -> None:
    """``value=dmc`` (playouts off) with ``endgame``: legal, reproducible games (a regression:
    the search refused a rollout policy beside the value function)."""
    require_extra("torch")
    spec = "pomcp:target=greedy,limit=10,value=dmc,endgame=20000,candidates=6"
    first = actions_of(spec, "greedy", Rules(), 3)
    assert first == actions_of(spec, "greedy", Rules(), 3)


@pytest.mark.parametrize("target", TARGETS)
def test_the_exploiters_decisions_ignore_the_hidden_cards(target: str) -> None:
    """Permuting the cards hidden from the mover leaves its decision unchanged."""
    agent = make_agent(exploiter(target), SMALL)
    rng = random.Random(1)
    checked = 0
    for k, state in enumerate(states_of(SMALL, 17)[::3]):
        p = state.turn
        owners, cards = hidden_slots(state, p)
        twins = (fill(state, p, owners, rng.sample(cards, len(cards))) for _ in range(20))
        twin = next((t for t in twins if t != state), None)
        if twin is None:
            continue  # every hidden card in one place: nothing to permute
        assert observe(twin, p) == observe(state, p)
        decide = [agent.act(observe(s, p), random.Random(k)) for s in (state, twin)]
        assert decide[0] == decide[1] and decide[0] in legal_actions(state)
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("target", ["lowest", "greedy", "smart"])
def test_a_deterministic_models_policy_is_the_targets_move(target: str) -> None:
    agent = make_agent(target)
    for state in states_of(SMALL, 5):
        legal = legal_actions(state)
        move = agent.act(observe(state, state.turn), random.Random(0))
        exact = AgentModel(agent, 0.0, 4, random.Random(0)).policy(state, legal)
        assert exact == [1.0 if a == move else 0.0 for a in legal]
        soft = AgentModel(agent, 0.2, 4, random.Random(0)).policy(state, legal)
        assert soft[legal.index(move)] == pytest.approx(0.8 + 0.2 / len(legal))
        assert min(soft) == pytest.approx(0.2 / len(legal)) and sum(soft) == pytest.approx(1)
        assert AgentModel(agent, 0.0, 4, random.Random(0)).rollout(state, random.Random(1)) == move


def test_the_greedy_agent_model_is_the_named_greedy_model() -> None:
    """``opponent=greedy:`` (the agent) and ``opponent=greedy`` (the named model) agree."""
    agent = make_agent("greedy")
    for state in states_of(SMALL, 6):
        legal = legal_actions(state)
        named = GreedyModel(0.3).policy(state, legal)
        assert AgentModel(agent, 0.3, 1, random.Random(0)).policy(state, legal) == pytest.approx(
            named
        )


@attrs.frozen
class Unstated:
    """The random agent without its explicit policy: a model must estimate it."""

    inner: RandomAgent
    name: str = "unstated"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return self.inner.act(observation, rng)


def test_a_randomized_models_estimate_is_close_to_its_explicit_policy() -> None:
    random_agent = RandomAgent(stop_chance=0.3)
    states = [s for s in states_of(SMALL, 8) if len(legal_actions(s)) > 2][:5]
    assert states
    for state in states:
        legal = legal_actions(state)
        exact = AgentModel(random_agent, 0.0, 1, random.Random(0)).policy(state, legal)
        assert exact == pytest.approx(random_agent.policy(observe(state, state.turn)))
        model = AgentModel(Unstated(random_agent), 0.0, 3000, random.Random(2))
        estimate = model.policy(state, legal)
        assert max(abs(a - b) for a, b in zip(estimate, exact, strict=True)) < 0.05
        again = AgentModel(Unstated(random_agent), 0.0, 3000, random.Random(2))
        assert again.policy(state, legal) == estimate  # seeded: the same estimate


def test_a_randomized_models_estimate_is_cached_per_observation() -> None:
    calls: list[Observation] = []

    @attrs.frozen
    class Counting:
        name: str = "counting"

        def act(self, observation: Observation, rng: random.Random) -> Action:
            calls.append(observation)
            return observation.legal_actions[0]

    model = AgentModel(Counting(), 0.1, 5, random.Random(0))
    state = states_of(SMALL, 9)[0]
    legal = legal_actions(state)
    first = model.policy(state, legal)
    assert model.policy(state, legal) == first and len(calls) == 5


@attrs.define
class Spy:
    """An agent that records whose observation it is asked about."""

    inner: Agent
    asked: list[int] = attrs.field(factory=list)
    name: str = "spy"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        self.asked.append(observation.player)
        return self.inner.act(observation, rng)


def test_the_model_agent_is_asked_on_the_other_players_observations_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = make_agent("ismcts:limit=40,opponent=smart,draws=2")
    assert isinstance(agent, IsmctsAgent)
    spy = Spy(agent.agents["smart"])
    monkeypatch.setitem(agent.agents, "smart", spy)
    for k, state in enumerate(states_of(Rules(players=3, lowest_rank=10, hand_size=4), 2)[:6]):
        agent.act(observe(state, state.turn), random.Random(k))
        assert spy.asked and state.turn not in spy.asked
        spy.asked.clear()


def test_opponent_and_infer_naming_one_spec_share_one_agent() -> None:
    agent = make_agent(ismcts_exploiter_spec("ismcts:limit=5,c=1", 10))
    assert isinstance(agent, IsmctsAgent)
    assert list(agent.agents) == ["ismcts:limit=5;c=1"]
    inner = agent.agents["ismcts:limit=5;c=1"]
    assert isinstance(inner, IsmctsAgent) and (inner.limit, inner.c) == (5, 1.0)


def test_inference_with_a_softened_agent_model_weighs_every_world() -> None:
    """With ``epsilon`` > 0 no world weighs 0, even where the target's moves rule it out."""
    rules = SMALL
    smart = make_agent("smart")
    state = new_game(rules, 12)
    log = GameLog(observe(state, 0))
    while len(log.moves) < 16 or state.turn != 0:
        mover = state.turn
        o = observe(state, mover)
        action = smart.act(o, random.Random(0)) if mover else random.choice(o.legal_actions)
        state = step(state, action)
        log.moves.append((mover, action, observe(state, 0)))
    rng = random.Random(3)
    soft = weigh_worlds(log, AgentModel(smart, 0.1, 1, random.Random(0)), 20, rng)
    assert min(soft.weights) > 0
    hard = weigh_worlds(log, AgentModel(smart, 0.0, 1, random.Random(0)), 20, random.Random(3))
    assert min(hard.weights) == 0  # so the first assertion can fail


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("ismcts:opponent=human", ["ismcts: opponent: human cannot be a model"]),
        ("mcts:infer=human", ["mcts: infer: human cannot be a model"]),
        ("ismcts:opponent=nosuch", ["ismcts: opponent: unknown agent 'nosuch'"]),
        ("ismcts:infer=self", ["ismcts: infer: unknown agent 'self'"]),
        ("ismcts:opponent=ismcts:limit", ["ismcts: opponent: bad parameter 'limit'"]),
        ("ismcts:opponent=smart:x=1", ["ismcts: opponent: smart: unknown parameter 'x'"]),
        ("ismcts:opponent=random:stop_chance=2", ["opponent: random: stop_chance must be"]),
        (
            "ismcts:opponent=ismcts:opponent=ismcts:opponent=smart",
            ["ismcts: opponent: ismcts: opponent: ", "nest more than 2 deep"],
        ),
        ("ismcts:opponent=ismcts:limit=5,samples=2", ["opponent=ismcts:limit=5;samples=2"]),
    ],
)
def test_bad_model_specs_are_one_line(spec: str, words: list[str]) -> None:
    with pytest.raises(SpecError) as e:
        make_agent(spec)
    message = str(e.value)
    assert "\n" not in message and all(w in message for w in words), message


def test_an_agent_that_builds_itself_as_its_model_is_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A plugin whose agent is a search modelling itself would recurse for ever."""

    def looping() -> Agent:
        return make_agent("ismcts:opponent=loop")

    info = agents_base.AgentInfo("loop", "models itself", (), looping, "a test")
    monkeypatch.setitem(agents_base._REGISTRY, "loop", info)
    with pytest.raises(SpecError, match="nest more than 2 deep") as e:
        make_agent("loop")
    assert "\n" not in str(e.value)


def test_a_model_made_for_other_rules_is_refused_when_built_for_a_game() -> None:
    require_extra("torch")
    make_agent("ismcts:opponent=dmc:", Rules())
    with pytest.raises(SpecError, match="ismcts: opponent: dmc: no shipped model for"):
        make_agent("ismcts:opponent=dmc:", SMALL)


def test_a_bad_model_spec_on_the_command_line_is_one_error() -> None:
    # the seat policy of unattended play looks into model options first (issue 61)
    result = CliRunner().invoke(app, ["match", "ismcts:opponent=human", "greedy", "-n", "1"])
    one_error(result, "ismcts:opponent=human: opponent: human asks a person")


@pytest.mark.parametrize(
    ("target", "spec"),
    [
        ("smart", "ismcts:limit=7,opponent=smart,infer=smart"),
        ("dmc", "ismcts:limit=7,opponent=dmc:,infer=dmc:"),
        ("greedy", "ismcts:limit=7,opponent=greedy:,infer=greedy:"),
        (
            "random:stop_chance=0.3",
            "ismcts:limit=7,opponent=random:stop_chance=0.3,infer=random:stop_chance=0.3",
        ),
        (
            "ismcts:limit=5,c=1",
            "ismcts:limit=7,opponent=ismcts:limit=5;c=1,infer=ismcts:limit=5;c=1",
        ),
    ],
)
def test_ismcts_exploiter_spec_models_the_target_itself(target: str, spec: str) -> None:
    assert ismcts_exploiter_spec(target, 7) == spec


@pytest.mark.parametrize(
    ("target", "spec"),
    [
        ("smart", "pomcp:target=smart,limit=7"),
        ("greedy", "pomcp:target=greedy:,limit=7"),
        ("random:stop_chance=0.3", "pomcp:target=random:stop_chance=0.3,limit=7"),
        ("ismcts:limit=5,c=1", "pomcp:target=ismcts:limit=5;c=1,limit=7"),
    ],
)
def test_search_exploiter_spec_answers_the_target_itself(target: str, spec: str) -> None:
    assert search_exploiter_spec(target, 7) == spec
    agent = make_agent(spec)
    assert agent.name == "pomcp"


def test_the_search_exploiter_is_guided_where_a_shipped_network_fits_the_rules() -> None:
    require_extra("torch")
    guided = search_exploiter_spec("greedy", 7, Rules())
    assert guided == "pomcp:target=greedy:,prior=dmc,value=dmc,limit=7"
    assert make_agent(guided, Rules()).name == "pomcp"
    # No network for a 12-card deck: playouts value the leaves, as without rules.
    small = Rules(lowest_rank=12, hand_size=2)
    assert search_exploiter_spec("greedy", 7, small) == search_exploiter_spec("greedy", 7)


@pytest.mark.parametrize(
    ("target", "limit", "words"),
    [
        ("solver:fallback=mcts:limit=5;samples=1", 10, "nests an agent spec of its own"),
        ("", 10, "names no agent"),
        ("smart:x", 10, "bad parameter 'x'"),
        ("smart", 0, "limit must be a positive integer"),
    ],
)
def test_search_exploiter_spec_refuses_bad_input_in_one_line(
    target: str, limit: int, words: str
) -> None:
    for make in (search_exploiter_spec, ismcts_exploiter_spec):
        with pytest.raises(SpecError, match=words) as e:
            make_agent(make(target, limit))
        assert "\n" not in str(e.value)


def test_the_replaced_mark_sees_agents_nested_in_model_options(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    info = agents_base.registry()["smart"]
    replaced = attrs.evolve(info, source="a plugin", replaced="durak.agents.heuristics.smart")
    monkeypatch.setitem(agents_base._REGISTRY, "smart", replaced)
    for spec in (
        "ismcts:opponent=smart",
        "mcts:infer=smart:",
        "ismcts:opponent=random:stop_chance=0.1;x=1,infer=smart",
        "ismcts:opponent=ismcts:opponent=smart;limit=3",
    ):
        assert replacements([spec]) == (("smart", "a plugin"),), spec
    assert replacements(["ismcts:opponent=greedy:,infer=random"]) == ()


def test_the_web_allows_model_specs_and_checks_them_in_turn() -> None:
    policy = AgentPolicy()
    for spec in (
        "ismcts:opponent=greedy,infer=mix",
        "mcts:infer=dmc",
        "ismcts:opponent=self,infer=none",
        "ismcts:opponent=smart,infer=random:stop_chance=0.1",
        "solver:fallback=ismcts:opponent=lowest",
    ):
        policy.check(spec)
    for spec, words in (
        ("ismcts:opponent=human", "choose an agent"),
        ("maxn:infer=human", "choose an agent"),
        ("ismcts:opponent=dmc:path=/etc/passwd", "not allowed"),
        ("ismcts:infer=faulty", "unknown agent"),
    ):
        with pytest.raises(SpecError, match=words):
            policy.check(spec)


#: Seeded games of the named models, their moves' digest as main played them before
#: agent specs were accepted (computed there with the same function).
NAMED_GAMES = [
    ("ismcts:limit=30,opponent=greedy,epsilon=0.2", SMALL, 3, 39, "26c7e3616ec57b8d"),
    ("ismcts:limit=30,opponent=greedy,infer=greedy,candidates=4", SMALL, 5, 39, "8803b7e36717df94"),
    ("ismcts:limit=20,opponent=dmc,infer=mix,candidates=3", Rules(), 7, 46, "67599a6039b02dbb"),
    ("mcts:limit=10,samples=2,infer=greedy,candidates=4", SMALL, 9, 32, "7818e22965689031"),
]


def digest(actions: Sequence[Action]) -> str:
    """The first 16 hex digits of the SHA-256 of the actions, space-separated."""
    return hashlib.sha256(" ".join(map(str, actions)).encode()).hexdigest()[:16]


@pytest.mark.parametrize(("spec", "rules", "seed", "length", "expected"), NAMED_GAMES)
def test_the_named_models_play_the_moves_they_played_before(
    spec: str, rules: Rules, seed: int, length: int, expected: str
) -> None:
    if "dmc" in spec or "mix" in spec:
        require_extra("torch")
    actions = actions_of(spec, "greedy", rules, seed)
    assert (len(actions), digest(actions)) == (length, expected)


@attrs.define
class _Short:
    """States one probability, whatever the number of legal actions."""

    name: str = "short"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return observation.legal_actions[0]

    def policy(self, observation: Observation) -> list[float]:
        return [1.0]


def test_a_model_stating_no_distribution_is_named_in_one_line() -> None:
    state = new_game(Rules(), 3)
    legal = legal_actions(state)
    assert len(legal) > 1
    asks: list[Callable[[], object]] = [
        lambda: TargetPolicy(_Short())(state, random.Random(0)),
        lambda: AgentModel(_Short(), 0.0, 1, random.Random(0)).policy(state, legal),
    ]
    for ask in asks:
        with pytest.raises(PolicyError) as e:
            ask()
        assert str(e.value) == (
            f"short: policy() must give one probability per legal action ({len(legal)}), got [1.0]"
        )
