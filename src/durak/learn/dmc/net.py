"""The Deep Monte-Carlo network and its model file (needs PyTorch).

The network (after DouZero, Zha et al. ICML 2021) maps one row of
:func:`~durak.learn.dmc.features.decision_rows` (a state and one legal action) to a
single number, the expected return of playing that action and then following the policy:
an MLP with ReLU hidden layers and one linear output.  A decision scores all its legal
actions in one batch (the agent and the guide that play it: :mod:`durak.learn.dmc.agent`).
One network serves one rules variant (number of players and deck): the width of its input
depends on both, and the file's header records the rules, so a model is refused for any
other game before the first move.

The model file (:mod:`durak.learn.model_file`)::

    {"format": "durak-dmc", "version": 2, "rules": {...}, "encoding": 1,
     "row_size": 386, "hidden": [256, 256, 128], "state_dict": {...}, "meta": {...},
     "checksum": "sha256:..."}
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from durak.extras import needs

with needs("dmc", "dmc"):
    import numpy as np
    from numpy.typing import NDArray

from durak.learn.dmc.features import row_size
from durak.learn.dmc.shipped import FORMAT
from durak.learn.model_file import NetworkFormat, NetworkModel
from durak.learn.torch_support import inference
from durak.rules import Rules

__all__ = [
    "ENCODING",
    "FORMAT",
    "NETWORK",
    "VERSION",
    "DmcModel",
    "DmcModelError",
    "build_network",
    "load_model",
    "save_model",
    "scores",
]

#: 2 since files carry a checksum (:mod:`durak.learn.model_file`).
VERSION = 2
#: The version of :mod:`durak.learn.dmc.features`; a model of another is refused.
ENCODING = 1
#: The file format of the network: ``row_size(rules)`` inputs, one output.
NETWORK = NetworkFormat(
    FORMAT,
    VERSION,
    row_size,
    lambda rules: 1,
    lambda rules: {"encoding": ENCODING, "row_size": row_size(rules)},
)


class DmcModelError(ValueError):
    """A model file that cannot be used: unreadable, corrupt, of another format, version
    or encoding, or with weights that do not fit the network it describes."""


def build_network(rules: Rules, hidden: Sequence[int]) -> Any:
    """A fresh ``torch.nn.Sequential``: ``row_size(rules)`` inputs, a ReLU layer of each
    width in ``hidden``, one output; weights from torch's global generator."""
    return NETWORK.build(rules, hidden)


def scores(net: Any, rows: NDArray[np.float32]) -> NDArray[np.float32]:
    """The network's value of each row, as a float32 vector."""
    with inference() as torch:
        out: NDArray[np.float32] = net(torch.from_numpy(rows)).numpy()[:, 0]
    return out


#: A DMC network with its rules, widths and record.
DmcModel = NetworkModel


def save_model(path: str | os.PathLike[str], model: DmcModel) -> None:
    """Write ``model`` to ``path`` in the format of the module doc."""
    NETWORK.save(path, model)


def load_model(path: str | os.PathLike[str]) -> DmcModel:
    """The model in ``path``; :class:`DmcModelError` naming the file and the problem."""
    return NETWORK.load(path, DmcModelError)
