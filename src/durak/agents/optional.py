"""Agents that need an optional extra: without it, building one is a bad spec whose one-line
message names the extra (:mod:`durak.extras`), on the command line and on the web alike."""

from __future__ import annotations

from types import ModuleType

from durak.agents.specs import SpecError
from durak.extras import MissingExtraError, check_installed, require

__all__ = ["MissingAgentExtraError", "check_for_agent", "require_for_agent"]


class MissingAgentExtraError(SpecError, MissingExtraError):
    """An agent's extra is not installed: both a :class:`SpecError` (the spec cannot be
    built, like any bad spec) and a :class:`~durak.extras.MissingExtraError`."""


def require_for_agent(agent: str, extra: str, *modules: str) -> tuple[ModuleType, ...]:
    """``modules`` imported; :class:`MissingAgentExtraError` ("AGENT needs PACKAGE: pip
    install 'durak-lab[EXTRA]'") naming the first that is not installed."""
    return require(agent, extra, *modules, error=MissingAgentExtraError)


def check_for_agent(agent: str, extra: str, *modules: str) -> None:
    """:class:`MissingAgentExtraError` naming the first of the top-level ``modules`` that
    is not installed (without importing them: the agent imports them when it first acts)."""
    check_installed(agent, extra, *modules, error=MissingAgentExtraError)
