"""Starting positions: a seeded new game, a given deck order, or a mid-game bout start.

Deal and first attacker follow ``docs/rules.md`` ("Deal and trump", "First attacker"):
cards are dealt one at a time round-robin from player 0, the last card of the deck is the
trump card at the bottom of the talon, and the holder of the lowest trump shows it and leads.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from durak.rules.bout import base_cap, next_active, position_key
from durak.rules.builders import build_knowledge, build_state
from durak.rules.cards import (
    EMPTY,
    Card,
    CardSet,
    Suit,
    bit_indices,
    cardset_unchecked,
    deck_cards,
    deck_mask,
    suit_mask,
)
from durak.rules.config import Rules
from durak.rules.errors import RulesError
from durak.rules.origins import DEALT
from durak.rules.state import GameState, History, Knowledge


def new_game(rules: Rules, seed: int) -> GameState:
    """A deterministic shuffle and deal for ``seed``: the same seed gives the same state.

    If nobody holds a trump, the first attacker is drawn from the same seeded generator.
    """
    _check_rules(rules)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RulesError(f"seed must be an int, got {seed!r}")
    rng = random.Random(seed)
    deck = list(deck_cards(rules.lowest_rank, rules.suits))
    rng.shuffle(deck)
    return _deal_checked(rules, deck, fallback_leader=rng.randrange(rules.players))


def deal(rules: Rules, deck: Sequence[Card | str], leader: int = 0) -> GameState:
    """Deal ``deck`` (``deck[0]`` on top) one card at a time round-robin from player 0.

    ``deck`` must be exactly the variant's cards.  The last card is the trump card; if every
    card is dealt it is the last card dealt, and everyone knows who holds it.  If nobody holds
    a trump, player ``leader`` leads (``new_game`` draws it at random).
    """
    _check_rules(rules)
    cards = [_card(c) for c in _sequence(deck, "deck")]
    _check_deck(rules, cards)
    if type(leader) is not int or not 0 <= leader < rules.players:
        raise RulesError(f"leader must be a player 0..{rules.players - 1}, got {leader!r}")
    return _deal_checked(rules, cards, fallback_leader=leader)


def _check_rules(rules: object) -> None:
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")


def _sequence(value: object, what: str, of: str = "cards") -> Sequence[object]:
    """``value`` if it is a list or tuple; a string or a number is refused, naming ``what``."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{what} must be a list or tuple of {of}, got {type(value).__name__}")
    return value


def _card(c: object) -> Card:
    if isinstance(c, Card):
        return c
    if isinstance(c, str):
        return Card.parse(c)
    raise RulesError(f"not a card: {c!r}")


def _check_deck(rules: Rules, deck: list[Card]) -> None:
    full = deck_mask(rules.lowest_rank, rules.suits)
    mask = 0
    for c in deck:
        if (mask >> c.index) & 1:
            raise RulesError(f"duplicate card {c} in the deck")
        mask |= 1 << c.index
    if mask != full or len(deck) != rules.deck_size:
        missing = CardSet(full & ~mask)
        extra = CardSet(mask & ~full)
        raise RulesError(
            f"the deck must hold the {rules.deck_size} cards from rank {rules.lowest_rank} up "
            f"in {rules.suits} suits; "
            f"missing: [{missing}], not in this deck: [{extra}]"
        )


def _deal_checked(rules: Rules, deck: list[Card], fallback_leader: int) -> GameState:
    """Deal a deck already known to be exactly the variant's cards."""
    n = rules.players
    dealt = n * rules.hand_size
    hand_masks = [0] * n
    for i, c in enumerate(deck[:dealt]):
        hand_masks[i % n] |= 1 << c.index
    hands = tuple(hand_masks)
    talon = tuple(deck[dealt:])
    trump_card = deck[-1] if rules.trumps else None
    exposed = 0
    from_talon = EMPTY
    leader = fallback_leader
    if trump_card is not None:
        exposed = 1 << trump_card.index  # face up, at the talon's bottom or dealt last
        trumps = suit_mask(trump_card.suit)
        held = [(bit_indices(h & trumps)[0], p) for p, h in enumerate(hands) if h & trumps]
        below = trumps
        if held:
            low, leader = min(held)
            exposed |= 1 << low
            below = trumps & ((1 << low) - 1)
        # No hand holds a trump below the lowest one dealt: those not face up are in the talon.
        from_talon = cardset_unchecked(below & deck_mask(rules.lowest_rank, rules.suits) & ~exposed)
    defender = (leader + 1) % n
    origins = (DEALT,) * n if from_talon else ()
    knowledge = build_knowledge(cardset_unchecked(exposed), from_talon, origins)
    return _bout_start(rules, hands, talon, trump_card, EMPTY, leader, defender, knowledge)


def _bout_start(
    rules: Rules,
    hands: tuple[int, ...],
    talon: tuple[Card, ...],
    trump_card: Card | None,
    discard: CardSet,
    attacker: int,
    defender: int,
    knowledge: Knowledge,
    trump_suit: Suit | None = None,
    out: frozenset[int] = frozenset(),
) -> GameState:
    suit = trump_card.suit if trump_card is not None else trump_suit
    history = History(
        [position_key(attacker, defender, hands, knowledge.exposed.mask)]
        if rules.can_repeat
        else ()
    )
    cap = min(base_cap(rules, discard), hands[defender].bit_count())
    return build_state(
        rules,
        hands,
        talon,
        suit,
        trump_card,
        (),
        discard,
        attacker,
        defender,
        attacker,
        False,
        cap,
        out,
        knowledge,
        history,
    )


def position(
    rules: Rules,
    hands: Sequence[Iterable[Card | str]],
    trump: Card | Suit | None,
    talon: Sequence[Card | str] = (),
    attacker: int = 0,
    defender: int | None = None,
) -> GameState:
    """The start of a bout in mid-game, for tests and research.

    * ``hands``: one list of cards (or card strings) per player.
    * ``trump``: the trump card or suit (``None`` only when ``rules.trumps`` is False).  A
      non-empty ``talon`` (top first) must end with the trump card.
    * Cards in neither the hands nor the talon are in the discard pile.
    * With an empty talon, players with no cards have left the game.
    * ``defender`` defaults to, and must be, the next active player after ``attacker``.

    Raises :class:`RulesError` on duplicates, cards outside the deck, or an impossible setup.
    """
    _check_rules(rules)
    n = rules.players
    if len(_sequence(hands, "hands", "hands")) != n:
        raise RulesError(f"position needs {n} hands (Rules.players), got {len(hands)}")
    full = deck_mask(rules.lowest_rank, rules.suits)
    seen = 0

    def collect(cards: Iterable[object], where: str) -> list[Card]:
        nonlocal seen
        out = []
        for raw in cards:
            c = _card(raw)
            if not (full >> c.index) & 1:
                raise RulesError(f"{c} ({where}) is not in the {rules.deck_size}-card deck")
            if (seen >> c.index) & 1:
                raise RulesError(f"duplicate card {c} ({where})")
            seen |= 1 << c.index
            out.append(c)
        return out

    hand_sets = tuple(CardSet.from_cards(collect(h, f"hand {p}")).mask for p, h in enumerate(hands))
    talon_cards = tuple(collect(_sequence(talon, "talon"), "talon"))
    trump_card, trump_suit = _resolve_trump(rules, trump, talon_cards)
    if talon_cards and any(not h for h in hand_sets):
        raise RulesError("a player holds no cards although the talon is not empty")
    out = frozenset(p for p in range(n) if not hand_sets[p])  # none while the talon lasts
    if n - len(out) < 2:
        raise RulesError("at least two players must hold cards (or the talon be non-empty)")
    if not 0 <= attacker < n or attacker in out:
        raise RulesError(f"attacker {attacker} is not a player holding cards")
    expected = next_active(attacker, n, out)
    if defender is not None and defender != expected:
        raise RulesError(
            f"defender {defender} is not the next active player after attacker {attacker} "
            f"(that is {expected})"
        )
    # The face-up trump card is exposed while in the talon or a hand (the canonical form).
    exposed = (
        CardSet.of(trump_card)
        if trump_card is not None and (seen >> trump_card.index) & 1
        else EMPTY
    )
    discard = CardSet(full & ~seen)
    knowledge = Knowledge(exposed)  # nothing drawn from the talon yet, by anyone
    return _bout_start(
        rules,
        hand_sets,
        talon_cards,
        trump_card,
        discard,
        attacker,
        expected,
        knowledge,
        trump_suit,
        out,
    )


def _resolve_trump(
    rules: Rules, trump: Card | Suit | None, talon: tuple[Card, ...]
) -> tuple[Card | None, Suit | None]:
    if not rules.trumps:
        if trump is not None:
            raise RulesError("Rules.trumps is False, so trump must be None")
        return None, None
    if isinstance(trump, Card):
        if talon and talon[-1] is not trump:
            raise RulesError(f"the talon must end with the trump card {trump}, not {talon[-1]}")
        if not (deck_mask(rules.lowest_rank, rules.suits) >> trump.index) & 1:
            raise RulesError(f"trump card {trump} is not in the {rules.deck_size}-card deck")
        return trump, trump.suit
    if isinstance(trump, Suit):
        if trump >= rules.suits:
            raise RulesError(f"trump suit {trump} is not in the {rules.deck_size}-card deck")
        if talon:
            if talon[-1].suit is not trump:
                raise RulesError(f"the talon must end with a trump card of suit {trump}")
            return talon[-1], trump
        return None, trump
    raise RulesError(f"trump must be a Card or a Suit, got {trump!r}")
