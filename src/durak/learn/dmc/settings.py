"""The settings of the Deep Monte-Carlo learner (:mod:`durak.learn.dmc.learner`), each
declared once: the ``dmc`` learner spec's parameters (``durak train dmc:lr=...``,
``durak learners``) derive from this class.  It imports no PyTorch."""

from __future__ import annotations

import attrs

from durak.agents.base import SpecError, make_agent
from durak.agents.specs import param


@attrs.frozen
class DmcSettings:
    """The learner's settings, each declared once (``durak train dmc:lr=...``).

    A **warm start** (``warm_episodes > 0``): in the first ``warm_episodes`` episodes the
    network's seats play the moves of the ``warm`` agent (still exploring with
    ``epsilon``), so the network first learns the values of that agent's play; playing the
    best of those values is already a step of policy improvement over it (the policy
    improvement theorem, Sutton & Barto 2018, 4.2).  Then the network plays itself.
    """

    lr: float = param(3e-4, "Adam learning rate", low=1e-7, high=1)
    batch: int = param(1024, "minibatch size", low=1, high=65536)
    epsilon: float = param(0.05, "the actors' exploration rate", low=0, high=1)
    round: int = param(256, "episodes per round", low=1, high=10**6)
    chunk: int = param(64, "episodes per actor task (played side by side)", low=1, high=4096)
    reuse: float = param(2.0, "times each sample is drawn, on average", low=0.01, high=100)
    buffer_rounds: int = param(2, "rounds of samples kept for training", low=1, high=100)
    hidden: int = param(256, "units per hidden layer", low=1, high=4096)
    layers: int = param(3, "hidden layers", low=1, high=8)
    warm: str = param("greedy", "warm start: the agent whose moves the network's seats play")
    warm_episodes: int = param(0, "warm start: episodes that play warm's moves (0: none)", low=0)
    init: str = param("", "a dmc model file whose weights the network starts from ('': random)")

    @property
    def widths(self) -> tuple[int, ...]:
        """The hidden widths: ``hidden`` units per layer, the last layer half as wide."""
        return (self.hidden,) * (self.layers - 1) + (max(1, self.hidden // 2),)

    def check(self) -> None:
        """``SpecError`` unless a round is a whole number of chunks and ``warm`` an agent."""
        if self.round % self.chunk:
            raise SpecError(f"dmc: round ({self.round}) must be a multiple of chunk ({self.chunk})")
        if self.warm_episodes:
            make_agent(self.warm)
