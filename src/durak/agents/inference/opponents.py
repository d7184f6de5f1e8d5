"""Opponent models: how a searcher expects the other players to move.

An opponent model gives a policy, one probability per legal action of the player to move
in a full state (it reads only that player's view of the state), and a rollout move drawn
from that policy.  The same model serves two purposes:

* in search (``ismcts:opponent=...``), as the PUCT prior (or, without one, the move the
  progressive bias prefers) and the rollout policy at the other players' nodes, while the
  searcher keeps its own at its nodes (so the tree expects the opponents to play like the
  model rather than like itself);
* in inference (``infer=...``, :mod:`durak.agents.inference`), as the likelihood of each
  observed opponent move (Rebstock, Solinas, Buro & Sturtevant, "Policy Based Inference in
  Trick-Taking Card Games", IEEE CoG 2019).

Models:

* :class:`GreedyModel`: the ``greedy`` agent's move with probability ``1 - epsilon``, and a
  uniformly random legal action with probability ``epsilon`` (an error rate, so that a
  move greedy would not make is unlikely rather than impossible);
* :class:`GuideModel`: ``softmax(Q / temperature)`` of a guide's action values (the ``dmc``
  network), :meth:`durak.agents.guides.Guidance.prior`;
* :class:`MixModel`: a weighted mixture of two models;
* ``auto`` (:class:`~durak.agents.inference.posterior.PosteriorModel`): the mixture of
  candidate agents weighted by their posterior given each opponent's moves so far.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, TypeVar

import attrs

from durak.agents.guides import Guidance
from durak.agents.heuristics.evals import greedy_heuristic
from durak.rules import Action, GameState, legal_actions

__all__ = [
    "MODELS",
    "GreedyModel",
    "GuideModel",
    "MixModel",
    "OpponentModel",
    "by_mover",
    "draw",
    "most_likely",
    "slip",
    "soften",
]

#: The model names of the ``opponent=`` and ``infer=`` options (``auto``:
#: :mod:`durak.agents.inference.posterior`).
MODELS: tuple[str, ...] = ("greedy", "dmc", "mix", "auto")


class OpponentModel(Protocol):
    """A policy of the player to move in a full state, read from that player's view."""

    def policy(self, state: GameState, legal: Sequence[Action]) -> Sequence[float]:
        """One probability per action of ``legal`` (the legal actions of ``state``),
        summing to 1."""

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        """A legal action of the player to move, drawn from :meth:`policy` with ``rng``."""

    def prime(self, states: Iterable[GameState]) -> None:
        """Prepare :meth:`policy` for these states at once (a batch of network calls), or
        nothing."""


def most_likely(model: OpponentModel, state: GameState, legal: Sequence[Action]) -> Action:
    """The action of ``legal`` the model finds most likely (the first of equals)."""
    p = model.policy(state, legal)
    return legal[max(range(len(legal)), key=p.__getitem__)]


def draw(weights: Sequence[float], rng: random.Random) -> int:
    """An index drawn with chance ``weights[i]`` from one ``rng.random()``: the first
    index whose running sum exceeds the draw, or the last one if rounding left the sum
    of ``weights`` (meant to be 1) at or below it."""
    x = rng.random()
    for i, w in enumerate(weights):
        x -= w
        if x < 0:
            return i
    return len(weights) - 1


def soften(probabilities: Iterable[float], epsilon: float) -> list[float]:
    """``1 - epsilon`` of ``probabilities`` (one per legal action) plus ``epsilon`` spread
    evenly over the actions: a candidate that errs with chance ``epsilon``."""
    p = list(probabilities)
    base = epsilon / len(p)
    return [base + (1 - epsilon) * x for x in p]


def slip(epsilon: float, legal: Sequence[Action], rng: random.Random) -> Action | None:
    """A uniform action of ``legal`` with chance ``epsilon`` (a softened model's error),
    else ``None``.  ``rng`` is untouched when ``epsilon`` is 0, so that a model without
    errors draws exactly what its agent draws."""
    if epsilon and rng.random() < epsilon:
        return legal[rng.randrange(len(legal))]
    return None


def _draw(model: OpponentModel, state: GameState, rng: random.Random) -> Action:
    legal = legal_actions(state)
    p = model.policy(state, legal)
    if len(p) != len(legal):
        raise ValueError(f"a policy of {len(p)} probabilities for {len(legal)} actions")
    return legal[draw(p, rng)]


@attrs.frozen
class GreedyModel:
    """The greedy move with probability ``1 - epsilon``, else a uniform legal action."""

    epsilon: float

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        """``1 - epsilon`` on the greedy move plus ``epsilon`` spread evenly."""
        best = greedy_heuristic(state, legal)
        return soften([float(a == best) for a in legal], self.epsilon)

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        """The greedy move, or with chance ``epsilon`` a uniform one (``rng`` is untouched
        when ``epsilon`` is 0, so the model is then the ``greedy`` rollout exactly)."""
        legal = legal_actions(state)
        slipped = slip(self.epsilon, legal, rng)
        return greedy_heuristic(state, legal) if slipped is None else slipped

    def prime(self, states: Iterable[GameState]) -> None:
        """Nothing: the greedy move is cheap."""


@attrs.frozen
class GuideModel:
    """``softmax(Q / temperature)`` of a guide, evaluated on the mover's observation."""

    guidance: Guidance

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        """The guidance's prior (its scores are cached per observation)."""
        return self.guidance.prior(state, legal)

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        """An action drawn from :meth:`policy`."""
        return _draw(self, state, rng)

    def prime(self, states: Iterable[GameState]) -> None:
        """Score the states' views in one batch (:meth:`Guidance.prime`)."""
        self.guidance.prime(states)


@attrs.frozen
class MixModel:
    """``weight * first + (1 - weight) * second``."""

    first: OpponentModel
    second: OpponentModel
    weight: float

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        """The mixture of the two policies."""
        w = self.weight
        return [
            w * a + (1 - w) * b
            for a, b in zip(
                self.first.policy(state, legal), self.second.policy(state, legal), strict=True
            )
        ]

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        """An action drawn from :meth:`policy`."""
        return _draw(self, state, rng)

    def prime(self, states: Iterable[GameState]) -> None:
        """Prime both models."""
        states = list(states)
        self.first.prime(states)
        self.second.prime(states)


X = TypeVar("X")
Y = TypeVar("Y")


def by_mover(
    player: int, own: Callable[[GameState, X], Y], other: Callable[[GameState, X], Y]
) -> Callable[[GameState, X], Y]:
    """``own`` where ``player`` is to move, ``other`` where anyone else is: one search hook
    (prior, heuristic or rollout) made of the searcher's and its opponent model's."""

    def hook(state: GameState, x: X) -> Y:
        return (own if state.turn == player else other)(state, x)

    return hook
