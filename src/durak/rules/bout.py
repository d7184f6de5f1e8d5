"""Roles, asking order, caps and the end of a bout (``docs/rules.md``).

* Asking order: the main attacker, then the other attackers clockwise from the defender's
  left (all non-defenders, or only the defender's left neighbour with ``throw_in="neighbours"``).
* Drawing order: the main attacker, the other non-defenders clockwise from it, the defender last.
* Next bout: after a success the defender attacks; after a take the defender's left does.
* Repetition: a bout start whose :func:`position_key` was seen since the last irreversible
  event (a draw, a discard, a player leaving) ends the game in a draw.
* The end of a bout (:func:`end_bout`), in phases: clear or pick up, refill, players out,
  next roles, repetition.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from durak.rules.builders import build_knowledge, build_state
from durak.rules.cards import Card, CardSet, cardset_unchecked
from durak.rules.config import Rules
from durak.rules.history import deferred
from durak.rules.origins import RawOrigins, logged_draw, raw_origins
from durak.rules.state import GameState, History, Knowledge, PositionKey, TablePair


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


def with_hand(hands: tuple[int, ...], p: int, mask: int) -> tuple[int, ...]:
    """``hands`` with player ``p``'s mask replaced."""
    if len(hands) == 2:
        return (mask, hands[1]) if p == 0 else (hands[0], mask)
    new = list(hands)
    new[p] = mask
    return tuple(new)


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


@lru_cache(maxsize=4096)
def drawing_order(n: int, attacker: int, defender: int, out: frozenset[int]) -> tuple[int, ...]:
    """The main attacker, the other non-defenders clockwise from it, then the defender."""
    order = [attacker]
    q = next_active(attacker, n, out)
    while q != attacker:
        if q != defender:
            order.append(q)
        q = next_active(q, n, out)
    order.append(defender)
    return tuple(order)


def _asking(s: GameState) -> tuple[int, ...]:
    """:func:`asking_order` for the bout of ``s`` (from a table while nobody is out)."""
    r = s.rules
    neighbours = r.throw_in == "neighbours"
    if not s.players_out:
        return _ASKING[r.players][neighbours][s.attacker][s.defender]
    return asking_order(r.players, neighbours, s.attacker, s.defender, s.players_out)


def first_asked(s: GameState, hands: tuple[int, ...]) -> int | None:
    """The first attacker in priority order who holds cards, or ``None``."""
    if hands[s.attacker]:  # the main attacker is always asked first
        return s.attacker
    if len(hands) == 2:
        return None
    for q in _asking(s):
        if hands[q]:
            return q
    return None


def next_asked(s: GameState, after: int) -> int | None:
    """The next attacker after ``after`` in priority order who holds cards, or ``None``."""
    hands = s.hand_masks
    if len(hands) == 2:
        return None
    if s.players_out:
        order = _asking(s)
        rest = order[order.index(after) + 1 :]
    else:  # the usual case: the rest of the order read from a table, no search or slice
        r = s.rules
        rest = _ASKED_AFTER[r.players][r.throw_in == "neighbours"][s.attacker][s.defender][after]
    for q in rest:
        if hands[q]:
            return q
    return None


# _ASKING[n][neighbours][attacker][defender]: the asking order with nobody out (while the
# talon lasts, the usual case), so that a step looks it up without hashing a cache key.
_ASKING: Final = tuple(
    tuple(
        tuple(
            tuple(asking_order(n, neighbours, a, d, frozenset()) for d in range(n))
            for a in range(n)
        )
        for neighbours in (False, True)
    )
    if n >= 2
    else ()
    for n in range(7)
)


# _DRAWING[n][attacker][defender]: the drawing order with nobody out.
_DRAWING: Final = tuple(
    tuple(tuple(drawing_order(n, a, d, frozenset()) for d in range(n)) for a in range(n))
    for n in range(7)
)


# _ASKED_AFTER[n][neighbours][attacker][defender][q]: the attackers asked after q (from
# _ASKING; () if q is not asked), so that a pass finds the next one without a search.
_ASKED_AFTER: Final = tuple(
    tuple(
        tuple(
            tuple(
                tuple(order[order.index(q) + 1 :] if q in order else () for q in range(n))
                for order in by_defender
            )
            for by_defender in by_attacker
        )
        for by_attacker in by_neighbours
    )
    for n, by_neighbours in enumerate(_ASKING)
)


def position_key(attacker: int, defender: int, hands: tuple[int, ...], exposed: int) -> PositionKey:
    """The repetition key of a bout start: roles, hand sizes and publicly known cards.

    Within one epoch (same talon, discard and players out) unknown cards never move
    between hands, so equal keys mean equal hands; see ``docs/rules.md``, "Termination".
    """
    return (attacker, defender, *map(int.bit_count, hands), *[m & exposed for m in hands])


def end_bout(
    s: GameState,
    hands: tuple[int, ...],
    table: tuple[TablePair, ...],
    knowledge: Knowledge,
) -> GameState:
    """The next bout's start, or the finished game, once the bout of ``s`` is over (with
    ``hands``, ``table`` and ``knowledge`` as they now are).  In phases:

    1. clear or pick up (inlined): the table is discarded if every card on it is beaten,
       else the defender takes it (a take always leaves one unbeaten);
    2. refill (:func:`_refill`): hands are drawn up from the talon in drawing order, and
       the knowledge is kept canonical (:func:`_settle_knowledge`);
    3. players out (:func:`_players_out`): once the talon is used up, players with no cards
       leave; the game is over when at most one player holds cards;
    4. next roles (:func:`next_roles`);
    5. repetition (:func:`_repetition`): a bout start seen since the last irreversible
       event ends the game in a draw.
    """
    rules = s.rules
    n = rules.players
    # 1. Clear or pick up (inlined: every bout end passes here): the table is discarded if
    # every card on it is beaten, else the defender takes it.
    success = True
    played = 0
    for a, d in table:
        if d is None:
            success = False
            played |= 1 << a.index
        else:
            played |= 1 << a.index | 1 << d.index
    if success:
        discard = cardset_unchecked(s.discard.mask | played)
    else:
        discard = s.discard
        hands = with_hand(hands, s.defender, hands[s.defender] | played)
    talon = s.talon
    exposed = knowledge.exposed.mask
    kept = origins = raw_origins(knowledge)
    if talon:  # nobody is out while the talon lasts: the drawing order is a table's
        order = _DRAWING[n][s.attacker][s.defender]
        hands, talon, origins = _refill(rules.hand_size, hands, talon, order, origins, exposed)
    # The record changes if a draw was logged, a card of from_talon was played, or the
    # table changes what is exposed (a success drops exposed cards, a take exposes all).
    if origins is not kept or played & (
        knowledge.from_talon.mask | (exposed if success else ~exposed)
    ):
        knowledge = _settle_knowledge(knowledge, played, success, origins)
        exposed = knowledge.exposed.mask

    out = s.players_out
    # Players out hold no cards, so another empty hand is a player who has just left.
    if not talon and 0 in hands and hands.count(0) > len(out):
        out = _players_out(hands)
        if n - len(out) <= 1:
            return _finished(s, hands, talon, discard, out, knowledge, s.history)

    if out:
        attacker, defender = next_roles(n, s.defender, success, out)
    else:  # the usual case: the roles read from a table
        attacker, defender = _ROLES[n][success][s.defender]
    history = s.history  # stays empty when no position can repeat (the potential argument)
    if n > 2 or rules.transfer:  # rules.can_repeat, inlined: the cost check guards it
        new_epoch = success or len(talon) != len(s.talon) or out is not s.players_out
        record = _repetition(history, new_epoch, attacker, defender, hands, exposed)
        if record is None:  # a repeated bout start: a draw
            return _finished(s, hands, talon, discard, out, knowledge, history)
        history = record
    first_cap = rules.first_bout_cap  # base_cap, inlined: the cost check guards it
    cap = rules.bout_cap if first_cap is None or discard.mask else first_cap
    held = hands[defender].bit_count()
    return build_state(
        rules, hands, talon, s.trump_suit, s.trump_card, (), discard, attacker, defender,
        attacker, False, cap if cap < held else held, out, knowledge, history,
    )  # fmt: skip


def _refill(
    size: int,
    hands: tuple[int, ...],
    talon: tuple[Card, ...],
    order: tuple[int, ...],
    origins: RawOrigins,
    seen: int,
) -> tuple[tuple[int, ...], tuple[Card, ...], RawOrigins]:
    """``hands`` drawn up to ``size`` cards from ``talon`` (not empty), player by player in
    drawing ``order`` until it runs out: the new hands, the rest of the talon, and
    ``origins`` with each player's draw of cards nobody saw (not in ``seen``) logged, if it
    is kept."""
    hand_list = list(hands)
    top = 0  # the cards drawn so far: one slice at the end, not one per player
    for p in order:
        need = size - hand_list[p].bit_count()
        if need > 0:
            cards = talon[top : top + need]
            if not cards:  # the talon is used up
                break
            drawn = 0
            for c in cards:
                drawn |= 1 << c.index
            hand_list[p] |= drawn
            if origins and drawn & ~seen:
                origins = logged_draw(origins, p, (drawn & ~seen).bit_count())
            top += need
    return tuple(hand_list), talon[top:], origins


def _players_out(hands: tuple[int, ...]) -> frozenset[int]:
    """The players with no cards once the talon is used up: those who have left."""
    return frozenset([p for p, h in enumerate(hands) if not h])


def next_roles(n: int, defender: int, success: bool, out: frozenset[int]) -> tuple[int, int]:
    """The next bout's main attacker and defender among ``n`` players, after a bout that
    ``defender`` won (``success``) or lost by a take, with the players ``out`` gone: after a
    success the defender attacks, after a take the defender's left does (the next active
    player either way), and the attacker's left defends."""
    attacker = defender if success and defender not in out else next_active(defender, n, out)
    return attacker, next_active(attacker, n, out)


# _ROLES[n][success][defender]: next_roles with nobody out, read without a call.
_ROLES: Final = tuple(
    tuple(tuple(next_roles(n, d, won, frozenset()) for d in range(n)) for won in (False, True))
    for n in range(7)
)


def _repetition(
    history: History,
    new_epoch: bool,
    attacker: int,
    defender: int,
    hands: tuple[int, ...],
    exposed: int,
) -> History | None:
    """The repetition record at the next bout start (``attacker``, ``defender``, ``hands``,
    the ``exposed`` cards), or ``None`` if its key is in ``history`` (the game ends in a
    draw).  A ``new_epoch`` (after a draw, a discard or a player leaving) starts a record
    whose key is read only if the epoch reaches another bout start."""
    if new_epoch:
        return deferred(position_key, attacker, defender, hands, exposed)
    key = position_key(attacker, defender, hands, exposed)
    if key in history:
        return None
    return history.add(key)


def _settle_knowledge(k: Knowledge, played: int, success: bool, origins: RawOrigins) -> Knowledge:
    """The knowledge at the end of a bout, kept canonical (:func:`end_bout` calls it only
    when something changes).

    At a bout start ``exposed`` holds only cards in hand (and the talon's face-up trump) and
    ``from_talon`` only unseen cards; during the bout such cards can only move to the table.
    So a success drops the table from both, and a take exposes it, which keeps equal
    positions' knowledge equal whatever the path to them (``origins`` aside, which records
    how the unknown cards were played; it is dropped once ``from_talon`` is empty).
    """
    old_exposed = k.exposed.mask
    exposed = old_exposed & ~played if success else old_exposed | played
    old_from_talon = k.from_talon.mask
    from_talon = old_from_talon & ~played
    return build_knowledge(
        k.exposed if exposed == old_exposed else cardset_unchecked(exposed),
        k.from_talon if from_talon == old_from_talon else cardset_unchecked(from_talon),
        origins if from_talon else (),
    )


def _finished(
    s: GameState,
    hands: tuple[int, ...],
    talon: tuple[Card, ...],
    discard: CardSet,
    out: frozenset[int],
    knowledge: Knowledge,
    history: History,
) -> GameState:
    """The terminal state: ``turn == -1``; the loser is derived from who holds cards."""
    return build_state(
        s.rules, hands, talon, s.trump_suit, s.trump_card, (), discard,
        s.attacker, s.defender, -1, False, 0, out, knowledge, history,
    )  # fmt: skip
