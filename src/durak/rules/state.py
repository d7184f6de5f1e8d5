"""The immutable game state and the public knowledge it carries.

A :class:`GameState` is a frozen attrs value: equal states compare and hash equal, and no
function ever changes one.  The engine (:mod:`durak.rules.engine`) builds successors with
the positional constructor, never ``attrs.evolve``, because that is the hot path of search.

Public knowledge (``docs/rules.md``, "Knowledge") lives in :class:`Knowledge`: the cards
every player knows to be in each hand, and the cards known to have been in the talon at
the deal.  It changes rarely, so successive states share one instance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

import attrs

from durak.rules.cards import EMPTY, Card, CardSet, Suit
from durak.rules.config import Rules
from durak.rules.history import History, PositionKey

__all__ = [
    "GameState",
    "History",
    "Knowledge",
    "PositionKey",
    "TablePair",
    "build_knowledge",
    "build_state",
    "table_mask",
]

#: One table slot: the attack card and the card that beat it, or ``None``.
TablePair: TypeAlias = tuple[Card, Card | None]


def table_mask(table: tuple[TablePair, ...]) -> int:
    """The mask of every card in ``table``, attack and defence."""
    mask = 0
    for a, d in table:
        mask |= 1 << a.index
        if d is not None:
            mask |= 1 << d.index
    return mask


@attrs.frozen(slots=True, cache_hash=True, weakref_slot=False)
class Knowledge:
    """Public facts about hidden cards, beyond the table and the discard pile.

    * ``exposed``: cards shown in a way that tells where they went: the trump card, the
      lowest trump shown to lead the first bout, and every card picked up in a take.  Such a
      card never returns to the talon, so its place stays public: the cards known to be in
      hand ``p`` are exactly ``exposed & hand[p]`` (:attr:`GameState.known`), and playing a
      card never has to update it.  At each bout end it is trimmed to the cards still in a
      hand (and the face-up trump), so equal positions have equal knowledge.
    * ``from_talon``: trumps known to have been in the talon right after the deal (those
      below the lowest trump shown, or every trump when nobody could show one) and not seen
      since (trimmed at each bout end).  Such a card is in the talon or among the cards a
      player drew from it.
    * ``origins``: while ``from_talon`` is not empty, per player, the weights of how many of
      its unknown cards came from the talon (:mod:`durak.rules.origins`); ``()`` otherwise.
    """

    exposed: CardSet
    from_talon: CardSet = EMPTY
    origins: tuple[tuple[int, ...], ...] = ()


@attrs.frozen(slots=True, weakref_slot=False)
class GameState:
    """A complete Durak position, including whose decision it is.

    Fields and invariants (checked by the test-suite in every reachable state):

    * ``rules``: the variant.
    * ``hand_masks``: one card bitmask per player (bit ``card.index``); :attr:`hands` gives
      them as :class:`CardSet` values.
    * ``talon``: the undrawn cards, top first; if non-empty and the game has trumps, it ends
      with ``trump_card``.
    * ``trump_suit`` / ``trump_card``: ``None`` without trumps (``trump_card`` may also be
      ``None`` in a :func:`~durak.rules.position` built from a suit).
    * ``table``: ``(attack, defence or None)`` pairs in play order.
    * ``discard``: the cards of successful bouts.
    * ``attacker`` / ``defender``: the main attacker and the defender of this bout.
    * ``turn``: the player to act, or ``-1`` once the game is over.
    * ``taking``: the defender has taken; attackers may still throw in.
    * ``cap``: the most attack cards this bout may hold (0 once the game is over).
    * ``players_out``: players who have left with no cards.
    * ``knowledge``: public facts about hidden cards (:class:`Knowledge`); :attr:`known`
      derives the cards known to be in each hand.
    * ``history``: repetition keys of the bout starts since the last irreversible event (a
      draw, a discard or a player leaving), a :class:`~durak.rules.history.History`; a
      repeated key ends the game in a draw.  Always empty when ``rules.can_repeat`` is
      False (two players, no transfer).

    Every card of the deck is in exactly one of the hands, ``talon``, ``table`` and
    ``discard``.
    """

    rules: Rules
    hand_masks: tuple[int, ...]
    talon: tuple[Card, ...]
    trump_suit: Suit | None
    trump_card: Card | None
    table: tuple[TablePair, ...]
    discard: CardSet
    attacker: int
    defender: int
    turn: int
    taking: bool
    cap: int
    players_out: frozenset[int]
    knowledge: Knowledge
    history: History

    @property
    def hands(self) -> tuple[CardSet, ...]:
        """Every player's hand, as :class:`CardSet` values."""
        return tuple([CardSet(m) for m in self.hand_masks])

    @property
    def known(self) -> tuple[CardSet, ...]:
        """Per player, the cards everyone knows to be in that hand."""
        exposed = self.knowledge.exposed.mask
        return tuple([CardSet(m & exposed) for m in self.hand_masks])

    @property
    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.turn < 0

    @property
    def num_players(self) -> int:
        """The number of seats, ``rules.players``."""
        return self.rules.players

    def attack_cards(self) -> tuple[Card, ...]:
        """The attack cards on the table, in play order."""
        return tuple(a for a, _ in self.table)

    def table_cards(self) -> CardSet:
        """Every card on the table, attack and defence."""
        return CardSet(table_mask(self.table))


class _BuildingKnowledge:
    """A :class:`Knowledge` being built: as :class:`_Building` below, for the record the
    engine renews at every play of an unknown card while ``origins`` is kept."""

    __slots__ = Knowledge.__slots__

    def __init__(
        self, exposed: CardSet, from_talon: CardSet, origins: tuple[tuple[int, ...], ...]
    ) -> None:
        self.exposed = exposed
        self.from_talon = from_talon
        self.origins = origins
        self._attrs_cached_hash = None  # attrs' cache_hash slot: no hash computed yet
        self.__class__ = Knowledge  # type: ignore[assignment]


class _Building:
    """A :class:`GameState` being built: the same slots, without the frozen ``__setattr__``.

    attrs' frozen ``__init__`` stores each of the 15 fields through ``object.__setattr__``,
    the largest single cost of a step (18% of a random game).  This class stores them with
    plain slot writes and then becomes a ``GameState`` (``__class__`` assignment, allowed
    between classes of one slot layout), about 2.5 times cheaper; the result is an ordinary
    frozen ``GameState``, equal to the one ``GameState(...)`` builds from the same values.
    """

    __slots__ = GameState.__slots__

    def __init__(
        self,
        rules: Rules,
        hand_masks: tuple[int, ...],
        talon: tuple[Card, ...],
        trump_suit: Suit | None,
        trump_card: Card | None,
        table: tuple[TablePair, ...],
        discard: CardSet,
        attacker: int,
        defender: int,
        turn: int,
        taking: bool,
        cap: int,
        players_out: frozenset[int],
        knowledge: Knowledge,
        history: History,
    ) -> None:
        self.rules = rules
        self.hand_masks = hand_masks
        self.talon = talon
        self.trump_suit = trump_suit
        self.trump_card = trump_card
        self.table = table
        self.discard = discard
        self.attacker = attacker
        self.defender = defender
        self.turn = turn
        self.taking = taking
        self.cap = cap
        self.players_out = players_out
        self.knowledge = knowledge
        self.history = history
        self.__class__ = GameState  # type: ignore[assignment]


#: ``GameState(...)`` and ``Knowledge(...)`` for the engine's hot path: the same arguments
#: (all of them), the same value.
if TYPE_CHECKING:
    build_state = GameState
    build_knowledge = Knowledge
else:
    build_state = _Building
    build_knowledge = _BuildingKnowledge
