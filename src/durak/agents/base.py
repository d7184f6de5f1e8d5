"""The agent protocol, and agent construction from spec strings.

An agent sees only an :class:`~durak.rules.Observation` (never the ``GameState``) and draws
all its randomness from the ``random.Random`` it is handed, so a game is reproducible from
its seed.  Spec strings follow the Zarlykov (2023) CLI style, e.g. ``"random"`` or
``"random:stop_chance=0.1"``.
"""

from __future__ import annotations

import importlib.metadata
import math
import random
from collections.abc import Callable
from typing import Protocol, TypeAlias, runtime_checkable

import attrs

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


class SpecError(ValueError):
    """A bad agent spec: unknown agent or parameter, or a value of the wrong type or range."""


#: Parameter values after parsing: ints, floats, bools or strings.
ParamValue: TypeAlias = int | float | bool | str
AgentFactory = Callable[..., Agent]


@attrs.frozen
class Param:
    """One typed agent parameter: its name, type, default, allowed range or choices, help.

    ``kind`` is ``int``, ``float``, ``bool`` or ``str``; ``low``/``high`` bound numbers
    (inclusive); ``choices`` lists the allowed strings.  ``default=None`` means "off".
    """

    name: str
    kind: type[ParamValue]
    default: ParamValue | None
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()

    def parse(self, raw: str, agent: str) -> ParamValue:
        """The typed value of ``raw``, or :class:`SpecError` naming the agent and parameter."""
        kind = self.kind
        value: ParamValue
        try:
            if kind is bool:
                if raw.lower() not in _BOOLS:
                    raise ValueError(raw)
                value = _BOOLS[raw.lower()]
            else:
                value = kind(raw)
        except ValueError:
            article = {"int": "an integer", "float": "a number", "bool": "true or false"}
            wanted = article.get(kind.__name__, kind.__name__)
            raise SpecError(f"{agent}: {self.name} must be {wanted}, got {raw!r}") from None
        if self.choices and value not in self.choices:
            raise SpecError(
                f"{agent}: {self.name} must be one of {', '.join(self.choices)}, got {raw!r}"
            )
        if isinstance(value, int | float) and not isinstance(value, bool):
            low = -math.inf if self.low is None else self.low
            high = math.inf if self.high is None else self.high
            if not low <= value <= high:
                raise SpecError(f"{agent}: {self.name} must be in [{_num(low)}, {_num(high)}], "
                                f"got {raw}")  # fmt: skip
        return value

    def describe(self) -> str:
        """A one-line summary: ``name: type = default (range) - help``."""
        limits = f" in [{_num(self.low)}, {_num(self.high)}]" if self.low is not None else ""
        if self.choices:
            limits = f" one of {'|'.join(self.choices)}"
        return f"{self.name}: {self.kind.__name__} = {self.default}{limits} - {self.help}"


_BOOLS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


def _num(x: float | None) -> str:
    return "inf" if x is None else f"{x:g}"


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
    name: str, factory: AgentFactory, description: str, params: tuple[Param, ...] = ()
) -> None:
    """Make ``name`` available to :func:`make_agent`: ``factory(**typed_params)`` builds it."""
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

    Parameters not given take their defaults.  The built-in agents register themselves when
    :mod:`durak.agents` is imported; a name not yet registered loads the plugins
    (:func:`load_plugins`) first.
    """
    name, raw = parse_spec(spec)
    if name not in _REGISTRY:
        load_plugins()
    info = _REGISTRY.get(name)
    if info is None:
        known = ", ".join(sorted(_REGISTRY))
        raise SpecError(f"unknown agent {name!r} in spec {spec!r}; known agents: {known}")
    return info.factory(**typed_params(name, info.params, raw))


def typed_params(
    name: str, params: tuple[Param, ...], raw: dict[str, str]
) -> dict[str, ParamValue | None]:
    """Every parameter of ``params`` by name: parsed from ``raw``, else its default.

    Raises :class:`SpecError` naming ``name`` for a key of ``raw`` that is not a parameter
    (listing the valid ones) or a value that does not parse or is out of range.
    """
    by_name = {p.name: p for p in params}
    for key in raw:
        if key not in by_name:
            valid = ", ".join(by_name) or "none"
            raise SpecError(f"{name}: unknown parameter {key!r}; valid parameters: {valid}")
    return {p.name: p.parse(raw[p.name], name) if p.name in raw else p.default for p in params}
