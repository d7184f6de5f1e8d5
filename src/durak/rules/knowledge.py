"""Observations (what one player may know) and the sampler of consistent worlds.

The knowledge model (``docs/rules.md``, "Knowledge") is per card: the set of places it may
be, from the observer's point of view: its own hand, a given opponent's hand, the talon,
the table or the discard pile.  A card is *hidden* when more than one place is possible, or
when its only place is an opponent's unknown cards or the talon above the trump card.

:func:`sample_world` draws uniformly from the worlds allowed by that model, in the manner
of the determinization step of Perfect Information Monte Carlo (Long et al., AAAI 2010) and
ISMCTS (Cowling, Powley & Whitehouse, IEEE TCIAIG 2012).  It reads nothing but the
observation.
"""

from __future__ import annotations

import random
from typing import Literal, TypeAlias

import attrs

from durak.rules.actions import Action
from durak.rules.cards import CARDS, Card, CardSet, Suit, bit_indices, deck_mask
from durak.rules.config import Rules
from durak.rules.engine import legal_actions
from durak.rules.errors import RulesError
from durak.rules.state import GameState, History, Knowledge, TablePair, table_mask

#: Where a card may be: a player's hand (by index), or one of the shared zones.
Place: TypeAlias = int | Literal["talon", "table", "discard"]


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
    hand in an open-world observation, else ``None``).
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

    @property
    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.turn < 0

    @property
    def trump_in_talon(self) -> bool:
        """Whether the face-up trump card still lies at the bottom of the talon."""
        return self.talon_size > 0 and self.trump_card is not None

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
        mask = deck_mask(self.rules.lowest_rank) & ~self.hand.mask & ~self.discard.mask
        mask &= ~table_mask(self.table)
        for p in range(self.rules.players):
            mask &= ~self.known_cards(p).mask
        if self.trump_in_talon and self.trump_card is not None:
            mask &= ~(1 << self.trump_card.index)
        return CardSet(mask)

    def unknown_count(self, p: int) -> int:
        """How many of ``p``'s cards this player cannot see."""
        return self.hand_sizes[p] - len(self.known_cards(p))

    def places(self, card: Card) -> frozenset[Place]:
        """The places ``card`` may be, from this player's point of view.

        Raises :class:`RulesError` if the card is not in this variant's deck.
        """
        if not (deck_mask(self.rules.lowest_rank) >> card.index) & 1:
            raise RulesError(f"{card} is not in the {self.rules.deck_size}-card deck")
        if card in self.discard:
            return frozenset(("discard",))
        if any(card is a or card is d for a, d in self.table):
            return frozenset(("table",))
        for p in range(self.rules.players):
            if card in self.known_cards(p):
                return frozenset((p,))
        if card is self.trump_card and self.trump_in_talon:
            return frozenset(("talon",))
        return frozenset(self._hidden_places(card))

    def _hidden_places(self, card: Card) -> list[Place]:
        restricted = card in self.knowledge.from_talon and self.hands is None
        drawers = self.knowledge.drawers
        out: list[Place] = [
            p
            for p in range(self.rules.players)
            if p != self.player and self.unknown_count(p) > 0 and (not restricted or p in drawers)
        ]
        if self.talon_size - (1 if self.trump_in_talon else 0) > 0:
            out.append("talon")
        return out


def observe(state: GameState, player: int, open_world: bool = False) -> Observation:
    """What ``player`` may see of ``state``; ``open_world=True`` also shows every hand.

    It never depends on hidden cards: states that differ only in opponents' unknown cards
    and the talon order above the trump card give equal observations.
    """
    if not 0 <= player < state.rules.players:
        raise RulesError(f"player must be 0..{state.rules.players - 1}, got {player}")
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
    )


def sample_world(observation: Observation, rng: random.Random) -> GameState:
    """A full state drawn uniformly among those the knowledge model allows.

    ``observe(sample_world(o, rng), o.player, open_world=o.hands is not None) == o``.  It
    reads only ``observation`` and ``rng``; the same seed gives the same world.  Raises
    :class:`RulesError` if the observation is inconsistent (no world fits it).
    """
    if not isinstance(observation, Observation):
        raise TypeError(f"observation must be an Observation, got {type(observation).__name__}")
    if not isinstance(rng, random.Random):
        raise TypeError(f"rng must be a random.Random, got {type(rng).__name__}")
    o = observation
    _check_shape(o)
    _check_places(o, _seen_places(o), whole=False)
    n = o.rules.players
    talon_slots = o.talon_size - (1 if o.trump_in_talon else 0)
    owners: list[int] = [p for p in range(n) if p != o.player for _ in range(o.unknown_count(p))]
    owners += [-1] * talon_slots  # -1 marks a talon position, top first
    hidden = [CARDS[i] for i in bit_indices(o.hidden_cards().mask)]
    if len(hidden) != len(owners) or talon_slots < 0:
        raise RulesError(
            f"inconsistent observation: {len(hidden)} hidden cards for {len(owners)} places"
        )
    restricted_mask = o.knowledge.from_talon.mask if o.hands is None else 0
    restricted = [c for c in hidden if (restricted_mask >> c.index) & 1]
    free = [c for c in hidden if not (restricted_mask >> c.index) & 1]
    allowed = [i for i, w in enumerate(owners) if w < 0 or w in o.knowledge.drawers]
    if len(allowed) < len(restricted):
        raise RulesError("inconsistent observation: too few places for the trumps seen in talon")
    slots: list[Card | None] = [None] * len(owners)
    for c, i in zip(restricted, rng.sample(allowed, len(restricted)), strict=True):
        slots[i] = c
    rng.shuffle(free)
    it = iter(free)
    filled = [c if c is not None else next(it) for c in slots]

    masks = [o.known_cards(p).mask for p in range(n)]
    talon: list[Card] = []
    for w, c in zip(owners, filled, strict=True):
        if w < 0:
            talon.append(c)
        else:
            masks[w] |= 1 << c.index
    if o.trump_in_talon and o.trump_card is not None:
        talon.append(o.trump_card)
    world = [(f"player {p}'s hand", m) for p, m in enumerate(masks)]
    world += [
        ("the talon", CardSet.from_cards(talon).mask),
        ("the table", table_mask(o.table)),
        ("the discard pile", o.discard.mask),
    ]
    _check_places(o, world, whole=True)
    return GameState(
        o.rules,
        tuple(masks),
        tuple(talon),
        o.trump_suit,
        o.trump_card,
        o.table,
        o.discard,
        o.attacker,
        o.defender,
        o.turn,
        o.taking,
        o.cap,
        o.players_out,
        o.knowledge,
        o.history,
    )


def _inconsistent(why: str) -> RulesError:
    return RulesError(f"inconsistent observation: {why}")


def _check_shape(o: Observation) -> None:
    """The observation's fields have the types and ranges a world needs (cheap checks,
    before any is used as an index)."""
    if not isinstance(o.rules, Rules):
        raise _inconsistent(f"rules must be a Rules, got {type(o.rules).__name__}")
    n = o.rules.players
    for name in ("player", "attacker", "defender"):
        value = getattr(o, name)
        if type(value) is not int or not 0 <= value < n:
            raise _inconsistent(f"{name} {value!r} is not a player of a {n}-player game")
    if type(o.turn) is not int or not -1 <= o.turn < n:
        raise _inconsistent(f"turn {o.turn!r} is not a player of a {n}-player game (or -1)")
    if len(o.hand_sizes) != n or len(o.known) != n or (o.hands is not None and len(o.hands) != n):
        raise _inconsistent(f"hand sizes, known cards and hands must have {n} entries each")
    if not o.players_out <= frozenset(range(n)) or not o.knowledge.drawers <= frozenset(range(n)):
        raise _inconsistent("players out and drawers must be players of the game")
    if o.talon_size < 0 or o.talon_size > o.rules.deck_size:
        raise _inconsistent(f"talon size {o.talon_size} is not possible")
    if len(o.hand) != o.hand_sizes[o.player]:
        raise _inconsistent(
            f"the hand has {len(o.hand)} cards; its size says {o.hand_sizes[o.player]}"
        )
    for p in range(n):
        if o.unknown_count(p) < 0:
            raise _inconsistent(f"player {p} is known to hold more cards than its hand size")
    trump = o.trump_card
    if trump is not None and o.trump_suit is not None and trump.suit != o.trump_suit:
        raise _inconsistent(f"the trump card {trump} is not of the trump suit {o.trump_suit}")


def _check_places(o: Observation, places: list[tuple[str, int]], whole: bool) -> None:
    """The named card masks lie in the deck and never share a card; with ``whole``, they
    cover the deck exactly.  Cheap when they do; the messages are worked out only when not."""
    deck = deck_mask(o.rules.lowest_rank)
    union = count = 0
    for _, m in places:
        union |= m
        count += m.bit_count()
    if count == union.bit_count() and not union & ~deck and (union == deck or not whole):
        return
    seen: dict[int, str] = {}
    for name, m in places:
        for c in CardSet(m & ~deck):
            raise _inconsistent(f"{c} in {name} is not a card of the {o.rules.deck_size}-card deck")
        for c in CardSet(m):
            if c.index in seen:
                raise _inconsistent(f"{c} is both in {seen[c.index]} and in {name}")
            seen[c.index] = name
    raise _inconsistent(f"no place for {CardSet(deck & ~union)} (the sizes do not add up)")


def _seen_places(o: Observation) -> list[tuple[str, int]]:
    """Where the observer sees cards: its hand, the cards it knows in other hands, the table,
    the discard pile and the face-up trump card."""
    places = [
        ("its own hand", o.hand.mask),
        ("the table", table_mask(o.table)),
        ("the discard pile", o.discard.mask),
    ]
    places += [
        (f"player {p}'s known cards", o.known_cards(p).mask)
        for p in range(o.rules.players)
        if p != o.player
    ]
    if o.trump_in_talon and o.trump_card is not None:
        places.append(("the talon (the face-up trump)", 1 << o.trump_card.index))
    return places
