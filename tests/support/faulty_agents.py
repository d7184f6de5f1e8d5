"""Test-only agents that misbehave on purpose, registered for ``make_agent`` on import.

The user-facing ``faulty`` agent (:mod:`durak.agents.faulty`) commits one of the three
faults a referee judges at every decision once ``after`` cards are discarded.  The agents
here are the faults a test needs and no user asks for; ``test-crash`` commits ``faulty``'s
own ``error`` fault (:func:`~durak.agents.faulty.fail`), and the other two faults of
``faulty`` differ here on purpose (see ``test-hang`` and ``test-illegal``).

* ``test-crash:p=P`` commits the ``error`` fault at a decision with chance ``P`` (default
  1), else plays greedily; its randomness comes from the game's seeded generator.
* ``test-hang:seconds=S`` spins in a Python loop for ``S`` seconds before answering, a
  loop the referee can interrupt on any thread (``faulty``'s sleep, a call into C, cannot
  be interrupted off the main thread); it counts the loops that ran to the end in
  ``HangAgent.finished``.
* ``test-illegal:p=P`` returns, with chance ``P``, an attack with a card it does not hold:
  an action legal in no state of its game (``faulty``'s ``Pass`` or ``Take`` is only
  illegal where it is played), so a log's check finds it illegal wherever it is replayed.
* ``test-interrupt:after=K`` raises ``KeyboardInterrupt`` at its K-th decision (as Ctrl-C).
* ``test-hook-crash`` plays greedily but raises in ``action_taken`` (a faulty watcher).
* ``test-exits`` calls ``sys.exit(3)`` at its first decision.
* ``test-texts`` returns the text of a legal action instead of the action.
* ``test-sigterm`` sends SIGTERM to its own process at its first decision (a worker
  process killed; never play it in the test's own process).
"""

from __future__ import annotations

import os
import random
import signal
import sys
import time
from typing import ClassVar

import attrs

from durak.agents.base import register
from durak.agents.faulty import fail
from durak.agents.heuristics.simple import greedy_action
from durak.agents.specs import param
from durak.rules import Action, Attack, Card, Observation

#: Every parameter ``p``: the chance of the fault at each decision.
_CHANCE = "chance of the fault per decision"


@attrs.frozen
class CrashAgent:
    p: float = param(1.0, _CHANCE, low=0, high=1)
    name: str = "test-crash"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        if rng.random() < self.p:
            fail()
        return greedy_action(observation)


@attrs.frozen
class HangAgent:
    seconds: float = param(30.0, "seconds to spin", low=0, high=3600)
    name: str = "test-hang"
    finished: ClassVar[list[float]] = []

    def act(self, observation: Observation, rng: random.Random) -> Action:
        deadline = time.monotonic() + self.seconds
        while time.monotonic() < deadline:
            pass
        HangAgent.finished.append(self.seconds)
        return greedy_action(observation)


@attrs.frozen
class IllegalAgent:
    p: float = param(1.0, _CHANCE, low=0, high=1)
    name: str = "test-illegal"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        if rng.random() < self.p:
            held = set(observation.hand)
            card = next(c for c in _deck(observation) if c not in held)
            return Attack(card)
        return greedy_action(observation)


def _deck(observation: Observation) -> list[Card]:
    return [
        Card(rank, suit) for rank in range(observation.rules.lowest_rank, 15) for suit in range(4)
    ]


@attrs.define
class InterruptAgent:
    after: int = param(1, "decision that raises", low=1, high=10**9)
    name: str = "test-interrupt"
    calls: int = 0

    def act(self, observation: Observation, rng: random.Random) -> Action:
        self.calls += 1
        if self.calls >= self.after:
            raise KeyboardInterrupt
        return greedy_action(observation)


@attrs.frozen
class HookCrashAgent:
    name: str = "test-hook-crash"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return greedy_action(observation)

    def game_started(self, observation: Observation) -> None:
        pass

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        raise ValueError("watcher failed")

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        pass


@attrs.frozen
class ExitAgent:
    name: str = "test-exits"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        sys.exit(3)


@attrs.frozen
class SigtermAgent:
    name: str = "test-sigterm"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("SIGTERM did not end the process")


@attrs.frozen
class TextAgent:
    name: str = "test-texts"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return str(observation.legal_actions[0])  # type: ignore[return-value]


register("test-crash", CrashAgent, "raises at a decision (tests)")
register("test-hang", HangAgent, "spins before answering (tests)")
register("test-illegal", IllegalAgent, "returns an illegal action (tests)")
register("test-interrupt", InterruptAgent, "raises KeyboardInterrupt (tests)")
register("test-hook-crash", HookCrashAgent, "raises in action_taken (tests)")
register("test-exits", ExitAgent, "calls sys.exit(3) (tests)")
register("test-sigterm", SigtermAgent, "kills its own process with SIGTERM (tests)")
register("test-texts", TextAgent, "returns an action's text, not the action (tests)")
