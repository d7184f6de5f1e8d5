"""Each seat's agent behind a recorder, which notes what it saw and, for ``durak dataset
--policy``, its distribution over its actions.

The recorder notes the observation the agent is asked to act on (``play_game`` makes it
anyway), so a dataset's rows need no second pass through the engine.  With a journal of
policies it answers a decision with the agent's
:meth:`~durak.agents.interface.analysis.Analyst.analyse` instead of its ``act``: an analyst chooses
the same action from the same generator either way (``ismcts`` runs the one search behind
both), so the game is the one played without it.  The recorded policy (:func:`policy_of`)
is the target of expert iteration (Anthony, Tian & Barber, "Thinking Fast and Slow with
Deep Learning and Tree Search", NeurIPS 2017): the analysis's visit shares where it has
them, else one-hot on the chosen action (a forced move, a solved endgame, a network that
values but does not visit); an agent that cannot analyse plays with ``act`` and records
``None``.
"""

from __future__ import annotations

import random
from typing import cast

from durak.extras import needs

with needs("durak dataset", "dataset"):
    import numpy as np
    from numpy.typing import NDArray

from durak.agents.base import Agent, SpecError, Watcher
from durak.agents.interface.analysis import Analysis, Analyst
from durak.encoding import ActionSpace
from durak.rules import Action, Observation

__all__ = ["Journal", "Recorder", "policy_of", "recorder"]

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


class Recorder:
    """``agent`` playing as it does; every observation it is asked to act on is appended
    to ``seen`` before it acts (a decision that faults is noted too, and dropped by the
    caller), and, with a ``journal``, its policy to ``journal``."""

    def __init__(
        self, agent: Agent, seen: list[Observation], journal: Journal | None, space: ActionSpace
    ) -> None:
        self.agent = agent
        self.seen = seen
        self.journal = journal
        self.space = space

    @property
    def name(self) -> str:
        """The wrapped agent's name."""
        return self.agent.name

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The agent's action: with a journal, its analysis's choice (the policy recorded),
        or, for an agent that cannot analyse, its ``act`` (``None`` recorded)."""
        self.seen.append(observation)
        if self.journal is None:
            return self.agent.act(observation, rng)
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


class WatchingRecorder(Recorder):
    """A :class:`Recorder` of an agent that watches the game: the hooks are passed on (a
    recorder of any other agent must not be a watcher: ``play_game`` treats the two
    apart)."""

    def _watcher(self) -> Watcher:
        return cast(Watcher, self.agent)

    def game_started(self, observation: Observation) -> None:
        """Passed on."""
        self._watcher().game_started(observation)

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        """Passed on."""
        self._watcher().action_taken(player, action, observation)

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        """Passed on."""
        self._watcher().game_ended(observation, loser)


def recorder(
    agent: Agent, seen: list[Observation], journal: Journal | None, space: ActionSpace
) -> Recorder:
    """``agent`` behind a :class:`Recorder` (a :class:`WatchingRecorder` if it watches)."""
    kind = WatchingRecorder if isinstance(agent, Watcher) else Recorder
    return kind(agent, seen, journal, space)
