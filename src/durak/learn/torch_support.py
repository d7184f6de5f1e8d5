"""PyTorch as an optional dependency: one place that imports it, or says how to install it.

The learners that need PyTorch (``dqn``, ``dmc``) import it through :func:`require_torch` on first
use, so ``import durak.learn`` works without it and a spec that needs it fails like any bad
spec, with the install hint.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from durak.agents.specs import SpecError

#: The hint given when PyTorch is missing.
MISSING_TORCH = "dqn and dmc need PyTorch: pip install 'durak-lab[dqn]'"


class TorchMissingError(SpecError, ImportError):
    """PyTorch is not installed.  Both a :class:`~durak.agents.SpecError` (so a spec such
    as ``dqn:path=m.pt`` fails like any bad spec) and an ``ImportError``."""


def require_torch() -> Any:
    """The ``torch`` module; :class:`TorchMissingError` (with the install hint) if it is
    not installed."""
    try:
        import torch  # noqa: PLC0415 - optional dependency, imported on use
    except ImportError:
        raise TorchMissingError(MISSING_TORCH) from None
    return torch


@contextmanager
def inference() -> Iterator[Any]:
    """``torch.inference_mode`` on one intra-op thread, the caller's thread count restored
    after; yields ``torch``.

    A decision scores a few rows of a small network: splitting that work costs more than it
    saves, and on a busy machine (a match's other jobs, training actors) waiting for the
    pool's threads made one decision 40 times slower (1,543 against 36 ms per move of
    ``ismcts:prior=dmc,value=dmc,limit=100``).
    """
    torch = require_torch()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.inference_mode():
            yield torch
    finally:
        torch.set_num_threads(threads)
