"""Durak in OpenSpiel (``pip install durak-lab[openspiel]``; ``docs/openspiel.md``).

Importing this package registers the game ``python_durak`` with ``pyspiel`` (Lanctot et al.,
"OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453):

* :mod:`~durak.interop.openspiel.parameters`: one game parameter per ``Rules`` field;
* :mod:`~durak.interop.openspiel.game`: the game and state adapter (deal as chance nodes);
* :mod:`~durak.interop.openspiel.observers`: observation and information-state views;
* :mod:`~durak.interop.openspiel.serialization`: a state as data (the game and its
  history), read back by replaying it;
* :mod:`~durak.interop.openspiel.resampling`: the pasts of resampled states;
* :mod:`~durak.interop.openspiel.agent_bots`: any durak agent as a ``pyspiel.Bot``
  (:func:`bot`);
* :mod:`~durak.interop.openspiel.agent_policies`: any durak agent as an OpenSpiel
  ``Policy``, for ``exploitability`` (imported on its own: it needs ``open_spiel.python``);
* :mod:`~durak.interop.openspiel.best_response`: an agent's exact best response and an
  exploiter's exact value against it, on small decks (imported on its own, likewise).

OpenSpiel's MCTS and ISMCTS as durak agents are in :mod:`durak.interop.openspiel_agents`,
which loads without open-spiel (the agent registry loads every plugin).
"""

from durak.extras import needs

# Every module of the package imports pyspiel or numpy, and runs this first.
with needs("durak.interop.openspiel", "openspiel"):
    from durak.interop.openspiel.agent_bots import AgentBot, bot
    from durak.interop.openspiel.game import DurakOpenSpielGame, DurakOpenSpielState
    from durak.interop.openspiel.parameters import (
        ParameterError,
        game_string,
        params_of,
        rules_of,
    )
    from durak.interop.openspiel.serialization import StateStringError

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
