"""The invariants of one transition ``state --action--> next_state`` (``docs/rules.md``).

:func:`check_transition` does not replay the action with the engine (which would make a
faulty engine its own judge): it checks that the action was legal, that both states keep
:func:`~durak.testing.invariants.check_state`, and that every card moved as a Durak action
can move one.
"""

from __future__ import annotations

from durak.rules import Action, CardSet, GameState, legal_actions
from durak.testing.invariants import InvariantError, check_state

__all__ = ["check_step", "check_transition"]


def check_transition(state: GameState, action: Action, next_state: GameState) -> None:
    """Raise :class:`~durak.testing.invariants.InvariantError` unless ``next_state`` can
    follow ``state`` by ``action``:

    * the action is one of ``legal_actions(state)``, and the rules are unchanged;
    * both states keep :func:`~durak.testing.invariants.check_state`;
    * a played card leaves the mover's hand for the table (or, if the bout ends, the
      discard pile or the defender's hand), and no other card leaves a hand;
    * a card enters a hand only from the talon (drawn from its top) or the table (taken);
    * the discard pile and the players out only grow, the table only grows within a bout,
      and the talon only loses its top cards.
    """
    check_state(state)
    check_step(state, action, next_state)


def check_step(state: GameState, action: Action, next_state: GameState) -> None:
    """:func:`check_transition` for a ``state`` already checked: all but its
    :func:`~durak.testing.invariants.check_state` (a walk along a game checks each state
    once)."""
    if action not in legal_actions(state):
        raise InvariantError("action legal", f"{action} is not legal for player {state.turn}")
    if next_state.rules != state.rules:
        raise InvariantError("rules unchanged", f"{state.rules} became {next_state.rules}")
    check_state(next_state)
    _check_moves(state, action, next_state)


def _check_moves(before: GameState, action: Action, after: GameState) -> None:
    what = "cards move as the action says"
    mover = before.turn
    card = getattr(action, "card", None)
    played = 0 if card is None else 1 << card.index
    table = before.table_cards().mask | played
    talon = CardSet.from_cards(before.talon).mask
    for q, (old, new) in enumerate(zip(before.hand_masks, after.hand_masks, strict=True)):
        gone = old & ~new
        if gone & ~(played if q == mover else 0):
            raise InvariantError(what, f"{CardSet(gone)} left hand {q} on {action}")
        came = new & ~old
        if came & ~(talon | table):
            found = CardSet(came & ~(talon | table))
            raise InvariantError(what, f"{found} entered hand {q} from neither talon nor table")
        if came & table and q != before.defender:
            found = CardSet(came & table)
            raise InvariantError(what, f"{found} went from the table to hand {q}, not the defender")
    if played and after.hand_masks[mover] & played:
        raise InvariantError(what, f"{card} played but still in hand {mover}")
    drawn = len(before.talon) - len(after.talon)
    if drawn < 0 or before.talon[drawn:] != after.talon:
        raise InvariantError(what, "the talon changed other than by draws from its top")
    if before.discard.mask & ~after.discard.mask:
        raise InvariantError(what, "cards left the discard pile")
    if after.discard.mask & ~before.discard.mask & ~table:
        raise InvariantError(what, "cards reached the discard pile from off the table")
    if not before.players_out <= after.players_out:
        raise InvariantError(what, "a player out came back")
    # The bout goes on: the table is the old one and the card played.
    if after.table and after.table_cards().mask != table:
        raise InvariantError(what, f"table {after.table} after {action} on {before.table}")
