"""Policy-based inference: sampled worlds weighted by the opponents' moves so far.

After Rebstock, Solinas, Buro & Sturtevant, "Policy Based Inference in Trick-Taking Card
Games" (IEEE CoG 2019): a world that makes the opponents' observed moves likely under a
model of them (:mod:`durak.agents.opponents`) is worth more than one that makes them
unlikely.  Each decision weighs ``candidates`` worlds and the search then draws its worlds
from them in proportion to their weights (sampling importance resampling).

The method, and what it assumes:

* **Prior.**  :func:`~durak.rules.sample_world` draws the current world ``W`` with the exact
  odds of the table's knowledge: every deck order consistent with what the player has seen
  counts once (the players' choices not modelled).
* **Past.**  The likelihood needs each opponent's information state when it moved, and its
  hand then differs from its hand now.  Every action is played face up, so given ``W`` the
  past is fixed up to one thing: which of an opponent's cards it held at the start of the
  record (the deal) and which it drew at each refill.  Its cards from those sources are the
  ones it played before anyone else did, plus those in its hand in ``W`` never seen on the
  table; each must have been in hand before it was first played, and the counts it drew are
  public.  :meth:`PublicRecord.past` draws one such assignment uniformly (cards in order of
  their deadline, each to a free slot before it: the choices are nested, so every
  assignment is equally likely), and, for the trumps known to have been in the talon,
  accepts it with the weight the deal's record gives their number in the start hand
  (:mod:`durak.rules.origins`; at a deal: none).  So ``(W, past)`` is uniform over the deck
  orders consistent with the record.  The past gives the start state; the public actions,
  replayed on it by the engine, give every later state, and each opponent's information
  state is its observation of that state.
* **Likelihood.**  The product, over every opponent move of the record with a choice, of
  the model's probability of that move; the player's own moves count the same in every
  world and are left out.  The weights are this likelihood (the prior is the proposal).
  If every candidate has weight 0 (a model with ``epsilon = 0`` that never plays the
  observed moves), the candidates are weighed equally.
* **Record.**  The agent hears the game through the :class:`~durak.agents.Watcher` hooks, its
  own observations only.  Without a record that ends at the observation it must decide on
  (``act`` called outside a game that told it the moves), it samples without inference.
  In the open world every hand is shown and the opponents never see the talon, so every
  world is equally likely: no inference is done there either.

The cost is one replay of the record per candidate and one model call per opponent
choice in it; the model's calls are cached per decision, and a network scores all the
candidates' choices in one pass (``benchmarks/infer_cost.py``).
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import accumulate
from math import comb, inf

import attrs

from durak.agents.opponents import OpponentModel
from durak.agents.tactics import action_card
from durak.rules import (
    CARDS,
    Action,
    Card,
    DurakGame,
    GameState,
    Observation,
    bit_indices,
    legal_actions,
    sample_world,
    step_unchecked,
)
from durak.rules.bout import drawing_order
from durak.rules.state import table_mask

__all__ = [
    "Belief",
    "GameLog",
    "InferredGame",
    "PublicRecord",
    "Refill",
    "is_weighable",
    "likelihood",
    "weigh_worlds",
]

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

    def replay(self, start: GameState) -> tuple[GameState, list[Choice]]:
        """The state the record's actions lead to from ``start``, and the opponents'
        choices on the way (each with more than one legal action)."""
        s = start
        me = self.me
        choices = []
        for p, action in self.moves:
            if p != me:
                legal = legal_actions(s)
                if len(legal) > 1:
                    choices.append((s, legal, legal.index(action)))
            s = step_unchecked(s, action)
        return s, choices


def likelihood(model: OpponentModel, choices: Sequence[Choice]) -> float:
    """The product of the model's probability of each choice's move."""
    product = 1.0
    for state, legal, i in choices:
        product *= model.policy(state, legal)[i]
    return product


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


@attrs.frozen
class Belief:
    """Worlds behind ``root`` and their weights: :meth:`sample` draws one in proportion."""

    root: Observation
    worlds: tuple[GameState, ...]
    weights: tuple[float, ...]
    cumulative: tuple[float, ...] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        weights = self.weights if sum(self.weights) > 0 else (1.0,) * len(self.weights)
        object.__setattr__(self, "cumulative", tuple(accumulate(weights)))

    def sample(self, observation: Observation, rng: random.Random) -> GameState:
        """A world drawn in proportion to its weight (``sample_world`` for any other
        observation than ``root``)."""
        if observation is not self.root and observation != self.root:
            return sample_world(observation, rng)
        c = self.cumulative
        return self.worlds[min(bisect_right(c, rng.random() * c[-1]), len(c) - 1)]


def weigh_worlds(log: GameLog, model: OpponentModel, candidates: int, rng: random.Random) -> Belief:
    """``candidates`` worlds behind ``log.latest``, each drawn with its past (uniformly
    among those the record allows) and weighted by the likelihood of the opponents' moves
    under ``model``."""
    record = PublicRecord.of(log)
    root = log.latest
    worlds, trails = [], []
    for _ in range(candidates):
        world = sample_world(root, rng)
        final, choices = record.replay(record.past(world, rng))
        if final.hand_masks != world.hand_masks or final.talon != world.talon:
            raise RuntimeError("inference: the replayed past does not lead to the world")
        worlds.append(world)
        trails.append(choices)
    model.prime(state for choices in trails for state, _, _ in choices)
    weights = tuple(likelihood(model, choices) for choices in trails)
    return Belief(root, tuple(worlds), weights)


@attrs.frozen
class InferredGame(DurakGame):
    """A :class:`DurakGame` whose ``sample_world`` draws from a :class:`Belief`, so any
    search of :mod:`durak.search` searches the inferred worlds."""

    belief: Belief | None = attrs.field(default=None, kw_only=True)

    def sample_world(self, observation: Observation, rng: random.Random) -> GameState:  # type: ignore[override]
        """A world of the belief (``sample_world`` without one)."""
        if self.belief is None:
            return sample_world(observation, rng)
        return self.belief.sample(observation, rng)


def is_weighable(log: GameLog | None, observation: Observation) -> bool:
    """Whether ``log`` is a closed-world record ending at ``observation`` (else no
    inference is done)."""
    return (
        log is not None
        and observation.hands is None
        and log.start.player == observation.player
        and log.latest == observation
    )
