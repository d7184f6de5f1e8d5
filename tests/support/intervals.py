"""Wilson's (1927) score interval written from its definition, for the tests of the
library's intervals: the proportions a two-sided score test accepts, found by bisection
(nothing here is shared with :mod:`durak.arena.scores.wilson`)."""

from __future__ import annotations

import math


def z_of(confidence: float) -> float:
    """The standard normal quantile at ``1/2 + confidence/2``, by bisection on ``erf``."""
    target = 0.5 + confidence / 2
    lo, hi = 0.0, 10.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def score_interval(successes: float, n: int, confidence: float) -> tuple[float, float]:
    """Wilson's interval as its definition: the proportions ``π`` that a score test at
    ``confidence`` accepts, ``(p - π)² <= z² π (1 - π) / n``, each end by bisection."""
    z, p = z_of(confidence), successes / n

    def accepts(pi: float) -> bool:
        return (p - pi) ** 2 <= z * z * pi * (1 - pi) / n

    def edge(inside: float, outside: float) -> float:
        for _ in range(200):
            mid = (inside + outside) / 2
            inside, outside = (mid, outside) if accepts(mid) else (inside, mid)
        return (inside + outside) / 2

    return edge(p, 0.0), edge(p, 1.0)
