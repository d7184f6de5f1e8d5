"""Roles, asking order, caps and the end of a bout (``docs/rules.md``).

* Asking order: the main attacker, then the other attackers clockwise from the defender's
  left (all non-defenders, or only the defender's left neighbour with ``throw_in="neighbours"``).
* Drawing order: the main attacker, the other non-defenders clockwise from it, the defender last.
* Next bout: after a success the defender attacks; after a take the defender's left does.
* Repetition: a bout start whose :func:`position_key` was seen since the last irreversible
  event (a draw, a discard, a player leaving) ends the game in a draw.
"""

from __future__ import annotations

from functools import lru_cache

from durak.rules.cards import Card, CardSet
from durak.rules.config import Rules
from durak.rules.state import GameState, Knowledge, PositionKey, TablePair


def next_active(p: int, n: int, out: frozenset[int]) -> int:
    """The next player clockwise from ``p`` who has not left the game."""
    q = (p + 1) % n
    while q in out:
        q = (q + 1) % n
    return q


def base_cap(rules: Rules, discard: CardSet) -> int:
    """The bout cap before the defender's hand is considered."""
    if rules.first_bout_cap is not None and not discard.mask:
        return rules.first_bout_cap
    return rules.bout_cap


@lru_cache(maxsize=4096)
def asking_order(
    n: int, neighbours_only: bool, attacker: int, defender: int, out: frozenset[int]
) -> tuple[int, ...]:
    """The attackers who may throw in, in priority order (main attacker first)."""
    left = next_active(defender, n, out)
    if neighbours_only:
        return (attacker,) if left == attacker else (attacker, left)
    order = [attacker]
    q = left
    while q != attacker:
        order.append(q)
        q = next_active(q, n, out)
    return tuple(order)


def _order(s: GameState) -> tuple[int, ...]:
    r = s.rules
    return asking_order(r.players, r.throw_in == "neighbours", s.attacker, s.defender,
                        s.players_out)  # fmt: skip


def first_asked(s: GameState, hands: tuple[CardSet, ...]) -> int:
    """The first attacker in priority order who holds cards, or -1."""
    for q in _order(s):
        if hands[q].mask:
            return q
    return -1


def next_asked(s: GameState, after: int) -> int:
    """The next attacker after ``after`` in priority order who holds cards, or -1."""
    order = _order(s)
    hands = s.hands
    for q in order[order.index(after) + 1 :]:
        if hands[q].mask:
            return q
    return -1


def position_key(
    attacker: int, defender: int, hands: tuple[CardSet, ...], known: tuple[CardSet, ...]
) -> PositionKey:
    """The repetition key of a bout start: roles, hand sizes and publicly known cards.

    Within one epoch (same talon, discard and players out) unknown cards never move
    between hands, so equal keys mean equal hands; see ``docs/rules.md``, "Termination".
    """
    return (attacker, defender, *(len(h) for h in hands), *(k.mask for k in known))


def end_bout(
    s: GameState,
    hands: tuple[CardSet, ...],
    table: tuple[TablePair, ...],
    knowledge: Knowledge,
    *,
    success: bool,
) -> GameState:
    """Finish the bout of ``s`` (with ``hands``/``table``/``knowledge`` as they now are).

    Discards or picks up the table, refills hands, removes players who are out, checks
    the end of the game and the repetition rule, and sets up the next bout.
    """
    rules = s.rules
    n = rules.players
    table_mask = 0
    for a, d in table:
        table_mask |= 1 << a.index
        if d is not None:
            table_mask |= 1 << d.index
    hand_list = list(hands)
    known = knowledge.known
    discard = s.discard
    defender = s.defender
    if success:
        discard = CardSet(discard.mask | table_mask)
    else:
        hand_list[defender] = CardSet(hand_list[defender].mask | table_mask)
        known_list = list(known)
        known_list[defender] = CardSet(known_list[defender].mask | table_mask)
        known = tuple(known_list)

    talon = s.talon
    drawers = knowledge.drawers
    if talon:
        talon, known, drawers = _draw(s, hand_list, talon, known, drawers)
    if known is not knowledge.known or drawers is not knowledge.drawers:
        knowledge = Knowledge(known, knowledge.from_talon, drawers)
    hands = tuple(hand_list)

    out = s.players_out
    if not talon:
        gone = [p for p in range(n) if not hand_list[p].mask and p not in out]
        if gone:
            out = out.union(gone)
        if n - len(out) <= 1:
            return _finished(s, hands, talon, discard, out, knowledge, s.history)

    if success:
        attacker = defender if defender not in out else next_active(defender, n, out)
    else:
        attacker = next_active(defender, n, out)
    new_defender = next_active(attacker, n, out)
    key = position_key(attacker, new_defender, hands, known)
    progress = success or len(talon) != len(s.talon) or out is not s.players_out
    if progress:
        history = frozenset((key,))
    elif key in s.history:
        return _finished(s, hands, talon, discard, out, knowledge, s.history)
    else:
        history = s.history | {key}
    cap = min(base_cap(rules, discard), len(hands[new_defender]))
    return GameState(
        rules, hands, talon, s.trump_suit, s.trump_card, (), discard,
        attacker, new_defender, attacker, False, cap, out, knowledge, history,
    )  # fmt: skip


def _draw(
    s: GameState,
    hand_list: list[CardSet],
    talon: tuple[Card, ...],
    known: tuple[CardSet, ...],
    drawers: frozenset[int],
) -> tuple[tuple[Card, ...], tuple[CardSet, ...], frozenset[int]]:
    """Refill ``hand_list`` in drawing order; returns the new talon, known cards and drawers."""
    rules = s.rules
    n = rules.players
    size = rules.hand_size
    face_up = s.trump_card if s.trump_card is not None and talon[-1] is s.trump_card else None
    attacker, defender, out = s.attacker, s.defender, s.players_out
    order = [attacker]
    q = next_active(attacker, n, out)
    while q != attacker:
        if q != defender:
            order.append(q)
        q = next_active(q, n, out)
    order.append(defender)
    new_drawers = set(drawers)
    for p in order:
        need = size - len(hand_list[p])
        if need <= 0:
            continue
        drawn, talon = talon[:need], talon[need:]
        mask = hand_list[p].mask
        for c in drawn:
            mask |= 1 << c.index
        hand_list[p] = CardSet(mask)
        new_drawers.add(p)
        if not talon:
            if face_up is not None:
                known_list = list(known)
                known_list[p] = CardSet(known_list[p].mask | (1 << face_up.index))
                known = tuple(known_list)
            break
    if len(new_drawers) != len(drawers):
        drawers = frozenset(new_drawers)
    return talon, known, drawers


def _finished(
    s: GameState,
    hands: tuple[CardSet, ...],
    talon: tuple[Card, ...],
    discard: CardSet,
    out: frozenset[int],
    knowledge: Knowledge,
    history: frozenset[PositionKey],
) -> GameState:
    """The terminal state: ``turn == -1``; the loser is derived from who holds cards."""
    return GameState(
        s.rules, hands, talon, s.trump_suit, s.trump_card, (), discard,
        s.attacker, s.defender, -1, False, 0, out, knowledge, history,
    )  # fmt: skip
