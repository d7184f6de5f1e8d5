"""Cards, suits, ranks and the bitmask-backed :class:`CardSet`.

A card has an *index* ``(rank - 2) * 4 + suit`` in ``0..51``, so ascending index is the
order "by rank, then suit" (S, H, D, C) that the rules (``docs/rules.md``) use everywhere.
The 52 :class:`Card` objects are interned: ``Card(rank, suit)`` always returns the same
object, which lets the engine compare and hash cards cheaply.

A :class:`CardSet` is an immutable set of cards stored as an ``int`` bitmask.  It iterates in
ascending card order, independent of ``PYTHONHASHSEED``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar, Final

from durak.rules.errors import RulesError


class Suit(enum.IntEnum):
    """The four suits, in the tie-break order of card ordering."""

    S = 0
    H = 1
    D = 2
    C = 3

    @property
    def symbol(self) -> str:
        """The suit's Unicode symbol, e.g. ``"♠"``."""
        return _SUIT_SYMBOLS[self]

    def __str__(self) -> str:
        return self.symbol


class Rank(enum.IntEnum):
    """Card ranks 2..14; the ace is 14."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def label(self) -> str:
        """The short label: ``"2"``..``"10"``, ``"J"``, ``"Q"``, ``"K"``, ``"A"``."""
        return _RANK_LABELS[self]

    def __str__(self) -> str:
        return self.label


_SUIT_SYMBOLS: Final = {Suit.S: "♠", Suit.H: "♥", Suit.D: "♦", Suit.C: "♣"}
_SUIT_PARSE: Final = {
    "s": Suit.S,
    "♠": Suit.S,
    "♤": Suit.S,
    "h": Suit.H,
    "♥": Suit.H,
    "♡": Suit.H,
    "d": Suit.D,
    "♦": Suit.D,
    "♢": Suit.D,
    "c": Suit.C,
    "♣": Suit.C,
    "♧": Suit.C,
}
_RANK_LABELS: Final = {r: str(int(r)) for r in Rank} | {
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.ACE: "A",
}
_RANK_PARSE: Final = {str(int(r)): r for r in Rank if r <= Rank.TEN} | {
    "t": Rank.TEN,
    "j": Rank.JACK,
    "q": Rank.QUEEN,
    "k": Rank.KING,
    "a": Rank.ACE,
}

NUM_CARDS: Final = 52


class Card:
    """A playing card: an interned, immutable ``(rank, suit)`` pair.

    Cards order by rank, then suit.  Equality and hashing are by identity, which interning
    (also through pickling and copying) makes the same as equality by value.

    >>> Card.parse("10S") is Card(Rank.TEN, Suit.S)
    True
    >>> str(Card.parse("as"))
    'A♠'
    """

    __slots__ = ("index", "rank", "suit")
    _interned: ClassVar[dict[tuple[int, int], Card]] = {}

    rank: Rank
    suit: Suit
    index: int

    def __new__(cls, rank: int, suit: int) -> Card:
        try:
            return cls._interned[(rank, suit)]
        except KeyError:
            pass
        if not (isinstance(rank, int) and 2 <= rank <= 14):
            raise RulesError(f"card rank must be 2..14, got {rank!r}")
        if not (isinstance(suit, int) and 0 <= suit <= 3):
            raise RulesError(f"card suit must be a Suit, got {suit!r}")
        card = object.__new__(cls)
        object.__setattr__(card, "rank", Rank(rank))
        object.__setattr__(card, "suit", Suit(suit))
        object.__setattr__(card, "index", (rank - 2) * 4 + suit)
        cls._interned[(int(rank), int(suit))] = card
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Card, (int(self.rank), int(self.suit)))

    @staticmethod
    def parse(text: str) -> Card:
        """Parse ``"10S"``, ``"TS"``, ``"10♠"``, ``"as"``, ``"A♠"`` and similar.

        Raises :class:`RulesError` naming the text when it is not a card.
        """
        if not isinstance(text, str):
            raise TypeError(f"Card.parse needs a string, got {type(text).__name__}")
        s = text.strip().lower()
        if len(s) < 2:
            raise RulesError(f"not a card: {text!r}")
        rank = _RANK_PARSE.get(s[:-1])
        suit = _SUIT_PARSE.get(s[-1])
        if rank is None or suit is None:
            raise RulesError(
                f"not a card: {text!r} (expected a rank 2-10/T/J/Q/K/A and a suit S/H/D/C)"
            )
        return Card(rank, suit)

    @staticmethod
    def from_index(index: int) -> Card:
        """The card with the given index ``(rank - 2) * 4 + suit``, in ``0..51``.

        Raises ``TypeError`` for a non-integer and :class:`RulesError` out of range.
        """
        if type(index) is not int:
            raise TypeError(f"a card index must be an int, got {type(index).__name__}")
        if not 0 <= index < NUM_CARDS:
            raise RulesError(f"a card index must be in 0..{NUM_CARDS - 1}, got {index}")
        return CARDS[index]

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __le__(self, other: Card) -> bool:
        return self.index <= other.index

    def __gt__(self, other: Card) -> bool:
        return self.index > other.index

    def __ge__(self, other: Card) -> bool:
        return self.index >= other.index

    def __str__(self) -> str:
        return f"{self.rank.label}{self.suit.symbol}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


CARDS: Final[tuple[Card, ...]] = tuple(Card(2 + i // 4, i % 4) for i in range(NUM_CARDS))


def _bits(mask: int) -> Iterator[int]:
    """The set bit positions of ``mask``, ascending."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def bit_indices(mask: int) -> list[int]:
    """The set bit positions of ``mask`` as an ascending list; a negative ``mask`` (its bits
    never end) raises :class:`RulesError`."""
    if mask < 0:  # the loop below would never end, and grow its list until memory runs out
        raise RulesError(f"bit_indices needs a mask of at least 0, got {mask}")
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class CardSet:
    """An immutable set of cards backed by an ``int`` bitmask (bit ``card.index``).

    Iteration is in ascending card order.  Equality and hashing are by mask.  A mask
    that is not an ``int`` raises ``TypeError``; one with bits outside ``0..51`` (a negative
    one included) raises :class:`RulesError`.

    >>> hand = CardSet.of("6H", "AS")
    >>> [str(c) for c in hand], len(hand), Card.parse("AS") in hand
    (['6♥', 'A♠'], 2, True)
    """

    __slots__ = ("mask",)
    mask: int

    def __init__(self, mask: int = 0) -> None:
        if type(mask) is not int:
            raise TypeError(f"a CardSet mask must be an int, got {type(mask).__name__}")
        if mask >> NUM_CARDS or mask < 0:
            raise RulesError(f"a CardSet mask must hold bits 0..{NUM_CARDS - 1} only, got {mask}")
        object.__setattr__(self, "mask", mask)

    @classmethod
    def of(cls, *cards: Card | str) -> CardSet:
        """A set from cards or card strings."""
        return cls.from_cards(Card.parse(c) if isinstance(c, str) else c for c in cards)

    @classmethod
    def from_cards(cls, cards: Iterable[Card]) -> CardSet:
        """A set from an iterable of cards (duplicates collapse)."""
        mask = 0
        for c in cards:
            mask |= 1 << c.index
        return cls(mask)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (CardSet, (self.mask,))

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and (self.mask >> card.index) & 1 == 1

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __iter__(self) -> Iterator[Card]:
        cards = CARDS
        for i in _bits(self.mask):
            yield cards[i]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def add(self, card: Card) -> CardSet:
        """This set with ``card`` added."""
        return CardSet(self.mask | (1 << card.index))

    def remove(self, card: Card) -> CardSet:
        """This set without ``card``; raises ``KeyError`` if absent."""
        bit = 1 << card.index
        if not self.mask & bit:
            raise KeyError(card)
        return CardSet(self.mask ^ bit)

    def __str__(self) -> str:
        return " ".join(str(c) for c in self)

    def __repr__(self) -> str:
        return f"CardSet.of({', '.join(repr(str(c)) for c in self)})"


EMPTY: Final = CardSet(0)

_new_object = object.__new__
_set_mask = CardSet.__dict__["mask"].__set__


def cardset_unchecked(mask: int) -> CardSet:
    """``CardSet(mask)`` without the checks, for the engine's hot path: ``mask`` must be
    an ``int`` holding bits ``0..51`` only."""
    cards = _new_object(CardSet)
    _set_mask(cards, mask)
    return cards


def rank_mask(rank: int) -> int:
    """The mask of the four cards of ``rank``."""
    return 0xF << ((rank - 2) * 4)


def suit_mask(suit: int) -> int:
    """The mask of the thirteen cards of ``suit``."""
    return _SUIT_MASKS[suit]


_SUIT_MASKS: Final = tuple(sum(1 << (r * 4 + suit) for r in range(13)) for suit in range(4))


def deck_mask(lowest_rank: int, suits: int = 4) -> int:
    """The mask of a deck whose ranks run from ``lowest_rank`` to the ace, in the first
    ``suits`` suits (S, H, D, C order; all four by default)."""
    return _DECK_MASKS[lowest_rank, suits]


def deck_cards(lowest_rank: int, suits: int = 4) -> tuple[Card, ...]:
    """The cards of :func:`deck_mask`'s deck, in card order."""
    return _DECKS[lowest_rank, suits]


_DECK_MASKS: Final = {
    (low, suits): sum(1 << (r * 4 + s) for r in range(low - 2, 13) for s in range(suits))
    for low in range(2, 15)
    for suits in range(1, 5)
}
_DECKS: Final = {key: tuple(CARDS[i] for i in _bits(mask)) for key, mask in _DECK_MASKS.items()}


def _beaters(trump: int | None) -> tuple[int, ...]:  # pragma: no mutate block
    # Runs at import only, so mutants could not be switched on: tests/rules/test_tables.py
    # checks BEATERS against the rules text instead.
    table = []
    for card in CARDS:
        same_suit_higher = suit_mask(card.suit) & ~((1 << (card.index + 1)) - 1)
        if trump is not None and card.suit != trump:
            same_suit_higher |= suit_mask(trump)
        table.append(same_suit_higher)
    return tuple(table)


# BEATERS[trump][i]: the mask of cards that beat card i; index 4 is "no trump suit".
BEATERS: Final[tuple[tuple[int, ...], ...]] = tuple(_beaters(t) for t in (0, 1, 2, 3, None))


def beaters(trump: Suit | int | None) -> tuple[int, ...]:
    """Per card index, the mask of the cards that beat that card under ``trump`` (``None``:
    no trump suit): the higher cards of its suit, and every trump if it is not one."""
    return BEATERS[4 if trump is None else trump]


def beats(card: Card, target: Card, trump: Suit | None) -> bool:
    """Whether ``card`` beats ``target``: a higher card of its suit, or a trump on a non-trump."""
    return (beaters(trump)[target.index] >> card.index) & 1 == 1
