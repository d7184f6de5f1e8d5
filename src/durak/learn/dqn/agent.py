"""The ``dqn`` agent: greedy play of a trained deep Q-network (needs PyTorch and numpy).

:class:`DqnAgent` plays the masked argmax of its network
(:func:`durak.learn.dqn.net.greedy_action`) over the encoded observation; it never explores,
ignores ``rng``, and refuses, with :class:`~durak.agents.SpecError`, an observation of other
rules than the model's.
"""

from __future__ import annotations

import random

import attrs

from durak.encoding import encode_observation
from durak.learn.dqn.net import DqnModel, greedy_action
from durak.rules import Action, Observation, Rules

__all__ = ["DqnAgent"]


@attrs.frozen(eq=False)
class DqnAgent:
    """Plays the masked argmax of a trained DQN (see
    :func:`~durak.learn.dqn.net.greedy_action`); never explores and ignores ``rng``."""

    model: DqnModel
    name: str = "dqn"

    def check_rules(self, rules: Rules) -> None:
        """:class:`~durak.agents.SpecError` unless the model was trained for ``rules``."""
        self.model.check_rules(rules, "dqn")

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The greedy legal action; ``ValueError`` if the game's rules are not the model's."""
        self.check_rules(observation.rules)
        return greedy_action(self.model.net, observation, encode_observation(observation))
