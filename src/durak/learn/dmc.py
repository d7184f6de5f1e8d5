"""Deep Monte-Carlo (DouZero, Zha et al., ICML 2021) for Durak: the ``dmc`` agent and
learner.

* :mod:`durak.learn.dmc_features`: one input row per (state, legal action), suits
  canonical;
* :mod:`durak.learn.dmc_net`: the Q(s, a) network, its model file, the agent;
* :mod:`durak.learn.dmc_actor`: actors playing chunks of episodes side by side;
* :mod:`durak.learn.dmc_learner`: rounds, the buffer, Adam, checkpoints.

Importing this module registers the ``dmc`` agent (``dmc`` plays the model shipped in the
package, trained for the default rules; ``dmc:path=model.pt`` another), the ``dmc`` guide
of the search agents (``ismcts:prior=dmc,value=dmc``: the bundled model's action values,
:mod:`durak.agents.guides`) and lists the ``dmc`` learner for ``durak learners``, all
without importing PyTorch; ``durak train dmc`` runs the training loop of
:mod:`durak.learn.dmc_learner`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from durak.agents.base import Param, SpecError, register
from durak.agents.guides import register_guide
from durak.agents.specs import params_of
from durak.learn.dmc_settings import DmcSettings
from durak.learn.registry import register_learner
from durak.learn.torch_support import require_torch
from durak.rules import Rules

if TYPE_CHECKING:
    from durak.learn.dmc_net import DmcAgent, DmcGuide

__all__ = ["BUNDLED", "DmcSettings"]

#: The model shipped in the package: 2 players, 36 cards, the default rules.
BUNDLED = Path(__file__).parent / "models" / "dmc-2p-36.pt"


def _agent(path: str | None) -> DmcAgent:
    """``dmc`` (the bundled model) or ``dmc:path=FILE``: the agent of a saved model."""
    require_torch()
    from durak.learn.dmc_net import DmcAgent, DmcModelError, load_model  # noqa: PLC0415

    if not path and not BUNDLED.exists():
        raise SpecError(f"dmc: the bundled model {BUNDLED} is missing; give dmc:path=FILE")
    try:
        return DmcAgent(load_model(path or BUNDLED))
    except DmcModelError as e:
        raise SpecError(f"dmc: {e}") from None


def _guide() -> DmcGuide:
    """The ``dmc`` guide: the bundled model's action values."""
    agent = _agent(None)
    from durak.learn.dmc_net import DmcGuide  # noqa: PLC0415 - needs torch

    return DmcGuide(agent)


def _not_online(rules: Rules, **settings: object) -> NoReturn:
    """DMC is not an online learner: ``durak train dmc`` runs its own loop."""
    raise SpecError("dmc trains with its own actors and learner: run durak train dmc ...")


register(
    "dmc",
    _agent,
    "Deep Monte-Carlo Q(s, a) network (DouZero); the bundled model by default; needs torch",
    (Param("path", str, None, "a model file of durak train dmc (default: the bundled one)"),),
)

register_guide("dmc", _guide, "the bundled dmc model's action values (needs torch)")

register_learner(
    "dmc",
    _not_online,
    "Deep Monte-Carlo self-play (Zha et al. 2021): actors and one learner; needs torch",
    params_of(DmcSettings),
)
