"""Test-only agents that misbehave on purpose, registered for ``make_agent`` on import.

* ``test-crash:p=P`` raises ``RuntimeError`` at a decision with chance ``P`` (default 1),
  else plays greedily; its randomness comes from the game's seeded generator.
* ``test-hang:seconds=S`` spins in a Python loop for ``S`` seconds before answering; it
  counts the loops that ran to the end in ``HangAgent.finished``.
* ``test-illegal:p=P`` returns, with chance ``P``, an attack with a card it does not hold.
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

from durak.agents.base import Param, register
from durak.agents.simple import greedy_action
from durak.rules import Action, Attack, Card, Observation


@attrs.frozen
class CrashAgent:
    p: float = 1.0
    name: str = "test-crash"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        if rng.random() < self.p:
            raise RuntimeError("boom [on purpose]")
        return greedy_action(observation)


@attrs.frozen
class HangAgent:
    seconds: float = 30.0
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
    p: float = 1.0
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
    after: int = 1
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


_P = Param("p", float, 1.0, "chance of the fault per decision", 0, 1)
register("test-crash", CrashAgent, "raises at a decision (tests)", (_P,))
register(
    "test-hang",
    HangAgent,
    "spins before answering (tests)",
    (Param("seconds", float, 30.0, "seconds to spin", 0, 3600),),
)
register("test-illegal", IllegalAgent, "returns an illegal action (tests)", (_P,))
register(
    "test-interrupt",
    InterruptAgent,
    "raises KeyboardInterrupt (tests)",
    (Param("after", int, 1, "decision that raises", 1, 10**9),),
)
register("test-hook-crash", HookCrashAgent, "raises in action_taken (tests)")
register("test-exits", ExitAgent, "calls sys.exit(3) (tests)")
register("test-sigterm", SigtermAgent, "kills its own process with SIGTERM (tests)")
register("test-texts", TextAgent, "returns an action's text, not the action (tests)")
