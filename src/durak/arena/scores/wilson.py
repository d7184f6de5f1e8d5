"""Confidence intervals for win rates.

The Wilson score interval (E. B. Wilson, "Probable inference, the law of succession, and
statistical inference", JASA 22, 1927) keeps its coverage near the nominal level for rates
close to 0 or 1, where the normal approximation fails; Brown, Cai & DasGupta (Statistical
Science 16, 2001) recommend it for exactly this use.
"""

from __future__ import annotations

from statistics import NormalDist


def wilson(successes: float, trials: int, confidence: float = 0.98) -> tuple[float, float]:
    """The two-sided Wilson score interval of ``successes / trials`` at ``confidence``.

    ``successes`` may be fractional (a draw counted as half a win).  Raises ``ValueError``
    for ``trials < 1``, a count outside ``[0, trials]`` or a confidence outside (0, 1).

    >>> low, high = wilson(90, 100, 0.98)
    >>> round(low, 3), round(high, 3)
    (0.808, 0.95)
    """
    if trials < 1:
        raise ValueError(f"a Wilson interval needs at least one trial, got {trials}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be in [0, {trials}], got {successes}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * ((p * (1 - p) / trials + z * z / (4 * trials * trials)) ** 0.5) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
