"""Builders of state values for the engine: the values ``GameState(...)`` and
``Knowledge(...)`` build, made with plain slot writes (``docs/rules.md``, "What each record
costs").

attrs' frozen ``__init__`` stores each field through ``object.__setattr__``.  A builder has
the slots of the class it builds, writes them plainly, then becomes that class
(``__class__`` assignment, allowed between classes of one slot layout): an ordinary frozen
value, equal to the attrs constructor's from the same values (``tests/rules/test_state.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from durak.rules.cards import Card, CardSet, Suit
from durak.rules.config import Rules
from durak.rules.history import History
from durak.rules.origins import RawOrigins, _PendingKnowledge
from durak.rules.state import GameState, Knowledge, TablePair

__all__ = ["build_knowledge", "build_next", "build_state"]


class _BuildingKnowledge:
    """:data:`build_knowledge`: a ``Knowledge``, or a ``_PendingKnowledge`` when
    ``origins`` is ``(record, log)``; attrs' hash cache starts empty."""

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
    """:data:`build_state`: a ``GameState`` from all fifteen fields, in field order."""

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
    """:data:`build_next`: the state of the bout of ``s`` with the five fields a decision
    within a bout changes; the other ten are ``s``'s (sparing the caller ten reads and the
    call ten arguments)."""

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


# To the type checker, the builders are the constructors whose values they build.
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
