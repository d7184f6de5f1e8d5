"""The optional dependencies of ``durak-lab`` (its extras), and the one-line error without one.

The core (rules, search, agents, arena, the CLI) needs only attrs, typer and rich; each other
feature needs an extra, declared in ``pyproject.toml``: ``dmc`` and ``dqn`` (numpy, PyTorch),
``rl`` (numpy, Gymnasium, PettingZoo, matplotlib), ``ppo`` (Gymnasium, sb3-contrib,
PyTorch), ``ray``, ``web`` (FastAPI, uvicorn), ``openspiel`` (numpy, open-spiel) and
``ladder`` (numpy, choix, matplotlib), ``dataset`` (numpy, pyarrow), ``testing``
(hypothesis, for :mod:`durak.testing.strategies`);
``learn`` is ``dmc``, ``dqn``, ``rl`` and ``ppo`` together.  Every import of an optional
module goes through :func:`needs` or :func:`require`, so that a missing one is a
:class:`MissingExtraError` whose message is one line naming the feature, the missing
package and the extra that installs it: "dmc needs numpy: pip install 'durak-lab[dmc]'".

This module imports nothing of durak: every layer may use it.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

__all__ = [
    "MissingExtraError",
    "check_installed",
    "install_hint",
    "missing_message",
    "needs",
    "require",
]

#: The distribution's name of a top-level module, where it differs from the module's.
PACKAGE_NAMES = {
    "torch": "PyTorch",
    "ray": "Ray",
    "pyspiel": "open-spiel",
    "open_spiel": "open-spiel",
    "sb3_contrib": "sb3-contrib",
    "stable_baselines3": "stable-baselines3",
    "fastapi": "FastAPI",
    "gymnasium": "Gymnasium",
    "pettingzoo": "PettingZoo",
}


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


def install_hint(extra: str) -> str:
    """The command that installs ``extra``: ``pip install 'durak-lab[EXTRA]'``."""
    return f"pip install 'durak-lab[{extra}]'"


def missing_message(feature: str, module: str, extra: str) -> str:
    """``FEATURE needs PACKAGE: pip install 'durak-lab[EXTRA]'``, the package named after
    the top-level ``module``."""
    top = module.partition(".")[0]
    return f"{feature} needs {PACKAGE_NAMES.get(top, top)}: {install_hint(extra)}"


@contextmanager
def needs(
    feature: str, extra: str, error: type[MissingExtraError] = MissingExtraError
) -> Iterator[None]:
    """Turn a module not found in the body (an optional dependency) into ``error`` naming
    ``feature``, the missing package and ``extra``.

    A missing durak module is a broken install, not a missing extra: it is raised as it is.
    So is an inner :class:`MissingExtraError`, whose message is the more precise one.
    """
    try:
        yield
    except ModuleNotFoundError as e:
        missing = e.name or ""
        if not missing or missing.partition(".")[0] == "durak":
            raise
        raise error(missing_message(feature, missing, extra)) from None


def require(
    feature: str, extra: str, *modules: str, error: type[MissingExtraError] = MissingExtraError
) -> tuple[ModuleType, ...]:
    """``modules`` imported, in order; ``error`` naming the first missing one, ``feature``
    and ``extra`` if any is not installed."""
    with needs(feature, extra, error):
        return tuple(importlib.import_module(m) for m in modules)


def check_installed(
    feature: str, extra: str, *modules: str, error: type[MissingExtraError] = MissingExtraError
) -> None:
    """``error`` naming the first of the top-level ``modules`` that is not installed,
    ``feature`` and ``extra``; found, they are not imported (for a check well before use)."""
    for module in modules:
        if importlib.util.find_spec(module) is None:
            raise error(missing_message(feature, module, extra))
