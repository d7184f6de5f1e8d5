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
reads it: it uses only its own observations (its
:class:`~durak.agents.inference.record.GameLog`, what the
:class:`~durak.agents.Watcher` hooks told it).  Each game it draws :data:`PARTICLES`
worlds from its first observation with :func:`~durak.rules.sample_world` and carries them
through the game (:mod:`durak.agents.inference.particles`: a particle filter, as the
belief of POMCP, Silver & Veness, NIPS 2010), every candidate keeping its own weight on
each world: the product of its probabilities of the opponent's moves there, each read on
the mover's observation *of that world*.  A candidate's factor for a move is its weighted
mean probability of the move before the move reweighs the worlds: its predictive
probability given what the searcher has seen and, through the weights, the opponent's
earlier moves under that candidate, so the product over the moves is the candidate's
joint likelihood of them.  A world in which the opponent lacks the card it played gets
the card by a swap with one of its unknown cards (a move's legality is the same under
every candidate, so it should not thin the worlds); if no world allows a move all the
same, :data:`TRIES` worlds are drawn afresh for it.  A move that no still-possible
candidate could have made (``epsilon = 0``) is skipped.

**How soon it finds the opponent.**  Against a scripted opponent that is exactly one of
the candidates, the posterior puts at least 0.95 on it within :data:`FIND_WITHIN`
opponent moves it counted, ``lowest`` within half as many and ``random`` within an
eighth (``tests/agents/test_opponent_auto.py``).  Two candidates that choose alike in a
position are not told apart there, so ``greedy`` and ``smart`` take longest.  The
measurements, and why the worlds are carried rather than drawn afresh for each move:
``docs/agents.md`` ("A posterior over candidate agents").

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
from durak.agents.inference.opponents import OpponentModel, draw, slip, soften
from durak.agents.inference.particles import WorldFilter
from durak.agents.inference.record import GameLog
from durak.rules import Action, GameState, Observation, legal_actions

__all__ = [
    "CANDIDATES",
    "FIND_WITHIN",
    "MIN_WEIGHT",
    "PARTICLES",
    "TRIES",
    "ArgmaxGuideModel",
    "Posterior",
    "PosteriorModel",
]

#: The candidate agents of every game (``dmc`` joins them where the network fits).
CANDIDATES: tuple[str, ...] = ("greedy", "lowest", "smart", "random")
#: Worlds each game's filter carries (:mod:`durak.agents.inference.particles`).
PARTICLES = 128
#: Worlds drawn afresh when no carried world allows a move.
TRIES = 128
#: The opponent moves within which the posterior finds a scripted candidate (see the
#: module docstring).
FIND_WITHIN = 400
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
        return soften([float(i == best) for i in range(len(legal))], self.epsilon)

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        """The best-scored action, or with chance ``epsilon`` a uniform one."""
        legal = legal_actions(state)
        slipped = slip(self.epsilon, legal, rng)
        return legal[self._best(state)] if slipped is None else slipped

    def prime(self, states: Iterable[GameState]) -> None:
        """Score the states' views in one batch."""
        self.guidance.prime(states)


@attrs.define
class Posterior:
    """One seat's posteriors over the candidates ``names``: a log-likelihood per other
    seat and candidate, and how many moves of the seat's log are counted."""

    names: tuple[str, ...]
    loglik: dict[int, dict[str, float]]
    counted: int = 0
    #: The game's weighted worlds, drawn at the first update (with its generator).
    worlds: WorldFilter | None = attrs.field(default=None, eq=False, repr=False)

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
        """Count the moves of ``log`` not counted yet, ``models`` being the candidates of
        :attr:`names` in order: every move steps the game's weighted worlds, and each
        opponent move adds each candidate's log predictive probability of it."""
        if self.worlds is None:
            self.worlds = WorldFilter.start(log.start, len(self.names), PARTICLES, rng)
        for t in range(self.counted, len(log.moves)):
            mover, action, after = log.moves[t]
            before = log.moves[t - 1][2] if t else log.start
            p = self.worlds.advance(mover, action, after, models, self.weights, rng)
            if p is None:
                p = self.worlds.restart(before, action, after, models, TRIES, self.weights, rng)
            if not p:  # the observer's own move: no evidence of a candidate
                continue
            row = self.loglik[mover]
            factors = list(zip(self.names, p, strict=True))
            if not any(x > 0 for c, x in factors if row[c] > -math.inf):
                continue  # a move no possible candidate makes
            for c, x in factors:
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
        """The models of weight at least :data:`MIN_WEIGHT` for ``seat``, renormalized
        (every model, of equal weight, for a seat without a posterior)."""
        w = self.weights.get(seat)
        if w is None:
            return [(m, 1.0 / len(self.models)) for m in self.models]
        kept = [(m, x) for m, x in zip(self.models, w, strict=True) if x >= MIN_WEIGHT]
        total = sum(x for _, x in kept)
        return [(m, x / total) for m, x in kept]

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        """The weighted mixture of the models' policies, each probability in [0, 1]."""
        out = [0.0] * len(legal)
        for model, w in self.mixture(state.turn):
            for i, x in enumerate(model.policy(state, legal)):
                out[i] += w * x
        # Weights summing to 1 can add up to 1 + 2**-52 in floating point.
        return [min(x, 1.0) for x in out]

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        """A model drawn by weight, then its rollout move (a draw from :meth:`policy`)."""
        mixture = self.mixture(state.turn)
        model = mixture[draw([w for _, w in mixture], rng)][0]
        return model.rollout(state, rng)

    def prime(self, states: Iterable[GameState]) -> None:
        """Prime every model."""
        states = list(states)
        for model in self.models:
            model.prime(states)
