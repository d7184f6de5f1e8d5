"""A spy analyst for reviews: it analyses with a small ISMCTS and checks that everything it
is given (its decisions and, as a watcher, the game) is an observation of the reviewed
seat, never a state."""

from __future__ import annotations

import random
import threading

import attrs

from durak.agents.interface.analysis import Analysis
from durak.agents.searchers.ismcts import IsmctsAgent
from durak.rules import Action, Observation, Rules

#: The analyst behind the spy: small, so that a review takes a moment.
INNER = "ismcts:limit=30"


@attrs.define(eq=False)
class SpyAnalyst:
    """Analyses as :data:`INNER` and records what it is given; any call with something
    other than an :class:`Observation` of ``seat`` fails the test.  With a ``gate``, each
    analysis first waits (up to a minute) for it to be set."""

    seat: int
    gate: threading.Event | None = None
    inner: IsmctsAgent = attrs.field(factory=lambda: IsmctsAgent(limit=30))
    analysed: list[Observation] = attrs.field(factory=list)
    watched: list[Observation] = attrs.field(factory=list)
    #: the state of the generator each analysis was given, before it drew
    streams: list[object] = attrs.field(factory=list)
    #: who played what, as the watcher was told; and the loser, at the end
    moves: list[tuple[int, Action]] = attrs.field(factory=list)
    losers: list[int | None] = attrs.field(factory=list)
    name: str = "spy"

    def _check(self, observation: object) -> Observation:
        assert isinstance(observation, Observation), f"the analyst was given {observation!r}"
        assert observation.player == self.seat, f"seat {observation.player}, not {self.seat}"
        return observation

    def analyse(self, observation: Observation, rng: random.Random) -> Analysis:
        self.analysed.append(self._check(observation))
        self.streams.append(rng.getstate())
        if self.gate is not None:
            self.gate.wait(60.0)
        return self.inner.analyse(observation, rng)

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return self.analyse(observation, rng).chosen

    def game_started(self, observation: Observation) -> None:
        self.watched.append(self._check(observation))

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        self.watched.append(self._check(observation))
        self.moves.append((player, action))

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        self.watched.append(self._check(observation))
        self.losers.append(loser)


@attrs.define(eq=False)
class SpyFactory:
    """Builds a :class:`SpyAnalyst` per reviewed seat, for the seats of ``seats`` in turn
    (a review asks for one per seat, in seat order), and keeps them all."""

    seats: list[int]
    gate: threading.Event | None = None
    built: list[SpyAnalyst] = attrs.field(factory=list)
    specs: list[str] = attrs.field(factory=list)
    rules: list[Rules] = attrs.field(factory=list)

    def __call__(self, spec: str, rules: Rules) -> SpyAnalyst:
        self.specs.append(spec)
        self.rules.append(rules)
        spy = SpyAnalyst(self.seats[len(self.built) % len(self.seats)], self.gate)
        self.built.append(spy)
        return spy

    @property
    def calls(self) -> int:
        """How many decisions the spies analysed."""
        return sum(len(s.analysed) for s in self.built)
