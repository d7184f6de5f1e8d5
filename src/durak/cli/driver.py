"""Running a :class:`~durak.arena.runs.run.Run` at the command line (``match``,
``tournament``, ``grid``): the backend, a progress bar, one line per game when verbose,
the stop path of :mod:`durak.cli.stopping` (Ctrl-C, SIGTERM, a log that cannot be
written, a backend that lost its workers), and at the end the ``--json``/``--csv``
reports, the timing line and, after a stop, how to resume.

The options are :mod:`durak.cli.run_options`' groups; the report files are checked before
the first game (:meth:`~durak.cli.run_options.ReportFiles.open`), so a bad path, or a file
that exists without ``--force``, fails at once.
"""

from __future__ import annotations

from contextlib import closing
from typing import Any

from rich.console import Console

from durak.arena.play.match import MatchPlan, PlayedGame
from durak.arena.runs.interface import BackendError
from durak.arena.runs.run import Run
from durak.cli.console import Outputs, print_resolutions, stderr_console, timing_line
from durak.cli.errors import user_errors
from durak.cli.progress import GameProgress, wanted
from durak.cli.run_options import RunSettings
from durak.cli.stopping import Stopped, stoppable


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


def drive(run: Run, settings: RunSettings, out: Console, pairing: bool = False) -> Stopped | None:
    """Open the backend and play ``run`` on it with a progress bar; ``None`` if every game
    was played, else why not.  A backend that cannot start is a one-line error, exit 2."""
    err = stderr_console()
    for note in run.notes:
        err.print(f"note: {note}")
    if run.resumed:
        err.print(f"resuming: {run.resumed} of {run.total} games already in {run.log}")
    try:
        with user_errors():
            backend = settings.open_backend()
    except BaseException:
        run.close()
        raise
    to_play = run.total - run.resumed
    print_resolutions(out.print, run.resolutions)
    out.print(f"runs on: {backend.where_for(to_play)}")
    with (
        backend,
        GameProgress(run.total, run.resumed, wanted(settings.quiet), out) as bar,
        stoppable((OSError, BackendError)) as stop,  # a full disk, say, or Ray lost workers
        closing(run.play(backend)) as games,  # closed on stop
    ):
        for p, played in games:
            bar.advance()
            if settings.verbose:
                bar.print(game_line(run.plans[p], played, settings.verbose, pairing))
    return stop.stopped


def finish(
    run: Run,
    settings: RunSettings,
    out: Console,
    stopped: Stopped | None,
    outputs: Outputs,
    rows: list[dict[str, Any]],
    report: dict[str, Any],
) -> None:
    """Write the ``--csv`` ``rows`` and the ``--json`` ``report`` (which says whether the
    run was interrupted), then the timing and log lines; after a stop, why and how to
    resume, and its exit code (:class:`~durak.cli.stopping.Stopped`)."""
    with user_errors():
        outputs.write(rows, {**report, "interrupted": stopped is not None})
    played = sum(r.games for r in run.results()) - run.resumed
    out.print(timing_line(run.wall_seconds, played, run.workers_used))
    if run.log is not None:
        out.print(f"log: {run.log} ({run.resumed + played} games, {run.resumed} resumed)")
    if stopped is not None:
        done = run.resumed + played
        keep = "pass --log FILE to keep games across runs"
        if run.log is not None:
            keep = f"they are in {run.log}; run the same command with --resume to finish"
        raise stopped.exit(f"{done} of {run.total} games finished; {keep}")
