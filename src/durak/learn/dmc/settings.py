"""The settings of the Deep Monte-Carlo learner (:mod:`durak.learn.dmc.learner`), each
declared once: the ``dmc`` learner spec's parameters (``durak train dmc:lr=...``,
``durak learners``) derive from this class.  It imports no PyTorch."""

from __future__ import annotations

import attrs

from durak.agents.base import SpecError, make_agent
from durak.agents.specs import param


def fade(episode: int, horizon: int) -> float:
    """The coefficient of the privileged inputs in episode ``episode`` (counted from 0) of a
    run that fades them over ``horizon`` episodes: ``max(0, 1 - episode / horizon)``, linear
    from 1 in episode 0 to 0 in episode ``horizon`` and after; 0 for every episode when
    ``horizon`` is 0 (no privileged information)."""
    if horizon <= 0:
        return 0.0
    return max(0.0, 1.0 - episode / horizon)


@attrs.frozen
class DmcSettings:
    """The learner's settings, each declared once (``durak train dmc:lr=...``).

    A **warm start** (``warm_episodes > 0``): in the first ``warm_episodes`` episodes the
    network's seats play the moves of the ``warm`` agent (still exploring with
    ``epsilon``), so the network first learns the values of that agent's play; playing the
    best of those values is already a step of policy improvement over it (the policy
    improvement theorem, Sutton & Barto 2018, 4.2).  Then the network plays itself.

    **Privileged information** (``privileged = H > 0``; after Suphx's oracle guiding, Li
    et al. 2020): each training row also holds the cards the player cannot see, scaled by
    :meth:`fade`, which goes linearly from 1 to 0 over the first ``H`` episodes; the
    network first learns with the hidden cards visible, then without them.  The saved
    model has no such input (:mod:`durak.learn.dmc.privileged`).

    **The past opponent** (``--vs ...,past``; a league after AlphaStar, Vinyals et al.
    2019): every ``past_every`` rounds, from round 0, the network is copied into a pool of
    the last ``past_keep`` copies, and an episode against ``past`` draws one of them
    (:mod:`durak.learn.dmc.league`).

    **Expert iteration** (``expert=DIR``; Anthony, Tian & Barber, NeurIPS 2017): a dataset
    written by ``durak dataset --policy`` (a search's visit distributions); each learner
    step adds ``expert_weight`` times the cross-entropy from those distributions to the
    softmax of the network's Q over each decision's actions at ``expert_temperature``
    (:mod:`durak.learn.dmc.expert`).
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
    privileged: int = param(
        0, "privileged information: episodes over which the hidden cards fade out (0: off)", low=0
    )
    past_every: int = param(100, "league: rounds between copies of the network for past", low=1)
    past_keep: int = param(20, "league: the copies kept for the past opponent", low=1)
    expert: str = param("", "expert iteration: a durak dataset --policy folder ('': off)")
    expert_weight: float = param(
        1.0, "expert iteration: the weight of the cross-entropy term", low=0, high=1000
    )
    expert_temperature: float = param(
        0.1, "expert iteration: the softmax temperature of Q (returns in [-1, 1])", low=1e-4
    )

    def fade(self, episode: int) -> float:
        """The coefficient of the privileged inputs in episode ``episode``: :func:`fade`
        over ``privileged`` episodes."""
        return fade(episode, self.privileged)

    @property
    def widths(self) -> tuple[int, ...]:
        """The hidden widths: ``hidden`` units per layer, the last layer half as wide."""
        return (self.hidden,) * (self.layers - 1) + (max(1, self.hidden // 2),)

    def check(self) -> None:
        """``SpecError`` unless a round is a whole number of chunks, ``warm`` an agent, and
        expert iteration is not asked of a privileged run."""
        if self.round % self.chunk:
            raise SpecError(f"dmc: round ({self.round}) must be a multiple of chunk ({self.chunk})")
        if self.expert and self.privileged:
            raise SpecError(
                "dmc: expert and privileged do not combine (a privileged run's rows are wider "
                "than the dataset's); drop one"
            )
        if self.warm_episodes:
            make_agent(self.warm)
