"""Spec strings and their typed parameters, declared once on the settings class.

A spec follows the Zarlykov (2023) CLI style: ``name`` or ``name:key=value,key=value``
(``"mcts:limit=300,c=1.4"``).  Each parameter is declared once, as an attrs field made by
:func:`param` on the agent's (or learner's) frozen class: its type is the annotation, its
default the field's, and its range, choices and help the field's metadata.
:func:`params_of` derives the registry's :class:`Param` list from that class, and the
same declaration validates a value set in Python (``MctsAgent(limit=0)`` raises
:class:`SpecError`), so the spec parser, the listing of ``durak agents`` and the class
cannot drift apart.

>>> @attrs.frozen
... class Demo:
...     limit: int = param(300, "iterations", low=1)
...     how: str = param("vote", "combination", choices=("vote", "mean"))
>>> [p.describe() for p in params_of(Demo)]
['limit: int = 300 in [1, inf] - iterations', 'how: str = vote one of vote|mean - combination']
>>> Demo(limit=0)
Traceback (most recent call last):
...
durak.agents.specs.SpecError: limit must be in [1, inf], got 0
"""

from __future__ import annotations

import math
import types
import typing
from typing import Any, TypeAlias, TypeVar, cast

import attrs

__all__ = [
    "Param",
    "ParamValue",
    "SpecError",
    "param",
    "params_of",
    "parse_spec",
    "typed_params",
]

T = TypeVar("T")

#: Parameter values after parsing: ints, floats, bools or strings.
ParamValue: TypeAlias = int | float | bool | str
_KINDS: tuple[type[ParamValue], ...] = (bool, int, float, str)
_META = "durak.param"


class SpecError(ValueError):
    """A bad agent spec: unknown agent or parameter, or a value of the wrong type or range."""


@attrs.frozen
class Param:
    """One typed parameter: its name, type, default, allowed range or choices, help.

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
        problem = self.problem(value)
        if problem is not None:
            raise SpecError(f"{agent}: {problem}")
        return value

    def problem(self, value: object) -> str | None:
        """Why ``value`` is out of this parameter's range or choices, or ``None``."""
        if value is None:
            return None
        if self.choices and value not in self.choices:
            return f"{self.name} must be one of {', '.join(self.choices)}, got {value!r}"
        if isinstance(value, int | float) and not isinstance(value, bool):
            low = -math.inf if self.low is None else self.low
            high = math.inf if self.high is None else self.high
            if not low <= value <= high:
                return f"{self.name} must be in [{_num(low)}, {_num(high)}], got {value:g}"
        return None

    def describe(self) -> str:
        """A one-line summary: ``name: type = default (range) - help``."""
        limits = ""
        if self.low is not None or self.high is not None:
            limits = f" in [{_num(self.low, -math.inf)}, {_num(self.high)}]"
        if self.choices:
            limits = f" one of {'|'.join(self.choices)}"
        return f"{self.name}: {self.kind.__name__} = {self.default}{limits} - {self.help}"


_BOOLS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


def _num(x: float | None, missing: float = math.inf) -> str:
    x = missing if x is None else x
    return ("inf" if x > 0 else "-inf") if math.isinf(x) else f"{x:g}"


@attrs.frozen
class _Meta:
    help: str
    low: float | None
    high: float | None
    choices: tuple[str, ...]


def param(
    default: T,
    help: str,
    *,
    low: float | None = None,
    high: float | None = None,
    choices: tuple[str, ...] = (),
) -> T:
    """An attrs field that is also a spec parameter (see the module docstring).

    The value is checked on construction: out of ``[low, high]`` or not one of ``choices``
    raises :class:`SpecError` naming the parameter.
    """
    meta = _Meta(help, low, high, choices)

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        problem = _as_param(attribute.name, meta, str, default).problem(value)
        if problem is not None:
            raise SpecError(problem)

    field: T = attrs.field(default=default, validator=check, metadata={_META: meta})
    return field


def _as_param(name: str, meta: _Meta, kind: type[ParamValue], default: object) -> Param:
    return Param(
        name, kind, cast(ParamValue | None, default), meta.help, meta.low, meta.high, meta.choices
    )


def _kind(annotation: object, owner: type, name: str) -> type[ParamValue]:
    """The parameter type of an annotation: ``int``, ``float | None`` -> ``float``, ..."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = args[0] if len(args) == 1 else annotation
    for kind in _KINDS:
        if annotation is kind:
            return kind
    raise TypeError(
        f"{owner.__name__}.{name}: a spec parameter must be int, float, bool or "
        f"str (optionally | None), not {annotation!r}"
    )


def params_of(cls: type) -> tuple[Param, ...]:
    """The spec parameters of an attrs class: its :func:`param` fields, in order."""
    hints = typing.get_type_hints(cls)
    return tuple(
        _as_param(f.name, f.metadata[_META], _kind(hints[f.name], cls, f.name), f.default)
        for f in attrs.fields(cls)
        if _META in f.metadata
    )


def nested_spec(value: str) -> str:
    """The agent spec written in an option's value (``solver:fallback=``,
    ``phased:opening=``, ``ismcts:opponent=``): ``;`` stands for ``,``."""
    return value.replace(";", ",")


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:key=value,key=value"`` into the name and its raw parameters."""
    if not isinstance(spec, str):
        raise TypeError(f"an agent spec must be a string, got {type(spec).__name__}")
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


def _nested_hint(raw: dict[str, str], unknown: str) -> str:
    """A hint when ``unknown`` probably belongs to a nested spec given before it (``,``
    ends the outer parameter; the nested spec's own parameters take ``;``)."""
    nested = [(k, v) for k, v in raw.items() if ":" in v]
    if not nested:
        return ""
    key, value = nested[-1]
    return (
        f" (a nested spec separates its own parameters with ';': "
        f"{key}={value};{unknown}={raw[unknown]})"
    )


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
            raise SpecError(
                f"{name}: unknown parameter {key!r}; valid parameters: {valid}"
                + _nested_hint(raw, key)
            )
    return {p.name: p.parse(raw[p.name], name) if p.name in raw else p.default for p in params}
