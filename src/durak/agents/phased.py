"""``phased``: one agent while the talon lasts, another once it is empty.

Durak has two phases: while the talon lasts, hands are refilled from it and most cards are
hidden; once it is empty, no card comes back into play and the hands shrink to the end.
:class:`PhasedAgent` plays its ``opening`` agent in the first phase and its ``endgame``
agent in the second, so a match tells which phase an agent loses in: seat an agent, then
the same agent with its endgame (or its opening) handed to another, against the same
opponents and seeds.

The switch reads the observation only (``talon_size``, ``players_out``), and both conditions
never turn back within a game, so a decision's agent depends on its observation alone:
``when=talon`` (the default) switches at the first observation with an empty talon;
``when=two`` once, besides, at most two players are left (a third phase is a ``phased``
nested in the endgame).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import attrs

from durak.agents.base import (
    Agent,
    Relay,
    SpecError,
    Watcher,
    check_bound,
    make_agent,
    register,
    watchers_among,
)
from durak.agents.interface.analysis import Analysis, analyse
from durak.agents.specs import AGENT_SPEC, Param, nested_spec, param, params_of
from durak.rules import Action, Observation, Rules

__all__ = ["SWITCHES", "PhasedAgent"]


def _talon_empty(observation: Observation) -> bool:
    return observation.talon_size == 0


def _two_left(observation: Observation) -> bool:
    left = observation.rules.players - len(observation.players_out)
    return observation.talon_size == 0 and left <= 2


#: The values of ``when=``: whether an observation belongs to the endgame.
SWITCHES: dict[str, Callable[[Observation], bool]] = {
    "talon": _talon_empty,
    "two": _two_left,
}


@attrs.frozen
class PhasedAgent(Relay):
    """``opening``'s move until the observation is in the endgame (``when``: see the module
    docstring), ``endgame``'s from then on.  Both agents hear every hook of the game (it
    is a :class:`~durak.agents.interface.protocol.Relay`), so a watcher among them (an inferring
    search) follows the whole game, not only its own phase; both are checked against the game's
    rules.  The ``phased`` spec builds them from specs with ``;`` for ``,``
    (``phased:opening=greedy,endgame=ismcts:limit=300;opponent=greedy``)."""

    opening: Agent
    endgame: Agent
    when: str = param(
        "talon",
        "when endgame takes over: talon (the talon is empty) or two (it is, and at most "
        "two players are left)",
        choices=tuple(SWITCHES),
    )
    name: str = "phased"
    watchers: tuple[Watcher, ...] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "watchers", watchers_among(self.opening, self.endgame))

    def playing(self, observation: Observation) -> Agent:
        """The agent that decides at ``observation``: ``endgame`` once it is in the
        endgame, else ``opening``."""
        return self.endgame if SWITCHES[self.when](observation) else self.opening

    def check_rules(self, rules: Rules) -> None:
        """:class:`SpecError` unless both agents can play ``rules``."""
        check_bound(self.opening, rules, "phased: opening")
        check_bound(self.endgame, rules, "phased: endgame")

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The move of the agent of this phase."""
        return self.playing(observation).act(observation, rng)

    def analyse(self, observation: Observation, rng: random.Random) -> Analysis:
        """The analysis (:mod:`durak.agents.interface.analysis`) of the agent of this phase, under
        its own spec (the agent that decided); :class:`SpecError` naming the phase if that
        agent cannot analyse (``rng`` is then left untouched)."""
        agent = self.playing(observation)
        role = "endgame" if agent is self.endgame else "opening"
        try:
            return analyse(agent, observation, rng)
        except SpecError as e:
            raise SpecError(f"phased: {role}: {e}") from None


def _part(role: str, spec: str) -> Agent:
    """The agent of a nested spec (``;`` for ``,``), its :class:`SpecError` naming ``role``."""
    try:
        return make_agent(nested_spec(spec))
    except SpecError as e:
        raise SpecError(f"phased: {role}: {e}") from None


def _phased(opening: str, endgame: str, **settings: str) -> PhasedAgent:
    return PhasedAgent(_part("opening", opening), _part("endgame", endgame), **settings)


_PARTS = (
    Param(
        "opening", str, "greedy", "agent spec while the talon lasts, ';' for ','", holds=AGENT_SPEC
    ),
    Param(
        "endgame",
        str,
        "ismcts",
        "agent spec once it is empty (see when), ';' for ','",
        holds=AGENT_SPEC,
    ),
)

register(
    "phased",
    _phased,
    "one agent while the talon lasts, another once it is empty (or two players are left)",
    (*_PARTS, *params_of(PhasedAgent)),
    analyses=True,
)
