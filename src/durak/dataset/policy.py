"""The acting agent's distribution over its actions, recorded while a game is played
(``durak dataset --policy``): the target of expert iteration (Anthony, Tian & Barber,
"Thinking Fast and Slow with Deep Learning and Tree Search", NeurIPS 2017), whose network
learns the search's visit distribution.

Each seat's agent is wrapped in a :class:`PolicyRecorder` that answers a decision with the
agent's :meth:`~durak.agents.analysis.Analyst.analyse` instead of its ``act``: an analyst
chooses the same action from the same generator either way (``ismcts`` runs the one search
behind both), so the game is the one played without the recorder.  The recorded policy
(:func:`policy_of`) is the analysis's visit shares where it has them, else one-hot on the
chosen action (a forced move, a solved endgame, a network that values but does not
visit); an agent that cannot analyse plays with ``act`` and records ``None``.
"""

from __future__ import annotations

import random

from durak.extras import needs

with needs("durak dataset", "dataset"):
    import numpy as np
    from numpy.typing import NDArray

from durak.agents.analysis import Analysis, Analyst
from durak.agents.base import Agent, SpecError, Watcher
from durak.encoding import ActionSpace
from durak.rules import Action, Observation

__all__ = ["PolicyRecorder", "policy_of", "recording"]

#: One entry per decision, in the order they were made: a policy, or ``None``.
Journal = list["NDArray[np.float32] | None"]


def policy_of(analysis: Analysis, space: ActionSpace) -> NDArray[np.float32]:
    """``analysis`` as a distribution over ``space`` (``space.size`` float32 values, zero
    outside the legal actions): each action's visit share if every listed action has one,
    else 1 on the chosen action."""
    policy = np.zeros(space.size, dtype=np.float32)
    shares = [a.share for a in analysis.actions]
    if all(s is not None for s in shares):
        for a in analysis.actions:
            policy[space.encode(a.action)] = np.float32(a.share)
    else:
        policy[space.encode(analysis.chosen)] = 1.0
    return policy


class PolicyRecorder:
    """``agent`` playing as it does, each decision's policy appended to ``journal``."""

    def __init__(self, agent: Agent, space: ActionSpace, journal: Journal) -> None:
        self.agent = agent
        self.space = space
        self.journal = journal

    @property
    def name(self) -> str:
        """The wrapped agent's name."""
        return self.agent.name

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The agent's action: its analysis's choice (the policy recorded), or, for an agent
        that cannot analyse, its ``act`` (``None`` recorded)."""
        if isinstance(self.agent, Analyst):
            try:
                analysis = self.agent.analyse(observation, rng)
            except SpecError:  # a preset resolved to an agent that cannot analyse
                pass
            else:
                self.journal.append(policy_of(analysis, self.space))
                return analysis.chosen
        self.journal.append(None)
        return self.agent.act(observation, rng)


class WatchingRecorder(PolicyRecorder):
    """A :class:`PolicyRecorder` of an agent that watches the game: the hooks are passed
    on."""

    agent: Agent

    def game_started(self, observation: Observation) -> None:
        """Passed on."""
        assert isinstance(self.agent, Watcher)
        self.agent.game_started(observation)

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        """Passed on."""
        assert isinstance(self.agent, Watcher)
        self.agent.action_taken(player, action, observation)

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        """Passed on."""
        assert isinstance(self.agent, Watcher)
        self.agent.game_ended(observation, loser)


def recording(agent: Agent, space: ActionSpace, journal: Journal) -> PolicyRecorder:
    """``agent`` wrapped to record its policies in ``journal``, a watcher if it is one."""
    kind = WatchingRecorder if isinstance(agent, Watcher) else PolicyRecorder
    return kind(agent, space, journal)
