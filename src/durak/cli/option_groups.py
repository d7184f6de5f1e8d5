"""Option groups: options shared by several commands, declared once as an attrs class.

A group is a frozen attrs class marked with :func:`option_group` whose fields are annotated
with typer's ``Annotated[..., typer.Option(...)]`` aliases and carry their defaults.  A
command names the group once, as one parameter (``rules: RulesOptions``), and
:func:`expand` puts the group's fields into the signature that typer reads, in the
parameter's place; when the command runs, they are gathered back into one instance.  So the
option names, help, panels and defaults of a group live in one place, however many commands
take it (typer's documented ways to share options are shared ``Annotated`` aliases and
expanding a signature; this is the second, built on the first).  A field whose annotation is
itself a group is expanded in its place too, so a group may hold another (``durak train``'s
:class:`~durak.cli.commands.train.request.TrainRequest` holds the rules options).
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from typing import Any, TypeVar

import attrs

from durak.cli.errors import fail

F = TypeVar("F", bound=Callable[..., Any])
C = TypeVar("C", bound=type)

_MARK = "__durak_option_group__"


def option_group(cls: C) -> C:
    """Mark the attrs class ``cls`` as an option group for :func:`expand`."""
    if getattr(cls, "__attrs_attrs__", None) is None:  # attrs.has() would narrow the type
        raise TypeError(f"{cls.__name__} must be an attrs class to be an option group")
    setattr(cls, _MARK, True)
    return cls


def is_option_group(annotation: object) -> bool:
    """Whether ``annotation`` is a class marked by :func:`option_group`."""
    return isinstance(annotation, type) and getattr(annotation, _MARK, False) is True


def _hints(group: type) -> dict[str, Any]:
    return typing.get_type_hints(group, include_extras=True)


def _parameters(group: type) -> list[inspect.Parameter]:
    """The command parameters of ``group``'s fields, in order, each nested group's fields
    in its place; defaults from the class."""
    hints = _hints(group)
    params: list[inspect.Parameter] = []
    for f in attrs.fields(group):
        if is_option_group(hints[f.name]):
            params += _parameters(hints[f.name])
            continue
        default = inspect.Parameter.empty if f.default is attrs.NOTHING else f.default
        params.append(
            inspect.Parameter(
                f.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hints[f.name]
            )
        )
    return params


def option_names(group: type) -> list[str]:
    """The command parameters ``group`` puts into a signature, nested groups' included."""
    return [p.name for p in _parameters(group)]


def _gather(group: type, kwargs: dict[str, Any]) -> Any:
    """The instance of ``group`` made of (and taken out of) the parameters ``kwargs``,
    nested groups first; a group's own check raises ``ValueError``."""
    hints = _hints(group)
    values = {
        f.name: _gather(hints[f.name], kwargs)
        if is_option_group(hints[f.name])
        else kwargs.pop(f.name)
        for f in attrs.fields(group)
    }
    return group(**values)


def expand(command: F) -> F:
    """``command`` with each option-group parameter replaced by the group's fields.

    The fields keep their order and annotations, and take their defaults from the class; a
    field name that clashes with another parameter is an error at import time, not a
    silently shadowed option.
    """
    signature = inspect.signature(command)
    hints = typing.get_type_hints(command, include_extras=True)
    params: list[inspect.Parameter] = []
    groups: dict[str, type] = {}
    for p in signature.parameters.values():
        annotation = hints.get(p.name, p.annotation)
        if is_option_group(annotation):
            groups[p.name] = annotation
            params += _parameters(annotation)
        else:
            params.append(p.replace(annotation=annotation))
    names = [p.name for p in params]
    clashes = sorted({n for n in names if names.count(n) > 1})
    if clashes:
        raise TypeError(f"{command.__name__}: option groups repeat {', '.join(clashes)}")
    params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in params]

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> Any:
        for name, group in groups.items():
            try:
                kwargs[name] = _gather(group, kwargs)
            except ValueError as e:  # a group's own check: a usage error, on one line
                raise fail(str(e)) from None
        return command(**kwargs)

    wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    if "return" in hints:
        wrapper.__annotations__["return"] = hints["return"]
    return typing.cast(F, wrapper)
