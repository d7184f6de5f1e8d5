"""Where each player's unknown cards came from (the deal or the talon), and the exact
split of the trumps known to have been in the talon.

Trumps below the lowest trump shown at the deal (``Knowledge.from_talon``) were in no
dealt hand.  So while one of them is unseen, a player's unknown cards are not all alike:
only those drawn from the talon can be such a trump.  The table knows how many cards each
player drew and when, and which cards it played from its unknown cards, but not which of
those came from the deal.  This module keeps that count exactly, as in the combinatorial
inference of card-game programs (Buro, Long, Furtak & Sturtevant, "Improving State
Evaluation, Inference, and Search in Trick-Based Card Games", IJCAI 2009): every deck order
consistent with the public record is equally likely (players' choices are not modelled).

``origins[p][j]`` is proportional to the number of ways to match player ``p``'s dealt and
drawn cards to the cards it has played so that exactly ``j`` of its unknown cards came
from the talon (trailing zeros dropped, divided by the weights' gcd so that equal records
have equal weights).  It is tracked only while ``from_talon`` is not empty; ``()``
otherwise.

* Dealt: ``(1,)``: no unknown card came from the talon.
* Drawing ``d`` unknown cards shifts the weights by ``d``.
* Playing an unknown card out of ``u``: from the talon in ``j`` of the ``u`` ways, from the
  deal in the other ``u - j``; a card of ``from_talon`` can only have come from the talon.

The split: with ``r`` such trumps hidden, the chance that ``k_p`` of them are in each
opponent's hand and ``k_t`` in the talon (``t`` hidden talon cards) is proportional to
``prod_p sum_j origins[p][j] * C(j, k_p)`` times ``C(t, k_t)``; the other hidden cards fill
the remaining places uniformly.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate
from math import comb, gcd

__all__ = ["DEALT", "after_draw", "after_play", "sample_split", "split_means"]

#: A player's weights right after the deal: none of its unknown cards is from the talon.
DEALT: tuple[int, ...] = (1,)

Weights = tuple[int, ...]


def _canonical(weights: list[int]) -> Weights:
    # Never all zero: a player plays a card of from_talon only after drawing one.
    while not weights[-1]:
        weights.pop()
    g = gcd(*weights)
    return tuple(weights) if g == 1 else tuple([x // g for x in weights])


@lru_cache(maxsize=4096)
def after_play(weights: Weights, unknown: int, restricted: bool) -> Weights:
    """The weights after the player plays one of its ``unknown`` unknown cards
    (``restricted``: a card of ``from_talon``).

    Cached: the engine calls it at every play of an unknown card while the record is
    kept, and few distinct records occur (a pure function of small integers)."""
    n = len(weights)
    # With j unknown cards from the talon, the card played is one of them in j ways (then
    # j - 1 are left) and one from the deal in unknown - j ways: new[j - 1] collects
    # j * weights[j] and, for a card that may be from the deal, (unknown - j + 1) *
    # weights[j - 1].
    if restricted:
        new = [j * weights[j] for j in range(1, n)]
    else:
        new = [j * weights[j] + (unknown - j + 1) * weights[j - 1] for j in range(1, n)]
        new.append((unknown - n + 1) * weights[-1])
    return _canonical(new)


def after_draw(weights: Weights, drawn: int) -> Weights:
    """The weights after the player draws ``drawn`` cards nobody else can see."""
    return (0,) * drawn + weights


def _split_weights(
    opponents: tuple[tuple[Weights, int], ...], talon: int, restricted: int
) -> list[tuple[tuple[int, ...], int]]:
    """Every split ``(k_1, ..., k_m, k_talon)`` of ``restricted`` cards with its (integer)
    weight; ``opponents`` holds each opponent's weights and unknown-card count."""
    per = [
        [sum(x * comb(j, k) for j, x in enumerate(w)) for k in range(min(u, restricted) + 1)]
        for w, u in opponents
    ]
    out: list[tuple[tuple[int, ...], int]] = []

    def walk(i: int, left: int, ks: tuple[int, ...], weight: int) -> None:
        if i == len(per):
            if left <= talon:
                out.append(((*ks, left), weight * comb(talon, left)))
            return
        for k, h in enumerate(per[i][: left + 1]):
            if h:
                walk(i + 1, left - k, (*ks, k), weight * h)

    walk(0, restricted, (), 1)
    return out


@lru_cache(maxsize=4096)
def _cumulative(
    opponents: tuple[tuple[Weights, int], ...], talon: int, restricted: int
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    splits = _split_weights(opponents, talon, restricted)
    return tuple(s for s, _ in splits), tuple(accumulate(w for _, w in splits))


def sample_split(
    opponents: tuple[tuple[Weights, int], ...], talon: int, restricted: int, rng: random.Random
) -> tuple[int, ...] | None:
    """A split ``(k_1, ..., k_m, k_talon)`` of the ``restricted`` hidden cards, drawn with
    its exact probability, or ``None`` if no split fits (an inconsistent record)."""
    splits, cumulative = _cumulative(opponents, talon, restricted)
    if not splits:
        return None
    return splits[bisect_right(cumulative, rng.randrange(cumulative[-1]))]


def split_means(
    opponents: tuple[tuple[Weights, int], ...], talon: int, restricted: int
) -> tuple[Fraction, ...] | None:
    """The exact expected number of the ``restricted`` hidden cards in each opponent's hand
    and (last) in the talon, or ``None`` if no split fits."""
    splits = _split_weights(opponents, talon, restricted)
    total = sum(w for _, w in splits)
    if not total:
        return None
    return tuple(
        Fraction(sum(ks[i] * w for ks, w in splits), total) for i in range(len(opponents) + 1)
    )
