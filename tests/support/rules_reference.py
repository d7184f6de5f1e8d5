"""A slow, literal reference model of one decision, written from ``docs/rules.md`` alone.

The engine is optimised for search (bit masks, interned actions, fast paths); this module
restates the rules as plainly as possible so that the property tests can compare the two on
every step of random games (differential testing).  It shares no code with the engine
beyond the data types.

The repetition record (``history``) is not modelled: its key format is the engine's own
business.  The property tests check the record and the repetition draw separately.

``Knowledge.origins`` is restated as a Bayesian posterior (:mod:`tests.support.origins_reference`).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import attrs

from durak.rules import (
    Action,
    Attack,
    Card,
    CardSet,
    Defend,
    GameState,
    Pass,
    Rules,
    Take,
    Transfer,
)
from durak.rules.cards import Suit
from tests.support.origins_reference import Posterior, after_unknown_play, origins_of


def beats(card: Card, target: Card, trump: Suit | None) -> bool:
    """A higher card of the same suit, or a trump on a non-trump (docs/rules.md, "Beating")."""
    if card.suit == target.suit:
        return card.rank > target.rank
    return trump is not None and card.suit == trump


def next_active(p: int, n: int, out: frozenset[int]) -> int:
    """The next player clockwise from ``p`` who has not left the game."""
    q = (p + 1) % n
    while q in out:
        q = (q + 1) % n
    return q


def base_cap(rules: Rules, discard: CardSet) -> int:
    """``first_bout_cap`` while the discard pile is empty (if set), else ``bout_cap``."""
    if rules.first_bout_cap is not None and not discard:
        return rules.first_bout_cap
    return rules.bout_cap


def priority_order(rules: Rules, attacker: int, defender: int, out: frozenset[int]) -> list[int]:
    """The main attacker, then the other attackers clockwise from the defender's left."""
    n = rules.players
    left = next_active(defender, n, out)
    if rules.throw_in == "neighbours":
        return [attacker] if left == attacker else [attacker, left]
    order = [attacker]
    q = left
    while q != attacker:
        if q != defender:
            order.append(q)
        q = next_active(q, n, out)
    return order


def reference_legal_actions(s: GameState) -> list[Action]:
    """The legal actions of the player to act, in canonical order (``docs/rules.md``)."""
    if s.turn < 0:
        return []
    hand = s.hands[s.turn]
    out: list[Action] = []
    if not s.table:
        out = [Attack(c) for c in hand]
    elif s.turn == s.defender and not s.taking:
        for target, d in sorted(s.table, key=lambda pair: pair[0]):
            if d is None:
                out += [Defend(target, c) for c in hand if beats(c, target, s.trump_suit)]
        if s.rules.transfer and all(d is None for _, d in s.table):
            rank = s.table[0][0].rank
            count = len(s.table) + 1
            target_player = next_active(s.defender, s.rules.players, s.players_out)
            if (
                all(a.rank == rank for a, _ in s.table)
                and len(s.hands[target_player]) >= count
                and count <= base_cap(s.rules, s.discard)
            ):
                out += [Transfer(c) for c in hand if c.rank == rank]
        out.append(Take())
    else:
        if len(s.table) < s.cap:
            ranks = {a.rank for a, _ in s.table} | {d.rank for _, d in s.table if d is not None}
            out = [Attack(c) for c in hand if c.rank in ranks]
        out.append(Pass())
    return sorted(out)


@attrs.frozen
class Expected:
    """The reference successor: every field of a :class:`GameState` except ``history``.

    ``repeatable`` is true when nothing irreversible happened at the end of the bout, so
    that the engine may instead end the game in a draw by repetition.
    """

    hands: tuple[CardSet, ...]
    talon: tuple[Card, ...]
    table: tuple[tuple[Card, Card | None], ...]
    discard: CardSet
    attacker: int
    defender: int
    turn: int
    taking: bool
    cap: int
    players_out: frozenset[int]
    known: tuple[CardSet, ...]
    from_talon: CardSet
    origins: tuple[tuple[Fraction, ...], ...]
    repeatable: bool = False


def _play(
    s: GameState, p: int, card: Card
) -> tuple[list[CardSet], list[CardSet], tuple[Posterior, ...]]:
    hands = list(s.hands)
    known = list(s.known)
    origins = list(origins_of(s))
    assert card in hands[p], f"{card} is not in hand {p}"
    if card in known[p]:
        known[p] = known[p].remove(card)
    elif origins:
        unknown = len(hands[p]) - len(s.known[p])
        origins[p] = after_unknown_play(origins[p], unknown, card in s.knowledge.from_talon)
    hands[p] = hands[p].remove(card)
    return hands, known, tuple(origins)


def _first_holder(order: Sequence[int], hands: Sequence[CardSet]) -> int:
    for q in order:
        if hands[q]:
            return q
    return -1


def reference_step(s: GameState, action: Action) -> Expected:
    """The successor of ``s`` after the legal ``action``, by the rules as written."""
    rules = s.rules
    k = s.knowledge
    order = priority_order(rules, s.attacker, s.defender, s.players_out)
    origins = origins_of(s)  # `mid` and `end` read it after a play changes it

    def mid(
        hands: Sequence[CardSet],
        known: Sequence[CardSet],
        table: tuple[tuple[Card, Card | None], ...],
        turn: int,
        taking: bool,
        attacker: int = s.attacker,
        defender: int = s.defender,
        cap: int = s.cap,
    ) -> Expected:
        return Expected(
            tuple(hands),
            s.talon,
            table,
            s.discard,
            attacker,
            defender,
            turn,
            taking,
            cap,
            s.players_out,
            tuple(known),
            k.from_talon,
            origins,
        )

    def end(
        hands: Sequence[CardSet],
        known: Sequence[CardSet],
        table: tuple[tuple[Card, Card | None], ...],
        success: bool,
    ) -> Expected:
        return end_of_bout(s, list(hands), list(known), table, success, origins)

    if isinstance(action, Pass):
        i = order.index(s.turn)
        nxt = _first_holder(order[i + 1 :], s.hands)
        if nxt < 0:
            return end(s.hands, s.known, s.table, success=not s.taking)
        return mid(s.hands, s.known, s.table, nxt, s.taking)
    if isinstance(action, Take):
        nxt = _first_holder(order, s.hands)
        if len(s.table) >= s.cap or nxt < 0:
            return end(s.hands, s.known, s.table, success=False)
        return mid(s.hands, s.known, s.table, nxt, True)

    hands, known, origins = _play(s, s.turn, action.card)
    if isinstance(action, Defend):
        table = tuple((a, action.card) if a == action.target else (a, d) for a, d in s.table)
        if any(d is None for _, d in table):
            return mid(hands, known, table, s.defender, False)
        if len(table) >= s.cap or not hands[s.defender]:
            return end(hands, known, table, success=True)
        nxt = _first_holder(order, hands)
        if nxt < 0:
            return end(hands, known, table, success=True)
        return mid(hands, known, table, nxt, False)
    table = (*s.table, (action.card, None))
    if isinstance(action, Transfer):
        new_defender = next_active(s.turn, rules.players, s.players_out)
        cap = min(base_cap(rules, s.discard), len(hands[new_defender]))
        return mid(hands, known, table, new_defender, False, s.turn, new_defender, cap)
    if not s.taking:
        return mid(hands, known, table, s.defender, False)
    nxt = _first_holder(order, hands)
    if len(table) >= s.cap or nxt < 0:
        return end(hands, known, table, success=False)
    return mid(hands, known, table, nxt, True)


def end_of_bout(
    s: GameState,
    hands: list[CardSet],
    known: list[CardSet],
    table: tuple[tuple[Card, Card | None], ...],
    success: bool,
    origins: tuple[Posterior, ...],
) -> Expected:
    """Discard or pick up, draw, leave, end the game or set up the next bout: the phases of
    the engine's ``end_bout`` (clear or pick up, refill, players out, next roles,
    repetition), each restated below."""
    n = s.rules.players
    discard = _clear_or_pick_up(s, hands, known, table, success)
    talon, posteriors = _refill(s, hands, known, origins)
    out = _players_out(s, hands, talon)
    from_talon, final = _talon_facts(s, discard, known, posteriors)
    if not talon and n - len(out) <= 1:
        return Expected(
            tuple(hands),
            (),
            (),
            discard,
            s.attacker,
            s.defender,
            -1,
            False,
            0,
            out,
            tuple(known),
            from_talon,
            final,
        )
    attacker, defender = _next_roles(s, success, out)
    cap = min(base_cap(s.rules, discard), len(hands[defender]))
    return Expected(
        tuple(hands),
        tuple(talon),
        (),
        discard,
        attacker,
        defender,
        attacker,
        False,
        cap,
        out,
        tuple(known),
        from_talon,
        final,
        _repeatable(s, success, talon, out),
    )


def _clear_or_pick_up(
    s: GameState,
    hands: list[CardSet],
    known: list[CardSet],
    table: tuple[tuple[Card, Card | None], ...],
    success: bool,
) -> CardSet:
    """The discard pile after the bout: the table goes to it after a successful defence,
    else into the defender's hand (``hands`` and ``known`` are updated), seen by all."""
    cards = CardSet.from_cards([a for a, _ in table] + [d for _, d in table if d is not None])
    if success:
        return s.discard | cards
    hands[s.defender] = hands[s.defender] | cards
    known[s.defender] = known[s.defender] | cards
    return s.discard


def _refill(
    s: GameState, hands: list[CardSet], known: list[CardSet], origins: tuple[Posterior, ...]
) -> tuple[list[Card], list[Posterior]]:
    """The talon left and the posteriors after the hands are drawn up to ``hand_size``
    (``hands`` and ``known`` are updated): the attacker first, then clockwise, the defender
    last."""
    n = s.rules.players
    talon = list(s.talon)
    posteriors = list(origins)
    out = s.players_out
    draw_order = [s.attacker]
    q = next_active(s.attacker, n, out)
    while q != s.attacker:
        if q != s.defender:
            draw_order.append(q)
        q = next_active(q, n, out)
    draw_order.append(s.defender)
    for p in draw_order:
        while talon and len(hands[p]) < s.rules.hand_size:
            card = talon.pop(0)
            hands[p] = hands[p].add(card)
            if not talon and card == s.trump_card:
                known[p] = known[p].add(card)  # the face-up trump, seen by all
            elif posteriors:
                posteriors[p] = (Fraction(0), *posteriors[p])  # one more unknown from the talon
    return talon, posteriors


def _players_out(s: GameState, hands: list[CardSet], talon: list[Card]) -> frozenset[int]:
    """The players out: once the talon is used up, every player with no cards leaves."""
    if talon:
        return s.players_out
    return s.players_out | {p for p in range(s.rules.players) if not hands[p]}


def _talon_facts(
    s: GameState, discard: CardSet, known: list[CardSet], posteriors: list[Posterior]
) -> tuple[CardSet, tuple[Posterior, ...]]:
    """``from_talon`` and the origins after the bout: trumps known to have been in the
    talon stay listed only until they are seen, and origins only while one is listed."""
    seen = discard
    for p in range(s.rules.players):
        seen = seen | known[p]
    from_talon = s.knowledge.from_talon - seen
    return from_talon, tuple(posteriors) if from_talon else ()


def _next_roles(s: GameState, success: bool, out: frozenset[int]) -> tuple[int, int]:
    """The next attacker and defender: after a defence the defender attacks (or the next
    player in, if it left), after a take the player after the defender; the defender is the
    next player in after the attacker."""
    n = s.rules.players
    if success:
        attacker = s.defender if s.defender not in out else next_active(s.defender, n, out)
    else:
        attacker = next_active(s.defender, n, out)
    return attacker, next_active(attacker, n, out)


def _repeatable(s: GameState, success: bool, talon: list[Card], out: frozenset[int]) -> bool:
    """Whether nothing irreversible happened: a take with no card drawn and nobody out."""
    return not success and len(talon) == len(s.talon) and out == s.players_out


def check_step_matches_reference(s: GameState, action: Action, t: GameState) -> None:
    """``t = step(s, action)`` is what the rules say, field by field."""
    e = reference_step(s, action)
    got = Expected(
        t.hands,
        t.talon,
        t.table,
        t.discard,
        t.attacker,
        t.defender,
        t.turn,
        t.taking,
        t.cap,
        t.players_out,
        t.known,
        t.knowledge.from_talon,
        origins_of(t),
        e.repeatable,
    )
    if t.turn < 0 and e.turn >= 0:
        # Only a repetition draw may end the game where the rules would start a bout.
        assert e.repeatable, f"{action} ended the game although the bout end was irreversible"
        assert (t.hands, t.talon, t.discard) == (e.hands, e.talon, e.discard)
        assert (t.players_out, t.known) == (e.players_out, e.known)
        return
    if e.turn < 0:
        # The roles of a finished game are not specified.
        got = attrs.evolve(got, attacker=e.attacker, defender=e.defender, cap=e.cap)
    if got != e:
        diffs = [
            f"{f.name}: engine {getattr(got, f.name)!r}, rules {getattr(e, f.name)!r}"
            for f in attrs.fields(Expected)
            if getattr(got, f.name) != getattr(e, f.name)
        ]
        raise AssertionError(f"{action} in {s!r}:\n  " + "\n  ".join(diffs))
