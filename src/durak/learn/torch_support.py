"""PyTorch as an optional dependency: one place that imports it, or says how to install it.

The learners that need PyTorch (``dqn``, ``dmc``) check their extra through
:func:`require_extra` on first use, before their modules (which import numpy) are, so
``import durak.learn`` works without either and a spec that needs them fails like any bad
spec, with a one-line message naming the extra (:mod:`durak.extras`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from durak.agents.optional import MissingAgentExtraError
from durak.extras import require

#: What a model file's code, used outside ``dqn`` and ``dmc``, names when PyTorch is missing.
NETWORK = "a durak network"


class TorchMissingError(MissingAgentExtraError):
    """PyTorch (or numpy) is not installed.  Both a :class:`~durak.agents.SpecError` (so a
    spec such as ``dqn:path=m.pt`` fails like any bad spec) and an ``ImportError``; the
    message names the extra to install."""


def require_extra(name: str) -> None:
    """Check that the ``name`` learner's extra (``dqn`` or ``dmc``: PyTorch and numpy) is
    installed; :class:`TorchMissingError` ("dmc needs numpy: pip install 'durak-lab[dmc]'")
    naming what is missing if not."""
    require(name, name, "torch", "numpy", error=TorchMissingError)


def require_torch(feature: str = NETWORK, extra: str = "dmc") -> Any:
    """The ``torch`` module; :class:`TorchMissingError` naming ``feature`` and ``extra`` if it
    is not installed."""
    imported = sys.modules.get("torch")  # once imported, as cheap as an import statement
    if imported is not None:
        return imported
    return require(feature, extra, "torch", error=TorchMissingError)[0]


@contextmanager
def inference() -> Iterator[Any]:
    """``torch.inference_mode`` on one intra-op thread, the caller's thread count restored
    after; yields ``torch``.

    A decision scores a few rows of a small network: splitting that work costs more than it
    saves, and on a busy machine (a match's other jobs, training actors) waiting for the
    pool's threads slows a decision many times over (the measurement: ``docs/agents.md``).
    """
    torch = require_torch()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.inference_mode():
            yield torch
    finally:
        torch.set_num_threads(threads)
