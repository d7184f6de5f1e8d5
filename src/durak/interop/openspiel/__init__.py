"""Durak in OpenSpiel (``pip install durak-lab[openspiel]``; ``docs/openspiel.md``).

Importing this package registers the game ``python_durak`` with ``pyspiel`` (Lanctot et al.,
"OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453):

* :mod:`~durak.interop.openspiel.parameters`: one game parameter per ``Rules`` field;
* :mod:`~durak.interop.openspiel.game`: the game and state adapter (deal as chance nodes);
* :mod:`~durak.interop.openspiel.observers`: observation and information-state views;
* :mod:`~durak.interop.openspiel.search_agents`: OpenSpiel's MCTS and ISMCTS as durak agents;
* :mod:`~durak.interop.openspiel.agent_bots`: any durak agent as a ``pyspiel.Bot``.
"""

from durak.interop.openspiel.game import DurakOpenSpielGame, DurakOpenSpielState
from durak.interop.openspiel.parameters import game_string, params_of, rules_of

__all__ = [
    "DurakOpenSpielGame",
    "DurakOpenSpielState",
    "game_string",
    "params_of",
    "rules_of",
]
