"""The DQN's network, its greedy action and its model file (needs PyTorch and numpy).

The network is an MLP: ``observation_size(rules)`` inputs, ReLU hidden layers, one
Q-value per index of ``ActionSpace(rules)`` (CPU only).  The model file
(:mod:`durak.learn.model_file`) is ``torch.save`` of a plain dict, read back with
``torch.load(weights_only=True)``, which never unpickles arbitrary objects::

    {"format": "durak-dqn", "version": 2, "rules": {...attrs fields of Rules...},
     "observation_size": 273, "action_size": 1334, "hidden": [256, 256],
     "state_dict": {...tensors...}, "meta": {...training settings, for the record...},
     "checksum": "sha256:..."}

Loading checks every field and raises :class:`DqnModelError` naming the file and the
problem.  The module imports without PyTorch (so the core's test collection needs no
torch); each function fetches it on use and raises
:class:`~durak.learn.torch_support.TorchMissingError` without it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from durak.extras import needs

with needs("dqn", "dqn"):
    import numpy as np
    from numpy.typing import NDArray

from durak.encoding import ActionSpace, action_space_size, observation_size
from durak.learn.model_file import NetworkFormat, NetworkModel
from durak.learn.torch_support import inference, require_torch
from durak.rules import Action, Observation, Rules

__all__ = [
    "FORMAT",
    "NETWORK",
    "VERSION",
    "DqnModel",
    "DqnModelError",
    "build_network",
    "greedy_action",
    "load_model",
    "save_model",
]

FORMAT = "durak-dqn"
#: 2 since files carry a checksum (:mod:`durak.learn.model_file`).
VERSION = 2
#: The file format of the network: the encoded observation in, one Q-value per action out.
NETWORK = NetworkFormat(
    FORMAT,
    VERSION,
    observation_size,
    action_space_size,
    lambda rules: {
        "observation_size": observation_size(rules),
        "action_size": action_space_size(rules),
    },
)


class DqnModelError(ValueError):
    """A model file that cannot be used: unreadable, corrupt, of another format or version,
    or with weights that do not fit the network it describes."""


def build_network(rules: Rules, hidden: Sequence[int]) -> Any:
    """A fresh ``torch.nn.Sequential``: ``observation_size(rules)`` inputs, a ReLU layer of
    each width in ``hidden``, ``action_space_size(rules)`` outputs, all near 0 at first;
    weights from torch's global generator (seed it first for a reproducible network)."""
    torch = require_torch()
    net = NETWORK.build(rules, hidden)
    out = net[-1]
    # Q-values start near 0: with the default scale the bootstrap's max over many legal
    # actions (a big hand) beats the max over few by noise alone, which biases play toward
    # taking cards.  Not exactly 0: ties would all go to the first legal action, a strong
    # hand-made policy ("play the lowest card") that an untrained network should not have.
    with torch.no_grad():
        out.weight.mul_(0.01)
        out.bias.zero_()
    return net


def greedy_action(net: Any, observation: Observation, features: NDArray[np.float32]) -> Action:
    """The legal action of ``observation`` with the highest Q-value under ``net`` (the
    first in canonical order on ties), ``features`` being its encoding.

    Taking the argmax over the legal indices only is the masked argmax (every illegal
    Q-value set to ``-inf``) without building the mask, so it can never return an illegal
    action, even if the network outputs NaN.
    """
    torch = require_torch()
    legal = observation.legal_actions
    indices = ActionSpace(observation.rules).encode_all(legal)
    with inference():
        q = net(torch.from_numpy(features)).numpy()
    return legal[int(np.argmax(q[indices]))]


#: A DQN network with its rules, widths and record.
DqnModel = NetworkModel


def save_model(path: str | os.PathLike[str], model: DqnModel) -> None:
    """Write ``model`` to ``path`` in the versioned format of the module doc."""
    NETWORK.save(path, model)


def load_model(path: str | os.PathLike[str]) -> DqnModel:
    """The model in ``path``; :class:`DqnModelError` naming the file and the problem."""
    return NETWORK.load(path, DqnModelError)
