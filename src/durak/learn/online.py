"""The online training loop of ``qlearn``, ``dqn`` and every learner the registry builds:
episodes against fixed agents, in intervals.

A :class:`Learner` is trained online, one decision at a time, in the manner of Sutton &
Barto (2018, ch. 6): it chooses an action (exploring), sees the reward and the next
decision point, and updates.  :func:`train` runs episodes on a
:class:`~durak.envs.SoloTable` and reports win rate and mean reward per interval, which the
CLI writes to CSV and plots.  Episode ``k`` deals ``derive_seed(seed, k)``, and the learner
draws from ``Random(derive_seed(seed, -1))``, so a run is a function of its seed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Protocol

import attrs

from durak.agents.base import Agent, SpecError
from durak.envs.solo import SoloStep, SoloTable
from durak.learn.rewards import RewardScheme
from durak.rules import Action, Observation
from durak.seeding import derive_seed

__all__ = ["Epsilon", "IntervalStats", "Learner", "train"]


class Epsilon:
    """Epsilon-greedy exploration, decayed geometrically per episode from ``start`` to
    ``end`` by the factor ``decay``.

    Raises :class:`~durak.agents.SpecError` naming ``owner`` unless
    ``0 <= end <= start <= 1`` and ``0 < decay <= 1``.
    """

    def __init__(self, start: float, end: float, decay: float, *, owner: str) -> None:
        if not 0 <= end <= start <= 1 or not 0 < decay <= 1:
            raise SpecError(f"{owner}: need 0 <= eps_end <= eps_start <= 1 and 0 < eps_decay <= 1")
        self.value, self.end, self.decay = start, end, decay

    def explores(self, rng: random.Random) -> bool:
        """Whether this decision explores (probability ``value``, drawn from ``rng``)."""
        return rng.random() < self.value

    def step(self) -> None:
        """Decay after one episode, never below ``end``."""
        self.value = max(self.end, self.value * self.decay)


class Learner(Protocol):
    """A learning agent, trained by :func:`train`."""

    def explore(self, observation: Observation, rng: random.Random) -> Action:
        """A legal action to try in training (for example epsilon-greedy)."""
        ...

    def update(
        self, observation: Observation, action: Action, reward: float, after: SoloStep
    ) -> None:
        """Learn from one decision: ``action`` in ``observation`` earned ``reward`` and led
        to ``after`` (the learner's next decision point, or the end of the game)."""
        ...

    def end_episode(self) -> None:
        """Called after each game (for example to decay epsilon)."""
        ...

    def policy(self) -> Agent:
        """The learned policy as an agent that does not explore."""
        ...


@attrs.frozen
class IntervalStats:
    """The games of one reporting interval.

    ``episodes``: games played so far (the last of this interval); ``games``, ``wins``,
    ``losses``, ``draws``: this interval's counts (``wins + losses + draws == games``; a
    win is any game the learner is not the durak of); ``mean_reward``: the learner's mean
    total reward per game in the interval; ``seconds``: wall time of the interval.
    """

    episodes: int
    games: int
    wins: int
    losses: int
    draws: int
    mean_reward: float
    seconds: float

    @property
    def win_rate(self) -> float:
        """``wins / games``."""
        return self.wins / self.games

    @property
    def episodes_per_second(self) -> float:
        """Training throughput over the interval."""
        return self.games / self.seconds if self.seconds > 0 else float("inf")


def train(
    learner: Learner,
    table: SoloTable,
    *,
    episodes: int,
    seed: int,
    rewards: RewardScheme | None = None,
    interval: int = 1000,
) -> Iterator[IntervalStats]:
    """Train ``learner`` for ``episodes`` games at ``table``, yielding one
    :class:`IntervalStats` per ``interval`` games (the last may be shorter).

    ``rewards`` defaults to ``RewardScheme()``.  Raises ``ValueError`` if ``episodes`` or
    ``interval`` is not positive.
    """
    if episodes <= 0 or interval <= 0:
        raise ValueError(f"episodes and interval must be positive, got {episodes}, {interval}")
    scheme = RewardScheme() if rewards is None else rewards
    rng = random.Random(derive_seed(seed, -1))
    wins = losses = draws = 0
    total = 0.0
    started = time.perf_counter()
    for k in range(episodes):
        now = table.reset(derive_seed(seed, k))
        while not now.done:
            before = now.observation
            action = learner.explore(before, rng)
            now = table.step(action)
            r = scheme.reward(before, action, now)
            total += r
            learner.update(before, action, r, now)
        learner.end_episode()
        if now.loser is None:
            draws += 1
        elif now.loser == table.learner:
            losses += 1
        else:
            wins += 1
        games = wins + losses + draws
        if games == interval or k == episodes - 1:
            elapsed = time.perf_counter() - started
            yield IntervalStats(k + 1, games, wins, losses, draws, total / games, elapsed)
            wins = losses = draws = 0
            total = 0.0
            started = time.perf_counter()
