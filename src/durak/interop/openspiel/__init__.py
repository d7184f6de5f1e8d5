"""Durak in OpenSpiel (``pip install durak-lab[openspiel]``; ``docs/openspiel.md``).

The bridge to OpenSpiel (Lanctot et al., "OpenSpiel: A Framework for Reinforcement Learning
in Games", arXiv:1908.09453), one module per concept:

* :mod:`~durak.interop.openspiel.parameters`: one game parameter per ``Rules`` field;
* :mod:`~durak.interop.openspiel.game`: the game and state adapter (deal as chance nodes);
  importing it registers the game ``python_durak`` with ``pyspiel``;
* :mod:`~durak.interop.openspiel.observers`: observation and information-state views;
* :mod:`~durak.interop.openspiel.serialization`: a state as data (the game and its
  history), read back by replaying it;
* :mod:`~durak.interop.openspiel.resampling`: the pasts of resampled states;
* :mod:`~durak.interop.openspiel.agent_bots`: any durak agent as a ``pyspiel.Bot``
  (:func:`bot`);
* :mod:`~durak.interop.openspiel.agent_policies`: any durak agent as an OpenSpiel
  ``Policy``, for ``exploitability`` (it needs ``open_spiel.python``);
* :mod:`~durak.interop.openspiel.best_response`: an agent's exact best response and an
  exploiter's exact value against it, on small decks (it needs ``open_spiel.python``).

Importing this package registers the game ``python_durak`` with ``pyspiel`` whenever
``pyspiel`` can be imported, as ``open_spiel.python.games`` does for OpenSpiel's own games:
``import durak.interop.openspiel`` then ``pyspiel.load_game("python_durak")``.  Without
open-spiel the import succeeds and registers nothing; using one of the names below then
raises :class:`~durak.extras.MissingExtraError` naming the extra.  The names are imported
from their modules on first use (PEP 562).  OpenSpiel's bots as durak agents live beside
this package, in :mod:`durak.interop.openspiel_agents`, the entry point the agent registry
loads with every plugin: loading it imports neither this package nor open-spiel.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__all__ = [
    "AgentBot",
    "DurakOpenSpielGame",
    "DurakOpenSpielState",
    "ParameterError",
    "StateStringError",
    "bot",
    "game_string",
    "params_of",
    "rules_of",
]

#: The module of each public name, imported when the name is first asked for.
_HOMES = {
    "AgentBot": "agent_bots",
    "bot": "agent_bots",
    "DurakOpenSpielGame": "game",
    "DurakOpenSpielState": "game",
    "ParameterError": "parameters",
    "game_string": "parameters",
    "params_of": "parameters",
    "rules_of": "parameters",
    "StateStringError": "serialization",
}


def _import_on_use(name: str) -> object:
    """The public ``name``, imported from its module (and kept here); ``AttributeError``
    for any other name, as for a module without it.  Without open-spiel, its module
    raises :class:`~durak.extras.MissingExtraError` naming the extra."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value: object = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:  # what type checkers see; at run time each name is imported on first use
    from durak.interop.openspiel.agent_bots import AgentBot, bot
    from durak.interop.openspiel.game import DurakOpenSpielGame, DurakOpenSpielState
    from durak.interop.openspiel.parameters import (
        ParameterError,
        game_string,
        params_of,
        rules_of,
    )
    from durak.interop.openspiel.serialization import StateStringError
else:
    __getattr__ = _import_on_use

    # OpenSpiel's convention: importing the package registers its game (the import of
    # pyspiel is the check that open-spiel is installed; the game module then needs it).
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        pass
    else:
        importlib.import_module(f"{__name__}.game")
