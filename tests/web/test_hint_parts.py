"""The parts of ``durak.web.hints`` in this process, with a stand-in analyst (issue 65's
mutation run of the web): the hint's seed, the view the browser is sent, and a table's
:class:`Hinter` (its cache, its one hint at a time, its refusals).  The routes, with the
real analyst, are ``test_hints.py``'s; that no hint reads a hidden card, ``test_server.py``'s."""

from __future__ import annotations

import random
import threading
from typing import Any

import attrs
import pytest

from durak.agents import shown_order
from durak.agents.base import SpecError
from durak.agents.interface.analysis import ActionAssessment, Analysis
from durak.arena.play.referee import Referee, Stop
from durak.rules import Observation, Rules, new_game, observe
from durak.web.hints import HINT_AGENT, Hinter, analyst, hint_seed, hint_view, ready
from durak.web.settings import RequestError


def decision() -> Observation:
    """The first decision of a deal with more than one legal action."""
    o = observe(new_game(Rules(), 4), 0)
    o = o if o.turn == 0 else observe(new_game(Rules(), 4), o.turn)
    assert len(o.legal_actions) > 1
    return o


def made_up(o: Observation, chosen: int = 1) -> Analysis:
    """An analysis of ``o`` valuing legal action ``i`` at ``i / 10``, choosing one."""
    legal = o.legal_actions
    assessed = tuple(
        ActionAssessment(a, i / 10, share=1 / len(legal), visits=i) for i, a in enumerate(legal)
    )
    return Analysis(o.player, "made-up:x=1", legal[chosen], assessed, "search")


@attrs.define
class StandIn:
    """An analyst that answers :func:`made_up`, recording what it was asked; ``fail``
    (if set) is raised instead, and with ``gate`` it waits for it to open first."""

    asked: list[tuple[Observation, float]] = attrs.field(factory=list)
    fail: BaseException | None = None
    entered: threading.Event = attrs.field(factory=threading.Event)
    gate: threading.Event | None = None
    name: str = "stand-in"

    def act(self, observation: Observation, rng: random.Random) -> Any:
        return self.analyse(observation, rng).chosen

    def analyse(self, observation: Observation, rng: random.Random) -> Analysis:
        self.asked.append((observation, rng.random()))
        self.entered.set()
        if self.gate is not None:
            self.gate.wait()
        if self.fail is not None:
            raise self.fail
        return made_up(observation)


@attrs.define
class WrongRules(StandIn):
    """A stand-in made for other rules."""

    def check_rules(self, rules: Rules) -> None:
        raise SpecError("made for 4 players")


def test_a_hint_s_seed_is_its_view_s_and_no_other() -> None:
    seeds = {hint_seed(s, g, v) for s in (0, 1) for g in (0, 1) for v in (0, 1, 2)}
    assert len(seeds) == 12
    assert hint_seed(5, 1, 2) == hint_seed(5, 1, 2)


def test_the_view_lists_every_action_in_the_table_s_order_numbered_from_one() -> None:
    o = decision()
    analysis = made_up(o, chosen=1)
    view = hint_view(analysis, o, game="g7", version=3)
    assert {k: view[k] for k in ("game", "version", "agent", "kind", "suggested")} == {
        "game": "g7",
        "version": 3,
        "agent": "made-up:x=1",
        "kind": "search",
        "suggested": str(o.legal_actions[1]),
    }
    shown = shown_order(o)
    assert [a["key"] for a in view["actions"]] == list(range(1, len(shown) + 1))
    for row, action in zip(view["actions"], shown, strict=True):
        i = o.legal_actions.index(action)
        assert row == {
            "key": row["key"],
            "text": str(action),
            "value": i / 10,
            "share": 1 / len(shown),
            "visits": i,
            "suggested": i == 1,
        }


def test_a_hinter_asks_its_analyst_once_per_view_with_the_hint_s_seed() -> None:
    o, agent = decision(), StandIn()
    hinter = Hinter(agent, Rules(), Referee())
    first = hinter.hint(o, 41, game="g", version=2)
    assert first == hint_view(made_up(o), o, game="g", version=2)
    assert hinter.hint(o, 99, game="g", version=2) == first  # kept for its view
    assert agent.asked == [(o, random.Random(41).random())]
    assert hinter.hint(o, 43, game="g", version=3)["version"] == 3
    assert agent.asked[1] == (o, random.Random(43).random())


def test_a_second_hint_while_one_is_computed_is_refused_with_429() -> None:
    o, agent = decision(), StandIn(gate=threading.Event())
    hinter = Hinter(agent, Rules(), Referee())
    answers: list[dict[str, Any]] = []
    first = threading.Thread(target=lambda: answers.append(hinter.hint(o, 1, game="g", version=1)))
    first.start()
    agent.entered.wait()
    with pytest.raises(RequestError) as refused:
        hinter.hint(o, 1, game="g", version=1)
    assert (refused.value.status, refused.value.message) == (
        429,
        "a hint is being computed for this game already",
    )
    assert agent.gate is not None
    agent.gate.set()
    first.join()
    assert answers == [hint_view(made_up(o), o, game="g", version=1)]
    assert hinter.hint(o, 1, game="g", version=1) == answers[0]  # the lock was let go


@pytest.mark.parametrize(
    ("agent", "referee", "status", "message"),
    [
        (StandIn(fail=RuntimeError("out of ideas")), Referee(), 503, f"no hint: {HINT_AGENT}: "),
        (WrongRules(), Referee(), 503, f"no hint: {HINT_AGENT}: made for 4 players"),
        (StandIn(), Referee(stop=Stop()), 409, "the game is over"),
    ],
    ids=["agent-fails", "wrong-rules", "table-closed"],
)
def test_a_hint_that_cannot_be_given_is_one_line_and_frees_the_table(
    agent: StandIn, referee: Referee, status: int, message: str
) -> None:
    if referee.stop is not None:
        referee.stop.set()
    o, hinter = decision(), Hinter(agent, Rules(), referee)
    for _ in range(2):  # the same answer again: the lock was let go, nothing kept
        with pytest.raises(RequestError) as refused:
            hinter.hint(o, 1, game="g", version=1)
        assert refused.value.status == status
        assert refused.value.message.startswith(message) and "\n" not in refused.value.message
    if isinstance(agent.fail, RuntimeError):
        assert refused.value.message.endswith("out of ideas")


def test_the_analyst_is_the_strongest_agent_made_ready_per_rules() -> None:
    agent = analyst()
    assert getattr(agent, "name", None) == HINT_AGENT
    ready(agent, Rules())
    with pytest.raises(SpecError, match=f"^{HINT_AGENT}: made for 4 players$"):
        ready(WrongRules(), Rules())
