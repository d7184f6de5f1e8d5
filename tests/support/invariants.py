"""The invariants of a :class:`~durak.rules.GameState` (see ``state.py``), as assertions.

:func:`check_invariants` runs the named checks below in a fixed order, one per group of
invariants: the cards, the knowledge, the trumps, the turn and players out, the table, the
legal actions (against :mod:`tests.support.rules_reference`), the outcome, then either the
finished game or the roles of a running one (and a bout start).  They assert; they never
skip or soften a failure.
"""

from __future__ import annotations

import itertools
import math

from durak.rules import (
    GameState,
    current_player,
    is_terminal,
    legal_actions,
    loser,
    returns,
)
from durak.rules.cards import deck_mask
from tests.support.rules_reference import beats, reference_legal_actions


def check_invariants(state: GameState) -> None:
    """Assert every documented invariant of a :class:`GameState` (see ``state.py``)."""
    check_cards(state)
    check_knowledge(state)
    check_trumps(state)
    check_turn(state)
    check_table(state)
    check_legal_actions(state)
    check_outcome(state)
    if is_terminal(state):
        check_finished(state)
    else:
        check_roles(state)


def check_cards(state: GameState) -> None:
    """Card conservation: every deck card in exactly one zone, nothing from outside the
    deck."""
    rules = state.rules
    deck = deck_mask(rules.lowest_rank, rules.suits)
    assert len(state.hands) == rules.players
    zones: list[tuple[str, int]] = [(f"hand {p}", h.mask) for p, h in enumerate(state.hands)]
    zones += [("talon", 1 << c.index) for c in state.talon]
    for a, d in state.table:
        zones.append(("table", 1 << a.index))
        if d is not None:
            zones.append(("table", 1 << d.index))
    zones.append(("discard", state.discard.mask))
    seen = 0
    for where, mask in zones:
        assert not seen & mask, f"a card in {where} is also elsewhere"
        seen |= mask
    assert seen == deck, f"cards lost {deck & ~seen:#x} / from outside the deck {seen & ~deck:#x}"


def check_knowledge(state: GameState) -> None:
    """Known cards are in the hand; the talon facts are about deck cards; origins are
    tracked exactly while a trump is known to have been in the talon; and at a bout start
    the knowledge is canonical."""
    rules = state.rules
    n = rules.players
    deck = deck_mask(rules.lowest_rank, rules.suits)
    k = state.knowledge
    known = state.known
    assert len(known) == n
    for p in range(n):
        assert not known[p].mask & ~state.hands[p].mask, f"known[{p}] not in hand {p}"
    assert not k.from_talon.mask & ~deck
    assert bool(k.origins) == bool(k.from_talon), "origins tracked without from_talon"
    assert len(k.origins) in (0, n)
    for p, w in enumerate(k.origins):
        unknown = len(state.hands[p]) - len(known[p])
        assert 1 <= len(w) <= unknown + 1, f"origins of {p} list more cards than it holds"
        assert min(w) >= 0 and w[-1] > 0 and math.gcd(*w) == 1, f"origins of {p}: {w}"
    if not state.table and not is_terminal(state):
        # Canonical knowledge at a bout start: exposed cards are in a hand (or the talon's
        # face-up trump), and trumps listed as from the talon are unseen.
        held = 0
        for h in state.hands:
            held |= h.mask
        if state.talon and state.trump_card is not None:
            held |= 1 << state.trump_card.index
        assert not k.exposed.mask & ~held, "exposed cards outside the hands"
        public = state.discard.mask | k.exposed.mask
        assert not k.from_talon.mask & public, "a seen card is still listed as from the talon"


def check_trumps(state: GameState) -> None:
    """The talon ends with the face-up trump card; a game without trumps has neither."""
    if state.rules.trumps:
        assert state.trump_suit is not None
        assert state.trump_card is None or state.trump_card.suit is state.trump_suit
        if state.talon:
            assert state.trump_card is not None
            assert state.talon[-1] is state.trump_card
    else:
        assert state.trump_suit is None
        assert state.trump_card is None


def check_turn(state: GameState) -> None:
    """The turn is a player (or -1 at the end); players out hold no cards and leave only
    once the talon is empty."""
    n = state.rules.players
    assert state.turn == -1 or 0 <= state.turn < n
    assert current_player(state) == state.turn
    assert is_terminal(state) == (state.turn == -1) == state.is_terminal
    assert state.players_out <= frozenset(range(n))
    for p in state.players_out:
        assert not state.hands[p], f"player {p} is out but holds cards"
    if state.players_out:
        assert not state.talon, "a player left while the talon is not empty"


def check_table(state: GameState) -> None:
    """The table holds at most ``cap`` distinct attacks, each defence beating its attack."""
    assert len(state.table) <= state.cap
    for a, d in state.table:
        if d is not None:
            assert beats(d, a, state.trump_suit), f"{d} does not beat {a}"
    attacks = [a for a, _ in state.table]
    assert len(set(attacks)) == len(attacks)


def check_legal_actions(state: GameState) -> None:
    """The legal actions are those of the reference rules, sorted and distinct, and none
    only at the end."""
    legal = legal_actions(state)
    assert (len(legal) == 0) == is_terminal(state)
    assert list(legal) == reference_legal_actions(state), "legal actions differ from the rules"
    assert sorted(legal) == list(legal)
    assert all(x < y for x, y in itertools.pairwise(legal)), "duplicate legal actions"


def check_finished(state: GameState) -> None:
    """A finished game has no bout: no table, no cap, no take."""
    assert not state.table, "the game ended during a bout"
    assert state.cap == 0 and not state.taking, "a finished game keeps a bout's cap or take"


def check_roles(state: GameState) -> None:
    """In a running game the attacker, defender and player to move are distinct players
    still in, the one to move holds cards, and the bout's cap and take fit the table."""
    n = state.rules.players
    assert state.attacker != state.defender
    assert 0 <= state.attacker < n
    assert 0 <= state.defender < n
    assert state.attacker not in state.players_out
    assert state.defender not in state.players_out
    assert state.turn not in state.players_out
    assert state.hands[state.turn], "a player with no cards is asked to act"
    assert state.cap >= 1
    undefended = sum(1 for _, d in state.table if d is None)
    assert undefended <= len(state.hands[state.defender]), "more to beat than the defender holds"
    if state.taking:
        assert state.table
        assert state.turn != state.defender
    if not state.table:
        check_bout_start(state)


def check_bout_start(state: GameState) -> None:
    """At a bout start nobody takes, the attacker is to move, the cap is the bout's (or the
    first bout's) limited by the defender's hand, the repetition history is recorded exactly
    where a position can repeat, and the hands are refilled while the talon lasts."""
    rules = state.rules
    assert not state.taking
    assert state.turn == state.attacker
    assert state.hands[state.attacker]
    base = rules.bout_cap
    if rules.first_bout_cap is not None and not state.discard:
        base = rules.first_bout_cap
    assert state.cap == min(base, len(state.hands[state.defender]))
    assert bool(state.history) == rules.can_repeat
    if state.talon:
        for p in range(rules.players):
            assert len(state.hands[p]) >= rules.hand_size, f"hand {p} not refilled"


def check_outcome(state: GameState) -> None:
    """``loser`` and ``returns`` (docs/rules.md, "Outcomes"): no outcome before the end; at
    the end the only player holding cards is the durak with -1, the others share +1, and a
    draw gives zeros."""
    n = state.rules.players
    r = returns(state)
    assert len(r) == n
    if not is_terminal(state):
        assert r == (0.0,) * n
        try:
            loser(state)
        except ValueError:
            pass
        else:
            raise AssertionError("loser() answered before the end of the game")
        return
    assert math.isclose(sum(r), 0.0, abs_tol=1e-9)
    holders = [p for p, h in enumerate(state.hands) if h]
    lost = loser(state)
    if lost is None:
        assert len(holders) != 1, "one player holds cards, but there is no loser"
        assert r == (0.0,) * n
    else:
        assert holders == [lost], f"loser {lost}, but {holders} hold cards"
        assert r[lost] == -1.0
        for p in range(n):
            if p != lost:
                assert math.isclose(r[p], 1.0 / (n - 1), rel_tol=1e-12)
