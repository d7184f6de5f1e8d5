"""Card-play heuristics shared by the rule-based agents and the evaluation functions.

Card power follows Zarlykov (2023) and Van Khan (2024): every non-trump card is weaker than
every trump; within each group cards order by rank (suits break ties so the order is total
and deterministic).
"""

from __future__ import annotations

from durak.rules import Action, Card, Suit


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
