"""Which agents a web client may choose: every spec from the web is checked against an
allow-list before anything is built, at every nesting depth.

Web clients choose agents, never files.  An :class:`AgentPolicy` allows

* the registered agents except ``human`` (it would read the server's terminal; refused
  everywhere, even by the operator) and ``faulty`` (a testing agent);
* their numeric, true/false and multiple-choice parameters;
* the free-text parameters whose meaning the server knows, as the registry declares it
  (:class:`~durak.agents.specs.Holds`): agent specs (``solver:fallback=``,
  ``phased:opening=``, ``endgame=``, ``;`` for ``,``; checked in turn), opponent models
  (``ismcts:opponent=``, ``infer=``: a model's name, or an agent spec checked in turn)
  and guide names (``ismcts:prior=``, ``value=``: a registered guide or the parameter's
  default); a plugin's parameters alike.

``human`` and ``faulty`` are refused by the seat policies every unattended run uses
(:mod:`durak.agents.seats`).  Every other free-text parameter is refused, ``path=`` of
the learned agents among them, so
no request can make the server open a file, and no answer can tell which paths exist.  The
operator grants more with ``durak serve --allow-agent SPEC`` (a :class:`Grant`): a spec
naming the same agent and giving every parameter of the grant, at the same value, is
allowed, its other parameters being checked as above.  So ``--allow-agent
dmc:path=mine.pt`` offers that model and no other file, and ``--allow-agent faulty``
offers the testing agent.
"""

from __future__ import annotations

import attrs

from durak.agents.base import AgentInfo, SpecError, parse_spec, registry
from durak.agents.guides import guide_names
from durak.agents.seats import NO_FAULTS, UNATTENDED, SeatPolicy
from durak.agents.specs import Content, Param, nested_spec

__all__ = ["QUOTE", "AgentPolicy", "Grant", "cut", "short"]

#: Never allowed: ``human`` asks at the server's terminal (the seat policy of every run
#: that plays by itself).
NEVER: SeatPolicy = UNATTENDED
#: Allowed only by a grant: ``faulty`` breaks on purpose.
GRANTED_ONLY: SeatPolicy = NO_FAULTS
#: The deepest nesting of specs in specs (``solver:fallback=solver:fallback=...``).
MAX_DEPTH = 4
#: The longest piece of a request quoted back in an error.
QUOTE = 40


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters (an ellipsis marks the cut)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short(text: str) -> str:
    """``text`` quoted, cut to :data:`QUOTE` characters: a piece of a request in an error."""
    return repr(cut(text, QUOTE))


@attrs.frozen
class Grant:
    """An agent spec the operator allows (``--allow-agent``): its agent's name and the
    parameters it fixes."""

    name: str
    params: frozenset[tuple[str, str]]

    @classmethod
    def parse(cls, spec: str) -> Grant:
        """The grant of ``spec``; :class:`SpecError` for ``human`` at any depth (a grant's
        parameters are not checked again when a client uses it) or a malformed spec (the
        operator checks that it builds, with :func:`~durak.agents.make_agent`)."""
        name, raw = parse_spec(spec)
        _grantable(name, raw, 0)
        return cls(name, frozenset(raw.items()))

    @property
    def spec(self) -> str:
        """The granted spec, written out."""
        params = ",".join(f"{k}={v}" for k, v in sorted(self.params))
        return f"{self.name}:{params}" if params else self.name

    def covers(self, name: str, raw: dict[str, str]) -> bool:
        """Whether a spec of agent ``name`` with parameters ``raw`` gives every one of
        this grant's parameters, at its value."""
        return name == self.name and self.params <= raw.items()


def _grantable(name: str, raw: dict[str, str], depth: int) -> None:
    """:class:`SpecError` if agent ``name`` with parameters ``raw``, or a spec nested in
    them, is one no grant may allow (:data:`NEVER`)."""
    if NEVER.reason(name) is not None:
        raise SpecError(f"{name} asks at the server's terminal: it cannot be allowed")
    info = registry().get(name)
    for key, value in raw.items():
        param = None if info is None else info.param(key)
        if param is not None and param.nests(value):
            if depth >= MAX_DEPTH:
                raise SpecError(f"agent specs nest more than {MAX_DEPTH} deep")
            _grantable(*parse_spec(nested_spec(value)), depth + 1)


@attrs.frozen
class AgentPolicy:
    """The agent specs a web client may use (see the module docstring)."""

    grants: tuple[Grant, ...] = ()

    def agents(self) -> dict[str, str]:
        """The agents a client may name, and the specs granted with parameters, with
        their descriptions, for the page's list."""
        granted = {g.name for g in self.grants}
        agents = {
            name: info.description
            for name, info in registry().items()
            if NEVER.reason(name) is None and (GRANTED_ONLY.reason(name) is None or name in granted)
        }
        for g in self.grants:
            if g.params and g.name in agents:
                agents[g.spec] = f"{agents[g.name]} (allowed by the operator)"
        return agents

    def check(self, spec: str) -> None:
        """Raise :class:`SpecError` (a short line) unless a web client may use ``spec``;
        nothing is built and no file is touched."""
        self._check(spec, 0)

    def _check(self, spec: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise SpecError(f"agent specs nest more than {MAX_DEPTH} deep")
        try:
            name, raw = parse_spec(spec)
        except SpecError:
            raise SpecError(f"bad agent spec {short(spec)}: expected name:key=value,...") from None
        if NEVER.reason(name) is not None:
            raise SpecError(f"{name} asks at the server's terminal: choose an agent")
        info = registry().get(name)
        covering = [g for g in self.grants if g.covers(name, raw)]
        if info is None or (GRANTED_ONLY.reason(name) is not None and not covering):
            raise SpecError(f"unknown agent {short(name)}; the agents are at /api/agents")
        fixed = {key for g in covering for key, _ in g.params}
        for key, value in raw.items():
            if key not in fixed:
                self._check_param(info, key, value, depth)

    def _check_param(self, info: AgentInfo, key: str, value: str, depth: int) -> None:
        param = info.param(key)
        if param is None:
            raise SpecError(f"{info.name}: unknown parameter {short(key)}")
        content = param.holds.content
        if param.nests(value):
            self._check(nested_spec(value), depth + 1)
        elif content is Content.OPPONENT_MODEL:
            pass  # a model's name, or the word for none
        elif content is Content.GUIDE:
            if value != param.default and value not in guide_names():
                raise SpecError(f"{info.name}: {key} must be {param.default} or a guide's name")
        elif _free_text(param):
            raise SpecError(f"{info.name}: parameter {key!r} is not allowed on this server")


def _free_text(param: Param) -> bool:
    """Whether ``param`` takes text whose meaning the server does not know: a model file,
    or a plain string without choices."""
    plain = param.holds.content is Content.PLAIN
    return param.kind is str and (not plain or not param.choices)
