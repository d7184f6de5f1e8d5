"""Simple baseline agents.

``random`` is Zarlykov's (2023) random agent: it passes or takes with probability
``stop_chance`` when it could play a card, and otherwise plays a uniformly random card action.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import attrs

from durak.agents.base import Param, register
from durak.rules import Action, Observation
from durak.rules.actions import Pass, Take


def random_choice(legal: Sequence[Action], rand: Callable[[], float], stop_chance: float) -> Action:
    """Zarlykov's random policy over ``legal`` (canonical order, Take/Pass last).

    With several options and a Take or Pass among them, it returns that Take/Pass with
    probability ``stop_chance`` and otherwise a uniform card action; else a uniform action.
    """
    k = len(legal)
    last = legal[-1]
    if k > 1 and (type(last) is Pass or type(last) is Take):
        if rand() < stop_chance:
            return last
        return legal[int(rand() * (k - 1))]
    return legal[int(rand() * k)]


@attrs.frozen
class RandomAgent:
    """Random play with a ``stop_chance`` (default 0.2) of passing or taking early."""

    stop_chance: float = 0.2
    name: str = "random"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """A random legal action (see :func:`random_choice`)."""
        return random_choice(observation.legal_actions, rng.random, self.stop_chance)


register(
    "random",
    RandomAgent,
    "uniform card play; passes or takes early with probability stop_chance (Zarlykov)",
    (Param("stop_chance", float, 0.2, "chance to pass/take when a card could be played", 0, 1),),
)
