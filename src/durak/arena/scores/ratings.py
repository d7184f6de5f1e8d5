"""Ratings of agents from their pairwise results: Bradley–Terry strengths on the Elo scale,
with bootstrap intervals.

**Model.** Agent ``i`` beats agent ``j`` with probability ``w_i / (w_i + w_j)`` (R. A.
Bradley and M. E. Terry, "Rank analysis of incomplete block designs: I. The method of
paired comparisons", Biometrika 39, 1952).  The rating is Elo's scale of the strength,
``R_i = 400·log10 w_i`` (A. Elo, *The Rating of Chessplayers, Past and Present*, 1978): a
difference of 400 points is odds of 10 to 1, of 0 an even game.  Ratings are relative, so
one agent, the *anchor*, is set to 0.

**Draws.** Two-player Durak has draws: both players shed their last cards in the same
move, or a position repeats (docs/rules.md).  A draw counts half a win to each side, as
Elo's scores count it; the model is then fitted to the fractional scores.

**Prior.** Every pair that played gets one virtual draw besides its games (the kind of
prior of R. Coulom's BayesElo), so an agent that won every game has a finite rating
instead of an infinite one; beside a few hundred real games per pair its weight is small.

**Fit.** choix's :func:`choix.ilsr_pairwise_dense` (L. Maystre and M. Grossglauser, "Fast
and accurate inference of Plackett–Luce models", NeurIPS 2015): iterative Luce spectral
ranking, which converges to the maximum-likelihood strengths of the matrix of (fractional)
scores.  choix is maintained, typed, and takes exactly that matrix, fractional entries
included; scipy.optimize would have needed the likelihood and its gradient written out here.

**Intervals.** A percentile bootstrap (B. Efron, "Bootstrap methods: another look at the
jackknife", Annals of Statistics 7, 1979): each resample draws, within every pair, as many
deals as it played, with replacement (a deal, played twice with the seats swapped, is the
unit of the duplicate format: its two games share their luck), and is fitted again; the
interval of an agent is the central ``confidence`` share of its resampled ratings.  The
resamples come from a generator seeded by the caller, so the intervals repeat exactly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import attrs

from durak.extras import require

__all__ = [
    "ELO_SCALE",
    "PRIOR_DRAWS",
    "Matchup",
    "Rating",
    "RatingError",
    "bootstrap_scores",
    "elo_ratings",
    "score_matrix",
    "strengths",
]

#: Elo points per unit of natural-log strength: ``400 / ln 10``.
ELO_SCALE = 400 / math.log(10)
#: The virtual draws added to every pair that played (see the module's docstring).
PRIOR_DRAWS = 1.0
#: The extra that installs what the ratings need.
EXTRA = "ladder"


class RatingError(ValueError):
    """Results that cannot be rated: an unknown or repeated agent, an agent without games,
    a bad score, a bad anchor or confidence."""


def _numpy() -> Any:
    (np,) = require("the ratings", EXTRA, "numpy")
    return np


def _scores(value: Sequence[float]) -> tuple[float, ...]:
    return tuple(float(v) for v in value)


@attrs.frozen
class Matchup:
    """The games of two agents: ``scores[g]`` is ``first``'s score in game ``g`` (1 a win,
    0.5 a draw, 0 a loss); every ``deal`` games in a row share a deal.

    Raises :class:`RatingError` for one agent against itself, a score that is not 0, 0.5
    or 1, or a number of games that is not whole deals.
    """

    first: str
    second: str
    scores: tuple[float, ...] = attrs.field(converter=_scores)
    deal: int = 2

    def __attrs_post_init__(self) -> None:
        if self.first == self.second:
            raise RatingError(f"{self.first!r} cannot be matched against itself")
        if any(s not in (0.0, 0.5, 1.0) for s in self.scores):
            raise RatingError(f"{self.first} vs {self.second}: a score is not 0, 0.5 or 1")
        if self.deal < 1 or len(self.scores) % self.deal:
            raise RatingError(
                f"{self.first} vs {self.second}: {len(self.scores)} games are not whole "
                f"deals of {self.deal}"
            )

    @property
    def games(self) -> int:
        """Games played."""
        return len(self.scores)

    def deal_scores(self) -> list[float]:
        """``first``'s score in each deal (the sum over its games)."""
        d = self.deal
        return [sum(self.scores[k : k + d]) for k in range(0, len(self.scores), d)]


@attrs.frozen
class Rating:
    """An agent's rating and its interval (``low``, ``high``), and the games it played."""

    agent: str
    rating: float
    low: float
    high: float
    games: int


def _indices(agents: Sequence[str], matchups: Sequence[Matchup]) -> list[tuple[int, int]]:
    """The (first, second) index of every matchup; :class:`RatingError` for an unknown or
    repeated agent, a pair given twice, or an agent without games."""
    if len(set(agents)) != len(agents):
        raise RatingError("an agent is named twice")
    index = {a: i for i, a in enumerate(agents)}
    pairs: list[tuple[int, int]] = []
    for m in matchups:
        for name in (m.first, m.second):
            if name not in index:
                raise RatingError(f"{name!r} is not one of the agents rated")
        pair = (index[m.first], index[m.second])
        if pair in pairs or pair[::-1] in pairs:
            raise RatingError(f"the pair {m.first} vs {m.second} is given twice")
        pairs.append(pair)
    played = {i for p, m in zip(pairs, matchups, strict=True) if m.games for i in p}
    idle = [a for i, a in enumerate(agents) if i not in played]
    if idle:
        raise RatingError(f"no games for {', '.join(idle)}: it cannot be rated")
    return pairs


def _connected(n: int, edges: Sequence[tuple[int, int]]) -> bool:
    reached, todo = {0}, [0]
    while todo:
        i = todo.pop()
        for a, b in edges:
            for x, y in ((a, b), (b, a)):
                if x == i and y not in reached:
                    reached.add(y)
                    todo.append(y)
    return len(reached) == n


def score_matrix(agents: Sequence[str], matchups: Sequence[Matchup]) -> Any:
    """The ``n × n`` numpy matrix whose entry ``[i, j]`` is agent ``i``'s total score
    against agent ``j`` (wins plus half the draws); raises :class:`RatingError` as
    :class:`Matchup` and for agents that are unknown, repeated or without games."""
    np = _numpy()
    wins = np.zeros((len(agents), len(agents)))
    for (i, j), m in zip(_indices(agents, matchups), matchups, strict=True):
        wins[i, j] += sum(m.scores)
        wins[j, i] += m.games - sum(m.scores)
    return wins


def bootstrap_scores(
    agents: Sequence[str], matchups: Sequence[Matchup], resamples: int, seed: int
) -> Any:
    """``resamples`` score matrices (a ``resamples × n × n`` numpy array), each from the
    deals of every matchup drawn again with replacement by a generator seeded with
    ``seed``."""
    np = _numpy()
    rng = np.random.default_rng(seed)
    out = np.zeros((resamples, len(agents), len(agents)))
    for (i, j), m in zip(_indices(agents, matchups), matchups, strict=True):
        deals = np.asarray(m.deal_scores())
        totals = deals[rng.integers(0, len(deals), size=(resamples, len(deals)))].sum(axis=1)
        out[:, i, j] += totals
        out[:, j, i] += m.games - totals
    return out


def strengths(wins: Any, prior: float = PRIOR_DRAWS) -> Any:
    """The Bradley–Terry log-strengths (natural logs, mean 0) of the score matrix ``wins``
    (``[i, j]``: ``i``'s score against ``j``), with ``prior`` virtual draws per pair that
    played; :class:`RatingError` if there is no agent, or the pairs that played do not
    connect every agent."""
    (choix,) = require("the ratings", EXTRA, "choix")
    n = len(wins)
    if n == 0:
        raise RatingError("no agents to rate")
    # The diagonal (an agent against itself) is left as it is: the fit reads only i != j.
    played = (wins + wins.T) > 0
    edges = [(i, j) for i in range(n) for j in range(i + 1, n) if played[i, j]]
    if not _connected(n, edges):
        raise RatingError("the games played do not connect every agent to the others")
    comparisons = wins + played * (prior / 2)
    params = choix.ilsr_pairwise_dense(comparisons, max_iter=10_000, tol=1e-10)
    return params - params.mean()


def _check(agents: Sequence[str], anchor: str, confidence: float, resamples: int) -> None:
    if anchor not in agents:
        raise RatingError(f"the anchor {anchor!r} is not one of the agents: {', '.join(agents)}")
    if not 0 < confidence < 1:
        raise RatingError(f"the confidence must be between 0 and 1, got {confidence}")
    if resamples < 1:
        raise RatingError(f"the bootstrap needs at least one resample, got {resamples}")


def elo_ratings(
    agents: Sequence[str],
    matchups: Sequence[Matchup],
    anchor: str,
    *,
    confidence: float = 0.98,
    resamples: int = 1000,
    seed: int = 0,
) -> list[Rating]:
    """Every agent's Bradley–Terry rating on the Elo scale, ``anchor`` at 0, with its
    percentile-bootstrap interval at ``confidence`` from ``resamples`` resamples drawn
    with ``seed``; in the order of ``agents``.  The same arguments give the same ratings.

    Raises :class:`RatingError` for an anchor that is not an agent, a confidence outside
    (0, 1), no resample, and as :func:`score_matrix` and :func:`strengths`.
    """
    np = _numpy()
    _check(agents, anchor, confidence, resamples)
    a = list(agents).index(anchor)
    point = strengths(score_matrix(agents, matchups)) * ELO_SCALE
    samples = np.array(
        [strengths(w) * ELO_SCALE for w in bootstrap_scores(agents, matchups, resamples, seed)]
    )
    point -= point[a]
    samples -= samples[:, [a]]
    return with_intervals(agents, matchups, point, samples, confidence)


def with_intervals(
    agents: Sequence[str], matchups: Sequence[Matchup], point: Any, samples: Any, confidence: float
) -> list[Rating]:
    """Each agent's :class:`Rating`: its ``point`` value, the percentile interval at
    ``confidence`` of its column of the bootstrap ``samples`` (one row per resample), and
    the games it played in ``matchups``; in the order of ``agents``."""
    np = _numpy()
    tail = (1 - confidence) / 2
    low, high = np.quantile(samples, [tail, 1 - tail], axis=0)
    games = [sum(m.games for m in matchups if name in (m.first, m.second)) for name in agents]
    return [
        Rating(name, float(point[i]), float(low[i]), float(high[i]), games[i])
        for i, name in enumerate(agents)
    ]
