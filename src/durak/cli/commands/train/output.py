"""What ``durak train`` shows and writes: the progress bar, one line per interval, the CSV of
the intervals, the learning curve, and the ``durak match`` command that evaluates the
trained learner."""

from __future__ import annotations

import contextlib
import csv
import io
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn

from durak.agents.base import parse_spec, registry
from durak.cli.console import stderr_console
from durak.cli.options import rules_flags
from durak.cli.progress import BarProgress, Speed, timed_bar
from durak.files import FileError, open_stream
from durak.learn.online import IntervalStats
from durak.learn.plot import MatplotlibMissingError
from durak.rules import Rules

#: The CSV header, one row per interval (the columns of :class:`IntervalStats`).
CSV_COLUMNS = (
    "episodes",
    "games",
    "wins",
    "losses",
    "draws",
    "win_rate",
    "mean_reward",
    "episodes_per_second",
)


class TrainProgress(BarProgress):
    """Counts episodes toward ``total`` on a bar that also shows the win rate of the interval
    in progress and the episodes per second; see :class:`~durak.cli.progress.BarProgress`."""

    def __init__(self, total: int, enabled: bool, console: Console) -> None:
        self._games = self._wins = 0
        bar = None
        if enabled:
            bar = timed_bar(
                BarColumn(bar_width=20),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                Speed("episodes", 0),
            )
            self._task = bar.add_task("episodes", total=total, rate="")
        super().__init__(bar, console)

    def episode(self, won: bool) -> None:
        """Count one finished episode, won (the learner is not the durak) or not."""
        if self._bar is None:
            return
        self._games += 1
        self._wins += won
        self._bar.update(self._task, advance=1, rate=f"win {self._wins / self._games:.1%}")
        self.refresh()

    def interval(self, line: str) -> None:
        """Print ``line`` above the bar and start counting the next interval's win rate."""
        self._games = self._wins = 0
        self.print(line)


def interval_line(s: IntervalStats, total: int) -> str:
    """One interval in a line: episodes so far, win rate with wins-losses-draws, mean
    reward, and speed."""
    width = len(f"{total:,}")
    return (
        f"episodes {s.episodes:>{width},}/{total:,} · win rate {s.win_rate:6.1%} "
        f"({s.wins}-{s.losses}-{s.draws}) · mean reward {s.mean_reward:+.3f} · "
        f"{s.episodes_per_second:,.0f} episodes/s"
    )


def csv_row(s: IntervalStats) -> list[str]:
    """The CSV cells of one interval, in :data:`CSV_COLUMNS` order."""
    counts = [s.episodes, s.games, s.wins, s.losses, s.draws]
    return [
        *map(str, counts),
        f"{s.win_rate:.6g}",
        f"{s.mean_reward:.6g}",
        f"{s.episodes_per_second:.1f}",
    ]


class IntervalCsv:
    """The CSV file of the intervals, opened (and its header written) on construction and a
    row appended and flushed per interval, so a stopped run keeps the rows so far."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: TextIO = (
            sys.stdout
            if str(path) == "-"
            else io.TextIOWrapper(
                io.BufferedWriter(open_stream(path, "replace")), encoding="utf-8", newline=""
            )
        )
        self._writer = csv.writer(self._file, lineterminator="\n")
        self._row(CSV_COLUMNS)

    def _row(self, cells: Sequence[str]) -> None:
        try:
            self._writer.writerow(cells)
            self._file.flush()
        except OSError as e:
            raise FileError(self.path, f"cannot write: {e.strerror or e}") from None

    def write(self, s: IntervalStats) -> None:
        """Append the row of ``s``; :class:`~durak.files.FileError` if it cannot be
        written."""
        self._row(csv_row(s))

    def close(self) -> None:
        """Close the file (standard output stays open; a row that could not be written was
        reported by :meth:`write`)."""
        if self._file is not sys.stdout:
            with contextlib.suppress(OSError):
                self._file.close()


def draw_curve(png: Path, draw: Callable[[Path], bool]) -> bool:
    """Draw a learning curve to ``png`` with ``draw`` (:mod:`durak.learn.plot`), which
    says whether there was anything to draw; whether the curve was drawn.  Without
    matplotlib, or when a file cannot be read or written, a ``warning:`` line on standard
    error names it and the run goes on."""
    try:
        return draw(png)
    except (MatplotlibMissingError, FileError) as e:
        stderr_console().print(f"warning: {e}; skipped {png}")
        return False


def evaluate_command(
    spec: str,
    out: Path,
    opponents: list[str],
    rules: Rules,
    seed: int,
    solve_endgame: int | None = None,
) -> str:
    """The ``durak match`` command that plays the learner saved at ``out`` (as the agent of
    the learner's name) against ``opponents`` under ``rules``.

    Parameters of the learner ``spec`` that the agent also takes (such as qlearn's
    ``min_visits``) are passed on, so the agent plays as the learner was trained to; a
    learner trained with ``--solve-endgame N`` is the fallback of ``solver:nodes=N``.
    """
    name, raw = parse_spec(spec)
    info = registry().get(name)
    shared = {p.name for p in info.params} - {"path"} if info is not None else set()
    carried = "".join(f",{k}={v}" for k, v in raw.items() if k in shared)
    agent = f"{name}:path={out}{carried}"
    if solve_endgame is not None:
        agent = f"solver:nodes={solve_endgame},fallback={agent.replace(',', ';')}"
    words = [
        "durak",
        "match",
        agent,
        *opponents,
        "--games",
        "1000",
        "--seed",
        str(seed),
        *rules_flags(rules),
    ]
    return shlex.join(words)
