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

The engine keeps the record as an event log (:data:`RawOrigins`): a play or a draw appends
one event to an int (:func:`logged_play`, :func:`logged_draw`), and the weights are worked
out only when something reads them (:class:`_PendingKnowledge`, :func:`_settle`), in the
order the eager updates would have applied them, so the value is the same.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate
from math import comb, gcd
from typing import TYPE_CHECKING, Any, Final, SupportsIndex, TypeAlias

from durak.rules.state import Knowledge

__all__ = [
    "DEALT",
    "EVENT_BITS",
    "RawOrigins",
    "after_draw",
    "after_play",
    "logged_draw",
    "logged_play",
    "raw_origins",
    "sample_split",
    "split_means",
]

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


# The record as the engine stores it: the weights with an event log of updates pending.

#: ``Knowledge.origins`` as the engine stores it: the record itself, or ``(record, log)``,
#: the record with the updates in ``log`` left pending (:class:`_PendingKnowledge`).  ``log``
#: is an int: a leading 1 bit, then one :data:`EVENT_BITS`-bit event per update, oldest
#: first (:func:`logged_play`, :func:`logged_draw`); an int, so that no object chain and no
#: garbage-collected container grows with the game.
RawOrigins: TypeAlias = tuple[Any, ...]

EVENT_BITS: Final = 11
_EVENT_MASK: Final = (1 << EVENT_BITS) - 1


def logged_play(raw: RawOrigins, p: int, unknown: int, restricted: bool) -> RawOrigins:
    """The stored origins ``raw`` (not empty) with one more update pending: player ``p``
    has played one of its ``unknown`` (< 64) unknown cards (``restricted``: a card of
    ``from_talon``).  The event is ``(p * 64 + unknown) * 2 + restricted``."""
    event = (p * 64 + unknown) * 2 + restricted
    if type(raw[-1]) is int:  # the engine's hot path: no call beyond this one
        return (raw[0], raw[1] << EVENT_BITS | event)
    return (raw, 1 << EVENT_BITS | event)


def logged_draw(raw: RawOrigins, p: int, drawn: int) -> RawOrigins:
    """As :func:`logged_play`, for player ``p`` drawing ``drawn`` (< 64) cards nobody else
    saw: the event ``((8 + p) * 64 + drawn) * 2``."""
    return logged_play(raw, 8 + p, drawn, False)


#: The ``origins`` slot itself, read and written without working out a pending record.
_ORIGINS_SLOT: Final[Any] = Knowledge.__dict__["origins"]

if TYPE_CHECKING:

    def raw_origins(k: Knowledge) -> RawOrigins:
        """``k``'s origins as stored (:data:`RawOrigins`): the engine's view, which never
        works out a pending record; every other reader uses ``k.origins``."""

else:
    raw_origins = _ORIGINS_SLOT.__get__  # the slot's own reader: one C call


class _PendingKnowledge(Knowledge):
    """A :class:`Knowledge` whose ``origins`` slot holds ``(record, log)``, a
    :data:`RawOrigins` with updates pending.

    * Why: only observations read ``origins``, so the engine logs each update (a play of an
      unknown card, a draw) instead of working out ``after_play``'s exact weights.
    * The same slots as ``Knowledge``, so ``__class__`` may change between the two.
    * The first read of ``origins``, comparison, hash, repr or pickle settles it
      (:func:`_settle`): the record is worked out and stored, and the object becomes a plain
      ``Knowledge``.  Nothing outside the engine sees the pending form.
    """

    __slots__ = ()

    @property
    def origins(self) -> tuple[tuple[int, ...], ...]:
        return _settle(self).origins  # type: ignore[attr-defined,no-any-return]

    def __eq__(self, other: object) -> bool:
        return _settle(self) == _settle(other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(_settle(self))

    def __repr__(self) -> str:
        return repr(_settle(self))

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[Any, ...]:
        return _settle(self).__reduce_ex__(protocol)


def _settle(k: object) -> object:
    """``k``; if it is a :class:`_PendingKnowledge`, first made a plain :class:`Knowledge`
    with its origins worked out.  Another thread may settle it at the same time: both
    store the same value."""
    if type(k) is _PendingKnowledge:
        raw = _ORIGINS_SLOT.__get__(k)
        if type(raw[-1]) is int:
            base, log = raw
            record = list(base)
            events = []
            while log > 1:
                events.append(log & _EVENT_MASK)
                log >>= EVENT_BITS
            for e in reversed(events):  # oldest first
                count = e >> 1 & 63
                p = e >> 7
                if p >= 8:
                    record[p - 8] = after_draw(record[p - 8], count)
                else:
                    record[p] = after_play(record[p], count, bool(e & 1))
            _ORIGINS_SLOT.__set__(k, tuple(record))
        object.__setattr__(k, "__class__", Knowledge)  # past the frozen __setattr__
    return k
