"""The agent registry, and agent construction from spec strings.

The protocols an agent follows are in :mod:`durak.agents.interface.protocol` (re-exported here).
Spec strings follow the Zarlykov (2023) CLI style, e.g. ``"random"`` or
``"random:stop_chance=0.1"``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import pickle
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import cast

import attrs

from durak.agents.interface.protocol import (
    Agent,
    Relay,
    RulesBound,
    Watcher,
    check_bound,
    watchers_among,
)
from durak.agents.plugins import (
    AgentModule,
    PluginError,
    PluginWarning,
    check_module_name,
    current_source,
    failure_line,
    importable_from,
    loading,
    own_frames,
)
from durak.agents.specs import (
    Param,
    ParamValue,
    SpecError,
    nested_spec,
    params_of,
    parse_spec,
    typed_params,
)
from durak.rules import Rules

__all__ = [
    "Agent",
    "AgentInfo",
    "AgentModule",
    "Param",
    "ParamValue",
    "PluginError",
    "PluginWarning",
    "Relay",
    "RulesBound",
    "SpecError",
    "SpecPart",
    "Watcher",
    "adopt_registry",
    "agent_modules",
    "check_bound",
    "import_agent_module",
    "import_agent_modules",
    "load_plugins",
    "make_agent",
    "parse_spec",
    "register",
    "registry",
    "registry_snapshot",
    "replacements",
    "spec_parts",
    "typed_params",
    "watchers_among",
]


AgentFactory = Callable[..., Agent]


@attrs.frozen
class AgentInfo:
    """A registered agent: its spec name, one-line description and typed parameters;
    ``source``, who registered it (a module, or the plugin that imported it),
    ``replaced``, the source of the agent it replaced (``register(..., replace=True)``),
    and ``analyses``, whether its agents can analyse a decision (an
    :class:`~durak.agents.interface.analysis.Analyst`)."""

    name: str
    description: str
    params: tuple[Param, ...]
    factory: AgentFactory = attrs.field(repr=False)
    source: str = ""
    replaced: str | None = None
    analyses: bool = False

    def param(self, name: str) -> Param | None:
        """The parameter called ``name``, or ``None``."""
        return next((p for p in self.params if p.name == name), None)

    def usage(self) -> str:
        """The description and one line per parameter."""
        lines = [f"{self.name}: {self.description}{self.replaced_note()}"]
        lines += [f"    {p.describe()}" for p in self.params]
        return "\n".join(lines)

    def replaced_note(self) -> str:
        """`` (registered by SOURCE, replacing the agent of OLD)`` for an agent registered
        with ``replace=True`` over another, else nothing."""
        if self.replaced is None:
            return ""
        return f" (registered by {self.source}, replacing the agent of {self.replaced})"


_REGISTRY: dict[str, AgentInfo] = {}
#: The modules imported for their agents (``--agent-module``), in order.
_AGENT_MODULES: list[AgentModule] = []


def register(
    name: str,
    factory: AgentFactory,
    description: str,
    params: tuple[Param, ...] | None = None,
    *,
    replace: bool = False,
    analyses: bool | None = None,
) -> None:
    """Make ``name`` available to :func:`make_agent`: ``factory(**typed_params)`` builds it.

    ``params`` defaults to the :func:`~durak.agents.specs.param` fields of ``factory`` when
    it is an attrs class (declared once, there), else to none.  ``analyses`` says whether
    the agents built can analyse a decision; by default, whether ``factory`` is a class
    with an ``analyse`` method (a factory function declares it).  A name already registered
    (built in, or by another plugin) is refused with a :class:`PluginError` naming both
    sources, unless ``replace`` is true; the replacement is then marked as such (its
    :attr:`AgentInfo.replaced`).  The same registration again is a no-op.
    Raises ``TypeError`` for a name that is not a string, or a factory that is not callable.
    """
    caller = str(sys._getframe(1).f_globals.get("__name__", "?"))  # the registering module
    info = _checked_info(name, factory, description, params, current_source(caller))
    if analyses is None:
        analyses = isinstance(factory, type) and callable(getattr(factory, "analyse", None))
    info = attrs.evolve(info, analyses=bool(analyses))
    if info.source == _ADOPTING:
        _REGISTRY[name] = info  # a worker's copy of its parent's registry follows
        return
    if info.source == caller and not caller.startswith("durak."):
        load_plugins()  # a run-time registration comes after the plugins, whenever it runs
    old = _REGISTRY.get(name)
    if old is not None and attrs.evolve(old, replaced=None) == info:
        return  # the same registration again
    if old is not None and not replace:
        raise PluginError(
            f"agent {name!r} is already registered by {old.source}; {info.source} cannot "
            "register it too (a library caller who means to replace it passes "
            "replace=True to register)"
        )
    replaced = None if old is None else old.source
    _REGISTRY[name] = attrs.evolve(info, replaced=replaced)


def _checked_info(
    name: object,
    factory: object,
    description: object,
    params: tuple[Param, ...] | None,
    source: str,
) -> AgentInfo:
    """The :class:`AgentInfo` of a registration, its arguments checked."""
    if not isinstance(name, str):
        raise TypeError(f"an agent name must be a string, got {type(name).__name__}")
    if not name or name != name.strip() or any(c in name for c in ":,=;"):
        raise TypeError(f"agent name {name!r} is not a spec name (no ':', ',', '=' or ';')")
    if not callable(factory):
        raise TypeError(f"agent {name!r}: the factory must be callable, got {factory!r}")
    if not isinstance(description, str):
        raise TypeError(f"agent {name!r}: the description must be a string")
    if params is None:
        params = params_of(factory) if isinstance(factory, type) and attrs.has(factory) else ()
    if not isinstance(params, tuple) or not all(isinstance(p, Param) for p in params):
        raise TypeError(f"agent {name!r}: params must be a tuple of Param")
    return AgentInfo(name, description, params, cast(AgentFactory, factory), source)


_PLUGIN_GROUP = "durak.agents"
_plugins_loaded = False
#: The source of registrations made while a worker adopts its parent's registry.
_ADOPTING = "<the parent's registry>"


def load_plugins() -> None:
    """Import every module named in the ``durak.agents`` entry-point group, once.

    Packages outside the core (such as :mod:`durak.learn`, whose ``qlearn`` and ``dqn``
    agents register on import) declare their agents there, so the core never imports them.
    A plugin that fails to import (or whose registration is refused) is skipped with one
    :class:`PluginWarning` line, its registrations undone; the others still load.
    """
    global _plugins_loaded  # noqa: PLW0603 - a process-wide, load-once flag
    if _plugins_loaded:
        return
    _plugins_loaded = True
    failed: set[str] = set()
    for entry in importlib.metadata.entry_points(group=_PLUGIN_GROUP):
        dist = entry.dist.name if entry.dist is not None else "an unknown distribution"
        source = f"{entry.value} (entry point {entry.name!r} of {dist})"
        if entry.module in failed:
            continue  # one report per module, however many entry points name it
        try:
            _import_undoably(source, entry.load)
        except PluginError as e:
            failed.add(entry.module)
            warnings.warn(PluginWarning(f"plugin {source} skipped: {e}", e.frames), stacklevel=2)


def _import_undoably(source: str, load: Callable[[], object]) -> None:
    """``load()`` with registrations naming ``source``; if it fails in any way (even
    ``sys.exit``), its registrations are undone and :class:`PluginError` says why."""
    before = dict(_REGISTRY)
    try:
        with loading(source):
            load()
    except (Exception, SystemExit) as e:
        _REGISTRY.clear()
        _REGISTRY.update(before)
        raise PluginError(failure_line(e), own_frames(e)) from e


def import_agent_module(name: str, directory: str | None = None) -> None:
    """Import the module ``name`` for the agents it registers, ``directory`` (by default
    the current one) first on the path; the plugins load first, so the outcome does not
    depend on the order of lookups.  Any failure (a bad name, an import error, an error or
    ``sys.exit`` in the module, a refused registration) is one :class:`PluginError` line,
    the module's registrations undone."""
    load_plugins()
    try:
        check_module_name(name)
        module = AgentModule(name, os.path.abspath(directory or os.getcwd()))
        if module in _AGENT_MODULES:
            return
        importable_from(module.directory)
        _import_undoably(f"{name} (--agent-module)", lambda: importlib.import_module(name))
    except PluginError as e:
        raise PluginError(f"--agent-module {name}: {e}", e.frames) from e.__cause__
    _AGENT_MODULES.append(module)


def agent_modules() -> tuple[AgentModule, ...]:
    """The modules :func:`import_agent_module` imported, in order (for workers)."""
    return tuple(_AGENT_MODULES)


def import_agent_modules(modules: tuple[AgentModule, ...]) -> None:
    """In a worker: import the ``modules`` a parent imported (:func:`agent_modules`), each
    from its directory, so the worker knows the same agents; :class:`PluginError` if one
    fails here."""
    for module in modules:
        import_agent_module(module.name, module.directory)


def registry_snapshot() -> bytes:
    """The registry, plugins loaded, pickled for :func:`adopt_registry` in a worker (each
    factory by reference: a worker imports the module that defines it)."""
    return pickle.dumps(registry())


def adopt_registry(snapshot: bytes) -> None:
    """In a worker: make the registry exactly the parent's :func:`registry_snapshot`,
    plugins counted as loaded, so the worker plays the agents its parent chose, whatever
    the modules imported to unpickle the factories register on the way."""
    global _plugins_loaded  # noqa: PLW0603 - a process-wide, load-once flag
    _plugins_loaded = True
    with loading(_ADOPTING):
        agents = pickle.loads(snapshot)  # the parent's own registry, never foreign data
    _REGISTRY.clear()
    _REGISTRY.update(agents)


def registry() -> dict[str, AgentInfo]:
    """Every registered agent by name, in name order (plugins included)."""
    load_plugins()
    return dict(sorted(_REGISTRY.items()))


@attrs.frozen
class SpecPart:
    """One agent named in a spec: ``name`` with its raw parameters ``raw`` and its
    registration ``info`` (``None`` if unknown), at ``place``, the parameters that lead
    to it from the outer spec (``()`` for the outer agent itself)."""

    place: tuple[str, ...]
    name: str
    raw: dict[str, str]
    info: AgentInfo | None


def spec_parts(spec: str) -> Iterator[SpecPart]:
    """Every agent named in ``spec``, the outer one first, then, depth first in the order
    written, those in the parameters its registration declares to hold an agent spec
    (:meth:`~durak.agents.specs.Param.nests`), at any depth.  Nothing is built; an unknown
    agent is yielded and not looked into; :class:`SpecError` for a malformed spec."""
    known = registry()
    todo: list[tuple[tuple[str, ...], str]] = [((), spec)]
    while todo:
        place, text = todo.pop()
        name, raw = parse_spec(text)
        info = known.get(name)
        yield SpecPart(place, name, raw, info)
        inner = []
        for key, value in raw.items():
            param = None if info is None else info.param(key)
            if param is not None and param.nests(value):
                inner.append(((*place, key), nested_spec(value)))
        todo.extend(reversed(inner))  # the first written is looked into first


def replacements(specs: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """The agents named in ``specs``, at any depth of their parameters
    (:func:`spec_parts`), that replace another registration (``register(...,
    replace=True)``), each with its source, in name order; empty when none does (a log
    records it, so a game is never read as the built-in's)."""
    found = {
        part.name: part.info.source
        for spec in specs
        for part in spec_parts(spec)
        if part.info is not None and part.info.replaced is not None
    }
    return tuple(sorted(found.items()))


def make_agent(spec: str, rules: Rules | None = None) -> Agent:
    """Build an agent from a spec string; raises :class:`SpecError` naming the problem.

    With ``rules``, an agent made for one variant (:class:`RulesBound`) is also checked
    against them.  Parameters not given take their defaults.  The built-in agents register
    themselves when :mod:`durak.agents` is imported, and the plugins
    (:func:`load_plugins`) are loaded before the first lookup, so a name means the same
    agent whenever it is looked up.  A factory that raises something other than a
    ``ValueError`` or ``OSError`` is a :class:`SpecError` naming the agent and the error.
    """
    name, raw = parse_spec(spec)
    load_plugins()
    info = _REGISTRY.get(name)
    if info is None:
        known = ", ".join(sorted(_REGISTRY))
        raise SpecError(f"unknown agent {name!r} in spec {spec!r}; known agents: {known}")
    params = typed_params(name, info.params, raw)
    try:
        agent = info.factory(**params)
    except (ValueError, OSError):
        raise  # already a one-line user error (a bad value, a missing file)
    except Exception as e:  # a plugin's constructor: its error, on one line
        raise SpecError(f"{name}: the agent could not be built: {failure_line(e)}") from e
    if rules is not None and isinstance(agent, RulesBound):
        agent.check_rules(rules)
    return agent
