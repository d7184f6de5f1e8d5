"""Pure functions over :class:`GameState`: legal actions, transitions and outcomes.

Implements the bout of ``docs/rules.md`` ("A bout is a sequence of single decisions"):
the main attacker leads one card; the defender beats, takes or transfers; once all is
beaten, or after a take, every attacker still holding cards is asked in priority order to
throw in or pass; the bout ends when all have passed, the cap is reached or the defender has
no cards left.  End-of-bout work (discard, drawing, leaving, roles, repetition) is in
:mod:`durak.rules.bout`.

:func:`step` checks legality; :func:`step_unchecked` is the documented fast path for search
and must only be given an action from ``legal_actions(state)``.
"""

from __future__ import annotations

from durak.rules.actions import (
    DEFENDS,
    PASS,
    TAKE,
    TRANSFERS,
    Action,
    Attack,
    Defend,
    Pass,
    Take,
    Transfer,
    attacks_for,
)
from durak.rules.bout import base_cap, end_bout, first_asked, next_active, next_asked
from durak.rules.builders import build_knowledge, build_next, build_state
from durak.rules.cards import BEATERS, CARDS, NUM_CARDS, Card, bit_indices, rank_mask
from durak.rules.errors import IllegalActionError
from durak.rules.origins import logged_play, raw_origins
from durak.rules.state import GameState, Knowledge, TablePair

# Per card index, the mask of its rank (the cards that may be thrown in on it).
_RANK_OF = tuple(rank_mask(c.rank) for c in CARDS)
# Per target card index, the interned Defend actions on it, by the defending card's index.
_DEFENDS_ON = tuple(DEFENDS[t * NUM_CARDS : (t + 1) * NUM_CARDS] for t in range(NUM_CARDS))
_PASS_ONLY = (PASS,)


def legal_actions(state: GameState) -> tuple[Action, ...]:
    """The legal actions of the player to act, in canonical sorted order.

    Empty exactly when the game is over.  The returned objects are interned and reused.
    Raises ``TypeError`` if ``state`` is not a :class:`GameState`.
    """
    try:
        p = state.turn
    except AttributeError:
        raise _not_a_state(state) from None
    if p < 0:
        return ()
    hand = state.hand_masks[p]
    table = state.table
    if not table:
        return attacks_for(hand)
    if p == state.defender and not state.taking:
        return _defender_actions(state, hand)
    # An attacker is asked only below the cap: the bout ends the moment it is reached.
    throws = hand & _table_ranks(table)
    return attacks_for(throws) + _PASS_ONLY if throws else _PASS_ONLY


def _defender_actions(state: GameState, hand: int) -> tuple[Action, ...]:
    trump = state.trump_suit  # beaters(trump), read without the call
    beating = BEATERS[4 if trump is None else trump]
    table = state.table
    if len(table) == 1:
        targets = [table[0][0].index]
    else:
        targets = sorted([a.index for a, d in table if d is None])
    out: list[Action] = []
    for t in targets:
        on_target = _DEFENDS_ON[t]
        beat = hand & beating[t]
        while beat:  # the set bits of ``beat``, ascending (bit_indices, inlined: hot)
            low = beat & -beat
            out.append(on_target[low.bit_length() - 1])
            beat ^= low
    if state.rules.transfer:
        out += [TRANSFERS[c] for c in bit_indices(hand & _transfer_mask(state))]
    out.append(TAKE)
    return tuple(out)


def _transfer_mask(state: GameState) -> int:
    """The cards the defender may transfer with (by rank), or 0 if no transfer is allowed."""
    table = state.table
    rank = table[0][0].rank
    for a, d in table:
        if d is not None or a.rank is not rank:
            return 0
    count = len(table) + 1
    target = next_active(state.defender, state.rules.players, state.players_out)
    if state.hand_masks[target].bit_count() < count or count > base_cap(state.rules, state.discard):
        return 0
    return _RANK_OF[table[0][0].index]


def step(state: GameState, action: Action) -> GameState:
    """The state after ``action``; the input is never changed.

    Raises :class:`IllegalActionError` naming the action and the player when it is not in
    ``legal_actions(state)`` (an object that is not an action is never in it, whatever its
    ``==`` says), and ``TypeError`` if ``state`` is not a :class:`GameState`.
    """
    try:
        legal = is_legal(state, action)
    except AttributeError:  # not a state: checked only on the way out, to keep step fast
        raise _not_a_state(state) from None
    if not legal:
        raise IllegalActionError(_illegal_message(state, action))
    return step_unchecked(state, action)


def is_legal(state: GameState, action: object) -> bool:
    """Whether ``action`` is in ``legal_actions(state)``, decided on the bitmasks in O(1)
    without building the legal tuple (an object of another type is never legal)."""
    p = state.turn
    table = state.table
    kind = type(action)
    if p < 0:
        return False
    if kind is Attack:
        card = action.card  # type: ignore[attr-defined]
        if type(card) is not Card or not state.hand_masks[p] >> card.index & 1:
            return False
        if not table:  # a lead: any card in hand
            return True
        # A throw-in by an attacker who is asked, of a rank on the table.
        return (p != state.defender or state.taking) and \
            _table_ranks(table) & _RANK_OF[card.index] != 0  # fmt: skip
    if not table:
        return False
    if p != state.defender or state.taking:  # an attacker is asked: throw in or pass
        return kind is Pass
    if kind is Take:
        return True
    if kind is Defend:
        card = action.card  # type: ignore[attr-defined]
        if type(card) is not Card or not state.hand_masks[p] >> card.index & 1:
            return False
        target = action.target  # type: ignore[attr-defined]
        for a, d in table:
            if a is target:
                trump = state.trump_suit  # beaters(trump), read without the call
                return (
                    d is None
                    and BEATERS[4 if trump is None else trump][a.index] >> card.index & 1 == 1
                )
        return False
    return (kind is Transfer and state.rules.transfer
            and _holds(state, p, action.card)  # type: ignore[attr-defined]
            and _transfer_mask(state) >> action.card.index & 1 == 1)  # type: ignore[attr-defined]  # fmt: skip


def _holds(state: GameState, p: int, card: object) -> bool:
    """Whether ``card`` is a :class:`Card` in player ``p``'s hand."""
    return type(card) is Card and state.hand_masks[p] >> card.index & 1 == 1


#: The table ``_table_ranks`` last worked on, and its ranks: one table is asked about again
#: and again (by each attacker asked in turn, and by ``step``'s check after
#: ``legal_actions``).  One tuple, so that threads read a consistent pair; a table is public.
_last_ranks: tuple[tuple[TablePair, ...], int] = ((), 0)


def _table_ranks(table: tuple[TablePair, ...]) -> int:
    """The rank masks of every card on the table (the ranks that may be thrown in)."""
    global _last_ranks  # noqa: PLW0603 - a one-entry cache of a pure function
    last = _last_ranks
    if last[0] is table:
        return last[1]
    ranks = 0
    rank_of = _RANK_OF
    for a, d in table:
        ranks |= rank_of[a.index]
        if d is not None:
            ranks |= rank_of[d.index]
    _last_ranks = (table, ranks)
    return ranks


def _not_a_state(state: object) -> TypeError:
    return TypeError(f"state must be a GameState, got {type(state).__name__}")


def _illegal_message(state: GameState, action: object) -> str:
    if not isinstance(action, Attack | Defend | Transfer | Take | Pass):
        return f"not an action: {action!r} (a {type(action).__name__}, not an Action)"
    if state.turn < 0:
        return f"illegal action {action}: the game is over"
    p = state.turn
    role = "defender" if p == state.defender else "attacker"
    options = ", ".join(str(a) for a in legal_actions(state))
    return f"illegal action {action} for player {p} ({role}); legal actions: {options}"


def step_unchecked(state: GameState, action: Action) -> GameState:
    """The fast path of :func:`step` for search: ``action`` must be in ``legal_actions(state)``.

    It skips the legality check; an illegal action gives an undefined (but never mutating)
    result.
    """
    s = state
    kind = type(action)
    p = s.turn
    masks = s.hand_masks
    if kind is Pass:
        # With two players nobody else is asked: the pass ends the bout.
        nxt = None if len(masks) == 2 else next_asked(s, p)
        if nxt is None:
            return end_bout(s, masks, s.table, s.knowledge)
        return build_next(s, masks, s.table, nxt, s.taking, s.knowledge)
    if kind is Take:
        if len(s.table) < s.cap:
            # first_asked's usual answer, without the call: the main attacker holds cards.
            nxt = s.attacker if masks[s.attacker] else first_asked(s, masks)
            if nxt is not None:
                return build_next(s, masks, s.table, nxt, True, s.knowledge)
        return end_bout(s, masks, s.table, s.knowledge)

    card = action.card  # type: ignore[union-attr]
    bit = 1 << card.index
    hand = masks[p]
    hands: tuple[int, ...]
    if len(masks) == 2:  # with_hand, inlined: every play passes here
        hands = (hand ^ bit, masks[1]) if p == 0 else (masks[0], hand ^ bit)
    else:
        new = list(masks)
        new[p] = hand ^ bit
        hands = tuple(new)
    k = s.knowledge
    if k.from_talon.mask and not k.exposed.mask & bit:  # the origins record may be kept
        k = _played_unknown(k, p, hand, bit)
    if kind is Defend:
        return _after_defence(s, hands, action.target, card, k)  # type: ignore[union-attr]
    table = (*s.table, (card, None))
    if kind is Attack:
        if not s.taking:
            turn = s.defender
        elif len(table) >= s.cap or (asked := first_asked(s, hands)) is None:
            return end_bout(s, hands, table, k)
        else:
            turn = asked
        return build_next(s, hands, table, turn, s.taking, k)
    # A Transfer: the only kind left.
    defender = next_active(p, s.rules.players, s.players_out)
    cap = min(base_cap(s.rules, s.discard), hands[defender].bit_count())
    return build_state(
        s.rules, hands, s.talon, s.trump_suit, s.trump_card, table, s.discard,
        p, defender, defender, False, cap, s.players_out, k, s.history,
    )  # fmt: skip


def _played_unknown(k: Knowledge, p: int, hand: int, bit: int) -> Knowledge:
    """``k`` once ``p`` has played the card ``bit``, unknown to the others, out of ``hand``
    (the origins record's update left pending: only observations read it)."""
    raw = raw_origins(k)
    if not raw:  # no record kept (a position built without one)
        return k
    unknown = (hand & ~k.exposed.mask).bit_count()
    restricted = k.from_talon.mask & bit != 0
    return build_knowledge(k.exposed, k.from_talon, logged_play(raw, p, unknown, restricted))


def _after_defence(
    s: GameState, hands: tuple[int, ...], target: Card, card: Card, k: Knowledge
) -> GameState:
    """The state once ``card`` has beaten the attack card ``target`` on the table of ``s``."""
    old = s.table
    if len(old) == 1:  # the usual case: one card to beat
        table: tuple[TablePair, ...] = ((target, card),)
        beaten = True
    else:
        table = tuple([(a, card) if a is target else (a, d) for a, d in old])
        beaten = True
        for _, d in table:
            if d is None:
                beaten = False
                break
    turn = s.defender
    if beaten:
        if len(table) >= s.cap or not hands[turn]:
            return end_bout(s, hands, table, k)
        if hands[s.attacker]:  # first_asked's usual answer, without the call
            turn = s.attacker
        else:
            asked = first_asked(s, hands)
            if asked is None:
                return end_bout(s, hands, table, k)
            turn = asked
    return build_next(s, hands, table, turn, False, k)


def current_player(state: GameState) -> int:
    """The player to act, or ``-1`` when the game is over."""
    return state.turn


def is_terminal(state: GameState) -> bool:
    """Whether the game is over (then ``legal_actions`` is empty)."""
    return state.turn < 0


def loser(state: GameState) -> int | None:
    """The durak of a finished game, or ``None`` for a draw.

    Raises ``ValueError`` if the game is not over, so that "no loser yet" is never mistaken
    for a draw.
    """
    if state.turn >= 0:
        raise ValueError("loser() needs a finished game; this state is not terminal")
    holders = [p for p, m in enumerate(state.hand_masks) if m]
    return holders[0] if len(holders) == 1 else None


def returns(state: GameState) -> tuple[float, ...]:
    """One float per player, summing to 0 (up to rounding).

    The durak gets -1 and every other player +1/(n-1); a draw, or a game not yet over,
    gives all zeros.
    """
    n = state.rules.players
    if state.turn >= 0:
        return (0.0,) * n
    lost = loser(state)
    if lost is None:
        return (0.0,) * n
    share = 1.0 / (n - 1)
    return tuple(-1.0 if p == lost else share for p in range(n))
