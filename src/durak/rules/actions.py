"""The five Durak actions as frozen, hashable, totally ordered records.

A bout is a sequence of single decisions (``docs/rules.md``, "A bout"):

* :class:`Attack` plays one card, as the opening card or as a throw-in;
* :class:`Defend` beats the attack card ``target`` with ``card``;
* :class:`Take` gives up the defence (the defender picks the table up at the bout's end);
* :class:`Pass` says an attacker adds nothing now;
* :class:`Transfer` (Perevodnoy) passes the attack on with a card of the attacked rank.

The canonical order sorts by kind (Attack, Defend, Transfer, Take, Pass), then by the target
card, then by the played card.  The engine hands out interned instances in this order, but
any equal instance is accepted.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, TypeAlias

import attrs

from durak.rules.cards import CARDS, NUM_CARDS, Card


class _Ordered:
    """Total order across all action kinds via :attr:`sort_key`."""

    __slots__ = ()
    kind: ClassVar[int]

    @property
    def sort_key(self) -> tuple[int, int, int]:
        """``(kind, target index or -1, card index or -1)``; the canonical sort key."""
        raise NotImplementedError

    def __lt__(self, other: Any) -> bool:
        if not isinstance(other, _Ordered):
            return NotImplemented
        return self.sort_key < other.sort_key

    def __le__(self, other: Any) -> bool:
        if not isinstance(other, _Ordered):
            return NotImplemented
        return self.sort_key <= other.sort_key

    def __gt__(self, other: Any) -> bool:
        if not isinstance(other, _Ordered):
            return NotImplemented
        return self.sort_key > other.sort_key

    def __ge__(self, other: Any) -> bool:
        if not isinstance(other, _Ordered):
            return NotImplemented
        return self.sort_key >= other.sort_key


@attrs.frozen(slots=True, order=False, cache_hash=True)
class Attack(_Ordered):
    """Play ``card`` as the opening attack or as a throw-in."""

    kind: ClassVar[int] = 0
    card: Card

    @property
    def sort_key(self) -> tuple[int, int, int]:
        return (0, -1, self.card.index)

    def __str__(self) -> str:
        return f"Attack({self.card})"


@attrs.frozen(slots=True, order=False, cache_hash=True)
class Defend(_Ordered):
    """Beat the undefended attack card ``target`` with ``card``."""

    kind: ClassVar[int] = 1
    target: Card
    card: Card

    @property
    def sort_key(self) -> tuple[int, int, int]:
        return (1, self.target.index, self.card.index)

    def __str__(self) -> str:
        return f"Defend({self.target}<-{self.card})"


@attrs.frozen(slots=True, order=False, cache_hash=True)
class Transfer(_Ordered):
    """Perevodnoy: add ``card`` (of the attacked rank) and pass the defence on."""

    kind: ClassVar[int] = 2
    card: Card

    @property
    def sort_key(self) -> tuple[int, int, int]:
        return (2, -1, self.card.index)

    def __str__(self) -> str:
        return f"Transfer({self.card})"


@attrs.frozen(slots=True, order=False, cache_hash=True)
class Take(_Ordered):
    """The defender gives up and will pick up every card on the table."""

    kind: ClassVar[int] = 3

    @property
    def sort_key(self) -> tuple[int, int, int]:
        return (3, -1, -1)

    def __str__(self) -> str:
        return "Take"


@attrs.frozen(slots=True, order=False, cache_hash=True)
class Pass(_Ordered):
    """The asked attacker adds nothing now."""

    kind: ClassVar[int] = 4

    @property
    def sort_key(self) -> tuple[int, int, int]:
        return (4, -1, -1)

    def __str__(self) -> str:
        return "Pass"


Action: TypeAlias = Attack | Defend | Transfer | Take | Pass

# Interned instances, built once; the engine's hot path only hands these out.
ATTACKS: Final[tuple[Attack, ...]] = tuple(Attack(c) for c in CARDS)
TRANSFERS: Final[tuple[Transfer, ...]] = tuple(Transfer(c) for c in CARDS)
DEFENDS: Final[tuple[Defend, ...]] = tuple(
    Defend(CARDS[t], CARDS[c]) for t in range(NUM_CARDS) for c in range(NUM_CARDS)
)
TAKE: Final = Take()
PASS: Final = Pass()

# _ATTACKS_BY_CHUNK[k][b]: the attacks for the set bits of chunk value b at chunk k of a
# mask.  Static, built from the deck alone: a cache keyed by the hands played would hold
# the last hands in the module for anyone to read, a leak the rules do not have.
_CHUNK = 13
_ATTACKS_BY_CHUNK: Final = tuple(
    tuple(
        tuple(ATTACKS[k * _CHUNK + i] for i in range(_CHUNK) if b >> i & 1)
        for b in range(1 << _CHUNK)
    )
    for k in range(NUM_CARDS // _CHUNK)
)
_LOW: Final = (1 << _CHUNK) - 1


def attacks_for(mask: int) -> tuple[Attack, ...]:
    """The interned attacks of every card in ``mask``, in canonical order."""
    t = _ATTACKS_BY_CHUNK
    return t[0][mask & _LOW] + t[1][mask >> 13 & _LOW] + t[2][mask >> 26 & _LOW] + t[3][mask >> 39]


def action_universe(deck: tuple[Card, ...]) -> tuple[Action, ...]:
    """Every action that could ever be legal with this deck, in canonical order."""
    out: list[Action] = [Attack(c) for c in deck]
    out += [Defend(t, c) for t in deck for c in deck if t != c]
    out += [Transfer(c) for c in deck]
    out += [TAKE, PASS]
    return tuple(sorted(out))


def parse_action(text: str) -> Action:
    """Parse ``str(action)`` back: ``"Attack(6♥)"``, ``"Defend(6♥<-8♥)"``, ``"Take"`` ...

    Raises ``ValueError`` naming the text when it is not an action.
    """
    s = text.strip()
    if s == "Take":
        return TAKE
    if s == "Pass":
        return PASS
    for name, make in (("Attack(", Attack), ("Transfer(", Transfer)):
        if s.startswith(name) and s.endswith(")"):
            return make(Card.parse(s[len(name) : -1]))
    if s.startswith("Defend(") and s.endswith(")") and "<-" in s:
        target, card = s[len("Defend(") : -1].split("<-", 1)
        return Defend(Card.parse(target), Card.parse(card))
    raise ValueError(f"not an action: {text!r}")
