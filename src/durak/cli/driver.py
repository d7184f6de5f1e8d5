"""The one driver of every long command: ``match``, ``tournament``, ``grid``, ``ladder``,
``dataset``, ``exploit``'s evaluation and ``train``.

A command describes its run as a :class:`Job` (the header lines, the ``agent:`` lines,
notes, how many units there are and how many are done) and a loop that does the work on a
backend and yields a :class:`Step` per unit or batch done.  :func:`drive` prints the
header, the ``agent:`` lines and ``runs on:``, starts the backend, draws the progress bar
and turns Ctrl-C, SIGTERM and the errors a run survives into a :class:`Stopped`
(:mod:`durak.cli.stopping`) at any moment, the backend's start included;
:meth:`Driven.close` prints the closing ``time:`` line and, after a stop, the one stop line
that says what was kept and how to continue, with the stop's exit code.

Only a backend that cannot start at all (no Ray cluster at ``--address``, say) is a usage
error (one line, exit 2): nothing was done.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Mapping
from contextlib import closing, nullcontext
from typing import Any

import attrs
from rich.console import Console

from durak.arena.play.match import MatchPlan, PlayedGame
from durak.arena.runs.interface import Backend, BackendError
from durak.arena.runs.run import Run
from durak.cli.console import Outputs, print_resolutions, stderr_console, timing_line
from durak.cli.errors import user_errors
from durak.cli.progress import BarProgress, GameProgress, wanted
from durak.cli.stopping import Stopped, stoppable
from durak.files import FileError

#: The errors a run survives by stopping and keeping what it did: a full disk, a file that
#: cannot be written, a backend that lost its workers.
SURVIVED: tuple[type[Exception], ...] = (OSError, BackendError, FileError)


@attrs.frozen
class Step:
    """Work done by a run's loop: ``count`` units (games, files, episodes), and a
    ``line`` to print above the bar, if any."""

    count: int = 1
    line: str | None = None


@attrs.frozen
class Job:
    """What a run is about to do.

    Attributes:
      header: the lines that open the output (``match: ...``, ``rules: ...``).
      total: the units of the whole run (``None``: unknown, a run to a time limit);
        done: those done before (resumed).
      unit: what is counted (``games``, ``episodes``).
      resolutions: what each agent the rules resolve plays (``agent:`` lines).
      notes: lines for standard error (``note: ...``, ``resuming: ...``).
    """

    header: tuple[str, ...]
    total: int | None
    done: int = 0
    unit: str = "games"
    resolutions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@attrs.frozen
class Driven:
    """How a run went: why it stopped (``None``: it ended), its wall seconds, the units
    it did (``count``) and the processes it used (``jobs``)."""

    stopped: Stopped | None
    wall: float
    count: int
    jobs: int

    def close(self, out: Console, kept: str, rate: tuple[int, str] | None = None) -> None:
        """Print the ``time:`` line (its rate in ``rate``'s units, by default the units
        counted); after a stop, raise its exit with the stop line ``REASON: kept``."""
        amount, unit = rate if rate is not None else (self.count, "")
        out.print(timing_line(self.wall, amount, self.jobs, unit or "games"))
        if self.stopped is not None:
            raise self.stopped.exit(kept)


def _where(backend: Backend | None, count: int | None) -> str:
    if backend is None:
        return "this process"
    return backend.where if count is None else backend.where_for(count)


def drive(
    job: Job,
    out: Console,
    loop: Callable[[Backend | None], Generator[Step, None, None]],
    *,
    quiet: bool,
    backend: Callable[[], Backend | None] = lambda: None,
    progress: BarProgress | None = None,
    ends: Mapping[type[Exception], str] | None = None,
) -> Driven:
    """Run ``loop`` on the backend ``backend()`` starts (``None``: this process) after
    printing ``job``'s header; see the module docstring.  ``progress`` replaces the
    default bar of ``job.unit``; ``ends`` are exceptions that end the run as Ctrl-C does
    (their reason, exit code 130; ``EOFError`` from a person's input, say)."""
    err = stderr_console()
    for line in job.header:
        out.print(line)
    for note in job.notes:
        err.print(note)
    print_resolutions(out.print, list(job.resolutions))
    started = time.perf_counter()
    opened: Backend | None = None
    with stoppable() as starting, user_errors():  # Ctrl-C as the backend starts: a stop too
        opened = backend()
    if starting.stopped is not None:
        return Driven(starting.stopped, time.perf_counter() - started, 0, 1)
    todo = None if job.total is None else job.total - job.done
    out.print(f"runs on: {_where(opened, todo)}")
    jobs = 1 if opened is None else min(opened.capacity(), max(todo or opened.capacity(), 1))
    count = 0
    bar = progress or GameProgress(job.total, job.done, wanted(quiet), out, unit=job.unit)
    with (
        opened if opened is not None else nullcontext(),
        bar,
        stoppable(SURVIVED, ends) as stop,
        closing(loop(opened)) as steps,  # closed (and its work kept) on a stop
    ):
        for step in steps:
            count += step.count
            bar.advance(step.count)
            if step.line is not None:
                bar.print(step.line)
    return Driven(stop.stopped, time.perf_counter() - started, count, jobs)


def game_line(plan: MatchPlan, played: PlayedGame, verbose: int, pairing: bool) -> str:
    """One finished game: seating, durak, bouts, moves, forfeit; with ``-vv`` its moves."""
    o = played.outcome
    seats = " / ".join(plan.specs[a] for a in o.seats)
    who = "draw" if o.durak is None else f"durak {plan.specs[o.durak]}"
    label = f"{' vs '.join(plan.specs)}: " if pairing else ""
    line = (
        f"{label}game {o.game} (deal {o.game // plan.rules.players}): {seats}: {who}, "
        f"{o.bouts} bouts, {o.moves} moves"
    )
    if o.forfeit is not None:
        line += (
            f"; forfeit by {plan.specs[o.seats[o.forfeit.seat]]} ({o.forfeit.fault}: "
            f"{o.forfeit.message})"
        )
    if verbose > 1:
        line += "\n    " + " ".join(played.actions)
    return line


def drive_run(
    run: Run,
    header: tuple[str, ...],
    out: Console,
    *,
    quiet: bool,
    verbose: int,
    backend: Callable[[], Backend | None],
    pairing: bool = False,
) -> Driven:
    """:func:`drive` a :class:`~durak.arena.runs.run.Run` (``match``, ``tournament``,
    ``grid``, ``exploit``'s evaluation): a step per game, its line with ``--verbose``."""
    notes = tuple(f"note: {n}" for n in run.notes)
    if run.resumed:
        notes += (f"resuming: {run.resumed} of {run.total} games already in {run.log}",)

    def loop(opened: Backend | None) -> Generator[Step, None, None]:
        assert opened is not None  # a run always plays on a backend
        for p, played in run.play(opened):
            yield Step(1, game_line(run.plans[p], played, verbose, pairing) if verbose else None)

    job = Job(header, run.total, run.resumed, "games", tuple(run.resolutions), notes)
    try:
        return drive(job, out, loop, quiet=quiet, backend=backend)
    finally:
        run.close()


def finish(
    run: Run,
    driven: Driven,
    out: Console,
    outputs: Outputs,
    rows: list[dict[str, Any]],
    report: dict[str, Any],
) -> None:
    """Write the ``--csv`` ``rows`` and the ``--json`` ``report`` (which says whether the
    run was interrupted), the log line, and close the run (:meth:`Driven.close`: after a
    stop, how to resume)."""
    with user_errors():
        outputs.write(rows, {**report, "interrupted": driven.stopped is not None})
    played = sum(r.games for r in run.results()) - run.resumed
    if run.log is not None:
        out.print(f"log: {run.log} ({run.resumed + played} games, {run.resumed} resumed)")
    keep = "pass --log FILE to keep games across runs"
    if run.log is not None:
        keep = f"they are in {run.log}; run the same command with --resume to finish"
    driven.close(out, f"{run.resumed + played} of {run.total} games finished; {keep}")
