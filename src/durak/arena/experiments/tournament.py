"""Round-robin tournaments: a two-player duplicate match for every pair of agents.

Every pair plays the same deals (the same master seed), so the pairings differ only by the
agents.  A pair's result is a score: wins plus half the draws, over the games; the matrix
of row-vs-column scores is antisymmetric (the two cells of a pair sum to 1), and agents
are ranked by their mean score over their opponents, with a Wilson (1927) interval on the
pooled games, as Zarlykov (2023) reports win rates.
"""

from __future__ import annotations

from itertools import combinations

import attrs

from durak.agents.naming import distinct_specs
from durak.arena.play.match import MatchPlan, PlayPlan
from durak.arena.scores.result import MatchResult, interval


@attrs.frozen
class Tournament(PlayPlan):
    """Every pair of ``specs`` plays ``games`` games of two-player ``rules`` from ``seed``
    (the fields of a :class:`PlayPlan`).

    The agents are named by their canonical specs
    (:func:`~durak.agents.naming.canonical_spec`): :attr:`specs` holds those.  Raises
    ``ValueError`` for fewer than two specs, an agent given twice under any spelling
    (:func:`~durak.agents.naming.distinct_specs`), a bad spec (its
    :class:`~durak.agents.SpecError`), rules that are not for two players, or ``games < 0``.
    """

    def __attrs_post_init__(self) -> None:
        if len(self.specs) < 2:
            raise ValueError(f"a tournament needs at least two agents, got {len(self.specs)}")
        object.__setattr__(self, "specs", tuple(distinct_specs(self.specs)))
        if self.rules.players != 2:
            raise ValueError(f"tournament games are for 2 players, got {self.rules.players}")
        super().__attrs_post_init__()

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """The pairings (i, j), i < j, in plan order."""
        return list(combinations(range(len(self.specs)), 2))

    def plans(self) -> list[MatchPlan]:
        """One match plan per pairing, in :attr:`pairs` order."""
        return [self.match((self.specs[i], self.specs[j])) for i, j in self.pairs]


@attrs.frozen
class Standing:
    """An agent's line in the ranking: mean ``score`` over its opponents, the interval of
    its pooled score, its totals and its mean thinking time per decision."""

    agent: int
    spec: str
    score: float
    low: float
    high: float
    games: int
    wins: int
    draws: int
    losses: int
    forfeits: int
    seconds_per_move: float


@attrs.frozen
class TournamentResult:
    """The results of a tournament's matches, one per pairing in :attr:`Tournament.pairs`
    order."""

    tournament: Tournament
    matches: tuple[MatchResult, ...]

    def match_between(self, i: int, j: int) -> tuple[MatchResult, int]:
        """The match of agents ``i`` and ``j``, and ``i``'s index in it."""
        k = self.tournament.pairs.index((min(i, j), max(i, j)))
        return self.matches[k], 0 if i < j else 1

    def games(self, i: int, j: int) -> int:
        """Games finished between ``i`` and ``j``."""
        return self.match_between(i, j)[0].games

    def score(self, i: int, j: int) -> float:
        """``i``'s score rate against ``j``: (wins + draws / 2) / games."""
        match, a = self.match_between(i, j)
        return match.score_rate(a)

    def score_interval(self, i: int, j: int, confidence: float = 0.98) -> tuple[float, float]:
        """The Wilson interval of ``i``'s score rate against ``j``."""
        match, a = self.match_between(i, j)
        return match.score_interval(a, confidence)

    def standing(self, i: int, confidence: float = 0.98) -> Standing:
        """Agent ``i``'s totals over all its matches."""
        others = [j for j in range(len(self.tournament.specs)) if j != i]
        games = wins = draws = forfeits = decisions = 0
        think = 0.0
        for j in others:
            match, a = self.match_between(i, j)
            games += match.games
            wins += match.wins(a)
            draws += match.draws
            forfeits += sum(match.forfeits(a).values())
            decisions += match.decisions(a)
            think += match.mean_think(a) * match.decisions(a)
        mean = sum(self.score(i, j) for j in others) / len(others)
        low, high = interval(wins + draws / 2, games, confidence)
        return Standing(
            i,
            self.tournament.specs[i],
            mean,
            low,
            high,
            games,
            wins,
            draws,
            games - wins - draws,
            forfeits,
            think / max(1, decisions),
        )

    def ranking(self, confidence: float = 0.98) -> list[Standing]:
        """Every agent's standing, best mean score first (ties in spec order)."""
        rows = [self.standing(i, confidence) for i in range(len(self.tournament.specs))]
        return sorted(rows, key=lambda s: (-s.score, s.agent))
