"""The ``faulty`` agent: an agent that breaks on purpose, to test referees and run harnesses.

It plays like ``random`` until the discard pile holds ``after`` cards, then commits its
``fault`` at every decision: ``error`` raises ``RuntimeError``, ``timeout`` sleeps for
``sleep`` seconds (a referee's move limit cuts it short), and ``illegal`` answers an action
that is not legal (``Take`` when it may not take, else ``Pass``).  Being a registered spec,
it can be built anywhere a spec can, in pool workers and on Ray nodes alike; its fault
depends only on the game, so a refereed game forfeits the same way wherever it runs.
"""

from __future__ import annotations

import random
import time
from typing import NoReturn

import attrs

from durak.agents.base import register
from durak.agents.heuristics.simple import random_choice
from durak.agents.specs import param
from durak.rules import Action, Observation, Pass, Take

FAULTS = ("error", "timeout", "illegal")


@attrs.frozen
class FaultyAgent:
    """Random play, then ``fault`` once ``after`` cards are discarded."""

    fault: str = param("error", "the fault: error, timeout or illegal", choices=FAULTS)
    after: int = param(0, "discarded cards before the first fault (0: at once)", low=0)
    sleep: float = param(3600.0, "seconds a timeout fault sleeps", low=0)
    name: str = "faulty"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """A random legal action, or the fault once its time has come."""
        legal = observation.legal_actions
        if len(observation.discard) < self.after:
            return random_choice(legal, rng.random, 0.2)
        if self.fault == "error":
            fail()
        if self.fault == "timeout":
            time.sleep(self.sleep)
            return legal[0]
        return Pass() if Take() in legal else Take()


def fail() -> NoReturn:
    """The ``error`` fault: raises ``RuntimeError`` (the test suite's ``test-crash`` agent,
    ``tests/support/faulty_agents.py``, commits it at random decisions)."""
    raise RuntimeError("faulty agent: the error it was asked to raise")


register("faulty", FaultyAgent, "breaks on purpose (error, timeout, illegal), to test referees")
