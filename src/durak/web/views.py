"""What the browser is sent: a pure function of the person's own observation.

The table view is built from :func:`~durak.rules.observe` of the person's seat (closed
world) and from public facts only: the actions everyone saw, the names of the seats,
whether an agent is thinking and how the game ended.  It never reads the state, so a card
the person cannot see cannot reach the browser (``tests/web/test_server.py`` permutes the hidden
cards and compares every payload).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from durak.agents import shown_hand, shown_order
from durak.agents.heuristics.tactics import sorted_by_power
from durak.rules import Action, Card, Observation, Rules

__all__ = ["Move", "Outcome", "card_text", "rules_json", "table_view"]

#: How many of the last actions the view lists.
HISTORY = 12


@attrs.frozen
class Move:
    """A public action: who took it and what it was."""

    seat: int
    action: Action


@attrs.frozen
class Outcome:
    """How a game ended: the durak's seat (``None``: a draw) and, for a forfeit, why."""

    durak: int | None
    forfeit: str | None = None


def card_text(card: Card) -> str:
    """The card as the engine writes it, e.g. ``10♥``."""
    return str(card)


def rules_json(rules: Rules) -> dict[str, Any]:
    """The rules as the page shows them."""
    return attrs.asdict(rules)


def table_view(
    o: Observation,
    names: Sequence[str],
    history: Sequence[Move],
    *,
    game: str,
    version: int,
    seed: int,
    outcome: Outcome | None,
    hints: bool = True,
) -> dict[str, Any]:
    """The person's table: their hand (as ``durak play`` shows it: weakest first, trumps
    last and marked), the table as attack/defence pairs, the trump card, talon and discard
    counts, every seat's hand size and publicly known cards, the roles, whose turn it is
    (and whether an agent is thinking), their legal actions (numbered in ``durak play``'s
    order, in the engine's notation, with the cards each uses), how many moves were made
    and the last of them, whether the table gives hints, and the result once the game is
    over (with the seed, which gives the deal and so is never sent before)."""
    trump = o.trump_suit
    # Over once the table has the outcome: a terminal position shown a moment before
    # (the last move) must not end the page's polling without the result.
    over = outcome is not None
    actions = [
        {"key": i + 1, "text": str(a), "cards": [card_text(c) for c in _cards_of(a)]}
        for i, a in enumerate(shown_order(o))
    ]
    return {
        "game": game,
        "version": version,
        "rules": rules_json(o.rules),
        "you": o.player,
        "seats": _seats(o, names, over),
        "hand": [{"card": card_text(c), "trump": c.suit == trump} for c in shown_hand(o)],
        "table": [
            {"attack": card_text(a), "defence": None if d is None else card_text(d)}
            for a, d in o.table
        ],
        "trump": {
            "suit": None if trump is None else str(trump),
            "card": None if o.trump_card is None else card_text(o.trump_card),
        },
        "talon": o.talon_size,
        "discard": len(o.discard),
        "attacker": o.attacker,
        "defender": o.defender,
        "turn": -1 if over else o.turn,
        "taking": o.taking,
        "thinking": not over and o.turn != o.player,
        "actions": [] if over else actions,
        "moves": len(history),
        "history": [
            {"seat": m.seat, "name": names[m.seat], "action": str(m.action)}
            for m in history[-HISTORY:]
        ],
        "over": over,
        "hints": hints,
        "result": None
        if outcome is None
        else {
            "durak": outcome.durak,
            "draw": outcome.durak is None,
            "forfeit": outcome.forfeit,
            # Only now: the seed gives the deal, every hidden card included.
            "seed": seed,
        },
    }


def _seats(o: Observation, names: Sequence[str], over: bool) -> list[dict[str, Any]]:
    """Every seat as the person sees it: name, hand size, the cards of it known to all,
    role (none once the game is over) and whether it is out."""
    seats = []
    for p in range(o.rules.players):
        role = "attacker" if p == o.attacker else "defender" if p == o.defender else ""
        seats.append(
            {
                "seat": p,
                "name": names[p],
                "you": p == o.player,
                "cards": o.hand_sizes[p],
                "known": [card_text(c) for c in sorted_by_power(o.known_cards(p), o.trump_suit)]
                if p != o.player
                else [],
                "role": "" if over else role,
                "out": p in o.players_out,
            }
        )
    return seats


def _cards_of(action: Action) -> list[Card]:
    """The hand card an action plays (none for Take and Pass)."""
    card = getattr(action, "card", None)
    return [card] if isinstance(card, Card) else []
