"""``phased``: the switch at the first observation in the endgame, the hooks both agents
hear, the rules checks and analyses passed to the agent of the phase, bad nested specs.

Its legal, leak-free, reproducible play is checked here in both phases (and with the search
agents', ``tests/agents/test_searchers.py``), every option of it by
``tests/agents/test_options.py``.
"""

from __future__ import annotations

import random

import attrs
import pytest

from durak.agents import base as agents_base
from durak.agents import make_agent
from durak.agents.base import SpecError
from durak.agents.heuristics.simple import greedy_action
from durak.agents.interface.analysis import analyse
from durak.agents.phased import PhasedAgent
from durak.agents.specs import param, params_of
from durak.arena.play.game import GameRecord, play_game
from durak.rules import Action, Observation, Rules, new_game, observe, step
from tests.support.agent_checks import (
    check_decisions_ignore_hidden_cards,
    check_legal_reproducible_games,
)


@attrs.define(eq=False)
class Spy:
    """Plays greedily and notes what it decided and heard; refuses games of ``refuse``
    players (a :class:`~durak.agents.interface.protocol.RulesBound` agent)."""

    refuse: int = param(0, "a player count it refuses (0: none)", low=0, high=6)
    name: str = "spy"
    decided: list[Observation] = attrs.field(factory=list)
    started: list[Observation] = attrs.field(factory=list)
    heard: list[tuple[int, Action, Observation]] = attrs.field(factory=list)
    ended: list[int | None] = attrs.field(factory=list)

    def act(self, observation: Observation, rng: random.Random) -> Action:
        self.decided.append(observation)
        return greedy_action(observation)

    def check_rules(self, rules: Rules) -> None:
        if rules.players == self.refuse:
            raise SpecError(f"spy: refuses {self.refuse} players")

    def game_started(self, observation: Observation) -> None:
        self.started.append(observation)

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        self.heard.append((player, action, observation))

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        self.ended.append(loser)


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> None:
    """``spy`` registered for this test only."""
    info = agents_base.AgentInfo("spy", "a test spy", params_of(Spy), Spy, "a test")
    monkeypatch.setitem(agents_base._REGISTRY, "spy", info)


def spies(spec: str) -> tuple[PhasedAgent, Spy, Spy]:
    """The ``phased`` agent of ``spec`` (of two spies) and its two spies."""
    agent = make_agent(spec)
    assert isinstance(agent, PhasedAgent)
    opening, endgame = agent.opening, agent.endgame
    assert isinstance(opening, Spy) and isinstance(endgame, Spy) and opening is not endgame
    return agent, opening, endgame


def seat_zero(record: GameRecord) -> list[Observation]:
    """Seat 0's observation at each of its decisions, in order, replayed from ``record``."""
    state, found = new_game(record.rules, record.seed), []
    for action in record.actions:
        if state.turn == 0:
            found.append(observe(state, 0))
        state = step(state, action)
    return found


def play(agent: PhasedAgent, rules: Rules, seed: int) -> GameRecord:
    greedy = [make_agent("greedy")] * (rules.players - 1)
    return play_game(rules, [agent, *greedy], seed)


#: Searches in both phases, cheap.
SEARCHES = "phased:opening=mcts:limit=10;samples=1,endgame=ismcts:limit=20"


@pytest.mark.parametrize("players", [2, 3])
def test_it_plays_legal_reproducible_games_reading_only_its_observation(players: int) -> None:
    rules = Rules(players=players, lowest_rank=10, hand_size=3)
    others = ["greedy"] * (players - 1)
    check_legal_reproducible_games(lambda: make_agent(SEARCHES, rules), others, rules, 3)
    # Along a whole game: the decisions of both phases.
    assert check_decisions_ignore_hidden_cards(make_agent(SEARCHES, rules), rules, 3) >= 3


@pytest.mark.usefixtures("spy")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_endgame_agent_decides_from_the_first_observation_with_an_empty_talon(
    players: int,
) -> None:
    both = 0
    for seed in range(6):
        agent, opening, endgame = spies("phased:opening=spy,endgame=spy")
        decisions = seat_zero(play(agent, Rules(players=players), seed))
        first = next((k for k, o in enumerate(decisions) if o.talon_size == 0), len(decisions))
        assert opening.decided == decisions[:first]
        assert endgame.decided == decisions[first:]
        both += bool(opening.decided and endgame.decided)
    assert both  # some games reached the endgame with seat 0 still deciding


@pytest.mark.usefixtures("spy")
def test_when_two_the_endgame_agent_decides_once_two_players_are_left() -> None:
    """``when=two`` in 3-player games: an empty talon with three players in is still the
    opening agent's; the endgame agent's from the first decision with two left."""
    kept = 0
    for seed in range(12):
        agent, opening, endgame = spies("phased:opening=spy,endgame=spy,when=two")
        decisions = seat_zero(play(agent, Rules(players=3), seed))
        first = next(
            (k for k, o in enumerate(decisions) if o.talon_size == 0 and len(o.players_out) == 1),
            len(decisions),
        )
        assert opening.decided == decisions[:first]
        assert endgame.decided == decisions[first:]
        kept += any(o.talon_size == 0 for o in opening.decided) and bool(endgame.decided)
    assert kept  # some games had an empty talon for three, then two players left


@pytest.mark.usefixtures("spy")
def test_both_agents_hear_every_hook_of_the_game() -> None:
    agent, opening, endgame = spies("phased:opening=spy,endgame=spy")
    record = play(agent, Rules(players=3), 4)
    assert endgame.decided  # the endgame agent played, and heard the opening too
    for part in (opening, endgame):
        assert [o.player for o in part.started] == [0]
        assert [(p, a) for p, a, _ in part.heard] == [
            (p, a) for p, a in zip(movers(record), record.actions, strict=True)
        ]
        assert all(o.player == 0 for _, _, o in part.heard)
        assert part.ended == [record.loser]


def movers(record: GameRecord) -> list[int]:
    """Who played each action of ``record``."""
    state, found = new_game(record.rules, record.seed), []
    for action in record.actions:
        found.append(state.turn)
        state = step(state, action)
    return found


@pytest.mark.usefixtures("spy")
@pytest.mark.parametrize("role", ["opening", "endgame"])
def test_the_rules_check_reaches_both_agents(role: str) -> None:
    parts = {"opening": "spy", "endgame": "spy", role: "spy:refuse=3"}
    spec = "phased:" + ",".join(f"{k}={v}" for k, v in parts.items())
    make_agent(spec, Rules(players=2))
    with pytest.raises(SpecError) as e:
        make_agent(spec, Rules(players=3))
    assert str(e.value) == f"phased: {role}: spy: refuses 3 players"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("phased:opening=nosuch", ["phased: opening: unknown agent 'nosuch'"]),
        ("phased:endgame=ismcts:limit=0", ["phased: endgame: ismcts: limit must be in"]),
        ("phased:endgame=ismcts:nosuch=1", ["phased: endgame: ismcts: unknown parameter"]),
        ("phased:when=never", ["phased: when must be one of talon, two"]),
        ("phased:endgame=ismcts:limit=5,c=1", ["unknown parameter 'c'", "limit=5;c=1"]),
        ("phased:opening=", ["phased: opening: unknown agent ''"]),
    ],
)
def test_a_bad_nested_spec_is_one_line_naming_its_phase(spec: str, words: list[str]) -> None:
    with pytest.raises(SpecError) as e:
        make_agent(spec)
    assert "\n" not in str(e.value)
    for word in words:
        assert word in str(e.value)


def decision(rules: Rules, seed: int, *, talon: bool) -> Observation:
    """The first decision with a choice of a greedy game, with cards in the talon or none."""
    state = new_game(rules, seed)
    while True:
        seen = observe(state, state.turn)
        if len(seen.legal_actions) > 1 and (seen.talon_size > 0) == talon:
            return seen
        state = step(state, greedy_action(seen))


def test_the_analysis_is_the_one_of_the_agent_of_the_phase() -> None:
    rules = Rules(lowest_rank=10, hand_size=3)
    agent = make_agent("phased:opening=ismcts:limit=30;c=1.0,endgame=ismcts:limit=20")
    for talon, inner in ((True, "ismcts:limit=30,c=1"), (False, "ismcts:limit=20")):
        seen = decision(rules, 2, talon=talon)
        found = analyse(agent, seen, random.Random(5))
        assert found == analyse(make_agent(inner), seen, random.Random(5))
        assert found.spec == inner
        assert found.chosen == agent.act(seen, random.Random(5))


def test_an_agent_of_the_phase_that_cannot_analyse_is_one_line_and_draws_nothing() -> None:
    rules = Rules(lowest_rank=10, hand_size=3)
    agent = make_agent("phased:opening=greedy,endgame=ismcts:limit=20")
    seen = decision(rules, 2, talon=True)
    rng = random.Random(5)
    before = rng.getstate()
    with pytest.raises(SpecError, match=r"^phased: opening: agent 'greedy' cannot analyse"):
        analyse(agent, seen, rng)
    assert rng.getstate() == before  # the caller may still ask for its act
    assert analyse(agent, decision(rules, 2, talon=False), rng).spec == "ismcts:limit=20"
