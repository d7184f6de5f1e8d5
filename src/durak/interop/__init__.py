"""Bridges from durak to other game frameworks.

* :mod:`durak.interop.openspiel`: Durak as an OpenSpiel game (``python_durak``), OpenSpiel's
  search bots as durak agents, and durak agents as OpenSpiel bots (Lanctot et al.,
  "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453, 2019).

This package sits beside :mod:`durak.encoding`, :mod:`durak.envs` and :mod:`durak.learn`: it
may import the rules, search, agents and encoding; none of those imports it (its agents
reach the registry through the ``durak.agents`` entry points).
"""
