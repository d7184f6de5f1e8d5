"""The public record of a game and the pasts it allows (policy-based inference's past).

Every action is played face up, so given the current world the past is fixed up to which
of an opponent's cards it held at the start of the record and which it drew at each
refill; :meth:`PublicRecord.past` draws one such past uniformly and :meth:`PublicRecord.replay`
replays the record on it (the method: :mod:`durak.agents.inference`, after Rebstock,
Solinas, Buro & Sturtevant, IEEE CoG 2019).
"""

from __future__ import annotations

import random
from bisect import bisect_left
from math import comb, inf

import attrs

from durak.agents.heuristics.tactics import action_card
from durak.rules import (
    CARDS,
    Action,
    Card,
    GameState,
    Observation,
    bit_indices,
    legal_actions,
    step_unchecked,
)
from durak.rules.bout import drawing_order
from durak.rules.state import table_mask

__all__ = ["Choice", "GameLog", "PublicRecord", "Refill"]

#: An opponent's decision in a replayed past: the state, its legal actions and the index
#: of the action taken.
Choice = tuple[GameState, tuple[Action, ...], int]

#: How many times one opponent's past is redrawn before its restricted-trump weight
#: accepts one: at a deal, the chance that none of those trumps lands in the dealt hand,
#: which a few drawn trumps put at 1 in tens (a try costs microseconds).
MAX_TRIES = 10_000


@attrs.define
class GameLog:
    """What one player has heard of a game: its first observation, then after every
    action the mover, the action and its own observation of the state it led to."""

    start: Observation
    moves: list[tuple[int, Action, Observation]] = attrs.field(factory=list)

    @property
    def latest(self) -> Observation:
        """The player's observation of the current state."""
        return self.moves[-1][2] if self.moves else self.start


@attrs.frozen
class Refill:
    """One bout end at which the talon was drawn from.

    ``time``: the index of the action that ended the bout; ``draws``: ``(player, cards)``
    for each player who drew, in drawing order; ``own``: the cards the observer drew (the
    trump card last); ``trump_to``: who drew the face-up trump card, if it went now."""

    time: int
    draws: tuple[tuple[int, int], ...]
    own: tuple[Card, ...]
    trump_to: int | None


@attrs.frozen
class PublicRecord:
    """The public facts of a :class:`GameLog` that fix the past up to where the opponents'
    cards came from (see the module docstring)."""

    start: Observation
    moves: tuple[tuple[int, Action], ...]
    refills: tuple[Refill, ...]
    #: Per player, the cards it played before anyone else did (so from its own sources).
    played_first: tuple[int, ...]
    #: Per card index, the index of the action that first put it on the table.
    first_play: dict[int, int]
    #: Every card seen on the table or in the discard pile.
    seen: int

    @property
    def me(self) -> int:
        """The observer."""
        return self.start.player

    @staticmethod
    def of(log: GameLog) -> PublicRecord:
        """The record of ``log`` (a closed-world log)."""
        start = log.start
        n = start.rules.players
        trump = start.trump_card
        seen = table_mask(start.table) | start.discard.mask
        played_first = [0] * n
        first_play: dict[int, int] = {}
        refills: list[Refill] = []
        before = start
        for t, (p, action, after) in enumerate(log.moves):
            card = action_card(action)
            table = table_mask(before.table)
            if card is not None:
                bit = 1 << card.index
                table |= bit
                if not seen & bit:
                    seen |= bit
                    played_first[p] |= bit
                    first_play[card.index] = t
            if after.talon_size < before.talon_size:
                refills.append(_refill(t, p, card is not None, table, before, after, trump))
            before = after
        return PublicRecord(
            start,
            tuple((p, a) for p, a, _ in log.moves),
            tuple(refills),
            tuple(played_first),
            first_play,
            seen,
        )

    def past(self, world: GameState, rng: random.Random) -> GameState:
        """The state at the start of the record, drawn uniformly among those that the
        public actions lead to ``world`` from (see the module docstring)."""
        o = self.start
        hands = [o.known_cards(p).mask for p in range(o.rules.players)]
        drawn: dict[tuple[int, int], list[Card]] = {}
        for q in range(o.rules.players):
            if q != self.me:
                start, per_refill = self._sources(q, world, rng)
                hands[q] |= start
                for i, cards in per_refill.items():
                    drawn[q, i] = cards
        talon: list[Card] = []
        for i, r in enumerate(self.refills):
            for q, _ in r.draws:
                if q == self.me:
                    talon += r.own
                else:
                    talon += drawn[q, i]
                    if r.trump_to == q:
                        assert o.trump_card is not None
                        talon.append(o.trump_card)
        talon += world.talon
        return GameState(
            o.rules, tuple(hands), tuple(talon), o.trump_suit, o.trump_card, o.table,
            o.discard, o.attacker, o.defender, o.turn, o.taking, o.cap, o.players_out,
            o.knowledge, o.history,
        )  # fmt: skip

    def _sources(
        self, q: int, world: GameState, rng: random.Random
    ) -> tuple[int, dict[int, list[Card]]]:
        """Opponent ``q``'s unknown start cards (a mask) and its unknown cards drawn at
        each refill (by refill index), drawn uniformly, then accepted by the weight of the
        restricted trumps in its start hand."""
        o = self.start
        trump = o.trump_card
        # Slots in time order: the start hand, then each refill q drew from.
        slots = [(-1, o.unknown_count(q), -1)]
        for i, r in enumerate(self.refills):
            for who, count in r.draws:
                if who == q:
                    slots.append((r.time, count - (r.trump_to == q), i))
        times = [t for t, size, _ in slots for _ in range(size)]
        owner = [k for k, (_, size, _) in enumerate(slots) for _ in range(size)]
        own = self.played_first[q] | (world.hand_masks[q] & ~self.seen)
        own &= ~o.known[q].mask
        if trump is not None and any(r.trump_to == q for r in self.refills):
            own &= ~(1 << trump.index)
        cards = sorted(bit_indices(own), key=lambda c: (self.first_play.get(c, inf), c))
        if len(cards) != len(times):
            raise RuntimeError(f"inference: {len(cards)} cards for {len(times)} places of {q}")
        limits = [bisect_left(times, self.first_play.get(c, inf)) for c in cards]
        restricted = o.knowledge.from_talon.mask & own
        weights = _start_weights(o, q) if restricted else None
        for _ in range(MAX_TRIES):
            taken = [False] * len(times)
            places: list[list[Card]] = [[] for _ in slots]
            start = 0
            for c, limit in zip(cards, limits, strict=True):
                free = [x for x in range(limit) if not taken[x]]
                if not free:
                    raise RuntimeError(f"inference: card {CARDS[c]} has no place in {q}'s past")
                x = free[rng.randrange(len(free))]
                taken[x] = True
                if owner[x] == 0:
                    start |= 1 << c
                else:
                    places[owner[x]].append(CARDS[c])
            if (
                weights is None
                or rng.random() * max(weights) < weights[(start & restricted).bit_count()]
            ):
                return start, {slots[k][2]: places[k] for k in range(1, len(slots))}
        raise RuntimeError(f"inference: no past of player {q} accepted in {MAX_TRIES} tries")

    def replay(self, start: GameState) -> tuple[GameState, list[Choice]] | None:
        """The state the record's actions lead to from ``start``, and the opponents'
        choices on the way (each with more than one legal action); ``None`` if an
        opponent could not have made its move there (the observer's own moves depend only
        on what it knows, so they are legal from any start consistent with it)."""
        s = start
        me = self.me
        choices = []
        for p, action in self.moves:
            if p != me:
                legal = legal_actions(s)
                if action not in legal:
                    return None
                if len(legal) > 1:
                    choices.append((s, legal, legal.index(action)))
            s = step_unchecked(s, action)
        return s, choices


def _refill(
    t: int, p: int, played: bool, table: int, before: Observation, after: Observation,
    trump: Card | None,
) -> Refill:  # fmt: skip
    """The refill at the end of action ``t`` (by ``p``; ``played``: it played a card;
    ``table``: the table's cards after it), from the observations around it."""
    n = before.rules.players
    taken = len(after.discard) == len(before.discard)  # the bout failed: the defender took
    draws = []
    for q in drawing_order(n, before.attacker, before.defender, before.players_out):
        size = before.hand_sizes[q] - (q == p and played)
        if taken and q == before.defender:
            size += table.bit_count()
        if after.hand_sizes[q] > size:
            draws.append((q, after.hand_sizes[q] - size))
    if sum(d for _, d in draws) != before.talon_size - after.talon_size:
        raise RuntimeError(f"inference: the draws after action {t} do not add up")
    own = after.hand.mask & ~before.hand.mask & ~table
    trump_to = draws[-1][0] if trump is not None and not after.talon_size else None
    cards = [CARDS[c] for c in bit_indices(own) if trump is None or c != trump.index]
    if trump is not None and own >> trump.index & 1:
        cards.append(trump)
    return Refill(t, tuple(draws), tuple(cards), trump_to)


def _start_weights(o: Observation, q: int) -> list[int]:
    """Per number ``k`` of restricted trumps in ``q``'s unknown start cards, the weight of
    the record's origins (``sum_j origins[j] * C(j, k)``, as the sampler's split)."""
    u = o.unknown_count(q)
    origins = o.knowledge.origins[q] if o.knowledge.origins else (0,) * u + (1,)
    return [sum(w * comb(j, k) for j, w in enumerate(origins)) for k in range(u + 1)]
