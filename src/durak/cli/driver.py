"""Running a :class:`~durak.arena.runs.run.Run` at the command line: seed, progress bar, one line
per game when verbose, Ctrl-C and SIGTERM, a log that cannot be written, and the files
written with ``--json``/``--csv`` (checked before the first game, so a bad path, or a file
that exists without ``--force``, fails at once; when one of them is standard output,
everything else goes to standard error)."""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import attrs
import typer
from rich.console import Console

from durak.arena.gamelog.files import logged_seed
from durak.arena.play.match import MatchPlan, PlayedGame
from durak.arena.play.referee import Referee
from durak.arena.runs.backends import open_backend
from durak.arena.runs.interface import Backend, BackendError
from durak.arena.runs.run import Run
from durak.arena.runs.signals import Terminated, sigterm_interrupts
from durak.cli.errors import INTERRUPTED, TERMINATED, USAGE, describe, error, user_errors
from durak.cli.option_groups import option_group
from durak.cli.options import (
    Address,
    BackendName,
    BackendOption,
    Confidence,
    CsvFile,
    Force,
    FullInformation,
    Games,
    Jobs,
    JsonFile,
    Log,
    MoveTimeout,
    OpenWorld,
    Quiet,
    Resume,
    Seed,
    UsageError,
    Verbose,
    check_confidence,
    check_timeout,
    choose_seed,
)
from durak.cli.progress import GameProgress, wanted
from durak.cli.render import timing_line
from durak.files import Existing, check_target, write_atomic
from durak.rules import Visibility


def visibility_label(visibility: Visibility) -> str:
    """`` · open world``, `` · full information`` or nothing, for the rules line."""
    return {False: "", True: " · open world", "full": " · full information"}[visibility]


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


@option_group
@attrs.frozen
class RunSettings:
    """The run options of ``match``, ``tournament`` and ``grid``, declared once and
    checked (expanded into each command by :func:`~durak.cli.option_groups.expand`)."""

    games: Games = 100
    seed: Seed = None
    jobs: Jobs = None
    backend: BackendOption = BackendName.local
    address: Address = None
    open_world: OpenWorld = False
    full_information: FullInformation = False
    move_timeout: MoveTimeout = None
    log: Log = None
    resume: Resume = False
    confidence: Confidence = 0.98
    verbose: Verbose = 0
    quiet: Quiet = False

    def __attrs_post_init__(self) -> None:
        check_confidence(self.confidence)
        check_timeout(self.move_timeout)
        if self.resume and self.log is None:
            raise UsageError("--resume needs --log FILE, the log of the run to continue")
        if self.open_world and self.full_information:
            raise UsageError("--full-information shows every hand already; drop --open-world")
        if self.address is not None and self.backend is not BackendName.ray:
            raise UsageError("--address is for --backend ray (the cluster to join)")
        if self.address is not None and self.jobs is not None:
            raise UsageError(
                "--jobs sets the CPUs of a local Ray instance; a cluster at --address "
                "plays on all of its CPUs"
            )

    def the_seed(self) -> int:
        """``--seed``; when resuming without it, the log's; else a random seed."""
        logged = self._logged_seed()
        return choose_seed(self.seed) if logged is None else logged

    def _logged_seed(self) -> int | None:
        if self.seed is None and self.resume and self.log is not None:
            return logged_seed(self.log)
        return None

    def seed_line(self, seed: int) -> str:
        """How to repeat the run of :meth:`the_seed` ``seed``: given, from the log, or
        random."""
        source = None if self._logged_seed() is None or self.log is None else str(self.log)
        return seed_line(seed, self.seed, source)

    @property
    def visibility(self) -> Visibility:
        """What the players see: ``--open-world``, ``--full-information`` or neither."""
        return "full" if self.full_information else self.open_world

    def referee(self) -> Referee:
        """Every fault forfeits, with ``--move-timeout`` as the move limit."""
        return Referee(self.move_timeout)

    def workers(self) -> int:
        """``--jobs``, by default the number of cores."""
        return self.jobs or os.cpu_count() or 1

    def run(self, plans: list[MatchPlan]) -> Run:
        """The run of ``plans`` with these settings (reads the log when resuming)."""
        return Run(plans, log=self.log, resume=self.resume)

    def open_backend(self) -> Backend:
        """The backend of ``--backend``, ``--jobs`` and ``--address``, started or joined;
        :class:`~durak.arena.runs.interface.BackendError` (a ``ValueError``) names a problem."""
        return open_backend(self.backend.value, jobs=self.workers(), address=self.address)


def seed_line(seed: int, given: int | None, source: str | None = None) -> str:
    """How to repeat the run: ``seed`` was ``given``, read from ``source`` (a log or a
    checkpoint), or drawn at random."""
    if given is not None:
        return f"seed {seed}"
    if source is not None:
        return f"seed {seed} (from {source})"
    return f"seed {seed} (random; repeat with --seed {seed})"


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


@attrs.frozen
class Stopped:
    """Why a run ended before all its games: a signal (``SIGINT``, ``SIGTERM``) or an
    ``error`` writing the log.  The finished games are kept either way."""

    reason: str
    exit_code: int


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
    out.print(f"runs on: {backend.where_for(to_play)}")
    with backend, GameProgress(run.total, run.resumed, wanted(settings.quiet), out) as bar:
        try:
            with sigterm_interrupts(), closing(run.play(backend)) as games:  # closed on stop
                for p, played in games:
                    bar.advance()
                    if settings.verbose:
                        bar.print(game_line(run.plans[p], played, settings.verbose, pairing))
        except Terminated:
            return Stopped("terminated (SIGTERM)", TERMINATED)
        except KeyboardInterrupt:
            return Stopped("interrupted", INTERRUPTED)
        except (OSError, BackendError) as e:  # a full disk, say, or Ray lost its workers
            return Stopped(f"error: {describe(e)}", USAGE)
    return None


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
    resume, and its exit code (130 for Ctrl-C, 143 for SIGTERM, 2 for a log that could not
    be written)."""
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
        line = f"{stopped.reason}: {done} of {run.total} games finished; {keep}"
        if stopped.exit_code == USAGE:
            error(line.removeprefix("error: "))
        else:
            stderr_console().print(line)
        raise typer.Exit(stopped.exit_code)


@option_group
@attrs.frozen
class ReportFiles:
    """The ``--csv``, ``--json`` and ``--force`` options of ``match``, ``tournament`` and
    ``grid``, declared once (expanded into each command by
    :func:`~durak.cli.option_groups.expand`); :meth:`Outputs.open` checks them."""

    csv_file: CsvFile = None
    json_file: JsonFile = None
    force: Force = False

    def __attrs_post_init__(self) -> None:
        csv_file, json_file = self.csv_file, self.json_file
        if csv_file is not None and json_file is not None and str(csv_file) == str(json_file):
            raise UsageError("--csv and --json name the same file")


@attrs.frozen
class Outputs:
    """The ``--csv`` and ``--json`` files of a command, checked before any game is played
    and written atomically at the end (``-``: standard output, which only one of them may
    use).  A regular file already there is replaced only with ``--force``, or by the run it
    continues (``--resume``); a FIFO, a device or a folder in its place is refused
    (:mod:`durak.files`)."""

    csv_path: Path | None
    json_path: Path | None
    existing: Existing = "refuse"

    @classmethod
    def open(cls, files: ReportFiles, resume: bool = False) -> Outputs:
        """Check both targets of ``files``, before any game; :class:`~durak.files.FileError`
        names a path that cannot be written, or a file that exists (without ``--force``
        or ``resume``)."""
        existing: Existing = "replace" if files.force or resume else "refuse"
        for path in (files.csv_file, files.json_file):
            if path is not None and str(path) != "-":
                check_target(path, existing)
        return cls(files.csv_file, files.json_file, existing)

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
