"""One name per agent: the canonical form of a spec.

Many strings spell one agent: ``mcts:limit=5,c=1``, ``mcts:c=1,limit=5`` and
``mcts:c=1.0,limit=5``; ``random`` and ``random:``.  :func:`canonical_spec` writes each
agent one way, by one rule read from the registry's declarations
(:class:`~durak.agents.specs.Param`):

* the parameters in their declared order;
* a parameter at its default left out (compared in canonical form, so
  ``solver:fallback=mcts:limit=300`` is ``solver``);
* every value in its one written form (:func:`~durak.agents.specs.format_value`):
  ``true``/``false``, integers' digits, numbers' shortest round-tripping digits without a
  trailing ``.0``;
* a nested agent spec (:meth:`~durak.agents.specs.Param.nests`) in canonical form too,
  ``;`` for ``,`` (an opponent model's spec that would read as a model's name keeps its
  ``:``, so ``opponent=greedy:``, the agent, stays apart from ``opponent=greedy``, the model).

Whatever names agents (the ladder, the tournament, a dataset's ``agent`` column, the web,
an analysis) names them by it, and :func:`distinct_specs` refuses one agent given twice
under two spellings.

>>> canonical_spec("mcts:c=1.0,limit=5") == canonical_spec("mcts:limit=5,c=1")
True
>>> canonical_spec("random:"), canonical_spec("solver:fallback=mcts:limit=300")
('random', 'solver')
"""

from __future__ import annotations

from collections.abc import Sequence

from durak.agents.base import AgentInfo, SpecError, registry
from durak.agents.specs import (
    Content,
    Param,
    format_spec,
    format_value,
    nested_spec,
    parse_spec,
    quote_nested,
    typed_params,
)

__all__ = ["canonical_spec", "distinct_specs"]


def canonical_spec(spec: str) -> str:
    """The canonical form of ``spec`` (see the module docstring): two specs of one agent
    with equal settings give one string, and ``canonical_spec`` of it is itself.

    Raises :class:`SpecError` as :func:`~durak.agents.make_agent` would for an unknown agent,
    an unknown parameter or a bad value, at any depth; nothing is built.
    """
    name, raw = parse_spec(spec)
    info = registry().get(name)
    if info is None:
        known = ", ".join(registry())
        raise SpecError(f"unknown agent {name!r} in spec {spec!r}; known agents: {known}")
    typed_params(name, info.params, raw)  # the keys and plain values, checked
    written: dict[str, str] = {}
    for param in info.params:
        if param.name in raw:
            value = _canonical_value(info, param, raw[param.name])
            if value != _default_text(info, param):
                written[param.name] = value
    return format_spec(name, written)


def _canonical_value(info: AgentInfo, param: Param, raw: str) -> str:
    """The canonical text of parameter ``param``'s value ``raw``."""
    if not param.nests(raw):
        return format_value(param.parse(raw, info.name))
    try:
        inner = canonical_spec(nested_spec(raw))
    except SpecError as e:
        raise SpecError(f"{info.name}: {param.name}: {e}") from None
    if param.holds.content is Content.OPPONENT_MODEL and inner in param.holds.words:
        inner += ":"  # the agent, not the model of that name
    return quote_nested(inner)


def _default_text(info: AgentInfo, param: Param) -> str | None:
    """The canonical text of ``param``'s default (``None``: off, never written)."""
    if param.default is None:
        return None
    return _canonical_value(info, param, format_value(param.default))


def distinct_specs(specs: Sequence[str]) -> list[str]:
    """The canonical form of each of ``specs``, in order; :class:`SpecError` naming the
    first agent given twice, under one spelling or two (``random random:``), or a bad
    spec (:func:`canonical_spec`)."""
    seen: dict[str, str] = {}
    names = []
    for spec in specs:
        name = canonical_spec(spec)
        if name in seen:
            first = seen[name]
            also = "" if first == spec else f" (as {first!r}: both are {name!r})"
            raise SpecError(f"agent spec {spec!r} is given twice{also}")
        seen[name] = spec
        names.append(name)
    return names
