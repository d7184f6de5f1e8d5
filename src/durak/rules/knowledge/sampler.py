"""The worlds an observation allows: the exact odds of each card's place and a uniform draw.

The worlds are the deck orders consistent with what the observer has seen
(:mod:`durak.rules.knowledge.observation`), each counted once.  :func:`sample_world` draws
one uniformly, in the manner of the determinization step of Perfect Information Monte Carlo
(Long et al., AAAI 2010) and ISMCTS (Cowling, Powley & Whitehouse, IEEE TCIAIG 2012);
:func:`odds` gives the chance of each place a card may be in (``docs/rules.md``, "Exact
odds").  Both read nothing but the observation, and refuse an inconsistent one
(:mod:`durak.rules.knowledge.consistency`).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Final

import attrs

from durak.rules.cards import CARDS, Card, CardSet, bit_indices, deck_mask
from durak.rules.config import Rules
from durak.rules.errors import RulesError
from durak.rules.knowledge.consistency import check_facts, check_types, check_world
from durak.rules.knowledge.consistency import inconsistent as _inconsistent
from durak.rules.knowledge.observation import Observation, Place
from durak.rules.origins import sample_split, split_means
from durak.rules.state import GameState, table_mask


def places(observation: Observation, card: Card) -> frozenset[Place]:
    """The places ``card`` may be, from the observer's point of view: those of
    :func:`odds` with a chance above zero.

    Raises ``TypeError`` if ``card`` is not a :class:`Card`, :class:`RulesError` if it is
    not in this variant's deck, or if the observation is inconsistent.
    """
    return frozenset(place for place, chance in odds(observation, card).items() if chance)


def odds(observation: Observation, card: Card) -> dict[Place, Fraction]:
    """The exact chance of each place ``card`` may be in, from the observer's point of
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
    o = observation
    if not (deck_mask(o.rules.lowest_rank, o.rules.suits) >> card.index) & 1:
        raise RulesError(f"{card} is not in the {o.rules.deck_size}-card deck")
    if card in o.discard:
        return {"discard": Fraction(1)}
    if any(card is a or card is d for a, d in o.table):
        return {"table": Fraction(1)}
    for p in range(o.rules.players):
        if card in o.known_cards(p):
            return {p: Fraction(1)}
    if card is o.face_up_trump:
        return {"talon": Fraction(1)}
    if o.talon_order is not None and card in o.talon_order:
        return {"talon": Fraction(1)}
    split = _Split.of(o)
    restricted = bool((split.restricted_mask >> card.index) & 1)
    means = split.means()
    where: list[Place] = [*split.opponents, "talon"]
    sizes = [*split.unknown, split.talon]
    free = split.hidden - split.restricted
    return {
        place: means[i] / split.restricted if restricted else (sizes[i] - means[i]) / free
        for i, place in enumerate(where)
        if sizes[i]
    }


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
    split = _split_of(o)
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


#: The last observation :func:`sample_world` split, and its split.  A search draws many
#: worlds from one observation, and the split (with every check of the observation) is a
#: pure function of that immutable value.  The observation is held, so an identity match
#: can never be a new object at a reused address; one tuple, so threads read a matching pair.
_last_split: tuple[Observation, _Split] | None = None


def _split_of(o: Observation) -> _Split:
    """``_Split.of(o)``, worked out once for the observation last asked about."""
    global _last_split  # noqa: PLW0603 - a one-entry cache
    last = _last_split
    if last is not None and last[0] is o:
        return last[1]
    split = _Split.of(o)
    _last_split = (o, split)
    return split


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
