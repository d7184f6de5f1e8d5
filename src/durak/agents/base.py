"""The agent protocol, and agent construction from spec strings.

An agent sees only an :class:`~durak.rules.Observation` (never the ``GameState``) and draws
all its randomness from the ``random.Random`` it is handed, so a game is reproducible from
its seed.  Spec strings follow the Zarlykov (2023) CLI style, e.g. ``"random"`` or
``"random:stop_chance=0.1"``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from durak.rules import Action, Observation


@runtime_checkable
class Agent(Protocol):
    """Anything with a ``name`` and ``act(observation, rng) -> Action`` returning a legal action."""

    @property
    def name(self) -> str:
        """A short display name."""
        ...

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """Choose one of ``observation.legal_actions``."""
        ...


class SpecError(ValueError):
    """A bad agent spec: unknown agent or parameter, or a value of the wrong type or range."""


AgentFactory = Callable[[dict[str, str]], Agent]
_REGISTRY: dict[str, tuple[AgentFactory, str]] = {}


def register(name: str, factory: AgentFactory, description: str) -> None:
    """Make ``name`` available to :func:`make_agent`."""
    _REGISTRY[name] = (factory, description)


def registry() -> dict[str, str]:
    """Every registered agent name with its one-line description."""
    return {name: desc for name, (_, desc) in sorted(_REGISTRY.items())}


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:key=value,key=value"`` into the name and its raw parameters."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise SpecError(f"bad parameter {item!r} in agent spec {spec!r}: expected key=value")
        if key.strip() in params:
            raise SpecError(f"parameter {key.strip()!r} given twice in agent spec {spec!r}")
        params[key.strip()] = value.strip()
    return name, params


def make_agent(spec: str) -> Agent:
    """Build an agent from a spec string; raises :class:`SpecError` naming the problem.

    The built-in agents register themselves when :mod:`durak.agents` is imported.
    """
    name, params = parse_spec(spec)
    if name not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY))
        raise SpecError(f"unknown agent {name!r} in spec {spec!r}; known agents: {known}")
    return _REGISTRY[name][0](params)


def float_param(
    params: dict[str, str], key: str, default: float, lo: float, hi: float, agent: str
) -> float:
    """Read a float parameter in ``[lo, hi]``, or raise :class:`SpecError` naming it."""
    if key not in params:
        return default
    try:
        value = float(params[key])
    except ValueError:
        raise SpecError(f"{agent}: {key} must be a number, got {params[key]!r}") from None
    if not lo <= value <= hi:
        raise SpecError(f"{agent}: {key} must be in [{lo}, {hi}], got {value}")
    return value


def reject_unknown(params: dict[str, str], allowed: set[str], agent: str) -> None:
    """Raise :class:`SpecError` if ``params`` holds a key outside ``allowed``."""
    unknown = sorted(set(params) - allowed)
    if unknown:
        valid = ", ".join(sorted(allowed)) or "none"
        raise SpecError(f"{agent}: unknown parameter {unknown[0]!r}; valid parameters: {valid}")
