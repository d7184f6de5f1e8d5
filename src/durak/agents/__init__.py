"""Agents that play Durak from an :class:`~durak.rules.Observation` only.

Importing this package registers the built-in agents for :func:`make_agent`: ``random``,
``greedy`` and ``lowest`` (:mod:`durak.agents.heuristics.simple`), ``smart``
(:mod:`durak.agents.heuristics.smart`)
``human`` (:mod:`durak.agents.human`), ``faulty`` (:mod:`durak.agents.faulty`, which
breaks on purpose to test referees), the search agents ``minimax``, ``mcts``,
``maxn`` and ``ismcts`` (:mod:`durak.agents.searchers`) and the exact endgame ``solver``
(:mod:`durak.agents.solver`), ``phased``, one agent while the talon lasts and another once
it is empty (:mod:`durak.agents.phased`), and ``strongest``, the best measured agent within
100 ms per decision for the game's rules (:mod:`durak.agents.strongest`).
"""

from durak.agents import faulty, human, phased, searchers, solver, strongest
from durak.agents.base import (
    Agent,
    SpecError,
    Watcher,
    make_agent,
    parse_spec,
    register,
    registry,
)
from durak.agents.heuristics import evals, simple, smart  # noqa: F401 - they register agents
from durak.agents.heuristics.simple import GreedyAgent, LowestAgent, RandomAgent
from durak.agents.heuristics.smart import SmartAgent
from durak.agents.human import HumanAgent, shown_hand, shown_order

__all__ = [
    "Agent",
    "GreedyAgent",
    "HumanAgent",
    "LowestAgent",
    "RandomAgent",
    "SmartAgent",
    "SpecError",
    "Watcher",
    "faulty",
    "human",
    "make_agent",
    "parse_spec",
    "phased",
    "register",
    "registry",
    "searchers",
    "shown_hand",
    "shown_order",
    "solver",
    "strongest",
]
