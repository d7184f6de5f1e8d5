"""The immutable game state and the public knowledge it carries.

A :class:`GameState` is a frozen attrs value: equal states compare and hash equal, and no
function ever changes one.  The engine (:mod:`durak.rules.engine`) builds successors with
the positional constructor, never ``attrs.evolve``, because that is the hot path of search.

Public knowledge (``docs/rules.md``, "Knowledge") lives in :class:`Knowledge`: the cards
every player knows to be in each hand, and the cards known to have been in the talon at
the deal.  It changes rarely, so successive states share one instance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, SupportsIndex, TypeAlias

import attrs

from durak.rules.cards import EMPTY, Card, CardSet, Suit
from durak.rules.config import Rules
from durak.rules.history import History, PositionKey
from durak.rules.origins import after_draw, after_play

__all__ = [
    "GameState",
    "History",
    "Knowledge",
    "PositionKey",
    "RawOrigins",
    "TablePair",
    "build_knowledge",
    "build_next",
    "build_state",
    "logged_draw",
    "logged_play",
    "raw_origins",
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
    """A :class:`Knowledge` whose ``origins`` updates are left pending (:data:`RawOrigins`).

    Only observations read ``origins``, yet the engine updated it at every play of an
    unknown card while it is kept (``after_play``'s exact weights).  So the engine only
    logs the updates, and the first read of ``origins``, a
    comparison, a hash, a repr or a pickle works the record out, stores it and makes the
    object a plain ``Knowledge`` (the same slots, so ``__class__`` may change): nothing
    outside the engine sees the pending form.
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


class _BuildingKnowledge:
    """A :class:`Knowledge` being built: as :class:`_Building` below, for the record the
    engine renews at bout ends and (with a pending ``origins``) plays of unknown cards."""

    __slots__ = Knowledge.__slots__

    def __init__(self, exposed: CardSet, from_talon: CardSet, origins: RawOrigins) -> None:
        self.exposed = exposed
        self.from_talon = from_talon
        self.origins = origins
        self._attrs_cached_hash = None  # attrs' cache_hash slot: no hash computed yet
        if origins and type(origins[-1]) is int:  # updates left pending
            self.__class__ = _PendingKnowledge  # type: ignore[assignment]
        else:
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


class _Stepping:
    """A :class:`GameState` being built from the state ``s`` of the same bout: as
    :class:`_Building`, given only the five fields a decision within a bout changes (the
    other ten are copied from ``s``), which spares the caller ten reads and the call ten
    arguments."""

    __slots__ = GameState.__slots__

    def __init__(
        self,
        s: GameState,
        hand_masks: tuple[int, ...],
        table: tuple[TablePair, ...],
        turn: int,
        taking: bool,
        knowledge: Knowledge,
    ) -> None:
        self.rules = s.rules
        self.hand_masks = hand_masks
        self.talon = s.talon
        self.trump_suit = s.trump_suit
        self.trump_card = s.trump_card
        self.table = table
        self.discard = s.discard
        self.attacker = s.attacker
        self.defender = s.defender
        self.turn = turn
        self.taking = taking
        self.cap = s.cap
        self.players_out = s.players_out
        self.knowledge = knowledge
        self.history = s.history
        self.__class__ = GameState  # type: ignore[assignment]


#: ``GameState(...)`` and ``Knowledge(...)`` for the engine's hot path: the same arguments
#: (all of them), the same value.  ``build_next(s, hand_masks, table, turn, taking,
#: knowledge)``: the state ``GameState(...)`` builds from those five fields and the other ten
#: of ``s``.
if TYPE_CHECKING:
    build_state = GameState
    build_knowledge = Knowledge

    def build_next(
        s: GameState,
        hand_masks: tuple[int, ...],
        table: tuple[TablePair, ...],
        turn: int,
        taking: bool,
        knowledge: Knowledge,
    ) -> GameState:
        """``s`` with these five fields replaced (see :class:`_Stepping`)."""

else:
    build_state = _Building
    build_knowledge = _BuildingKnowledge
    build_next = _Stepping
