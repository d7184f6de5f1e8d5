"""Worlds weighed by the opponents' moves: the likelihood under an opponent model, the
weighted belief the searches draw from (policy-based inference, after Rebstock, Solinas,
Buro & Sturtevant, IEEE CoG 2019; the method: :mod:`durak.agents.inference`).
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

import attrs

from durak.agents.inference.opponents import OpponentModel
from durak.agents.inference.record import Choice, GameLog, PublicRecord
from durak.rules import DurakGame, GameState, Observation, sample_world

__all__ = ["Belief", "InferredGame", "is_weighable", "likelihood", "weigh_worlds"]


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
