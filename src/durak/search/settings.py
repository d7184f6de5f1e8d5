"""The settings of the tree searches (MCTS and ISMCTS): one frozen value, checked once.

UCT's exploration constant (Kocsis & Szepesvári, "Bandit based Monte-Carlo planning",
ECML 2006), the simulation (a rollout policy, or a value function at new leaves), the
progressive bias of Chaslot et al. ("Progressive strategies for Monte-Carlo tree search",
New Math. and Nat. Comp. 4(3), 2008), the PUCT prior of Silver et al. (Science 2018) and
the early stop of :mod:`durak.search.simulation`.  As :class:`durak.rules.Rules` is for the
game, a :class:`TreeSettings` that exists is valid: :func:`~durak.search.mcts.mcts`,
:class:`~durak.search.mcts.MCTS` and :func:`~durak.search.ismcts.ismcts` take one and
check nothing more.
"""

from __future__ import annotations

import math
from typing import Any, Generic

import attrs

from durak.search.arguments import SearchError
from durak.search.protocol import A, Evaluator, Heuristic, Prior, RolloutPolicy, S

#: The UCB1 exploration constant of Kocsis & Szepesvári for payoffs in [0, 1].
SQRT2 = math.sqrt(2.0)


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

    Raises :class:`~durak.search.SearchError` for a bad exploration constant, for both a
    rollout policy and a value function (only one can score a new leaf), for a negative
    progressive bias or one without a heuristic, or for both a progressive bias and a prior
    (two ways of steering the same choice).
    """

    c: float = SQRT2
    rollout: RolloutPolicy[S, A] | None = None
    evaluate: Evaluator[S] | None = None
    heuristic: Heuristic[S, A] | None = None
    bias: float = 0.0
    prior: Prior[S, A] | None = None
    stop_early: bool = False

    def __attrs_post_init__(self) -> None:
        if not self.c >= 0:
            raise SearchError(f"the exploration constant c must be >= 0, got {self.c!r}")
        if self.rollout is not None and self.evaluate is not None:
            raise SearchError("give a rollout policy or a value function, not both")
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
