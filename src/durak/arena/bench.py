"""The engine benchmark: random-vs-random games per second and the cost of one decision.

Games are played with the engine's unchecked fast path and Zarlykov's random policy
(:func:`durak.agents.simple.random_choice`, ``stop_chance=0.2``), in one process, as search
and training drive the engine.  Wall-clock figures; run on an idle machine.
"""

from __future__ import annotations

import random
import time

import attrs

from durak.agents.simple import random_choice
from durak.rules import Rules, legal_actions, new_game, step_unchecked


@attrs.frozen
class EngineBench:
    """One benchmark run: ``games`` complete games with ``players`` players."""

    players: int
    games: int
    seconds: float
    decisions: int

    @property
    def games_per_second(self) -> float:
        """Complete games per second, deal included."""
        return self.games / self.seconds

    @property
    def us_per_decision(self) -> float:
        """Microseconds per ``legal_actions`` + ``step`` pair (deal time included)."""
        return self.seconds / self.decisions * 1e6


def bench_engine(rules: Rules, games: int, seed: int = 0) -> EngineBench:
    """Play ``games`` random-vs-random games from seeds ``seed..seed+games-1``."""
    rand = random.Random(seed).random
    decisions = 0
    start = time.perf_counter()
    for g in range(games):
        state = new_game(rules, seed + g)
        while state.turn >= 0:
            state = step_unchecked(state, random_choice(legal_actions(state), rand, 0.2))
            decisions += 1
    return EngineBench(rules.players, games, time.perf_counter() - start, decisions)
