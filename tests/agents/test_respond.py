"""``ismcts:...,opponent=auto,respond=N`` (issue 62, item 5): once the posterior over the
candidate agents is sure of each opponent, the best response by search to that candidate
(``pomcp``) plays in place of the agent's own search; and it still reads only what its
seat heard."""

from __future__ import annotations

import math
import random

import pytest

from durak.agents import SpecError, make_agent
from durak.agents.inference.inferring import SURE
from durak.agents.searchers.best_response import BestResponseAgent
from durak.agents.searchers.ismcts import IsmctsAgent
from durak.agents.strongest import network_fits
from durak.rules import Observation, Rules, legal_actions, new_game, observe, step
from durak.testing import check_agent

RULES = Rules(lowest_rank=10)  # 20 cards: no network fits, the four scripted candidates
SPEC = "ismcts:opponent=auto,limit=20,carry=true,respond=15"


def posterior_on(name: str, weight: float, names: tuple[str, ...]) -> dict[str, float]:
    """A log-likelihood row giving ``name`` the posterior ``weight``, the rest shared."""
    rest = math.log((1 - weight) / weight / (len(names) - 1))
    return {c: 0.0 if c == name else rest for c in names}


def agent_sure_of(carried: dict[int, dict[str, float]], spec: str = SPEC) -> IsmctsAgent:
    agent = make_agent(spec)
    assert isinstance(agent, IsmctsAgent)
    agent.carried.update(carried)
    return agent


def first_decision(agent: IsmctsAgent, rules: Rules = RULES, seed: int = 3) -> Observation:
    """The game's hooks told to ``agent`` (seat 0) up to its first decision with a choice;
    the other seats play their first legal action."""
    state = new_game(rules, seed)
    agent.game_started(observe(state, 0))
    while state.turn != 0 or len(legal_actions(state)) < 2:
        mover, action = state.turn, legal_actions(state)[0]
        state = step(state, action)
        agent.action_taken(mover, action, observe(state, 0))
    return observe(state, 0)


CANDIDATES = ("greedy", "lowest", "smart", "random")


@pytest.mark.parametrize(
    ("weight", "sure"), [(SURE + 0.002, "greedy"), (SURE - 0.01, None), (0.5, None)]
)
def test_the_opponent_is_taken_as_a_candidate_only_above_the_threshold(
    weight: float, sure: str | None
) -> None:
    agent = agent_sure_of({1: posterior_on("greedy", weight, CANDIDATES)})
    o = first_decision(agent)
    assert agent.sure_opponent(o, random.Random(1)) == sure


@pytest.mark.parametrize(
    ("second", "sure"), [("greedy", "greedy"), ("lowest", None)], ids=["alike", "unlike"]
)
def test_every_opponent_must_be_the_same_candidate(second: str, sure: str | None) -> None:
    rules = Rules(players=3, lowest_rank=9)
    agent = agent_sure_of(
        {
            1: posterior_on("greedy", 0.999, CANDIDATES),
            2: posterior_on(second, 0.999, CANDIDATES),
        }
    )
    o = first_decision(agent, rules)
    assert agent.sure_opponent(o, random.Random(1)) == sure


def test_no_record_of_the_game_no_opponent() -> None:
    agent = agent_sure_of({1: posterior_on("greedy", 0.999, CANDIDATES)})
    o = observe(new_game(RULES, 3), 0)
    assert agent.sure_opponent(o, random.Random(1)) is None  # no game_started
    agent.game_started(o)
    o2 = observe(step(new_game(RULES, 3), legal_actions(new_game(RULES, 3))[0]), 0)
    assert agent.sure_opponent(o2, random.Random(1)) is None  # the record ends elsewhere


@pytest.mark.skipif(not network_fits(Rules()), reason="the dmc network and its extra")
def test_the_network_is_never_answered() -> None:
    names = (*CANDIDATES, "dmc")
    agent = agent_sure_of({1: posterior_on("dmc", 0.999, names)})
    o = first_decision(agent, Rules())
    assert agent.sure_opponent(o, random.Random(1)) is None


def test_a_sure_agent_plays_the_best_response_to_that_candidate() -> None:
    carried = {1: posterior_on("lowest", 0.999, CANDIDATES)}
    agent, twin = agent_sure_of(carried), agent_sure_of(carried)
    o, _ = first_decision(agent), first_decision(twin)
    rng = random.Random(9)
    assert twin.sure_opponent(o, rng) == "lowest"
    responder = twin.responder("lowest")
    assert responder == BestResponseAgent(target="lowest", limit=15)
    expected = responder.search(o, rng, twin.logs[0])
    analysis = agent.analyse(o, random.Random(9))
    assert analysis.chosen == expected.action
    visits = dict(expected.visits)
    assert [a.visits for a in analysis.actions] == [visits.get(a, 0) for a in o.legal_actions]
    assert set(agent.responders) == {"lowest"}


def test_an_unsure_agent_searches_as_its_own() -> None:
    agent = agent_sure_of({1: posterior_on("lowest", 0.9, CANDIDATES)})
    o = first_decision(agent)
    assert agent.act(o, random.Random(9)) in o.legal_actions
    assert agent.responders == {}


def test_respond_needs_the_posterior() -> None:
    with pytest.raises(SpecError, match=r"^ismcts: respond needs opponent=auto or infer=auto$"):
        make_agent("ismcts:limit=5,respond=10")


def test_the_response_reads_only_what_its_seat_heard(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent contract, twin worlds included, with the best response playing."""
    calls = []
    search = BestResponseAgent.search

    def counted(self: BestResponseAgent, *args: object) -> object:
        calls.append(self.target)
        return search(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(BestResponseAgent, "search", counted)
    agent = agent_sure_of({1: posterior_on("greedy", 0.999, CANDIDATES)})
    check_agent(agent, RULES, games=2, twins=3)
    assert "greedy" in calls  # random's moves may move the posterior on, to random
    assert set(calls) <= set(CANDIDATES)
