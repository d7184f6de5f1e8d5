"""The invariants of a :class:`~durak.rules.GameState` (``docs/rules.md``), as checks.

:func:`check_state` runs the groups below in a fixed order: the cards, the knowledge, the
trumps, the turn and players out, the table, the outcome, either the finished game or the
roles of a running one (and a bout start), then the legal actions, which follow from them.
Each raises :class:`InvariantError` naming the invariant it found broken; none skips or softens a
failure, and none relies on ``assert`` statements, so they check under ``python -O`` too.

The legal actions are checked for their shape (sorted, distinct, empty exactly at the end,
each one playable by the player to move), not against a second implementation of the
rules: the project's own suites add that comparison (``tests/support/rules_reference.py``).
"""

from __future__ import annotations

import itertools
import math

from durak.rules import (
    Attack,
    Card,
    CardSet,
    Defend,
    GameState,
    Pass,
    Suit,
    Take,
    Transfer,
    current_player,
    is_terminal,
    legal_actions,
    loser,
    returns,
)
from durak.rules.cards import deck_mask

__all__ = [
    "InvariantError",
    "check_cards",
    "check_finished",
    "check_knowledge",
    "check_legal_actions",
    "check_outcome",
    "check_roles",
    "check_state",
    "check_table",
    "check_trumps",
    "check_turn",
]


class InvariantError(AssertionError):
    """A broken invariant: ``invariant`` names it, the message says what was found."""

    def __init__(self, invariant: str, detail: str) -> None:
        super().__init__(f"{invariant}: {detail}")
        self.invariant = invariant
        self.detail = detail


def check_state(state: GameState) -> None:
    """Raise :class:`InvariantError` unless ``state`` keeps every invariant of a Durak
    state (``docs/rules.md`` and ``durak.rules.state``): each card of the deck in exactly
    one zone, knowledge consistent with the hands, trumps, a legal turn, a table of beaten
    pairs within the cap, well-formed legal actions, an outcome only at the end, and the
    roles of a running game (or the empty table of a finished one)."""
    check_cards(state)
    check_knowledge(state)
    check_trumps(state)
    check_turn(state)
    check_table(state)
    check_outcome(state)
    if is_terminal(state):
        check_finished(state)
    else:
        check_roles(state)
    check_legal_actions(state)  # last: they follow from the turn and roles checked above


def _names(mask: int) -> str:
    """The cards of ``mask`` by name (``7♠ 10♦``)."""
    return str(CardSet(mask))


def check_cards(state: GameState) -> None:
    """Card conservation: every deck card in exactly one zone, nothing from outside the
    deck, one hand per player."""
    rules = state.rules
    deck = deck_mask(rules.lowest_rank, rules.suits)
    if len(state.hand_masks) != rules.players:
        raise InvariantError(
            "cards conserved", f"{len(state.hands)} hands, {rules.players} players"
        )
    zones: list[tuple[str, int]] = [(f"hand {p}", h) for p, h in enumerate(state.hand_masks)]
    zones += [("talon", 1 << c.index) for c in state.talon]
    for a, d in state.table:
        zones.append(("table", 1 << a.index))
        if d is not None:
            zones.append(("table", 1 << d.index))
    zones.append(("discard", state.discard.mask))
    seen = 0
    for where, mask in zones:
        if seen & mask:
            raise InvariantError(
                "cards conserved", f"{_names(seen & mask)} in {where} and elsewhere"
            )
        seen |= mask
    if seen != deck:
        lost, extra = deck & ~seen, seen & ~deck
        found = [f"lost {_names(lost)}"] * bool(lost)
        found += [f"from outside the deck {_names(extra)}"] * bool(extra)
        raise InvariantError("cards conserved", "; ".join(found))


def check_knowledge(state: GameState) -> None:
    """Known cards are in the hand; the talon facts are about deck cards; origins are
    tracked exactly while a trump is known to have been in the talon; and at a bout start
    the knowledge is canonical."""
    rules = state.rules
    n = rules.players
    deck = deck_mask(rules.lowest_rank, rules.suits)
    k = state.knowledge
    known = state.known
    what = "knowledge consistent"
    if len(known) != n:
        raise InvariantError(what, f"known cards of {len(known)} players, {n} players")
    for p in range(n):
        if known[p].mask & ~state.hand_masks[p]:
            raise InvariantError(
                what, f"player {p}'s known cards {known[p]} are not all in its hand"
            )
    if k.from_talon.mask & ~deck:
        raise InvariantError(what, "a trump listed as from the talon is not in the deck")
    if bool(k.origins) != bool(k.from_talon):
        raise InvariantError(
            what, "origins tracked without trumps from the talon, or not with them"
        )
    if len(k.origins) not in (0, n):
        raise InvariantError(what, f"origins of {len(k.origins)} players, {n} players")
    for p, w in enumerate(k.origins):
        unknown = len(state.hands[p]) - len(known[p])
        if not 1 <= len(w) <= unknown + 1:
            raise InvariantError(what, f"origins of {p} list more cards than it holds: {w}")
        if not (min(w) >= 0 and w[-1] > 0 and math.gcd(*w) == 1):
            raise InvariantError(what, f"origins of {p} are not reduced weights: {w}")
    if not state.table and not is_terminal(state):
        # Canonical at a bout start: exposed cards are in a hand (or the talon's face-up
        # trump), and trumps listed as from the talon are unseen.
        held = 0
        for h in state.hand_masks:
            held |= h
        if state.talon and state.trump_card is not None:
            held |= 1 << state.trump_card.index
        if k.exposed.mask & ~held:
            raise InvariantError(what, "exposed cards outside the hands at a bout start")
        if k.from_talon.mask & (state.discard.mask | k.exposed.mask):
            raise InvariantError(what, "a seen card is still listed as from the talon")


def check_trumps(state: GameState) -> None:
    """The talon ends with the face-up trump card; a game without trumps has neither."""
    what = "trumps"
    if not state.rules.trumps:
        if state.trump_suit is not None or state.trump_card is not None:
            raise InvariantError(what, "a game without trumps has a trump suit or card")
        return
    if state.trump_suit is None:
        raise InvariantError(what, "a game with trumps has no trump suit")
    if state.trump_card is not None and state.trump_card.suit is not state.trump_suit:
        raise InvariantError(what, f"trump card {state.trump_card} is not of the trump suit")
    if state.talon and state.talon[-1] is not state.trump_card:
        raise InvariantError(what, "the talon does not end with the face-up trump card")


def check_turn(state: GameState) -> None:
    """The turn is a player (or -1 at the end); players out hold no cards and leave only
    once the talon is empty."""
    n = state.rules.players
    what = "turn"
    if not (state.turn == -1 or 0 <= state.turn < n):
        raise InvariantError(what, f"turn {state.turn} is no player of {n} (nor -1, the end)")
    if current_player(state) != state.turn:
        raise InvariantError(what, "current_player disagrees with the turn")
    if not is_terminal(state) == (state.turn == -1) == state.is_terminal:
        raise InvariantError(what, "is_terminal disagrees with a turn of -1")
    if not state.players_out <= frozenset(range(n)):
        raise InvariantError("players out", f"{sorted(state.players_out)} are not all players")
    for p in state.players_out:
        if state.hand_masks[p]:
            raise InvariantError("players out", f"player {p} is out but holds cards")
    if state.players_out and state.talon:
        raise InvariantError("players out", "a player left while the talon is not empty")


def beats(card: Card, target: Card, trump: Suit | None) -> bool:
    """Whether ``card`` beats ``target`` (``docs/rules.md``, "Beating"): a higher card of
    its suit, or a trump on a non-trump; restated here, not the engine's own table."""
    if card.suit == target.suit:
        return card.rank > target.rank
    return trump is not None and card.suit == trump


def check_table(state: GameState) -> None:
    """The table holds at most ``cap`` distinct attacks, each defence beating its attack."""
    what = "table"
    if len(state.table) > state.cap:
        raise InvariantError(what, f"{len(state.table)} attacks, cap {state.cap}")
    for a, d in state.table:
        if d is not None and not beats(d, a, state.trump_suit):
            raise InvariantError(what, f"{d} does not beat {a}")
    attacks = [a for a, _ in state.table]
    if len(set(attacks)) != len(attacks):
        raise InvariantError(what, "an attack card is on the table twice")


def check_legal_actions(state: GameState) -> None:
    """The legal actions are sorted and distinct, none only at the end, and each one fits
    the player to move: its card is in that player's hand, a defence or take is the
    defender's, a defence beats an open attack, a transfer only where the rules allow."""
    what = "legal actions"
    legal = legal_actions(state)
    if (len(legal) == 0) != is_terminal(state):
        raise InvariantError(
            what, f"{len(legal)} legal actions in a state terminal={is_terminal(state)}"
        )
    if not all(x < y for x, y in itertools.pairwise(legal)):
        raise InvariantError(what, "not sorted, or an action listed twice")
    if not legal:
        return
    hand = state.hand_masks[state.turn]
    defending = state.turn == state.defender and not state.taking
    open_attacks = {a for a, d in state.table if d is None}
    for action in legal:
        card = getattr(action, "card", None)
        if card is not None and not hand >> card.index & 1:
            raise InvariantError(what, f"{action} plays a card the player to move does not hold")
        if isinstance(action, Attack) and defending:
            raise InvariantError(what, f"{action} is offered to the defender")
        if isinstance(action, Defend | Take | Transfer) and not defending:
            raise InvariantError(what, f"{action} is offered to a player who does not defend")
        if isinstance(action, Defend) and not (
            action.target in open_attacks and beats(action.card, action.target, state.trump_suit)
        ):
            raise InvariantError(what, f"{action} does not beat an open attack")
        if isinstance(action, Transfer) and not state.rules.transfer:
            raise InvariantError(what, f"{action} in a game without transfers")
        if isinstance(action, Pass | Take) and not state.table:
            raise InvariantError(what, f"{action} offered on an empty table")


def check_finished(state: GameState) -> None:
    """A finished game has no bout: no table, no cap, no take."""
    if state.table:
        raise InvariantError("finished game", "the game ended during a bout")
    if state.cap != 0 or state.taking:
        raise InvariantError("finished game", "a finished game keeps a bout's cap or take")


def check_roles(state: GameState) -> None:
    """In a running game the attacker, defender and player to move are distinct players
    still in, the one to move holds cards, and the bout's cap and take fit the table."""
    n = state.rules.players
    what = "roles"
    if state.attacker == state.defender:
        raise InvariantError(what, f"player {state.attacker} attacks and defends")
    for role, p in (("attacker", state.attacker), ("defender", state.defender)):
        if not 0 <= p < n or p in state.players_out:
            raise InvariantError(what, f"the {role} {p} is not a player still in")
    if state.turn in state.players_out or not state.hand_masks[state.turn]:
        raise InvariantError("turn", f"player {state.turn}, out or without cards, is asked to act")
    if state.cap < 1:
        raise InvariantError(what, f"cap {state.cap} in a running game")
    undefended = sum(1 for _, d in state.table if d is None)
    if undefended > len(state.hands[state.defender]):
        raise InvariantError(what, "more to beat than the defender holds")
    if state.taking and not state.table:
        raise InvariantError(what, "a take with an empty table")
    if state.taking and state.turn == state.defender:
        raise InvariantError("turn", "the defender, who has taken, is asked to act")
    if not state.table:
        check_bout_start(state)


def check_bout_start(state: GameState) -> None:
    """At a bout start nobody takes, the attacker is to move, the cap is the bout's (or the
    first bout's) limited by the defender's hand, the repetition history is recorded exactly
    where a position can repeat, and the hands are refilled while the talon lasts."""
    rules = state.rules
    what = "bout start"
    if state.turn != state.attacker:
        raise InvariantError("turn", f"player {state.turn} moves at a bout start, not the attacker")
    if state.taking:
        raise InvariantError(what, "a take before the first attack")
    base = rules.bout_cap
    if rules.first_bout_cap is not None and not state.discard:
        base = rules.first_bout_cap
    if state.cap != min(base, len(state.hands[state.defender])):
        raise InvariantError(
            what, f"cap {state.cap}, not the bout's cap within the defender's hand"
        )
    if bool(state.history) != rules.can_repeat:
        raise InvariantError("repetition record", "kept where no position can repeat, or not kept")
    if state.talon:
        for p in range(rules.players):
            if len(state.hands[p]) < rules.hand_size:
                raise InvariantError(what, f"hand {p} not refilled while the talon lasts")


def check_outcome(state: GameState) -> None:
    """``loser`` and ``returns`` (``docs/rules.md``, "Outcomes"): no outcome before the end;
    at the end the only player holding cards is the durak with -1, the others share +1,
    and a draw gives zeros; the returns sum to zero."""
    n = state.rules.players
    what = "outcome"
    r = returns(state)
    if len(r) != n:
        raise InvariantError(what, f"{len(r)} returns for {n} players")
    if not is_terminal(state):
        if r != (0.0,) * n:
            raise InvariantError(what, f"returns {r} before the end of the game")
        try:
            loser(state)
        except ValueError:
            return
        raise InvariantError(what, "loser() answered before the end of the game")
    if not math.isclose(sum(r), 0.0, abs_tol=1e-9):
        raise InvariantError(what, f"returns {r} do not sum to zero")
    holders = [p for p, h in enumerate(state.hand_masks) if h]
    lost = loser(state)
    if lost is None:
        if len(holders) == 1 or r != (0.0,) * n:
            raise InvariantError(what, f"a draw, but {holders} hold cards and the returns are {r}")
        return
    if holders != [lost] or r[lost] != -1.0:
        raise InvariantError(what, f"loser {lost} (return {r[lost]}), but {holders} hold cards")
    for p in range(n):
        if p != lost and not math.isclose(r[p], 1.0 / (n - 1), rel_tol=1e-12):
            raise InvariantError(what, f"player {p}, not the durak, gets {r[p]}, not 1/{n - 1}")
