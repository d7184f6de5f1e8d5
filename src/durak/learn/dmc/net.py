"""The Deep Monte-Carlo network, its model file, and the ``dmc`` agent (needs PyTorch).

The network (after DouZero, Zha et al. ICML 2021) maps one row of
:func:`~durak.learn.dmc.features.decision_rows` (a state and one legal action) to a
single number, the expected return of playing that action and then following the policy:
an MLP with ReLU hidden layers and one linear output.  A decision scores all its legal
actions in one batch and plays the best.  One network serves one rules variant (number
of players and deck): the width of its input depends on both, and the file's header
records the rules, so a model is refused for any other game before the first move.

The model file (:mod:`durak.learn.model_file`)::

    {"format": "durak-dmc", "version": 2, "rules": {...}, "encoding": 1,
     "row_size": 386, "hidden": [256, 256, 128], "state_dict": {...}, "meta": {...},
     "checksum": "sha256:..."}
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from typing import Any

import attrs

from durak.extras import needs

with needs("dmc", "dmc"):
    import numpy as np
    from numpy.typing import NDArray

from durak.agents.base import SpecError
from durak.learn.dmc.features import decision_rows, row_size
from durak.learn.model_file import NetworkFormat, NetworkModel
from durak.learn.torch_support import inference
from durak.rules import Action, Observation, Rules

__all__ = [
    "ENCODING",
    "FORMAT",
    "NETWORK",
    "VERSION",
    "DmcAgent",
    "DmcGuide",
    "DmcModel",
    "DmcModelError",
    "build_network",
    "load_model",
    "save_model",
    "scores",
]

FORMAT = "durak-dmc"
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


@attrs.frozen(eq=False)
class DmcAgent:
    """Plays the legal action the network scores highest (the first in canonical order on
    ties); never explores and ignores ``rng``.  A forced decision is answered at once."""

    model: DmcModel
    name: str = "dmc"

    def check_rules(self, rules: Rules) -> None:
        """:class:`~durak.agents.SpecError` unless the model was trained for ``rules``."""
        if rules is not self.model.rules and rules != self.model.rules:
            raise SpecError(
                f"dmc: this model was trained for {self.model.rules}, not for this game's {rules}"
            )

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The best-scored legal action; ``SpecError`` if the rules are not the model's."""
        self.check_rules(observation.rules)
        legal = observation.legal_actions
        if len(legal) == 1:
            return legal[0]
        values = scores(self.model.net, decision_rows(observation, legal))
        return legal[int(np.argmax(values))]


@attrs.frozen(eq=False)
class DmcGuide:
    """A :class:`~durak.agents.guides.Guide`: the agent's network's scores of the legal
    actions (``SpecError`` for other rules than the model's)."""

    agent: DmcAgent

    def check_rules(self, rules: Rules) -> None:
        """:class:`~durak.agents.SpecError` unless the model was trained for ``rules``."""
        self.agent.check_rules(rules)

    def action_values(self, observation: Observation) -> list[float]:
        """The network's expected return of each legal action, in their order."""
        self.agent.check_rules(observation.rules)
        rows = decision_rows(observation, observation.legal_actions)
        return [float(x) for x in scores(self.agent.model.net, rows)]

    def action_values_many(self, observations: Sequence[Observation]) -> list[list[float]]:
        """:meth:`action_values` of each observation, from one pass of the network over
        all their rows (many small passes cost mostly torch's call overhead)."""
        blocks = []
        for o in observations:
            self.agent.check_rules(o.rules)
            blocks.append(decision_rows(o, o.legal_actions))
        if not blocks:
            return []
        values = scores(self.agent.model.net, np.concatenate(blocks))
        out, i = [], 0
        for block in blocks:
            out.append([float(x) for x in values[i : i + len(block)]])
            i += len(block)
        return out
