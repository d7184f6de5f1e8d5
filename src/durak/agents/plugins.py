"""Importing the modules that register agents: entry-point plugins and agent modules.

Third-party agents come from two places: the modules named in the ``durak.agents``
entry-point group of an installed distribution, and the modules a user names with
``--agent-module`` (:func:`durak.agents.base.import_agent_module`).  Importing foreign code
can fail in any way, so this module turns every failure into one line
(:func:`failure_line`), keeps the module's own traceback frames apart for a verbose report
(:func:`own_frames`), and says which plugin is importing while it does (:func:`loading`),
so that a registration can name its source.
"""

from __future__ import annotations

import contextvars
import importlib
import keyword
import os
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs

from durak.agents.specs import SpecError

__all__ = [
    "AgentModule",
    "PluginError",
    "PluginWarning",
    "check_module_name",
    "current_source",
    "failure_line",
    "loading",
    "own_frames",
]

#: The source of the registrations made now: the plugin being imported, if any.
_SOURCE: contextvars.ContextVar[str | None] = contextvars.ContextVar("durak_source", default=None)

#: Durak's own package directory and importlib's: their frames are not a plugin's own.
_NOT_OWN = tuple(
    str(Path(p).resolve().parent) + os.sep for p in (str(Path(__file__).parent), importlib.__file__)
)


class PluginError(SpecError):
    """An agent module or plugin that could not be imported, or a registration refused.

    ``frames`` holds the failing module's own traceback frames (importlib's and durak's
    left out), formatted, for a verbose report; the message is one line.
    """

    def __init__(self, message: str, frames: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.frames = frames


class PluginWarning(UserWarning):
    """An entry-point plugin that failed to load and was skipped (the others still load);
    ``frames`` as :class:`PluginError`'s."""

    def __init__(self, message: str, frames: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.frames = frames


@attrs.frozen
class AgentModule:
    """A module imported for its agents (``--agent-module``): its ``name`` and the
    ``directory`` put on the path for it (the current directory when it was imported), so
    that a worker process or a Ray worker imports the same module."""

    name: str
    directory: str


def check_module_name(name: object) -> str:
    """``name`` if it is an absolute dotted module name (``mine``, ``pkg.mine``), else
    :class:`PluginError`: a relative name (``.``, ``..x``), a path (``../x``, ``mine.py``)
    or an empty one cannot be imported as ``--agent-module``."""
    if not isinstance(name, str):
        raise PluginError(f"a module name must be a string, got {type(name).__name__}")
    parts = name.split(".")
    if not all(p.isidentifier() and not keyword.iskeyword(p) for p in parts):
        hint = ""
        if name.endswith(".py") or "/" in name or os.sep in name:
            hint = " (give the module's name, such as mine, not a file's path)"
        raise PluginError(f"{name!r} is not a module name{hint}")
    return name


@contextmanager
def loading(source: str) -> Iterator[None]:
    """Within the block, registrations name ``source`` as theirs (see
    :func:`current_source`)."""
    token = _SOURCE.set(source)
    try:
        yield
    finally:
        _SOURCE.reset(token)


def current_source(module: str) -> str:
    """The source of a registration made now by code in ``module``: the plugin being
    imported (:func:`loading`), else ``module`` itself."""
    return _SOURCE.get() or module


def failure_line(error: BaseException) -> str:
    """One line saying why an import failed: the error's type and message (an
    ``ImportError``'s or a :class:`SpecError`'s message alone), or the exit code of a
    module that calls ``sys.exit``."""
    if isinstance(error, SystemExit):
        return f"it called sys.exit({error.code!r}) while being imported"
    text = " ".join(str(error).split())
    if isinstance(error, ImportError | SpecError):
        return text or type(error).__name__
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def own_frames(error: BaseException) -> tuple[str, ...]:
    """The formatted traceback frames of ``error`` that belong to the failing module:
    those of importlib's machinery and of durak's own code are left out."""
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)
        if not f.filename.startswith(("<frozen ", *_NOT_OWN))
    ]
    return tuple(line.rstrip("\n") for line in traceback.format_list(frames))


def importable_from(directory: str) -> None:
    """Put ``directory`` first on ``sys.path`` unless it is there already."""
    if directory not in sys.path:
        sys.path.insert(0, directory)
