"""Bridges from durak to other game frameworks.

* :mod:`durak.interop.openspiel`: Durak as an OpenSpiel game (``python_durak``), and durak
  agents as OpenSpiel bots and policies (Lanctot et al.,
  "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453, 2019);
  importing it registers the game whenever ``pyspiel`` can be imported;
* :mod:`durak.interop.openspiel_agents`: OpenSpiel's MCTS and ISMCTS as the durak agents
  ``openspiel-mcts`` and ``openspiel-ismcts``, the ``durak.agents`` entry point, beside the
  package so that loading it imports no open-spiel.

This package sits beside :mod:`durak.encoding`, :mod:`durak.envs` and :mod:`durak.learn`: it
may import the rules, search, agents and encoding; none of those imports it (its agents
reach the registry through the ``durak.agents`` entry points).
"""
