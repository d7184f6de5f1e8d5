"""The settings of the tree searches (MCTS and ISMCTS): one frozen value, checked once.

UCT's exploration constant (Kocsis & Szepesvári, "Bandit based Monte-Carlo planning",
ECML 2006), the simulation (a rollout policy, or a value function at new leaves), the
progressive bias of Chaslot et al. ("Progressive strategies for Monte-Carlo tree search",
New Math. and Nat. Comp. 4(3), 2008), the PUCT prior of Silver et al. (Science 2018), the
early stop of :mod:`durak.search.simulation` and ISMCTS's leaf batches (:class:`LeafBatch`).
As :class:`durak.rules.Rules` is for the game, a :class:`TreeSettings` that exists is valid:
:func:`~durak.search.mcts.mcts`, :class:`~durak.search.mcts.MCTS` and
:func:`~durak.search.ismcts.ismcts` take one and check nothing more.
"""

from __future__ import annotations

import math
from typing import Any, Generic

import attrs

from durak.search.arguments import SearchError
from durak.search.protocol import A, BatchEvaluator, Evaluator, Heuristic, Prior, RolloutPolicy, S

#: The UCB1 exploration constant of Kocsis & Szepesvári for payoffs in [0, 1].
SQRT2 = math.sqrt(2.0)


@attrs.frozen(kw_only=True)
class LeafBatch(Generic[S]):
    """Leaf-parallel ISMCTS: the leaves of ``size`` simulations valued in one call.

    The scheme of AlphaGo Zero's and Leela Zero's batched network evaluation (Silver et
    al., "Mastering the game of Go without human knowledge", Nature 2017, Methods; the
    virtual loss of Chaslot, Winands & van den Herik, "Parallel Monte-Carlo tree search",
    CG 2008, as AlphaGo used it): each of ``size`` descents counts a *virtual loss* on its
    path (one visit scoring ``virtual_loss`` for the edge's mover) so that the next descents
    of the batch spread out, and stops at an information set an earlier descent of the batch
    made; then ``evaluate`` values every leaf in one call (a network's one pass, where
    per-call overhead dominates), and each path is backed up with its own returns in place
    of its virtual loss.  The evaluator is a callable, as mctx passes its batched
    ``recurrent_fn``, so the search stays game-agnostic.

    * ``size``: simulations per batch, >= 1 (each still counts as one iteration).
    * ``evaluate``: the value function over many non-terminal states, one returns vector
      each, in order (a guide that caches its scores by view also serves its priors from
      that pass).
    * ``virtual_loss``: the payoff a pending simulation counts on its edges (default -1,
      the lowest payoff of zero-sum +-1 games such as Durak); finite.

    Raises :class:`~durak.search.SearchError` for a size below 1 or an infinite loss.
    """

    size: int
    evaluate: BatchEvaluator[S]
    virtual_loss: float = -1.0

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.size, int) or isinstance(self.size, bool) or self.size < 1:
            raise SearchError(f"a leaf batch's size must be an integer >= 1, got {self.size!r}")
        if not math.isfinite(self.virtual_loss):
            raise SearchError(f"the virtual loss must be finite, got {self.virtual_loss!r}")


@attrs.frozen(kw_only=True)
class TreeSettings(Generic[S, A]):
    """How a tree search chooses, simulates and stops (keyword-only):

    * ``c``: the exploration constant (default √2; the PUCT constant with a ``prior``).
    * ``rollout``: the simulation policy ``(state, rng) -> action``; default uniformly
      random over ``legal_actions``.
    * ``evaluate``: a value function ``state -> returns vector`` used at new leaves instead
      of a rollout.
    * ``heuristic`` / ``bias``: progressive bias; with ``bias > 0`` the action
      ``heuristic(state, legal)`` prefers is expanded first and gets ``bias / (visits + 1)``
      added to its UCB score (``bias = 0``: plain UCT, and the heuristic is not called).
    * ``prior``: PUCT selection with this policy prior; not with a progressive bias.
    * ``stop_early``: with an iteration budget, stop once the simulations left could not
      change the most visited root action (the decision is the same, sooner).
    * ``batch``: ISMCTS only, a :class:`LeafBatch` whose evaluator values the new leaves
      in batches, in place of ``evaluate`` or rollouts; ``None`` (default): one simulation
      at a time.

    Raises :class:`~durak.search.SearchError` for a bad exploration constant, for more than
    one of a rollout policy, a value function and a batch (only one can score a new leaf),
    for a negative progressive bias or one without a heuristic, or for both a progressive
    bias and a prior (two ways of steering the same choice).
    """

    c: float = SQRT2
    rollout: RolloutPolicy[S, A] | None = None
    evaluate: Evaluator[S] | None = None
    heuristic: Heuristic[S, A] | None = None
    bias: float = 0.0
    prior: Prior[S, A] | None = None
    stop_early: bool = False
    batch: LeafBatch[S] | None = None

    def __attrs_post_init__(self) -> None:
        if not self.c >= 0:
            raise SearchError(f"the exploration constant c must be >= 0, got {self.c!r}")
        if self.rollout is not None and self.evaluate is not None:
            raise SearchError("give a rollout policy or a value function, not both")
        if self.batch is not None and (self.rollout is not None or self.evaluate is not None):
            raise SearchError("a leaf batch values the leaves: give no rollout or value function")
        if not self.bias >= 0:
            raise SearchError(f"the progressive bias must be >= 0, got {self.bias!r}")
        if self.bias > 0 and self.heuristic is None:
            raise SearchError("a progressive bias needs a heuristic")
        if self.bias > 0 and self.prior is not None:
            raise SearchError("give a progressive bias or a prior, not both")

    @property
    def biased(self) -> Heuristic[S, A] | None:
        """The heuristic when a progressive bias uses it, else None (it is not called)."""
        return self.heuristic if self.bias > 0 else None


#: The default settings: UCT with c = √2 and uniformly random rollouts.
DEFAULTS: TreeSettings[Any, Any] = TreeSettings()
