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

import enum
import math
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeAlias, TypeVar, cast

import attrs

__all__ = [
    "AGENT_SPEC",
    "GUIDE",
    "MODEL_FILE",
    "PLAIN",
    "Content",
    "Holds",
    "Param",
    "ParamValue",
    "SpecError",
    "format_spec",
    "format_value",
    "model_or_spec",
    "nested_spec",
    "param",
    "params_of",
    "parse_spec",
    "quote_nested",
    "typed_params",
]

T = TypeVar("T")

#: Parameter values after parsing: ints, floats, bools or strings.
ParamValue: TypeAlias = int | float | bool | str
_KINDS: tuple[type[ParamValue], ...] = (bool, int, float, str)
_META = "durak.param"


class SpecError(ValueError):
    """A bad agent spec: unknown agent or parameter, or a value of the wrong type or range."""


class Content(enum.Enum):
    """What a parameter's value is (see :class:`Holds`)."""

    PLAIN = "a plain value"
    AGENT_SPEC = "an agent spec"
    OPPONENT_MODEL = "an opponent model"
    GUIDE = "a guide's name"
    MODEL_FILE = "a model file"


@attrs.frozen
class Holds:
    """What a parameter holds, declared with it (:func:`param`, :class:`Param`), so that
    whatever reads specs (the nested-spec walk, the canonical form, the web's allow-list,
    the seat policies) asks the declaration rather than a list kept beside it:

    * :data:`PLAIN`: a number, a true/false, a choice or a free string, meaning nothing more;
    * :data:`AGENT_SPEC`: an agent spec, ``;`` standing for ``,`` (:func:`nested_spec`);
    * :func:`model_or_spec`: one of ``words`` (the word for no model, then the models'
      names), else an agent spec as above;
    * :data:`GUIDE`: a registered guide's name, or the parameter's default (no guide);
    * :data:`MODEL_FILE`: a path the agent opens.
    """

    content: Content
    #: With ``OPPONENT_MODEL``: the values that are no agent spec.
    words: tuple[str, ...] = ()

    def is_spec(self, value: str) -> bool:
        """Whether ``value`` of a parameter holding this is an agent spec (``;`` for ``,``)."""
        if self.content is Content.AGENT_SPEC:
            return True
        return self.content is Content.OPPONENT_MODEL and value not in self.words


PLAIN = Holds(Content.PLAIN)
AGENT_SPEC = Holds(Content.AGENT_SPEC)
GUIDE = Holds(Content.GUIDE)
MODEL_FILE = Holds(Content.MODEL_FILE)


def model_or_spec(none: str, models: tuple[str, ...]) -> Holds:
    """What an opponent-model parameter holds: ``none`` (its word for no model), one of
    ``models`` (a model's name), or any other agent spec."""
    return Holds(Content.OPPONENT_MODEL, (none, *models))


@attrs.frozen
class Param:
    """One typed parameter: its name, type, default, allowed range or choices, help.

    ``kind`` is ``int``, ``float``, ``bool`` or ``str``; ``low``/``high`` bound numbers
    (inclusive); ``choices`` lists the allowed strings; ``holds`` says what the value is
    (:class:`Holds`: anything but :data:`PLAIN` is a ``str``).  ``default=None`` means "off".
    """

    name: str
    kind: type[ParamValue]
    default: ParamValue | None
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    holds: Holds = PLAIN

    def __attrs_post_init__(self) -> None:
        if self.holds is not PLAIN and self.kind is not str:
            raise TypeError(f"parameter {self.name}: {self.holds.content.value} is a str")

    def nests(self, value: str) -> bool:
        """Whether ``value`` of this parameter is an agent spec (``;`` for ``,``)."""
        return self.holds.is_spec(value)

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
    holds: Holds


def param(
    default: T,
    help: str,
    *,
    low: float | None = None,
    high: float | None = None,
    choices: tuple[str, ...] = (),
    holds: Holds = PLAIN,
) -> T:
    """An attrs field that is also a spec parameter (see the module docstring), holding
    what ``holds`` says (:class:`Holds`).

    The value is checked on construction: out of ``[low, high]`` or not one of ``choices``
    raises :class:`SpecError` naming the parameter.
    """
    meta = _Meta(help, low, high, choices, holds)

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        problem = _as_param(attribute.name, meta, str, default).problem(value)
        if problem is not None:
            raise SpecError(problem)

    field: T = attrs.field(default=default, validator=check, metadata={_META: meta})
    return field


def _as_param(name: str, meta: _Meta, kind: type[ParamValue], default: object) -> Param:
    value = cast(ParamValue | None, default)
    return Param(name, kind, value, meta.help, meta.low, meta.high, meta.choices, meta.holds)


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
    """The agent spec written in the value of a parameter that holds one
    (:meth:`Param.nests`: ``solver:fallback=``, ``ismcts:opponent=``): ``;`` stands for
    ``,``."""
    return value.replace(";", ",")


def quote_nested(spec: str) -> str:
    """``spec`` written as a parameter's value: the inverse of :func:`nested_spec` (``,``
    becomes ``;``) for a spec whose parameters hold no ``;``."""
    return spec.replace(",", ";")


def format_spec(name: str, params: Mapping[str, str] | None = None) -> str:
    """The spec string of agent ``name`` with raw ``params``, in their order: the inverse
    of :func:`parse_spec` (``parse_spec(format_spec(*parse_spec(s))) == parse_spec(s)``),
    ``name`` alone when there are none."""
    items = ",".join(f"{k}={v}" for k, v in (params or {}).items())
    return f"{name}:{items}" if items else name


def format_value(value: ParamValue) -> str:
    """A typed value in its one written form: ``true``/``false``, an integer's digits, a
    number's shortest round-tripping digits without a trailing ``.0`` (``1.0`` -> ``1``,
    ``1e-05``), a string as itself; :meth:`Param.parse` reads it back to ``value``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        text = repr(value + 0.0)  # -0.0 is 0
        return text[:-2] if text.endswith(".0") else text
    return str(value)


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


def _nested_hint(by_name: dict[str, Param], raw: dict[str, str], unknown: str) -> str:
    """A hint when ``unknown`` probably belongs to a nested spec given before it (``,``
    ends the outer parameter; the nested spec's own parameters take ``;``): a parameter
    declared to hold a spec (:meth:`Param.nests`)."""
    nested = [(k, v) for k, v in raw.items() if k in by_name and by_name[k].nests(v)]
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
                + _nested_hint(by_name, raw, key)
            )
    return {p.name: p.parse(raw[p.name], name) if p.name in raw else p.default for p in params}
