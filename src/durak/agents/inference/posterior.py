"""``opponent=auto`` and ``infer=auto``: a posterior over candidate opponent models,
learned from the moves each opponent has made.

Bayesian opponent modelling over a fixed set of types (after Southey, Bowling, Larson,
Piccione, Burch, Billings & Rayner, "Bayes' Bluff: Opponent Modelling in Poker", UAI
2005): each other player is one of the candidate agents (:data:`CANDIDATES`: ``greedy``,
``lowest``, ``smart``, ``random``, and ``dmc`` where the shipped network fits the game's
rules), each softened by ``epsilon`` (``1 - epsilon`` of its own choice, ``epsilon``
spread evenly over the legal actions, so that no move has probability 0 under any
candidate).  The prior is uniform; after each move of opponent ``q`` the weight of
candidate ``c`` is multiplied by the probability ``c`` gave that move.  The search then
plays the other players' nodes by the mixture of the softened candidates, weighted by
that player's posterior (:class:`PosteriorModel`); ``infer=auto`` weighs the sampled
worlds by the same mixture.

**The likelihood, and why it stays a legal player.**  A candidate's probability of a move
needs the mover's observation, which holds the mover's hidden hand.  The searcher never
reads it: it uses only its own observation of the state before the move (its
:class:`~durak.agents.inference.record.GameLog`, what the
:class:`~durak.agents.Watcher` hooks told it).  From that observation it draws worlds
with :func:`~durak.rules.sample_world` (every deal consistent with what it has seen
equally likely), keeps those in which the move was legal (at most :data:`WORLDS` of at
most :data:`TRIES` drawn), and takes each candidate's mean probability of the move over
the kept worlds, read on the mover's observation *of that drawn world*.  That is the
candidate's predictive probability of the move given the searcher's knowledge then: the
worlds where the move was illegal give every candidate 0, a factor common to all that
cancels in the posterior.  The moves are multiplied as if independent given the model
(a product of per-move predictives, not the joint marginal over the pasts of
:mod:`durak.agents.inference`, which is costlier per decision and whose weights collapse
onto a few pasts, as measured in ``docs/agents.md``).  A move that no still-possible
candidate could have made (``epsilon = 0``) is skipped, as is one no drawn world allowed.

**Per player, per game, per match.**  Each other seat has its own posterior (3 to 6
players).  Each game starts from the prior; with ``carry=true`` the agent keeps each
opponent's posterior at the end of a game (by seat offset from its own, which the
arena's rotation of seats keeps) and starts the next game from it.  The arena reuses an
agent object for the games one worker plays, so a carried posterior depends on which
games that worker played before: reproducible with ``--jobs 1``, in order.  The moves
after the agent's last decision of a game are not counted (the update runs at decisions,
with the decision's seeded generator).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence

import attrs

from durak.agents.guides import Guidance
from durak.agents.inference.opponents import OpponentModel
from durak.agents.inference.record import GameLog
from durak.rules import Action, GameState, Observation, legal_actions, sample_world

__all__ = [
    "CANDIDATES",
    "MIN_WEIGHT",
    "TRIES",
    "WORLDS",
    "ArgmaxGuideModel",
    "Posterior",
    "PosteriorModel",
    "predictive",
]

#: The candidate agents of every game (``dmc`` joins them where the network fits).
CANDIDATES: tuple[str, ...] = ("greedy", "lowest", "smart", "random")
#: Worlds kept per opponent move (those in which the move was legal).
WORLDS = 32
#: Worlds drawn at most per opponent move.
TRIES = 128
#: A candidate whose posterior weight is below this is left out of the search's mixture
#: (the rest renormalized): a cost saving, the posterior itself keeps it.
MIN_WEIGHT = 1e-3


@attrs.frozen
class ArgmaxGuideModel:
    """The ``dmc`` agent's own choice as a model: the guide's best-scored action with
    probability ``1 - epsilon``, else a uniform legal action (the scores shared with the
    search's guidance through its cache)."""

    guidance: Guidance
    epsilon: float

    def _best(self, state: GameState) -> int:
        q = self.guidance.scores(state)
        return max(range(len(q)), key=q.__getitem__)

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        """``1 - epsilon`` on the best-scored action plus ``epsilon`` spread evenly."""
        best = self._best(state)
        base = self.epsilon / len(legal)
        return [base + (1 - self.epsilon) * (i == best) for i in range(len(legal))]

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        """The best-scored action, or with chance ``epsilon`` a uniform one."""
        legal = legal_actions(state)
        if self.epsilon and rng.random() < self.epsilon:
            return legal[rng.randrange(len(legal))]
        return legal[self._best(state)]

    def prime(self, states: Iterable[GameState]) -> None:
        """Score the states' views in one batch."""
        self.guidance.prime(states)


def predictive(
    models: Sequence[OpponentModel], before: Observation, action: Action, rng: random.Random
) -> list[float] | None:
    """Per model, its mean probability of ``action`` by the player to move in
    ``before`` (the observer's own observation), over the worlds drawn from ``before`` in
    which ``action`` is legal; ``None`` if no drawn world allows it (see the module
    docstring)."""
    kept: list[tuple[GameState, tuple[Action, ...], int]] = []
    for _ in range(TRIES):
        world = sample_world(before, rng)
        legal = legal_actions(world)
        if action in legal:
            kept.append((world, legal, legal.index(action)))
            if len(kept) == WORLDS:
                break
    if not kept:
        return None
    for model in models:
        model.prime(w for w, _, _ in kept)
    return [sum(m.policy(w, legal)[i] for w, legal, i in kept) / len(kept) for m in models]


@attrs.define
class Posterior:
    """One seat's posteriors over the candidates ``names``: a log-likelihood per other
    seat and candidate, and how many moves of the seat's log are counted."""

    names: tuple[str, ...]
    loglik: dict[int, dict[str, float]]
    counted: int = 0

    @staticmethod
    def start(
        names: Sequence[str], first: Observation, carried: Mapping[int, Mapping[str, float]]
    ) -> Posterior:
        """The prior of the game whose first observation is ``first``, or for each
        opponent the posterior ``carried`` by seat offset (its candidates that are here)."""
        n, me = first.rules.players, first.player
        loglik = {}
        for q in range(n):
            if q != me:
                old = carried.get((q - me) % n, {})
                loglik[q] = {c: old.get(c, 0.0) for c in names}
        return Posterior(tuple(names), loglik)

    def update(self, log: GameLog, models: Sequence[OpponentModel], rng: random.Random) -> None:
        """Count the opponents' moves of ``log`` not counted yet, ``models`` being the
        candidates of :attr:`names` in order."""
        me = log.start.player
        for t in range(self.counted, len(log.moves)):
            mover, action, _ = log.moves[t]
            if mover == me:
                continue
            before = log.moves[t - 1][2] if t else log.start
            p = predictive(models, before, action, rng)
            row = self.loglik[mover]
            possible = [x for c, x in zip(self.names, p or (), strict=False) if row[c] > -math.inf]
            if p is None or not any(x > 0 for x in possible):
                continue  # no information, or a move no possible candidate makes
            for c, x in zip(self.names, p, strict=True):
                row[c] += math.log(x) if x > 0 else -math.inf
        self.counted = len(log.moves)

    def weights(self, seat: int) -> tuple[float, ...]:
        """The posterior of the player in ``seat``: one weight per candidate, summing to 1."""
        row = self.loglik[seat]
        top = max(row.values())
        raw = [math.exp(row[c] - top) for c in self.names]
        total = sum(raw)
        return tuple(x / total for x in raw)

    def by_offset(self, me: int, players: int) -> dict[int, dict[str, float]]:
        """The log-likelihoods by seat offset from ``me``, to carry to the next game."""
        return {(q - me) % players: dict(row) for q, row in self.loglik.items()}


@attrs.frozen
class PosteriorModel:
    """The mixture of the ``models`` (softened candidates), weighted by the posterior of
    the player to move (``weights`` by seat; the prior, uniform, for a seat not in it)."""

    models: tuple[OpponentModel, ...]
    weights: Mapping[int, tuple[float, ...]]

    def mixture(self, seat: int) -> list[tuple[OpponentModel, float]]:
        """The models of weight at least :data:`MIN_WEIGHT` for ``seat``, renormalized."""
        w = self.weights.get(seat) or (1.0 / len(self.models),) * len(self.models)
        kept = [(m, x) for m, x in zip(self.models, w, strict=True) if x >= MIN_WEIGHT]
        total = sum(x for _, x in kept)
        return [(m, x / total) for m, x in kept]

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        """The weighted mixture of the models' policies."""
        out = [0.0] * len(legal)
        for model, w in self.mixture(state.turn):
            for i, x in enumerate(model.policy(state, legal)):
                out[i] += w * x
        return out

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        """A model drawn by weight, then its rollout move (a draw from :meth:`policy`)."""
        mixture = self.mixture(state.turn)
        x = rng.random()
        for model, w in mixture:
            x -= w
            if x < 0:
                return model.rollout(state, rng)
        return mixture[-1][0].rollout(state, rng)

    def prime(self, states: Iterable[GameState]) -> None:
        """Prime every model."""
        states = list(states)
        for model in self.models:
            model.prime(states)
