"""Observations: what one player may know of a state (``docs/rules.md``, "Knowledge").

The knowledge model is per card: the set of places it may be, from the observer's point of
view: its own hand, a given opponent's hand, the talon, the table or the discard pile.  A
card is *hidden* when more than one place is possible, or when its only place is an
opponent's unknown cards or the talon above the trump card.  :func:`observe` gives the
observation of a state; what the hidden cards may be is in
:mod:`durak.rules.knowledge.sampler`.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import attrs

from durak.rules.actions import Action
from durak.rules.cards import Card, CardSet, Suit, deck_mask
from durak.rules.config import Rules
from durak.rules.engine import legal_actions
from durak.rules.errors import RulesError
from durak.rules.state import GameState, History, Knowledge, TablePair, table_mask

#: Where a card may be: a player's hand (by index), or one of the shared zones.
Place: TypeAlias = int | Literal["talon", "table", "discard"]

#: What a player sees besides its own hand and the public facts: ``False`` (the closed
#: world of the rules), ``True`` (every hand: the open world) or ``"full"`` (every hand
#: and the talon's order: full information, the open world of Zarlykov's framework, whose
#: agents get a copy of the whole game; a research setting, not a way to play).
Visibility: TypeAlias = bool | Literal["full"]
VISIBILITIES: tuple[Visibility, ...] = (False, True, "full")


@attrs.frozen(slots=True)
class Observation:
    """What ``player`` may know of a state; equal exactly when the public facts and the
    player's own hand are equal.

    Fields: ``rules``; ``player``; ``hand`` (its own cards); ``table``; ``trump_suit``;
    ``trump_card``; ``talon_size``; ``discard``; ``hand_sizes`` (every player's); ``known``
    (per player, the cards everyone knows to be in that hand); ``knowledge`` (the public
    :class:`Knowledge`: exposed cards, trumps known to have been in the talon, who has
    drawn); ``attacker``; ``defender``; ``turn`` (the player to act, -1
    when over); ``taking``; ``cap``; ``players_out``; ``history`` (public repetition keys);
    ``legal_actions`` (the player's own, empty when it is not its turn); ``hands`` (every
    hand in an open-world observation, else ``None``); ``talon_order`` (the talon, top
    first, with full information, else ``None``).
    """

    rules: Rules
    player: int
    hand: CardSet
    table: tuple[TablePair, ...]
    trump_suit: Suit | None
    trump_card: Card | None
    talon_size: int
    discard: CardSet
    hand_sizes: tuple[int, ...]
    known: tuple[CardSet, ...]
    knowledge: Knowledge
    attacker: int
    defender: int
    turn: int
    taking: bool
    cap: int
    players_out: frozenset[int]
    history: History
    legal_actions: tuple[Action, ...]
    hands: tuple[CardSet, ...] | None = None
    talon_order: tuple[Card, ...] | None = None

    @property
    def visibility(self) -> Visibility:
        """What this observation shows: see :data:`Visibility`."""
        if self.talon_order is not None:
            return "full"
        return self.hands is not None

    @property
    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.turn < 0

    @property
    def trump_in_talon(self) -> bool:
        """Whether the face-up trump card still lies at the bottom of the talon."""
        return self.face_up_trump is not None

    @property
    def face_up_trump(self) -> Card | None:
        """The trump card while it lies face up at the bottom of the talon, else ``None``."""
        return self.trump_card if self.talon_size else None

    def known_cards(self, p: int) -> CardSet:
        """The cards this player knows to be in ``p``'s hand (all of them for itself)."""
        if p == self.player:
            return self.hand
        if self.hands is not None:
            return self.hands[p]
        return self.known[p]

    def hidden_cards(self) -> CardSet:
        """Cards whose place this player does not know: opponents' unknown cards and the
        talon above the face-up trump card."""
        rules = self.rules
        mask = deck_mask(rules.lowest_rank, rules.suits) & ~self.hand.mask & ~self.discard.mask
        mask &= ~table_mask(self.table)
        for p in range(self.rules.players):
            mask &= ~self.known_cards(p).mask
        if self.talon_order is not None:
            return CardSet(mask & ~CardSet.from_cards(self.talon_order).mask)
        if self.face_up_trump is not None:
            mask &= ~(1 << self.face_up_trump.index)
        return CardSet(mask)

    def unknown_count(self, p: int) -> int:
        """How many of ``p``'s cards this player cannot see."""
        return self.hand_sizes[p] - len(self.known_cards(p))


def observe(state: GameState, player: int, open_world: Visibility = False) -> Observation:
    """What ``player`` may see of ``state``; ``open_world=True`` also shows every hand, and
    ``open_world="full"`` every hand and the talon's order (:data:`Visibility`).

    It never depends on hidden cards: states that differ only in opponents' unknown cards
    and the talon order above the trump card give equal observations.
    """
    if not 0 <= player < state.rules.players:
        raise RulesError(f"player must be 0..{state.rules.players - 1}, got {player}")
    if open_world not in VISIBILITIES or not isinstance(open_world, bool | str):
        raise RulesError(f"open_world must be False, True or 'full', got {open_world!r}")
    masks = state.hand_masks
    return Observation(
        state.rules,
        player,
        CardSet(masks[player]),
        state.table,
        state.trump_suit,
        state.trump_card,
        len(state.talon),
        state.discard,
        tuple([m.bit_count() for m in masks]),
        state.known,
        state.knowledge,
        state.attacker,
        state.defender,
        state.turn,
        state.taking,
        state.cap,
        state.players_out,
        state.history,
        legal_actions(state) if state.turn == player else (),
        state.hands if open_world else None,
        state.talon if open_world == "full" else None,
    )
