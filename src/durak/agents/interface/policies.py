"""Agents' explicit policies: the optional ``policy(observation)`` of an agent.

An agent's choice is a distribution over the legal actions: a deterministic agent's is
one-hot, a randomized agent's is the law of ``act`` over its generator.  An agent that can
state that distribution exactly implements :class:`PolicyAgent`; a model of it
(:class:`~durak.agents.inference.agent_model.AgentModel`) then reads the distribution
instead of estimating it from seeded draws of ``act``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol, TypeGuard, runtime_checkable

from durak.rules import Action, Observation

__all__ = ["PolicyAgent", "PolicyError", "checked_policy", "one_hot", "states_policy"]

#: How far from 1 a stated policy's sum may be (float rounding).
TOLERANCE = 1e-9


class PolicyError(ValueError):
    """An agent stated a policy that is no distribution over the legal actions."""


@runtime_checkable
class PolicyAgent(Protocol):
    """An agent whose choice has an explicit distribution."""

    def policy(self, observation: Observation) -> Sequence[float]:
        """The probability that ``act(observation, rng)`` returns each of
        ``observation.legal_actions`` (in that order) over a uniformly random ``rng``;
        the probabilities sum to 1."""
        ...


def states_policy(agent: object) -> TypeGuard[PolicyAgent]:
    """Whether ``agent`` states its policy: a callable ``policy`` (a runtime protocol
    check alone would take a spec parameter named ``policy``, a string, for one)."""
    return callable(getattr(agent, "policy", None))


def one_hot(legal: Sequence[Action], chosen: Action) -> list[float]:
    """Probability 1 on ``chosen`` (one of ``legal``), 0 elsewhere: a deterministic
    agent's policy."""
    return [1.0 if a == chosen else 0.0 for a in legal]


def checked_policy(agent: PolicyAgent, observation: Observation, name: str) -> Sequence[float]:
    """``agent.policy(observation)``, checked: :class:`PolicyError` (one line naming
    ``name``) unless it gives one probability in [0, 1] per legal action, summing to 1
    (within :data:`TOLERANCE`)."""
    probs = agent.policy(observation)
    count = len(observation.legal_actions)
    if len(probs) != count or any(not 0 <= p <= 1 for p in probs):
        raise PolicyError(
            f"{name}: policy() must give one probability per legal action ({count}), "
            f"got {list(probs)!r}"
        )
    if not math.isclose(sum(probs), 1.0, abs_tol=TOLERANCE):
        raise PolicyError(f"{name}: policy() must sum to 1, got {sum(probs)!r}")
    return probs
