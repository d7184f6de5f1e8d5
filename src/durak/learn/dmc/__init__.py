"""Deep Monte-Carlo (DouZero, Zha et al., ICML 2021) for Durak: the ``dmc`` agent and
learner.

* :mod:`durak.learn.dmc.features`: one input row per (state, legal action), suits
  canonical;
* :mod:`durak.learn.dmc.net`: the Q(s, a) network and its model file;
* :mod:`durak.learn.dmc.agent`: the ``dmc`` agent and guide that play it;
* :mod:`durak.learn.dmc.actor`: actors playing chunks of episodes side by side;
* :mod:`durak.learn.dmc.learner`: rounds, the buffer, Adam, checkpoints;
* :mod:`durak.learn.dmc.schedule`: the training run (evaluations, their CSV, checkpoints
  every five minutes, the goal);
* :mod:`durak.learn.dmc.settings`: the learner's settings (no PyTorch).

Importing this package registers the ``dmc`` agent (``dmc`` plays the model shipped in the
package, trained for the default rules; ``dmc:path=model.pt`` another), the ``dmc`` guide
of the search agents (``ismcts:prior=dmc,value=dmc``: the bundled model's action values,
:mod:`durak.agents.guides`) and lists the ``dmc`` learner for ``durak learners``, all
without importing PyTorch; ``durak train dmc`` runs the schedule of
:mod:`durak.learn.dmc.schedule` (not the online loop of :mod:`durak.learn.online`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from durak.agents.base import Param, SpecError, register
from durak.agents.guides import register_guide
from durak.agents.specs import params_of
from durak.learn.dmc.settings import DmcSettings
from durak.learn.registry import register_learner
from durak.learn.torch_support import require_extra

if TYPE_CHECKING:
    from durak.learn.dmc.agent import DmcAgent, DmcGuide

__all__ = ["BUNDLED", "DmcSettings"]

#: The model shipped in the package: 2 players, 36 cards, the default rules.
#: It stays in ``learn/models/``: a run started with ``dmc:init=src/durak/learn/models/...``
#: records that path in its checkpoint's identity, and resuming reads it again.
BUNDLED = Path(__file__).parent.parent / "models" / "dmc-2p-36.pt"


def _agent(path: str | None) -> DmcAgent:
    """``dmc`` (the bundled model) or ``dmc:path=FILE``: the agent of a saved model."""
    require_extra("dmc")
    from durak.learn.dmc.agent import DmcAgent  # noqa: PLC0415 - needs torch
    from durak.learn.dmc.net import DmcModelError, load_model  # noqa: PLC0415

    if not path and not BUNDLED.exists():
        raise SpecError(f"dmc: the bundled model {BUNDLED} is missing; give dmc:path=FILE")
    try:
        return DmcAgent(load_model(path or BUNDLED))
    except DmcModelError as e:
        raise SpecError(f"dmc: {e}") from None


def _guide() -> DmcGuide:
    """The ``dmc`` guide: the bundled model's action values."""
    agent = _agent(None)
    from durak.learn.dmc.agent import DmcGuide  # noqa: PLC0415 - needs torch

    return DmcGuide(agent)


register(
    "dmc",
    _agent,
    "Deep Monte-Carlo Q(s, a) network (DouZero); the bundled model by default; needs the dmc extra",
    (Param("path", str, None, "a model file of durak train dmc (default: the bundled one)"),),
)

register_guide("dmc", _guide, "the bundled dmc model's action values (needs the dmc extra)")

register_learner(
    "dmc",
    None,  # trained by its own schedule (durak.learn.dmc.schedule), not online
    "Deep Monte-Carlo self-play (Zha et al. 2021): actors and one learner; needs the dmc extra",
    params_of(DmcSettings),
)
