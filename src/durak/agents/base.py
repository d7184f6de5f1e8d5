"""The agent protocol, and agent construction from spec strings.

An agent sees only an :class:`~durak.rules.Observation` (never the ``GameState``) and draws
all its randomness from the ``random.Random`` it is handed, so a game is reproducible from
its seed.  Spec strings follow the Zarlykov (2023) CLI style, e.g. ``"random"`` or
``"random:stop_chance=0.1"``.
"""

from __future__ import annotations

import importlib.metadata
import random
from collections.abc import Callable
from typing import Protocol, runtime_checkable

import attrs

from durak.agents.specs import (
    Param,
    ParamValue,
    SpecError,
    params_of,
    parse_spec,
    typed_params,
)
from durak.rules import Action, Observation, Rules

__all__ = [
    "Agent",
    "AgentInfo",
    "Param",
    "ParamValue",
    "Relay",
    "RulesBound",
    "SpecError",
    "Watcher",
    "check_bound",
    "make_agent",
    "parse_spec",
    "register",
    "registry",
    "typed_params",
    "watchers_among",
]


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


@runtime_checkable
class Watcher(Protocol):
    """Optional hooks for an agent that follows the game between its own decisions.

    :func:`~durak.arena.play_game` calls them on every agent that has all three, each time
    with that agent's own :class:`~durak.rules.Observation`, so a watcher learns nothing a
    player at the table would not: every action in Durak is played face up.
    """

    def game_started(self, observation: Observation) -> None:
        """Called once, with the observation of the dealt game, before any action."""
        ...

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        """Called after every action of every player (this one's too), with the observation
        of the state it led to."""
        ...

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        """Called once at the end, with the final observation and the durak (``None``: draw)."""
        ...


@runtime_checkable
class RulesBound(Protocol):
    """An agent made for one variant (say a model trained for some :class:`Rules`).

    :func:`make_agent` calls :meth:`check_rules` when it builds the agent for a game, so
    that a model made for other rules is refused before the first game.
    """

    def check_rules(self, rules: Rules) -> None:
        """Raise :class:`SpecError` naming both rules if this agent cannot play ``rules``."""
        ...


def check_bound(part: object, rules: Rules, context: str) -> None:
    """``part.check_rules(rules)`` if ``part`` is made for one variant, its
    :class:`SpecError` prefixed with ``context``."""
    if isinstance(part, RulesBound):
        try:
            part.check_rules(rules)
        except SpecError as e:
            raise SpecError(f"{context}: {e}") from None


def watchers_among(*agents: object) -> tuple[Watcher, ...]:
    """Those of ``agents`` that are :class:`Watcher`\\ s, in order: find them once, since the
    Protocol check is slow and a relay would otherwise repeat it at every action."""
    return tuple(a for a in agents if isinstance(a, Watcher))


class Relay:
    """A :class:`Watcher` that passes each hook on to ``watchers``, in order: for an agent
    built from other agents (say a search with a fallback), so each hears the whole game."""

    watchers: tuple[Watcher, ...]

    def game_started(self, observation: Observation) -> None:
        """Passes the hook on to every watcher."""
        for w in self.watchers:
            w.game_started(observation)

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        """Passes the hook on to every watcher."""
        for w in self.watchers:
            w.action_taken(player, action, observation)

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        """Passes the hook on to every watcher."""
        for w in self.watchers:
            w.game_ended(observation, loser)


AgentFactory = Callable[..., Agent]


@attrs.frozen
class AgentInfo:
    """A registered agent: its spec name, one-line description and typed parameters."""

    name: str
    description: str
    params: tuple[Param, ...]
    factory: AgentFactory = attrs.field(repr=False)

    def usage(self) -> str:
        """The description and one line per parameter."""
        lines = [f"{self.name}: {self.description}"]
        lines += [f"    {p.describe()}" for p in self.params]
        return "\n".join(lines)


_REGISTRY: dict[str, AgentInfo] = {}


def register(
    name: str, factory: AgentFactory, description: str, params: tuple[Param, ...] | None = None
) -> None:
    """Make ``name`` available to :func:`make_agent`: ``factory(**typed_params)`` builds it.

    ``params`` defaults to the :func:`~durak.agents.specs.param` fields of ``factory`` when
    it is an attrs class (declared once, there), else to none.
    """
    if params is None:
        params = params_of(factory) if isinstance(factory, type) and attrs.has(factory) else ()
    _REGISTRY[name] = AgentInfo(name, description, params, factory)


_PLUGIN_GROUP = "durak.agents"
_plugins_loaded = False


def load_plugins() -> None:
    """Import every module named in the ``durak.agents`` entry-point group, once.

    Packages outside the core (such as :mod:`durak.learn`, whose ``qlearn`` and ``dqn``
    agents register on import) declare their agents there, so the core never imports them.
    """
    global _plugins_loaded  # noqa: PLW0603 - a process-wide, load-once flag
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for entry in importlib.metadata.entry_points(group=_PLUGIN_GROUP):
        entry.load()


def registry() -> dict[str, AgentInfo]:
    """Every registered agent by name, in name order (plugins included)."""
    load_plugins()
    return dict(sorted(_REGISTRY.items()))


def make_agent(spec: str, rules: Rules | None = None) -> Agent:
    """Build an agent from a spec string; raises :class:`SpecError` naming the problem.

    With ``rules``, an agent made for one variant (:class:`RulesBound`) is also checked
    against them.  Parameters not given take their defaults.  The built-in agents register
    themselves when :mod:`durak.agents` is imported; a name not yet registered loads the
    plugins (:func:`load_plugins`) first.
    """
    name, raw = parse_spec(spec)
    if name not in _REGISTRY:
        load_plugins()
    info = _REGISTRY.get(name)
    if info is None:
        known = ", ".join(sorted(_REGISTRY))
        raise SpecError(f"unknown agent {name!r} in spec {spec!r}; known agents: {known}")
    agent = info.factory(**typed_params(name, info.params, raw))
    if rules is not None and isinstance(agent, RulesBound):
        agent.check_rules(rules)
    return agent
