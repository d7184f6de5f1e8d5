"""State and action abstractions for tabular Q-learning of Durak.

``crampton`` is our reading of the abstracted state of Crampton's Q-learning study
(Durham): the counts of the learner's cards by group (low, middle, high rank thirds ×
trump or not, each count capped at 3), whether an opponent holds more cards, the role, the
number of undefended cards (0, 1, 2+) and whether the talon still has cards.

``plus`` is our refinement.  Its state is the role, the bucketed sizes of the talon and of
both hands, the learner's trumps and high non-trumps, the opponents' known trumps, the
cards on the table and undefended, and what beating the first open card would cost.  Its
actions are relative to the hand (see :func:`relative_groups`): the weakest plain card,
the weakest card of a pair, the weakest trump, Take and Pass.

``crampton`` groups actions by kind, rank third and trumpness (:func:`action_groups`).
A Q-table over exact cards would not generalise across abstract states, so in both a
group's key stands for the weakest legal action with that key.  Every legal action belongs
to a group, so the learner can always choose among all kinds of play.  Keys are short
strings so that Q-tables save to JSON as they are.
"""

from __future__ import annotations

from collections.abc import Callable

from durak.agents.heuristics.tactics import action_card, power
from durak.rules import Action, Attack, Card, Defend, Observation, Pass, Take, Transfer

__all__ = ["ABSTRACTIONS", "GROUPINGS", "action_groups", "relative_groups"]

_KIND: dict[type, str] = {Attack: "A", Defend: "D", Transfer: "X", Take: "T", Pass: "P"}


def _tier(card: Card, lowest_rank: int) -> int:
    """0, 1 or 2: the third of the rank range ``lowest_rank..A`` the card is in."""
    return _tier_of(card.rank, lowest_rank)


def _group(card: Card, o: Observation) -> str:
    """``tier`` then ``t`` (trump) or ``n``, e.g. ``"2t"``."""
    return f"{_tier(card, o.rules.lowest_rank)}{'t' if card.suit is o.trump_suit else 'n'}"


def _weakest(o: Observation, key_of: Callable[[Action, Card], str]) -> dict[str, Action]:
    """The legal actions of ``o`` grouped by ``key_of(action, card)`` (Take and Pass alone),
    each group standing for its weakest action by card power; keys in first-seen order."""
    trump = o.trump_suit
    best: dict[str, tuple[int, Action]] = {}
    for a in o.legal_actions:
        card = action_card(a)
        if card is None:
            best[_KIND[type(a)]] = (0, a)
            continue
        key = key_of(a, card)
        p = power(card, trump)
        if key not in best or p < best[key][0]:
            best[key] = (p, a)
    return {k: a for k, (_, a) in best.items()}


def action_groups(o: Observation) -> dict[str, Action]:
    """``crampton`` action groups: kind, rank third and trumpness of the card (``"A0n"``:
    attack with a low non-trump), each the weakest legal action with that key."""
    return _weakest(o, lambda a, card: _KIND[type(a)] + _group(card, o))


def relative_groups(o: Observation) -> dict[str, Action]:
    """``plus`` action groups, relative to the hand: the kind, then ``t`` for a trump,
    and for a non-trump attack ``p`` when the hand holds another card of its rank (a pair
    to throw in after it): ``"A"``, ``"Ap"``, ``"At"``, ``"D"``, ``"Dt"``, ``"X"``,
    ``"Xt"``, ``"T"``, ``"P"``; each the weakest legal action with that key."""
    ranks = [c.rank for c in o.hand]

    def key(a: Action, card: Card) -> str:
        if card.suit is o.trump_suit:
            return _KIND[type(a)] + "t"
        paired = type(a) is Attack and ranks.count(card.rank) > 1
        return _KIND[type(a)] + ("p" if paired else "")

    return _weakest(o, key)


def _role(o: Observation) -> str:
    return "A" if o.player == o.attacker else "D" if o.player == o.defender else "T"


def _cap(n: int, top: int) -> int:
    return n if n < top else top


def _crampton(o: Observation) -> str:
    counts = [0] * 6
    low = o.rules.lowest_rank
    for c in o.hand:
        counts[_tier(c, low) * 2 + (c.suit is o.trump_suit)] += 1
    mine = o.hand_sizes[o.player]
    more = any(s > mine for p, s in enumerate(o.hand_sizes) if p != o.player)
    undefended = sum(1 for _, b in o.table if b is None)
    return (
        "".join(str(_cap(n, 3)) for n in counts)
        + f"{int(more)}{_role(o)}{_cap(undefended, 2)}{int(o.talon_size > 0)}"
    )


def _bucket(n: int, edges: tuple[int, ...]) -> int:
    """The number of ``edges`` that ``n`` is at least: a small ordinal bucket."""
    return sum(1 for e in edges if n >= e)


def _plus(o: Observation) -> str:
    others = max(s for p, s in enumerate(o.hand_sizes) if p != o.player)
    trump = o.trump_suit
    mine = list(o.hand)
    trumps = sum(1 for c in mine if c.suit is trump)
    high = sum(1 for c in mine if c.suit is not trump and _tier(c, o.rules.lowest_rank) == 2)
    known_trumps = sum(
        1
        for p in range(o.rules.players)
        if p != o.player
        for c in o.known_cards(p)
        if c.suit is trump
    )
    undefended = [a for a, b in o.table if b is None]
    # What a defence would cost: the cheapest non-trump able to beat the first open card.
    cost = "-"
    if o.player == o.defender and undefended:
        target = undefended[0]
        if target.suit is trump:
            cost = "t"
        else:
            beaters = [c.rank for c in mine if c.suit is target.suit and c.rank > target.rank]
            cost = str(_tier_of(min(beaters), o.rules.lowest_rank)) if beaters else "n"
    return (
        _role(o)
        + str(_bucket(o.talon_size, (1, 4, 10)))
        + str(_bucket(o.hand_sizes[o.player], (2, 3, 5, 7)))
        + str(_bucket(others, (2, 3, 5, 7)))
        + str(_cap(trumps, 3))
        + str(_cap(high, 2))
        + str(_cap(known_trumps, 2))
        + str(_cap(len(o.table), 3))
        + str(_cap(len(undefended), 2))
        + cost
    )


def _tier_of(rank: int, lowest_rank: int) -> int:
    return (rank - lowest_rank) * 3 // (15 - lowest_rank)


#: The state abstractions by name (``qlearn:abstraction=NAME``).
ABSTRACTIONS: dict[str, Callable[[Observation], str]] = {"crampton": _crampton, "plus": _plus}

#: The action grouping that goes with each state abstraction.
GROUPINGS: dict[str, Callable[[Observation], dict[str, Action]]] = {
    "crampton": action_groups,
    "plus": relative_groups,
}
