"""Agents that play Durak from an :class:`~durak.rules.Observation` only.

Importing this package registers the built-in agents for :func:`make_agent`.
"""

from durak.agents import simple
from durak.agents.base import Agent, SpecError, make_agent, parse_spec, registry
from durak.agents.simple import RandomAgent

__all__ = ["Agent", "RandomAgent", "SpecError", "make_agent", "parse_spec", "registry", "simple"]
