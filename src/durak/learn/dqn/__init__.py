"""A deep Q-network for Durak, after Crampton's study (Durham), and the ``dqn`` agent.

DQN (Mnih et al., "Human-level control through deep reinforcement learning", Nature
2015): an MLP maps :func:`~durak.encoding.encode_observation` to one Q-value per index of
the fixed :class:`~durak.encoding.ActionSpace`; it learns from minibatches of an
experience-replay buffer against a periodically synced target network, with the Huber
loss and Adam.  By default the bootstrap is double DQN (van Hasselt, Guez & Silver, AAAI
2016): the online network picks the next action, the target network values it.  Illegal
actions never count: acting, and the max (or argmax) of the bootstrap target, run over the
legal actions only (a mask setting the others to ``-inf``).  Exploration is
epsilon-greedy (a uniform legal action), epsilon decayed geometrically per episode.
Rewards follow Crampton's scheme (:class:`~durak.learn.rewards.RewardScheme`), but with
the hand-strength shaping weighted 1 rather than 0.05 by default: the shaping is
potential-based, so it leaves the optimal policy alone, and in our short runs the network
learned faster with it (the outcome arrives only after some 45 decisions).

Importing this module registers the ``dqn`` learner (``durak train dqn``) and the ``dqn``
agent (``dqn:path=model.pt``) without importing PyTorch or numpy, so the core library
works without them; the work is in :mod:`durak.learn.dqn.net` (network, model file),
:mod:`durak.learn.dqn.agent` (the agent) and :mod:`durak.learn.dqn.learner` (replay,
learner), imported on first use.
Without PyTorch or numpy, building either raises :class:`TorchMissingError`, naming the
``dqn`` extra.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from durak.agents.base import Param, SpecError, register
from durak.agents.specs import MODEL_FILE, params_of
from durak.learn.dqn.settings import DqnSettings
from durak.learn.registry import register_learner
from durak.learn.torch_support import TorchMissingError, require_extra, require_torch
from durak.rules import Rules

if TYPE_CHECKING:
    from durak.learn.dqn.agent import DqnAgent
    from durak.learn.dqn.learner import DqnLearner
    from durak.learn.dqn.net import DqnModelError, load_model

__all__ = [
    "DqnAgent",
    "DqnLearner",
    "DqnModelError",
    "TorchMissingError",
    "load_model",
    "require_torch",
]

# The classes live in modules that import PyTorch; `from durak.learn.dqn import DqnLearner`
# still works, importing them on first access (PEP 562).
_LAZY = {
    "DqnLearner": "durak.learn.dqn.learner",
    "DqnAgent": "durak.learn.dqn.agent",
    "DqnModelError": "durak.learn.dqn.net",
    "load_model": "durak.learn.dqn.net",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    require_extra("dqn")
    return getattr(importlib.import_module(_LAZY[name]), name)


def _learner(rules: Rules, **settings: Any) -> DqnLearner:
    """``durak train dqn``: a fresh learner with the given settings."""
    require_extra("dqn")
    from durak.learn.dqn.learner import DqnLearner  # noqa: PLC0415 - needs torch

    return DqnLearner(rules, **settings)


def _agent(path: str | None) -> DqnAgent:
    """``dqn:path=FILE``: the greedy agent of a saved model."""
    if not path:
        raise SpecError("dqn: give the model file, e.g. dqn:path=model.pt")
    require_extra("dqn")
    from durak.learn.dqn.agent import DqnAgent  # noqa: PLC0415 - needs torch
    from durak.learn.dqn.net import DqnModelError, load_model  # noqa: PLC0415

    try:
        return DqnAgent(load_model(path))
    except DqnModelError as e:
        raise SpecError(f"dqn: {e}") from None


register(
    "dqn",
    _agent,
    "greedy play of a trained DQN (durak train dqn; needs the dqn extra)",
    (Param("path", str, None, "the model file written by durak train dqn", holds=MODEL_FILE),),
)

register_learner(
    "dqn",
    _learner,
    "deep Q-network (Mnih et al. 2015) with replay, target net, double DQN; needs the dqn extra",
    params_of(DqnSettings),
)
