"""The Q-table value and its versioned JSON file (never pickle).

File layout (``format`` ``"durak-qtable"``, ``version`` 1)::

    {"format": "durak-qtable", "version": 1, "abstraction": "crampton",
     "rules": {...attrs fields of Rules...}, "episodes": 100000,
     "settings": {...the learner's hyperparameters, for the record...},
     "q": {"STATE": {"ACTION": value, ...}, ...},
     "visits": {"STATE": {"ACTION": count, ...}, ...}}

Loading checks every field and raises :class:`QTableError` naming the file and the
problem: not a regular file (a FIFO, a device: refused unread), over :data:`MAX_BYTES`,
not JSON, another format or version, an unknown abstraction, bad rules, or a value that
is not a finite number.  Saving is atomic (:mod:`durak.files`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from durak.files import FileError, read_source, write_atomic
from durak.learn.qlearn.abstraction import ABSTRACTIONS
from durak.rules import Rules, RulesError

__all__ = ["FORMAT", "MAX_BYTES", "VERSION", "QTable", "QTableError"]

FORMAT = "durak-qtable"
VERSION = 1
#: The largest Q-table file read.
MAX_BYTES = 1 << 30


class QTableError(ValueError):
    """A Q-table file that cannot be used: corrupt, of another format or version, or
    inconsistent."""


@attrs.define
class QTable:
    """Action values by abstract state.

    ``q[state][action]`` is the learned value of the action key in the state key (both
    strings of the named ``abstraction``); absent entries are unvisited.  ``visits`` counts
    the updates of each entry (the learner's step size decays with it).  ``episodes``
    counts the training games that produced the table.
    """

    rules: Rules
    abstraction: str
    q: dict[str, dict[str, float]] = attrs.Factory(dict)
    episodes: int = 0
    settings: dict[str, Any] = attrs.Factory(dict)
    visits: dict[str, dict[str, int]] = attrs.Factory(dict)

    def __attrs_post_init__(self) -> None:
        if self.abstraction not in ABSTRACTIONS:
            raise QTableError(
                f"unknown abstraction {self.abstraction!r}; known: {', '.join(ABSTRACTIONS)}"
            )

    def save(self, path: Path) -> None:
        """Write the table to ``path`` as JSON, atomically (a crash leaves the old file);
        :class:`~durak.files.FileError` for a path that is not a regular file or cannot
        be written, naming it and the reason."""
        doc = {
            "format": FORMAT,
            "version": VERSION,
            "abstraction": self.abstraction,
            "rules": attrs.asdict(self.rules),
            "episodes": self.episodes,
            "settings": self.settings,
            "q": self.q,
            "visits": self.visits,
        }
        text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
        write_atomic(path, lambda f: f.write(text.encode("utf-8")), "replace")

    @classmethod
    def load(cls, path: Path) -> QTable:
        """The table saved at ``path``; :class:`QTableError` names any problem."""
        try:
            doc = json.loads(read_source(path, MAX_BYTES).decode("utf-8"))
        except FileError as e:
            raise QTableError(str(e)) from None
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise QTableError(f"{path}: not a Q-table (not valid JSON: {e})") from None
        except RecursionError:
            raise QTableError(f"{path}: not a Q-table (corrupt: JSON nested too deeply)") from None
        try:
            return _parse(doc)
        except (QTableError, RulesError, TypeError) as e:
            raise QTableError(f"{path}: {e}") from None


def _parse(doc: object) -> QTable:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise QTableError(f"not a Q-table (format is not {FORMAT!r})")
    if doc.get("version") != VERSION:
        raise QTableError(
            f"Q-table version {doc.get('version')!r} is not supported "
            f"(this durak reads version {VERSION})"
        )
    rules = doc.get("rules")
    if not isinstance(rules, dict):
        raise QTableError("missing or bad 'rules'")
    episodes = doc.get("episodes")
    if not isinstance(episodes, int) or isinstance(episodes, bool) or episodes < 0:
        raise QTableError(f"'episodes' must be a count, got {episodes!r}")
    settings = doc.get("settings", {})
    if not isinstance(settings, dict):
        raise QTableError("'settings' must be an object")
    abstraction = doc.get("abstraction")
    if not isinstance(abstraction, str):
        raise QTableError("missing 'abstraction'")
    q = _rows(doc.get("q"), "q", lambda v: isinstance(v, int | float) and math.isfinite(v))
    visits = _rows(doc.get("visits", {}), "visits", lambda v: isinstance(v, int) and v > 0)
    for state, row in visits.items():
        if not row.keys() <= q.get(state, {}).keys():
            raise QTableError(f"'visits' of state {state!r} name actions without a value")
    return QTable(
        Rules(**rules),
        abstraction,
        {s: {a: float(v) for a, v in r.items()} for s, r in q.items()},
        episodes,
        settings,
        {s: {a: int(v) for a, v in r.items()} for s, r in visits.items()},
    )


def _rows(raw: object, field: str, ok: Callable[[object], bool]) -> dict[str, dict[str, Any]]:
    """``raw`` checked to be ``{state: {action: v}}`` with every ``ok(v)`` (never a bool)."""
    if not isinstance(raw, Mapping):
        raise QTableError(f"{field!r} must be an object of states")
    for state, row in raw.items():
        if not isinstance(row, Mapping):
            raise QTableError(f"{field!r}: state {state!r} must map actions to numbers")
        for action, v in row.items():
            if isinstance(v, bool) or not ok(v):
                raise QTableError(f"{field!r}: state {state!r}, action {action!r}: bad value {v!r}")
    return {str(s): dict(r) for s, r in raw.items()}
