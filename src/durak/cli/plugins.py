"""Loading agents at the start of every command: the ``durak.agents`` plugins, then the
modules named by ``--agent-module``.

A plugin that fails is one ``warning:`` line and is skipped (the other agents still load);
an ``--agent-module`` that fails is one ``error:`` line, exit 2.  Either way the failing
module's own traceback frames follow only when the command line asks for ``-v``
(:func:`verbose_asked`).  An agent registered over another (``replace=True``) is named in
a ``note:`` line, so a run's output says which agent played.
"""

from __future__ import annotations

import re
import sys
import warnings
from collections.abc import Sequence

import typer

from durak.agents.base import import_agent_module, load_plugins, registry
from durak.agents.plugins import PluginError, PluginWarning
from durak.cli.errors import USAGE, error

#: The key of ``ctx.meta`` that holds :func:`verbose_asked`'s answer for the command line.
VERBOSE = "durak.verbose"

_VERBOSE = re.compile(r"-v+|--verbose")


def verbose_asked(args: Sequence[str]) -> bool:
    """Whether ``args`` (a whole command line) ask for ``-v`` (``-vv``, ``--verbose``)
    before any ``--``: a failing plugin's frames are shown then."""
    for a in args:
        if a == "--":
            return False
        if _VERBOSE.fullmatch(a):
            return True
    return False


def _frames(frames: Sequence[str], verbose: bool) -> None:
    if verbose:
        for frame in frames:
            print(frame, file=sys.stderr)


def load_agents(modules: Sequence[str], verbose: bool) -> None:
    """Load the plugins, each failure one ``warning:`` line; import ``modules``, the first
    failure one ``error:`` line (raises ``typer.Exit(2)``); then a ``note:`` line per agent
    registered over another."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PluginWarning)
        load_plugins()
    for w in caught:
        if isinstance(w.message, PluginWarning):
            print(f"warning: {' '.join(str(w.message).split())}", file=sys.stderr)
            _frames(w.message.frames, verbose)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    for name in modules:
        try:
            import_agent_module(name)
        except PluginError as e:
            error(str(e))
            _frames(e.frames, verbose)
            raise typer.Exit(USAGE) from None
    for info in registry().values():
        if info.replaced is not None:
            print(
                f"note: agent {info.name!r} is the one {info.source} registers, replacing "
                f"the agent of {info.replaced}",
                file=sys.stderr,
            )
