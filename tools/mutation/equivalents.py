"""The mutants named equivalent: the records of ``equivalents.toml``, read, checked, and
matched against the current mutants.

A record names a survivor that changes nothing a caller can observe, by its id and the
change it makes.  The file is refused, with one line naming the entry, unless:

- it is TOML whose only key is ``equivalent``, a list of tables;
- each table has exactly the fields ``id``, ``change`` and ``reason``, each a non-empty
  string;
- each id has the mutator's form ``module:scope:operator:n`` (``n`` a count);
- each change is ``original => replacement``, as :attr:`Mutant.change` prints it;
- no id is named twice.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mutation.operators import Mutant
from mutation.results import Verdict

#: The records read by the report.
EQUIVALENTS = Path(__file__).with_name("equivalents.toml")

#: The fields of an entry, in the order the file gives them.
FIELDS = ("id", "change", "reason")
_ID = re.compile(r"[^:\s]+:[^:\s]+:[a-z-]+:[0-9]+")


class EquivalentsError(ValueError):
    """The records file is unreadable or malformed; the message is one line naming the
    file and the entry (its position, from 1, and its id when it has one)."""


@dataclass(frozen=True)
class Equivalent:
    """A surviving mutant named equivalent.

    Attributes:
      change: the change it makes, as :attr:`Mutant.change` prints it.  It is part of the
        entry because an id counts mutants within a function: once the function is edited,
        its id may name another change, and an entry that does not match is stale, never
        trusted (:func:`stale_equivalents`).
      reason: why it changes nothing a caller can observe.
    """

    change: str
    reason: str


def load_equivalents(path: Path | None = None) -> dict[str, Equivalent]:
    """The records of ``path`` (default :data:`EQUIVALENTS`) by id, in the file's order,
    once each passes the checks of this module's docstring; :class:`EquivalentsError`
    otherwise."""
    path = EQUIVALENTS if path is None else path
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise EquivalentsError(f"{path}: cannot be read: {e.strerror or e}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise EquivalentsError(f"{path}: not TOML: {e}") from None
    return parse_equivalents(data, str(path))


def parse_equivalents(data: dict[str, object], source: str) -> dict[str, Equivalent]:
    """The records of ``data`` (a parsed file, named ``source`` in messages) by id, in
    order; :class:`EquivalentsError` at the first record that fails a check."""
    extra = sorted(set(data) - {"equivalent"})
    if extra:
        raise EquivalentsError(f"{source}: unknown key {extra[0]!r} (only [[equivalent]])")
    entries = data.get("equivalent")
    if not isinstance(entries, list):
        raise EquivalentsError(f"{source}: `equivalent` must be a list of [[equivalent]] tables")
    out: dict[str, Equivalent] = {}
    first: dict[str, int] = {}
    for n, entry in enumerate(entries, 1):
        name, record = _checked(entry, f"{source}: entry {n}")
        if name in first:
            raise EquivalentsError(
                f"{source}: entry {n} ({name}): the id of entry {first[name]} again"
            )
        first[name] = n
        out[name] = record
    return out


def _checked(entry: object, where: str) -> tuple[str, Equivalent]:
    """``(id, record)`` of one entry, or :class:`EquivalentsError` naming it ``where``."""
    if not isinstance(entry, dict):
        raise EquivalentsError(f"{where}: not a table")
    name = entry.get("id")
    if isinstance(name, str) and name:
        where = f"{where} ({name})"
    missing = [f for f in FIELDS if f not in entry]
    if missing:
        raise EquivalentsError(f"{where}: lacks the field {missing[0]!r}")
    unknown = sorted(set(entry) - set(FIELDS))
    if unknown:
        raise EquivalentsError(f"{where}: unknown field {unknown[0]!r}")
    for field in FIELDS:
        value = entry[field]
        if not isinstance(value, str) or not value.strip():
            kind = "an empty string" if isinstance(value, str) else type(value).__name__
            raise EquivalentsError(f"{where}: {field} must be a non-empty string, not {kind}")
    if not _ID.fullmatch(entry["id"]):
        raise EquivalentsError(f"{where}: id is not module:scope:operator:n")
    before, _, after = entry["change"].partition(" => ")
    if not (before.strip() and after.strip()):
        raise EquivalentsError(f"{where}: change is not `original => replacement`")
    return entry["id"], Equivalent(entry["change"], entry["reason"])


def stale_equivalents(
    every: Sequence[Mutant], recorded: dict[str, Verdict], equivalent: dict[str, Equivalent]
) -> list[str]:
    """One line per entry of ``equivalent`` that cannot be trusted: its id names no mutant,
    a mutant making another change (its function was edited since), or a mutant killed or
    timed out at its function's current source (so it is not equivalent)."""
    by_id = {m.id: m for m in every}
    stale = []
    for key, entry in equivalent.items():
        m = by_id.get(key)
        if m is None:
            stale.append(f"stale equivalent: {key} names no mutant")
        elif m.change != entry.change:
            stale.append(f"stale equivalent: {key} names `{entry.change}`, now `{m.change}`")
        else:
            v = recorded.get(key)
            if v is not None and v.fingerprint == m.fingerprint and v.verdict != "survived":
                stale.append(f"stale equivalent: {key} was {v.verdict} ({m.change})")
    return stale
