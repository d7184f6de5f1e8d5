"""Matches between agent specs: every deal played once per seat rotation, in parallel.

Game ``g`` plays deal ``derive_seed(seed, g // n)`` with the seats rotated by ``g % n``, so
each deal is played ``n`` times and every agent sits in every seat (the "duplicate"
format that cancels the luck of the deal).  Each game depends only on its seed and the
specs, so a match gives the same result in one process or many (``jobs``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache

import attrs

from durak.agents import make_agent
from durak.agents.base import Agent
from durak.arena.runner import derive_seed, play_game
from durak.arena.stats import wilson
from durak.rules import Rules


@attrs.frozen
class GameOutcome:
    """One game from the agents' point of view: who (agent index) lost, and the timing."""

    game: int
    durak: int | None
    decisions: tuple[int, ...]
    think_time: tuple[float, ...]
    max_think: tuple[float, ...]


@attrs.frozen
class MatchResult:
    """A finished match; per agent (index into ``specs``) counts and timing.

    ``wall_seconds`` is the wall-clock time of the whole match (all processes).
    """

    rules: Rules
    specs: tuple[str, ...]
    seed: int
    outcomes: tuple[GameOutcome, ...]
    wall_seconds: float

    @property
    def games(self) -> int:
        """Games played."""
        return len(self.outcomes)

    @property
    def draws(self) -> int:
        """Games without a durak."""
        return sum(o.durak is None for o in self.outcomes)

    def durak_count(self, agent: int) -> int:
        """Games in which ``agent`` was the durak."""
        return sum(o.durak == agent for o in self.outcomes)

    def wins(self, agent: int) -> int:
        """Games in which someone else was the durak."""
        return sum(o.durak is not None and o.durak != agent for o in self.outcomes)

    def win_rate(self, agent: int) -> float:
        """``wins / games``."""
        return self.wins(agent) / self.games

    def win_interval(self, agent: int, confidence: float = 0.98) -> tuple[float, float]:
        """The Wilson interval of the win rate."""
        return wilson(self.wins(agent), self.games, confidence)

    def durak_interval(self, agent: int, confidence: float = 0.98) -> tuple[float, float]:
        """The Wilson interval of the durak rate."""
        return wilson(self.durak_count(agent), self.games, confidence)

    def mean_think(self, agent: int) -> float:
        """Mean seconds per decision of ``agent`` (forced decisions included)."""
        decisions = sum(o.decisions[agent] for o in self.outcomes)
        return sum(o.think_time[agent] for o in self.outcomes) / max(1, decisions)

    def max_think(self, agent: int) -> float:
        """The longest single decision of ``agent``, in seconds."""
        return max((o.max_think[agent] for o in self.outcomes), default=0.0)


@lru_cache(maxsize=32)
def _agents(specs: tuple[str, ...]) -> tuple[Agent, ...]:
    return tuple(make_agent(s) for s in specs)


def play_match_game(
    rules: Rules, specs: tuple[str, ...], seed: int, game: int, open_world: bool = False
) -> GameOutcome:
    """Game ``game`` of a match: deal ``game // n``, seats rotated by ``game % n``."""
    n = rules.players
    rotation = game % n
    seat_agent = [(s + rotation) % n for s in range(n)]  # seat s is played by this agent
    agents = _agents(specs)
    record = play_game(rules, [agents[a] for a in seat_agent], derive_seed(seed, game // n),
                       open_world)  # fmt: skip
    by_agent = [seat_agent.index(a) for a in range(n)]
    return GameOutcome(
        game,
        None if record.loser is None else seat_agent[record.loser],
        tuple(record.decisions[s] for s in by_agent),
        tuple(record.think_time[s] for s in by_agent),
        tuple(record.max_think[s] for s in by_agent),
    )


def _play_range(
    args: tuple[Rules, tuple[str, ...], int, range, bool],
) -> list[GameOutcome]:
    rules, specs, seed, games, open_world = args
    return [play_match_game(rules, specs, seed, g, open_world) for g in games]


def run_match(
    rules: Rules,
    specs: Sequence[str],
    *,
    games: int,
    seed: int,
    jobs: int = 1,
    open_world: bool = False,
) -> MatchResult:
    """Play ``games`` games of ``specs`` (one per seat) in ``jobs`` processes.

    Specs are checked before any game starts (:class:`~durak.agents.SpecError`).  The
    outcomes are the same for any ``jobs``; only the timing differs.
    """
    specs = tuple(specs)
    if len(specs) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} agent specs, "
                         f"got {len(specs)}")  # fmt: skip
    if games < 1 or jobs < 1:
        raise ValueError(f"games and jobs must be positive, got games={games}, jobs={jobs}")
    _agents(specs)
    start = time.perf_counter()
    jobs = min(jobs, games, os.cpu_count() or 1)
    if jobs == 1:
        outcomes = _play_range((rules, specs, seed, range(games), open_world))
    else:
        chunks = [(rules, specs, seed, range(k, games, jobs), open_world) for k in range(jobs)]
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            outcomes = [o for part in pool.map(_play_range, chunks) for o in part]
        outcomes.sort(key=lambda o: o.game)
    return MatchResult(rules, specs, seed, tuple(outcomes), time.perf_counter() - start)
