"""The progress bar of long runs: games done, games per second and the time left.

It is drawn on standard error, only when standard output and standard error are both
terminals and ``--quiet`` is off; otherwise nothing is drawn and the output stays plain.
It refreshes when a game finishes (at most ten times a second) rather than from a
background thread, so no thread is running when worker processes are forked.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Self

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class Speed(ProgressColumn):
    """The finished or current rate of a task, in ``unit`` per second."""

    def __init__(self, unit: str, digits: int) -> None:
        super().__init__()
        self.unit = unit
        self.digits = digits

    def render(self, task: Task) -> Text:
        """``"12.3 games/s"``, or nothing before the rate is known."""
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.{self.digits}f} {self.unit}/s")


def timed_bar(*columns: ProgressColumn) -> Progress:
    """A bar on standard error showing ``columns``, then the time elapsed and the time
    left; drawn only by :meth:`BarProgress.refresh`, and cleared when it stops."""
    return Progress(
        *columns,
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        auto_refresh=False,
        transient=True,
    )


def wanted(quiet: bool) -> bool:
    """Whether to draw a bar: not quiet, and both output streams are terminals."""
    return not quiet and sys.stdout.isatty() and sys.stderr.isatty()


class BarProgress:
    """A context manager around an optional ``rich`` bar on standard error.

    ``bar`` is ``None`` when disabled: then nothing is drawn and :meth:`print` writes to
    ``console``.  Subclasses count their units and call :meth:`refresh`.
    """

    def __init__(self, bar: Progress | None, console: Console) -> None:
        self.console = console
        self._bar = bar
        self._last = 0.0

    def __enter__(self) -> Self:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.stop()

    def advance(self, count: int = 1) -> None:
        """Count ``count`` units done; a bar that counts its own way ignores it."""

    def refresh(self) -> None:
        """Redraw the bar, at most ten times a second: drawing costs more than a unit."""
        if self._bar is not None:
            now = time.monotonic()
            if now - self._last >= 0.1:
                self._last = now
                self._bar.refresh()

    def print(self, line: str) -> None:
        """A line of output above the bar."""
        console = self.console if self._bar is None else self._bar.console
        console.print(line, markup=False, highlight=False, soft_wrap=True)


class GameProgress(BarProgress):
    """Counts finished games (or another ``unit``, such as episodes) toward ``total``
    (``done`` already); see :class:`BarProgress`."""

    def __init__(
        self, total: int | None, done: int, enabled: bool, console: Console, unit: str = "games"
    ) -> None:
        bar = None
        if enabled:
            bar = timed_bar(
                TextColumn("[progress.description]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                Speed(unit, 1),
            )
            self._task = bar.add_task(unit, total=total, completed=done)
        super().__init__(bar, console)

    def advance(self, count: int = 1) -> None:
        """Count ``count`` finished games (or units)."""
        if self._bar is not None:
            self._bar.advance(self._task, count)
            self.refresh()
