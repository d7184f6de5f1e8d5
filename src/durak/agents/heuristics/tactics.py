"""Card-play heuristics shared by the rule-based agents and the evaluation functions.

Card power follows Zarlykov (2023) and Van Khan (2024): every non-trump card is weaker than
every trump; within each group cards order by rank (suits break ties so the order is total
and deterministic).

Besides power, it holds the order in which the rule-based agents
(:mod:`durak.agents.heuristics.simple`,
:mod:`durak.agents.heuristics.smart`) rank card plays, who may throw in, and Bonnet's *weaknesses*
of a hand against a fully known opponent hand (our reading of Zarlykov 2023, 4.2.2), with
:func:`opponent_hand` telling when that hand is known.
"""

from __future__ import annotations

from collections.abc import Iterable

from durak.rules import (
    Action,
    Card,
    CardSet,
    Defend,
    Observation,
    Pass,
    Suit,
    Take,
    asking_order,
    beaters,
    bit_indices,
)


def power(card: Card, trump: Suit | None) -> int:
    """The card's strength, distinct for every card: ``10 * rank + suit``, plus 1000 for a
    trump.

    >>> from durak.rules import Card, Suit
    >>> power(Card.parse("6S"), Suit.S) > power(Card.parse("AH"), Suit.S)
    True
    """
    return (1000 if card.suit is trump else 0) + card.rank * 10 + card.suit


def action_card(action: Action) -> Card | None:
    """The card an action plays (Attack, Defend, Transfer), or ``None`` for Take and Pass."""
    card: Card | None = getattr(action, "card", None)
    return card


def is_trump(card: Card, trump: Suit | None) -> bool:
    """Whether ``card`` is a trump (never, in a game without trumps)."""
    return trump is not None and card.suit is trump


def sorted_by_power(cards: Iterable[Card], trump: Suit | None) -> list[Card]:
    """``cards`` from the weakest to the strongest (non-trumps first)."""
    return sorted(cards, key=lambda c: power(c, trump))


def play_key(action: Action, trump: Suit | None) -> tuple[int, int, int]:
    """The order of card plays used by the rule-based agents: by the power of the card
    played, then Attack before Defend before Transfer, then the stronger target first.

    The last two only break ties between plays of one card: a trump that could either beat
    or transfer a non-trump of its rank is used to beat it, and a card that beats several
    undefended attack cards goes on the strongest of them, which leaves the weaker targets
    to the weaker cards.  Take and Pass play no card and are not ordered here.
    """
    card = action_card(action)
    if card is None:
        raise ValueError(f"{action} plays no card")
    target = -power(action.target, trump) if isinstance(action, Defend) else 0
    return (power(card, trump), type(action).kind, target)


def lowest_play(actions: Iterable[Action], trump: Suit | None) -> Action | None:
    """The card action of ``actions`` first in :func:`play_key` order (Take and Pass are
    ignored), or ``None`` when there is none."""
    # play_key packed into one int (the card's row in _PLAY_POWER orders like power): this
    # runs at every step of a greedy rollout.
    power = _PLAY_POWER[4 if trump is None else trump]
    best: Action | None = None
    best_key = 1 << 20
    for a in actions:
        kind = type(a)
        if kind is Take or kind is Pass:
            continue
        key = power[a.card.index] * 512 + a.kind * 128  # type: ignore[union-attr]
        if kind is Defend:
            key += 127 - power[a.target.index]  # type: ignore[union-attr]
        if key < best_key:
            best, best_key = a, key
    return best


# Per trump suit (4: none), per card index: the index, with 64 added for a trump (the index
# orders cards by rank, then suit, as power does within trumps and within the others).
_PLAY_POWER = tuple(
    tuple(i | 64 if i % 4 == trump else i for i in range(52)) for trump in (0, 1, 2, 3, None)
)


def attackers_of(observation: Observation) -> tuple[int, ...]:
    """The players who may throw in against the current defender (``docs/rules.md``,
    "Throwing in"), main attacker first; the defender is never among them."""
    o = observation
    r = o.rules
    order = asking_order(
        r.players, r.throw_in == "neighbours", o.attacker, o.defender, o.players_out
    )
    return tuple(p for p in order if p != o.defender)


def weaknesses(hand: CardSet, opponent_hand: CardSet, trump: Suit | None) -> CardSet:
    """Bonnet's *weaknesses* of ``hand``: its cards that some card of ``opponent_hand``
    beats.

    >>> from durak.rules import CardSet, Suit
    >>> str(weaknesses(CardSet.of("6S", "KD", "7H"), CardSet.of("7S", "8C"), Suit.H))
    '6♠'
    """
    return CardSet(weak_mask(hand.mask, opponent_hand.mask, trump))


def weak_mask(hand: int, opponent: int, trump: Suit | None) -> int:
    """:func:`weaknesses` on card bitmasks, for the evaluation functions' inner loop."""
    beating = beaters(trump)
    return sum(1 << i for i in bit_indices(hand) if beating[i] & opponent)


def sole_opponent(observation: Observation) -> int | None:
    """The only other player still in the game, or ``None`` if there are several.

    Once the talon is empty a player with no cards takes no further part (it leaves when the
    bout ends), so it is not counted.
    """
    o = observation
    others = [
        p
        for p in range(o.rules.players)
        if p != o.player and p not in o.players_out and (o.talon_size > 0 or o.hand_sizes[p] > 0)
    ]
    return others[0] if len(others) == 1 else None


def opponent_hand(observation: Observation) -> CardSet | None:
    """The hand of the :func:`sole_opponent` when the observer knows all of it, else ``None``.

    It is known in an open-world observation, and in a closed world by deduction when every
    hidden card (:meth:`~durak.rules.Observation.hidden_cards`) must be the opponent's: when
    there are exactly as many hidden cards as the opponent has unknown cards.  That holds
    once no card lies in the talon above the face-up trump card (so in particular once the
    talon is empty) and every other player's cards are known.  An opponent whose every card
    is publicly known (picked up in takes) is known at any time.
    """
    o = observation
    opp = sole_opponent(o)
    if opp is None:
        return None
    if o.hands is not None:
        return o.hands[opp]
    known = o.known_cards(opp)
    unknown = o.hand_sizes[opp] - len(known)
    if unknown == 0:
        return known
    hidden = o.hidden_cards()
    return known | hidden if len(hidden) == unknown else None
