"""The statistics of a match: the block of Zarlykov's (2023) CLI, per agent.

Average bouts per game, average moves per bout, average time per move of each agent, the
draw rate, and win and durak rates with Wilson (1927) intervals (98% by default, as
Zarlykov printed them), plus the forfeits of faulty agents.  Only
:attr:`MatchResult.wall_seconds` and the thinking times depend on the machine; every other
figure is fixed by the plan.
"""

from __future__ import annotations

from collections import Counter

import attrs

from durak.arena.play.match import GameOutcome, MatchPlan
from durak.arena.play.referee import FAULT_KINDS, FaultKind
from durak.arena.scores.wilson import wilson
from durak.rules import Rules


def interval(successes: float, trials: int, confidence: float) -> tuple[float, float]:
    """The Wilson interval, or ``(0, 1)`` when there is no trial yet."""
    return (0.0, 1.0) if trials == 0 else wilson(successes, trials, confidence)


@attrs.frozen
class MatchResult:
    """The finished games of a plan (all of them unless the run was interrupted), in game
    order.  ``wall_seconds`` is the wall-clock time spent playing them in this run."""

    plan: MatchPlan
    outcomes: tuple[GameOutcome, ...]
    wall_seconds: float = 0.0

    @property
    def rules(self) -> Rules:
        """The plan's rules."""
        return self.plan.rules

    @property
    def specs(self) -> tuple[str, ...]:
        """The agents' specs; agent ``i`` is ``specs[i]``."""
        return self.plan.specs

    @property
    def seed(self) -> int:
        """The master seed."""
        return self.plan.seed

    @property
    def games(self) -> int:
        """Games finished."""
        return len(self.outcomes)

    @property
    def complete(self) -> bool:
        """Whether every game of the plan is finished."""
        return self.games == self.plan.games

    @property
    def draws(self) -> int:
        """Games without a durak."""
        return sum(o.durak is None for o in self.outcomes)

    def draw_rate(self) -> float:
        """``draws / games`` (0 with no game)."""
        return self.draws / max(1, self.games)

    def draw_interval(self, confidence: float = 0.98) -> tuple[float, float]:
        """The Wilson interval of the draw rate."""
        return interval(self.draws, self.games, confidence)

    def durak_count(self, agent: int) -> int:
        """Games in which ``agent`` was the durak (forfeits included)."""
        return sum(o.durak == agent for o in self.outcomes)

    def durak_rate(self, agent: int) -> float:
        """``durak_count / games``."""
        return self.durak_count(agent) / max(1, self.games)

    def durak_interval(self, agent: int, confidence: float = 0.98) -> tuple[float, float]:
        """The Wilson interval of the durak rate."""
        return interval(self.durak_count(agent), self.games, confidence)

    def wins(self, agent: int) -> int:
        """Games in which someone else was the durak."""
        return sum(o.durak is not None and o.durak != agent for o in self.outcomes)

    def win_rate(self, agent: int) -> float:
        """``wins / games``."""
        return self.wins(agent) / max(1, self.games)

    def win_interval(self, agent: int, confidence: float = 0.98) -> tuple[float, float]:
        """The Wilson interval of the win rate."""
        return interval(self.wins(agent), self.games, confidence)

    def score(self, agent: int) -> float:
        """Wins plus half the draws: the points of ``agent``."""
        return self.wins(agent) + self.draws / 2

    def score_rate(self, agent: int) -> float:
        """``score / games``: the win rate with a draw counted as half a win."""
        return self.score(agent) / max(1, self.games)

    def score_interval(self, agent: int, confidence: float = 0.98) -> tuple[float, float]:
        """The Wilson interval of the score rate."""
        return interval(self.score(agent), self.games, confidence)

    def forfeits(self, agent: int) -> Counter[FaultKind]:
        """``agent``'s forfeits by fault (``error``, ``timeout``, ``illegal``)."""
        found = Counter(
            o.forfeit.fault for o in self.outcomes if o.forfeit is not None and o.forfeiter == agent
        )
        return Counter({k: found[k] for k in FAULT_KINDS if found[k]})

    def first_forfeit(self, agent: int) -> GameOutcome | None:
        """The earliest game ``agent`` forfeited, for its message."""
        return next((o for o in self.outcomes if o.forfeiter == agent), None)

    @property
    def forfeit_count(self) -> int:
        """Games ended by a forfeit."""
        return sum(o.forfeit is not None for o in self.outcomes)

    def bouts_per_game(self) -> float:
        """The average number of bouts per game."""
        return sum(o.bouts for o in self.outcomes) / max(1, self.games)

    def moves_per_bout(self) -> float:
        """The average number of moves (actions of any player) per bout."""
        return sum(o.moves for o in self.outcomes) / max(1, sum(o.bouts for o in self.outcomes))

    def decisions(self, agent: int) -> int:
        """Decisions made by ``agent`` (forced ones included)."""
        return sum(o.decisions[agent] for o in self.outcomes)

    def mean_think(self, agent: int) -> float:
        """Mean seconds per decision of ``agent``: Zarlykov's average time per move."""
        total = sum(o.think_time[agent] for o in self.outcomes)
        return total / max(1, self.decisions(agent))

    def max_think(self, agent: int) -> float:
        """The longest single decision of ``agent``, in seconds."""
        return max((o.max_think[agent] for o in self.outcomes), default=0.0)
