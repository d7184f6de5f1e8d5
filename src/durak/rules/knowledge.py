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
from fractions import Fraction
from typing import Final, Literal, TypeAlias

import attrs

from durak.rules.actions import Action
from durak.rules.cards import CARDS, Card, CardSet, Suit, bit_indices, deck_mask
from durak.rules.config import Rules
from durak.rules.consistency import check_facts, check_types, check_world
from durak.rules.consistency import inconsistent as _inconsistent
from durak.rules.engine import legal_actions
from durak.rules.errors import RulesError
from durak.rules.origins import sample_split, split_means
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

    def places(self, card: Card) -> frozenset[Place]:
        """The places ``card`` may be, from this player's point of view.

        Raises ``TypeError`` if ``card`` is not a :class:`Card`, :class:`RulesError` if it is
        not in this variant's deck.
        """
        return frozenset(place for place, chance in self.odds(card).items() if chance)

    def odds(self, card: Card) -> dict[Place, Fraction]:
        """The exact chance of each place ``card`` may be in, from this player's point of
        view: every deck order consistent with what it has seen counts once (the players'
        choices are not modelled).  :func:`sample_world` draws worlds with these odds.

        Raises ``TypeError`` if ``card`` is not a :class:`Card` (``Card.parse`` reads one
        from text), :class:`RulesError` if it is not in this variant's deck, or if the
        observation is inconsistent.
        """
        if type(card) is not Card:
            raise TypeError(
                f"odds needs a Card, got {type(card).__name__} {card!r} (Card.parse reads text)"
            )
        if not (deck_mask(self.rules.lowest_rank, self.rules.suits) >> card.index) & 1:
            raise RulesError(f"{card} is not in the {self.rules.deck_size}-card deck")
        if card in self.discard:
            return {"discard": Fraction(1)}
        if any(card is a or card is d for a, d in self.table):
            return {"table": Fraction(1)}
        for p in range(self.rules.players):
            if card in self.known_cards(p):
                return {p: Fraction(1)}
        if card is self.face_up_trump:
            return {"talon": Fraction(1)}
        if self.talon_order is not None and card in self.talon_order:
            return {"talon": Fraction(1)}
        split = _Split.of(self)
        restricted = bool((split.restricted_mask >> card.index) & 1)
        means = split.means()
        places: list[Place] = [*split.opponents, "talon"]
        sizes = [*split.unknown, split.talon]
        free = split.hidden - split.restricted
        return {
            place: means[i] / split.restricted if restricted else (sizes[i] - means[i]) / free
            for i, place in enumerate(places)
            if sizes[i]
        }


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


def sample_world(observation: Observation, rng: random.Random) -> GameState:
    """A full state drawn uniformly among those the knowledge model allows.

    ``observe(sample_world(o, rng), o.player, open_world=o.visibility) == o``.  It
    reads only ``observation`` and ``rng``; the same seed gives the same world.  Raises
    :class:`RulesError` if the observation is inconsistent (no world fits it).
    """
    if not isinstance(observation, Observation):
        raise TypeError(f"observation must be an Observation, got {type(observation).__name__}")
    if not isinstance(rng, random.Random):
        raise TypeError(f"rng must be a random.Random, got {type(rng).__name__}")
    o = observation
    split = _Split.of(o)
    hidden = [CARDS[i] for i in bit_indices(o.hidden_cards().mask)]
    restricted = [c for c in hidden if (split.restricted_mask >> c.index) & 1]
    free = [c for c in hidden if not (split.restricted_mask >> c.index) & 1]
    counts = split.sample(rng) if restricted else None  # the talon's count is last
    rng.shuffle(restricted)
    rng.shuffle(free)
    masks = [o.known_cards(p).mask for p in range(o.rules.players)]
    r = f = 0  # restricted and free cards handed out so far
    for i, p in enumerate(split.opponents):
        size, k = split.unknown[i], counts[i] if counts else 0
        for c in restricted[r : r + k] + free[f : f + size - k]:
            masks[p] |= 1 << c.index
        r, f = r + k, f + size - k
    if o.talon_order is not None:
        talon = list(o.talon_order)
    else:
        talon = restricted[r:] + free[f:]
        rng.shuffle(talon)  # top first
        if o.face_up_trump is not None:
            talon.append(o.face_up_trump)
    # _Split.of found the seen places disjoint and the hidden cards as many as the places
    # left, so the hands and talon partition the deck; what is left to check is read off it.
    world = GameState(
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
    check_world(o, world)
    return world


#: Why a record is inconsistent when no split of the talon's trumps fits it.
_NO_PLACE_FOR_TALON_TRUMPS: Final = "no place for the trumps known to have been in the talon"


@attrs.frozen
class _Split:
    """The hidden places of an observation and the cards of ``from_talon`` among them."""

    opponents: tuple[int, ...]
    unknown: tuple[int, ...]
    talon: int
    hidden: int
    restricted: int
    restricted_mask: int
    weights: tuple[tuple[tuple[int, ...], int], ...]

    @staticmethod
    def of(o: Observation) -> _Split:
        """The split of ``o`` (checked for consistency)."""
        check_types(o)
        _check_shape(o)
        _check_places(o, _seen_places(o))
        opponents = tuple(p for p in range(o.rules.players) if p != o.player)
        unknown = tuple(o.unknown_count(p) for p in opponents)
        talon = 0 if o.talon_order is not None else o.talon_size - o.trump_in_talon
        hidden = o.hidden_cards()
        if len(hidden) != sum(unknown) + talon:  # talon >= 0: talon_size >= trump_in_talon
            raise _inconsistent(f"{len(hidden)} hidden cards for {sum(unknown) + talon} places")
        # In the open world every hand is shown, so where a card came from no longer matters.
        closed = o.hands is None
        mask = o.knowledge.from_talon.mask & hidden.mask if closed else 0
        origins = o.knowledge.origins if closed else ()
        # Without a record, any unknown card may have come from the talon.
        weights = tuple(
            (origins[p] if origins else (0,) * unknown[i] + (1,), unknown[i])
            for i, p in enumerate(opponents)
        )
        check_facts(o)  # which checks, too, that no origins list more cards than held
        return _Split(opponents, unknown, talon, len(hidden), mask.bit_count(), mask, weights)

    def sample(self, rng: random.Random) -> tuple[int, ...]:
        """How many restricted cards each opponent and (last) the talon hold."""
        counts = sample_split(self.weights, self.talon, self.restricted, rng)
        if counts is None:
            raise _inconsistent(_NO_PLACE_FOR_TALON_TRUMPS)
        return counts

    def means(self) -> tuple[Fraction, ...]:
        """The expected number of restricted cards in each opponent's hand and the talon."""
        means = split_means(self.weights, self.talon, self.restricted)
        if means is None:
            raise _inconsistent(_NO_PLACE_FOR_TALON_TRUMPS)
        return means


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
    if not o.players_out <= frozenset(range(n)):
        raise _inconsistent("players out must be players of the game")
    if o.knowledge.origins and len(o.knowledge.origins) != n:
        raise _inconsistent(f"origins must have {n} entries")
    if not 0 <= o.talon_size <= o.rules.deck_size - n * o.rules.hand_size:
        raise _inconsistent(f"talon size {o.talon_size} is not possible")
    if o.talon_order is not None:
        if o.hands is None or len(o.talon_order) != o.talon_size:
            raise _inconsistent("a talon order needs every hand and talon_size cards")
        if o.talon_order and o.trump_card is not None and o.talon_order[-1] is not o.trump_card:
            raise _inconsistent(f"the talon must end with the trump card {o.trump_card}")
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


def _check_places(o: Observation, places: list[tuple[str, int]]) -> None:
    """The named card masks lie in the deck and never share a card.  Cheap when they do;
    the message is worked out only when not."""
    deck = deck_mask(o.rules.lowest_rank, o.rules.suits)
    union = count = 0
    for _, m in places:
        union |= m
        count += m.bit_count()
    if count == union.bit_count() and not union & ~deck:
        return
    seen: dict[int, str] = {}
    for name, m in places:
        for c in CardSet(m & ~deck):
            raise _inconsistent(f"{c} in {name} is not a card of the {o.rules.deck_size}-card deck")
        for c in CardSet(m):
            if c.index in seen:
                raise _inconsistent(f"{c} is both in {seen[c.index]} and in {name}")
            seen[c.index] = name
    raise AssertionError  # unreachable: a shared card or one outside the deck was named


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
    if o.talon_order is not None:
        places.append(("the talon", CardSet.from_cards(o.talon_order).mask))
    elif o.face_up_trump is not None:
        places.append(("the talon (the face-up trump)", 1 << o.face_up_trump.index))
    return places
