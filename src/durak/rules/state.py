"""The state values: a Durak position (:class:`GameState`) and the public knowledge it
carries (:class:`Knowledge`), with their fields and invariants.

* Both are frozen attrs values: equal values compare and hash equal, and no function ever
  changes one.
* Public knowledge (``docs/rules.md``, "Knowledge") changes rarely, so successive states
  share one :class:`Knowledge`.
* The engine (:mod:`durak.rules.engine`) builds successors through
  :mod:`durak.rules.builders` (the same values, built with plain slot writes), never
  ``attrs.evolve``; the origins record it leaves pending is :mod:`durak.rules.origins`'s.
"""

from __future__ import annotations

from typing import TypeAlias

import attrs

from durak.rules.cards import EMPTY, Card, CardSet, Suit
from durak.rules.config import Rules
from durak.rules.history import History, PositionKey

__all__ = ["GameState", "History", "Knowledge", "PositionKey", "TablePair", "table_mask"]

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
      The engine may leave updates to it pending (:mod:`durak.rules.origins`' event log);
      every read, comparison, hash, repr and pickle sees the worked-out record.
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
