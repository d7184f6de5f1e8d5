"""The game parameters of ``python_durak``: one per :class:`~durak.rules.Rules` field.

OpenSpiel games take a flat mapping of int, float, bool and str parameters (Lanctot et al.,
arXiv:1908.09453, section "Game parameters").  Every ``Rules`` field becomes one parameter of
the same name and the default of ``Rules()``; the one field that may be ``None``,
``first_bout_cap``, is written ``0`` for ``None`` (a cap is at least 1, so 0 is free).
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from durak.extras import needs

with needs("durak.interop.openspiel", "openspiel"):
    import pyspiel

from durak.rules import Rules, RulesError

__all__ = ["DEFAULTS", "NO_CAP", "ParameterError", "game_string", "params_of", "rules_of"]


class ParameterError(RulesError, pyspiel.SpielError):  # type: ignore[misc]  # untyped base
    """A bad ``python_durak`` parameter: OpenSpiel's usual error (``SpielError``) and a
    :class:`RulesError`, with one line naming the problem."""


#: How ``first_bout_cap=None`` is written as a game parameter.
NO_CAP = 0

ParamValue = int | bool | str


def params_of(rules: Rules) -> dict[str, ParamValue]:
    """The game parameters of ``rules``: ``rules_of(params_of(r)) == r`` for every ``r``."""
    out: dict[str, ParamValue] = {}
    for field in attrs.fields(Rules):
        value = getattr(rules, field.name)
        out[field.name] = NO_CAP if value is None else value
    return out


#: The parameter specification: every ``Rules`` field with its default.
DEFAULTS: dict[str, ParamValue] = params_of(Rules())


def rules_of(params: Mapping[str, object]) -> Rules:
    """The :class:`Rules` of ``params`` (missing names take ``Rules()``'s defaults).

    Raises :class:`ParameterError` with one line naming an unknown parameter, a value of
    the wrong type, or an inconsistent combination (the message of ``Rules`` itself).
    """
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise ParameterError(
            f"unknown python_durak parameter {unknown[0]!r}; known: {', '.join(DEFAULTS)}"
        )
    values: dict[str, object] = {}
    for name, value in params.items():
        default = DEFAULTS[name]
        if type(value) is not type(default):
            raise ParameterError(
                f"python_durak parameter {name} must be a {type(default).__name__}, got {value!r}"
            )
        values[name] = None if name == "first_bout_cap" and value == NO_CAP else value
    try:
        return Rules(**values)  # type: ignore[arg-type]  # each value checked by Rules
    except RulesError as error:
        raise ParameterError(str(error)) from None


def game_string(rules: Rules) -> str:
    """The ``pyspiel.load_game`` string of ``rules``, e.g. ``python_durak(players=3,...)``."""
    body = ",".join(f"{k}={v}" for k, v in params_of(rules).items())
    return f"python_durak({body})"
