"""Worlds weighed by the opponents' moves: the likelihood under an opponent model, the
weighted belief the searches draw from (policy-based inference, after Rebstock, Solinas,
Buro & Sturtevant, IEEE CoG 2019; the method: :mod:`durak.agents.inference`), and the
Metropolis-Hastings chain that moves from the weighed candidates towards the deals the
opponents' moves make likely (Metropolis et al. 1953; Hastings 1970).
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate
from typing import TypeGuard

import attrs

from durak.agents.inference.opponents import OpponentModel
from durak.agents.inference.record import Choice, GameLog, PublicRecord
from durak.rules import (
    CARDS,
    DurakGame,
    GameState,
    Observation,
    bit_indices,
    sample_world,
)

__all__ = [
    "Belief",
    "DealChain",
    "InferredGame",
    "is_weighable",
    "likelihood",
    "weigh_worlds",
]


def likelihood(model: OpponentModel, choices: Sequence[Choice]) -> float:
    """The product of the model's probability of each choice's move."""
    product = 1.0
    for state, legal, i in choices:
        product *= model.policy(state, legal)[i]
    return product


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
        return self.worlds[self.draw(rng)]

    def draw(self, rng: random.Random) -> int:
        """The index of a world drawn in proportion to its weight."""
        c = self.cumulative
        # c[-1] > 0 and random() < 1, so the product stays below c[-1] in floats too
        return bisect_right(c, rng.random() * c[-1])


def _candidate(
    record: PublicRecord, world: GameState, rng: random.Random
) -> tuple[GameState, list[Choice]]:
    """A past of ``world`` drawn uniformly (see the record), and the opponents' choices in
    it."""
    past = record.past(world, rng)
    final, choices = record.replay(past) or (None, [])
    if final is None or final.hand_masks != world.hand_masks or final.talon != world.talon:
        raise RuntimeError("inference: the replayed past does not lead to the world")
    return past, choices


def weigh_worlds(
    log: GameLog, model: OpponentModel, candidates: int, rng: random.Random, steps: int = 0
) -> Belief:
    """``candidates`` worlds behind ``log.latest``, each drawn with its past (uniformly
    among those the record allows) and weighted by the likelihood of the opponents' moves
    under ``model``.  With ``steps`` (and a record that starts as a deal does, see
    :meth:`DealChain.applies`), the belief is instead the ``steps`` worlds of a
    :class:`DealChain` from a candidate drawn by weight, equally weighted."""
    record = PublicRecord.of(log)
    root = log.latest
    worlds = [sample_world(root, rng) for _ in range(candidates)]
    trails = [_candidate(record, world, rng) for world in worlds]
    model.prime(state for _, choices in trails for state, _, _ in choices)
    weights = tuple(likelihood(model, choices) for _, choices in trails)
    belief = Belief(root, tuple(worlds), weights)
    if not steps or not DealChain.applies(record):
        return belief
    first = belief.draw(rng)
    chain = DealChain.of(record, trails[first][0])
    walk = chain.run(model, weights[first], worlds[first], steps, rng)
    return Belief(root, tuple(walk), (1.0,) * steps)


@attrs.frozen
class DealChain:
    """A Metropolis-Hastings chain over the deals behind a record (Metropolis et al. 1953;
    Hastings 1970) whose stationary law is the posterior of :func:`weigh_worlds`.

    Its state is a past: the deck order of the deal (the start hands, then the talon in
    drawing order).  Every deck order consistent with the record is equally likely a
    priori, so the Hastings ratio of a symmetric proposal is the ratio of the likelihoods.
    The cards whose places the observer cannot know sit in *cells*: the opponents' start
    cards not exposed, and the talon cards neither the observer drew nor exposed (the
    face-up trump card).  A proposal swaps the card of a *source* cell (an opponent's start
    card or a talon card an opponent drew), drawn uniformly, with that of any other cell,
    drawn uniformly: the cells never change, so the reverse swap is as likely.  A deal the
    record rules out weighs 0: a trump known to have been in the talon dealt into a hand,
    or a public move its mover could not make.

    Fields: ``record``; ``start``, the deal the chain starts from (every proposal is it
    with other cards in the cells); ``cells``, per cell ``(player, -1)`` for a start hand
    or ``(-1, j)`` for talon position ``j``; ``cards``, the card (index) in each cell of
    ``start``; ``sources``, the number of source cells (they come first).
    """

    record: PublicRecord
    start: GameState
    cells: tuple[tuple[int, int], ...]
    cards: tuple[int, ...]
    sources: int

    @staticmethod
    def applies(record: PublicRecord) -> bool:
        """Whether the record's start rules out, as a deal does, every trump known to have
        been in the talon from the opponents' hands (its origins are all ``(1,)``): the
        prior over starts is then the uniform one the chain assumes."""
        return all(o == (1,) for o in record.start.knowledge.origins)

    @staticmethod
    def of(record: PublicRecord, past: GameState) -> DealChain:
        """The chain over ``record``'s deals, its cells laid out on ``past``."""
        me, fixed = record.me, record.start.knowledge.exposed.mask
        held = [
            (q, c)
            for q, h in enumerate(past.hand_masks)
            if q != me
            for c in bit_indices(h & ~fixed)
        ]
        drawn: list[int] = []
        j = 0
        for r in record.refills:
            for q, count in r.draws:
                if q != me:
                    drawn += range(j, j + count)
                j += count
        rest = range(j, len(past.talon))
        hidden = [x for x in [*drawn, *rest] if not fixed >> past.talon[x].index & 1]
        cells = (*((q, -1) for q, _ in held), *((-1, x) for x in hidden))
        cards = (*(c for _, c in held), *(past.talon[x].index for x in hidden))
        sources = len(held) + sum(1 for x in hidden if x < j)
        return DealChain(record, past, cells, cards, sources)

    def _deal(self, cards: list[int]) -> GameState | None:
        """The deal with ``cards`` (one per cell) in the cells, or ``None`` if a trump
        known to have been in the talon lands in a hand."""
        o, start = self.record.start, self.start
        fixed = o.knowledge.exposed.mask
        hands = [h & fixed if q != self.record.me else h for q, h in enumerate(start.hand_masks)]
        talon = list(start.talon)
        for (q, x), c in zip(self.cells, cards, strict=True):
            if q >= 0:
                hands[q] |= 1 << c
            else:
                talon[x] = CARDS[c]
        dealt = sum(h for q, h in enumerate(hands) if q != self.record.me)
        if dealt & o.knowledge.from_talon.mask:
            return None
        return attrs.evolve(start, hand_masks=tuple(hands), talon=tuple(talon))

    def run(
        self, model: OpponentModel, weight: float, world: GameState, steps: int,
        rng: random.Random,
    ) -> list[GameState]:  # fmt: skip
        """``steps`` worlds, one per step, from ``start`` (whose world is ``world`` and whose
        opponents' moves have likelihood ``weight`` under ``model``): each step proposes a
        swap and accepts it with probability ``min(1, L' / L)``."""
        cards = list(self.cards)
        n, chain = len(cards), []
        for _ in range(steps):
            if n > 1 and self.sources:
                i = rng.randrange(self.sources)
                k = rng.randrange(n - 1)
                k += k >= i
                cards[i], cards[k] = cards[k], cards[i]
                deal = self._deal(cards)
                replayed = None if deal is None else self.record.replay(deal)
                proposed = 0.0 if replayed is None else likelihood(model, replayed[1])
                if replayed is not None and (
                    proposed >= weight or rng.random() * weight < proposed
                ):
                    world, weight = replayed[0], proposed
                else:
                    cards[i], cards[k] = cards[k], cards[i]
            chain.append(world)
        return chain


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


def is_weighable(log: GameLog | None, observation: Observation) -> TypeGuard[GameLog]:
    """Whether ``log`` is a closed-world record ending at ``observation`` (else no
    inference is done)."""
    return (
        log is not None
        and observation.hands is None
        and log.start.player == observation.player
        and log.latest == observation
    )
