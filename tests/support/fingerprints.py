"""Test-only views of states: :func:`plain` and :func:`fingerprint`, to detect any change of
an object that claims to be immutable.

The shared random-simulation helpers (rules and state strategies, seeded random games, the
invariants, twin worlds) are shipped in :mod:`durak.testing`, which the suites import.
"""

from __future__ import annotations

from typing import Any, cast

import attrs

from durak.rules import Card, CardSet, GameState
from durak.rules.history import History


def plain(value: object) -> object:
    """``value`` as plain nested tuples of ints, strings and ``None``: cards become indices,
    card sets masks, frozensets sorted tuples and attrs records tuples of their fields."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, Card):
        return ("card", value.index)
    if isinstance(value, CardSet):
        return ("cards", value.mask)
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, frozenset | History):  # History: the keys it holds, not its storage
        return ("set", tuple(sorted((plain(v) for v in value), key=repr)))
    if attrs.has(type(value)):
        fields = attrs.fields(cast(Any, type(value)))
        items = tuple((f.name, plain(getattr(value, f.name))) for f in fields)
        return (type(value).__name__, items)
    raise TypeError(f"no plain form for {value!r}")


def fingerprint(state: GameState) -> object:
    """A plain-data copy of every field of ``state``, to detect any change of an object that
    claims to be immutable."""
    return (plain(state), hash(state), tuple(h.mask for h in state.hands))
