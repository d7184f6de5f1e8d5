"""α-Rank of a population of agents, by OpenSpiel's ``open_spiel.python.egt.alpharank``.

α-Rank (S. Omidshafiei, C. Papadimitriou, G. Piliouras, K. Tuyls, M. Rowland, J.-B.
Lespiau, W. M. Czarnecki, M. Lanctot, J. Perolat and R. Munos, "α-Rank: Multi-Agent
Evaluation by Evolution", Scientific Reports 9, 2019) ranks the strategies of a game by
the stationary distribution of an evolutionary process in which a population switches from
one strategy to a better-paid one: an agent's mass is the share of time the population
spends playing it.  Unlike a rating it needs no transitivity (an agent beating the winner
of a cycle gets its share).  The game here is the symmetric, constant-sum one of the
ladder's table: entry ``[i, j]`` is agent ``i``'s score rate against ``j`` (a draw half a
win, 0.5 on the diagonal).  The infinite-α limit is used (the paper's ranking-intensity
sweep ends there), with OpenSpiel's default noise.  Intervals are percentile-bootstrap
intervals of the masses, from the same resampled deals as the Bradley–Terry ratings
(:mod:`durak.arena.scores.ratings`).

OpenSpiel is the ``openspiel`` extra; without it :func:`alpharank_masses` raises
:class:`~durak.extras.MissingExtraError` naming it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from durak.arena.scores.ratings import (
    Matchup,
    Rating,
    RatingError,
    bootstrap_scores,
    score_matrix,
    with_intervals,
)
from durak.extras import check_installed, require

__all__ = ["alpharank_masses", "alpharank_ratings", "check_openspiel"]

#: The extra that installs OpenSpiel.
EXTRA = "openspiel"


def check_openspiel() -> None:
    """:class:`~durak.extras.MissingExtraError` naming the extra if OpenSpiel is missing
    (checked without importing it, before any game is played)."""
    check_installed("--method alpharank", EXTRA, "numpy", "open_spiel")


def alpharank_masses(wins: Any) -> Any:
    """The α-Rank stationary masses (a numpy vector summing to 1) of the agents whose
    score matrix is ``wins`` (``[i, j]``: ``i``'s total score against ``j``)."""
    (np, alpharank) = require(
        "--method alpharank", EXTRA, "numpy", "open_spiel.python.egt.alpharank"
    )
    games = wins + wins.T
    payoff = np.full(wins.shape, 0.5)  # a pair that never played (and the diagonal): a tie
    np.divide(wins, games, out=payoff, where=games > 0)
    _, _, pi, _, _ = alpharank.compute([payoff], use_inf_alpha=True)
    return np.asarray(pi, dtype=float)


def alpharank_ratings(
    agents: Sequence[str],
    matchups: Sequence[Matchup],
    *,
    confidence: float = 0.98,
    resamples: int = 1000,
    seed: int = 0,
) -> list[Rating]:
    """Every agent's α-Rank mass, with its percentile-bootstrap interval at
    ``confidence`` from ``resamples`` resamples drawn with ``seed``; in the order of
    ``agents``.  Raises :class:`~durak.arena.scores.ratings.RatingError` as
    :func:`~durak.arena.scores.ratings.score_matrix` does and for a confidence outside
    (0, 1) or no resample."""
    (np,) = require("--method alpharank", EXTRA, "numpy")
    if not 0 < confidence < 1:
        raise RatingError(f"the confidence must be between 0 and 1, got {confidence}")
    if resamples < 1:
        raise RatingError(f"the bootstrap needs at least one resample, got {resamples}")
    point = alpharank_masses(score_matrix(agents, matchups))
    resampled = bootstrap_scores(agents, matchups, resamples, seed)
    samples = np.array([alpharank_masses(w) for w in resampled])
    return with_intervals(agents, matchups, point, samples, confidence)
