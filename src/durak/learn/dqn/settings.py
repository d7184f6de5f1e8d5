"""The settings of the DQN learner (:mod:`durak.learn.dqn`), each declared once.

The ``dqn`` learner spec's parameters (``durak train dqn:lr=...``, ``durak learners``)
derive from this class, and :class:`~durak.learn.dqn.learner.DqnLearner` takes it, so the
defaults, ranges and help live here only.  It imports no PyTorch.
"""

from __future__ import annotations

import attrs

from durak.agents.specs import param


@attrs.frozen
class DqnSettings:
    """A DQN learner's settings: Adam's ``lr``; the discount ``gamma``; the minibatch size
    ``batch``; the replay capacity ``buffer``; ``learn_start`` transitions before the first
    gradient step; a gradient step every ``train_every`` decisions and a target sync every
    ``target_every``; epsilon from ``eps_start`` to ``eps_end``, times ``eps_decay`` per
    episode; ``layers`` hidden layers of ``hidden`` units; double-DQN targets if ``double``;
    the :class:`~durak.learn.rewards.RewardScheme`'s ``shaping`` and ``defence_penalty``;
    and the ``seed`` of the initial weights and the minibatches."""

    lr: float = param(5e-4, "Adam learning rate", low=1e-7, high=1)
    gamma: float = param(0.99, "discount", low=0, high=1)
    batch: int = param(64, "minibatch size", low=1, high=4096)
    buffer: int = param(50_000, "replay buffer capacity (transitions)", low=1, high=10**7)
    learn_start: int = param(1_000, "transitions stored before learning starts", low=1)
    train_every: int = param(4, "decisions between gradient steps", low=1)
    target_every: int = param(1_000, "decisions between target-network syncs", low=1)
    eps_start: float = param(1.0, "initial exploration rate", low=0, high=1)
    eps_end: float = param(0.05, "final exploration rate", low=0, high=1)
    eps_decay: float = param(0.999, "per-episode epsilon factor", low=1e-6, high=1)
    hidden: int = param(256, "units per hidden layer", low=1, high=8192)
    layers: int = param(2, "hidden layers", low=1, high=16)
    double: bool = param(True, "double DQN targets (van Hasselt et al. 2016)")
    shaping: float = param(1.0, "weight of the hand-strength shaping", low=0, high=10)
    defence_penalty: float = param(0.0, "penalty for an inefficient defence", low=0, high=10)
    seed: int = param(0, "seeds the network's initial weights and the minibatches", low=0)

    @property
    def widths(self) -> tuple[int, ...]:
        """The hidden layers' widths."""
        return (self.hidden,) * self.layers
