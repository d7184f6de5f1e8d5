"""Deep Monte-Carlo (DouZero, Zha et al., ICML 2021) for Durak: the ``dmc`` agent and
learner.

* :mod:`durak.learn.dmc.features`: one input row per (state, legal action), suits
  canonical;
* :mod:`durak.learn.dmc.net`: the Q(s, a) network and its model file;
* :mod:`durak.learn.dmc.agent`: the ``dmc`` agent and guide that play it;
* :mod:`durak.learn.dmc.shipped`: the models shipped with the package, by rules (no
  PyTorch);
* :mod:`durak.learn.dmc.actor`: actors playing chunks of episodes side by side;
* :mod:`durak.learn.dmc.learner`: rounds, the buffer, Adam;
* :mod:`durak.learn.dmc.checkpoint`: the checkpoint of a run, saved and resumed;
* :mod:`durak.learn.dmc.schedule`: the training run (evaluations, their CSV, checkpoints
  every five minutes, the goal);
* :mod:`durak.learn.dmc.settings`: the learner's settings (no PyTorch).

Importing this package registers the ``dmc`` agent (``dmc`` plays the shipped model of the
game's rules, and refuses rules without one in one line naming the tables that have one;
``dmc:path=model.pt`` plays another model), the ``dmc`` guide of the search agents
(``ismcts:prior=dmc,value=dmc``: the shipped model's action values, resolved the same
way, :mod:`durak.agents.guides`) and lists the ``dmc`` learner for ``durak learners``, all
without importing PyTorch; ``durak train dmc`` runs the schedule of
:mod:`durak.learn.dmc.schedule` (not the online loop of :mod:`durak.learn.online`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from durak.agents.base import Param, SpecError, register
from durak.agents.guides import register_guide
from durak.agents.specs import MODEL_FILE, params_of
from durak.learn.dmc.settings import DmcSettings
from durak.learn.dmc.shipped import MODELS, describe_shipped
from durak.learn.registry import register_learner
from durak.learn.torch_support import require_extra

if TYPE_CHECKING:
    from durak.learn.dmc.agent import DmcAgent, ShippedDmcAgent, ShippedDmcGuide

__all__ = ["BUNDLED", "MODELS", "DmcSettings"]

#: The shipped model of the default rules (2 players, 36 cards), the start of the
#: exploiter's learning (``durak exploit``).  The shipped models stay in ``learn/models/``
#: (:mod:`durak.learn.dmc.shipped`): a run started with
#: ``dmc:init=src/durak/learn/models/...`` records that path in its checkpoint's identity,
#: and resuming reads it again.
BUNDLED = MODELS / "dmc-2p-36.pt"


def _agent(path: str | None) -> DmcAgent | ShippedDmcAgent:
    """``dmc:path=FILE``: the agent of a saved model; ``dmc``: the shipped model of each
    game's rules, loaded when the agent is bound to them."""
    require_extra("dmc")
    from durak.learn.dmc.agent import DmcAgent, ShippedDmcAgent  # noqa: PLC0415 - needs torch
    from durak.learn.dmc.net import DmcModelError, load_model  # noqa: PLC0415

    if not path:
        return ShippedDmcAgent()
    try:
        return DmcAgent(load_model(path))
    except DmcModelError as e:
        raise SpecError(f"dmc: {e}") from None


def _guide() -> ShippedDmcGuide:
    """The ``dmc`` guide: the action values of the shipped model of each game's rules."""
    require_extra("dmc")
    from durak.learn.dmc.agent import ShippedDmcGuide  # noqa: PLC0415 - needs torch

    return ShippedDmcGuide()


register(
    "dmc",
    _agent,
    "Deep Monte-Carlo Q(s, a) network (DouZero); plays the shipped model of the game's "
    f"rules ({describe_shipped()}), or dmc:path=FILE; needs the dmc extra",
    (
        Param(
            "path",
            str,
            None,
            "a model file of durak train dmc (default: a shipped one)",
            holds=MODEL_FILE,
        ),
    ),
    analyses=True,
)

register_guide(
    "dmc", _guide, "the action values of the game's shipped dmc model (needs the dmc extra)"
)

register_learner(
    "dmc",
    None,  # trained by its own schedule (durak.learn.dmc.schedule), not online
    "Deep Monte-Carlo self-play (Zha et al. 2021): actors and one learner; needs the dmc extra",
    params_of(DmcSettings),
)
