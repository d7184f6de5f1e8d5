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


class _Speed(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.1f} games/s")


def wanted(quiet: bool) -> bool:
    """Whether to draw a bar: not quiet, and both output streams are terminals."""
    return not quiet and sys.stdout.isatty() and sys.stderr.isatty()


class GameProgress:
    """A context manager counting finished games toward ``total`` (``done`` already).

    When disabled every method does nothing except :meth:`print`, which writes to
    ``console``.
    """

    def __init__(self, total: int, done: int, enabled: bool, console: Console) -> None:
        self.console = console
        self._last = 0.0
        self._bar: Progress | None = None
        if enabled:
            self._bar = Progress(
                TextColumn("[progress.description]{task.description}"), BarColumn(),
                MofNCompleteColumn(), _Speed(), TimeElapsedColumn(), TextColumn("eta"),
                TimeRemainingColumn(), console=Console(stderr=True), auto_refresh=False,
                transient=True,
            )  # fmt: skip
            self._task = self._bar.add_task("games", total=total, completed=done)

    def __enter__(self) -> GameProgress:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.stop()

    def advance(self) -> None:
        """Count one finished game."""
        if self._bar is not None:
            self._bar.advance(self._task)
            now = time.monotonic()
            if now - self._last >= 0.1:
                self._last = now
                self._bar.refresh()

    def print(self, line: str) -> None:
        """A line of output above the bar."""
        if self._bar is not None:
            self._bar.console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)
