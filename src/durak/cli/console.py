"""Where the ``durak`` commands print, and the lines several of them print alike.

* :func:`stdout_console` (results) and :func:`stderr_console` (notes, warnings, messages):
  plain text, no markup, no wrapping when not a terminal;
* :class:`Outputs`: the ``--csv``/``--json`` files of a run, checked before the first game
  and written atomically at the end;
* the shared lines: :func:`seed_line` (how to repeat a run), :func:`visibility_label`,
  :func:`timing_line` and :func:`duration`.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
from rich.console import Console

from durak.files import Existing, write_atomic
from durak.rules import Visibility


def stdout_console() -> Console:
    """A console for results: plain (no colour, wide tables) when not a terminal."""
    return Console(
        width=None if sys.stdout.isatty() else 200, markup=False, highlight=False, soft_wrap=True
    )


def stderr_console() -> Console:
    """A console for notes and messages."""
    return Console(
        stderr=True,
        markup=False,
        highlight=False,
        soft_wrap=True,
        width=None if sys.stderr.isatty() else 200,
    )


@attrs.frozen
class Outputs:
    """The ``--csv`` and ``--json`` files of a command, checked before any game is played
    (:meth:`durak.cli.run_options.ReportFiles.open`) and written atomically at the end.

    Attributes:
      csv_path: the CSV file, ``-`` for standard output, or ``None``.
      json_path: the JSON file, ``-`` for standard output, or ``None``.
      existing: what to do with a regular file already there: ``refuse`` it, or
        ``replace`` it (``--force``, or the run it continues with ``--resume``).

    Invariants: at most one of the paths is ``-``; a FIFO, a device or a folder in a
    path's place is refused (:mod:`durak.files`).
    """

    csv_path: Path | None
    json_path: Path | None
    existing: Existing = "refuse"

    @property
    def to_stdout(self) -> bool:
        """Whether a machine-readable stream goes to standard output."""
        return "-" in (str(self.csv_path), str(self.json_path))

    def console(self) -> Console:
        """Where the tables and notes go: standard error when stdout carries data."""
        return stderr_console() if self.to_stdout else stdout_console()

    def write(self, rows: list[dict[str, Any]], report: dict[str, Any]) -> None:
        """Write the CSV ``rows`` and the JSON ``report``, each file atomically."""
        if self.csv_path is not None:
            text = io.StringIO(newline="")
            writer = csv.DictWriter(
                text, fieldnames=list(rows[0]) if rows else [], lineterminator="\n"
            )
            writer.writeheader()
            writer.writerows(rows)
            self._emit(self.csv_path, text.getvalue())
        if self.json_path is not None:
            self._emit(self.json_path, json.dumps(report, indent=2, ensure_ascii=False) + "\n")

    def _emit(self, path: Path, text: str) -> None:
        """``text`` to standard output (``-``) or atomically to the file ``path``."""
        if str(path) == "-":
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            write_atomic(path, lambda f: f.write(text.encode("utf-8")), self.existing)


def seed_line(seed: int, given: int | None, source: str | None = None) -> str:
    """How to repeat the run: ``seed`` was ``given``, read from ``source`` (a log or a
    checkpoint), or drawn at random.

    >>> seed_line(7, 7), seed_line(7, None, "run.jsonl"), seed_line(7, None)
    ('seed 7', 'seed 7 (from run.jsonl)', 'seed 7 (random; repeat with --seed 7)')
    """
    if given is not None:
        return f"seed {seed}"
    if source is not None:
        return f"seed {seed} (from {source})"
    return f"seed {seed} (random; repeat with --seed {seed})"


def print_resolutions(emit: Callable[[str], object], plays: list[str]) -> None:
    """One ``agent:`` header line to ``emit`` (a console's or the builtin ``print``) per
    agent that the rules resolve (``SPEC plays WHAT``,
    :func:`~durak.agents.interface.protocol.resolutions`)."""
    for line in plays:
        emit(f"agent: {line}")


def visibility_label(visibility: Visibility) -> str:
    """`` · open world``, `` · full information`` or nothing, for the rules line."""
    return {False: "", True: " · open world", "full": " · full information"}[visibility]


def duration(seconds: float) -> str:
    """A length of time in the unit that shows it: ``42.0 s``, ``12.5 min`` or ``3.00 h``
    (a short run is never ``0.00 h``)."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.2f} h"


def timing_line(wall: float, count: int, jobs: int, unit: str = "games") -> str:
    """``time: 1.84 s wall · 109 games/s · 2 jobs`` (``count`` ``unit`` done); slow runs
    give seconds per unit instead.

    >>> timing_line(1.84, 200, 2), timing_line(735.3, 200, 1, "files")
    ('time: 1.84 s wall · 109 games/s · 2 jobs', 'time: 735.30 s wall · 3.68 s/file · 1 job')
    """
    rate = ""
    if wall > 0 and count:
        per_second = count / wall
        one = unit.removesuffix("s")
        fast = per_second >= 1
        rate = f" · {per_second:,.0f} {unit}/s" if fast else f" · {wall / count:,.2f} s/{one}"
    return f"time: {wall:.2f} s wall{rate} · {jobs} job{'s' if jobs > 1 else ''}"
