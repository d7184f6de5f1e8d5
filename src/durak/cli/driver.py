"""Running a :class:`~durak.arena.run.Run` at the command line: seed, progress bar, one line
per game when verbose, Ctrl-C, and the files written with ``--json``/``--csv``."""

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

from durak.arena.logs import logged_seed
from durak.arena.match import MatchPlan, PlayedGame
from durak.arena.referee import Referee
from durak.arena.run import Run
from durak.cli.errors import INTERRUPTED
from durak.cli.options import UsageError, check_confidence, check_timeout, choose_seed
from durak.cli.progress import GameProgress, wanted
from durak.cli.render import timing_line


def stdout_console() -> Console:
    """A console for results: plain (no colour, wide tables) when not a terminal."""
    return Console(width=None if sys.stdout.isatty() else 200, markup=False, highlight=False,
                   soft_wrap=True)


def stderr_console() -> Console:
    """A console for notes and messages."""
    return Console(stderr=True, markup=False, highlight=False, soft_wrap=True,
                   width=None if sys.stderr.isatty() else 200)


@attrs.frozen
class RunSettings:
    """The run options of ``match``, ``tournament`` and ``grid``, checked."""

    games: int
    seed: int | None
    jobs: int | None
    open_world: bool
    move_timeout: float | None
    log: Path | None
    resume: bool
    confidence: float
    verbose: int
    quiet: bool

    def __attrs_post_init__(self) -> None:
        check_confidence(self.confidence)
        check_timeout(self.move_timeout)
        if self.resume and self.log is None:
            raise UsageError("--resume needs --log FILE, the log of the run to continue")

    def the_seed(self) -> int:
        """``--seed``; when resuming without it, the log's; else a random seed."""
        if self.seed is None and self.resume and self.log is not None:
            logged = logged_seed(self.log)
            if logged is not None:
                return logged
        return choose_seed(self.seed)

    def referee(self) -> Referee:
        """Every fault forfeits, with ``--move-timeout`` as the move limit."""
        return Referee(self.move_timeout)

    def workers(self) -> int:
        """``--jobs``, by default the number of cores."""
        return self.jobs or os.cpu_count() or 1

    def run(self, plans: list[MatchPlan]) -> Run:
        """The run of ``plans`` with these settings (reads the log when resuming)."""
        return Run(plans, jobs=self.workers(), log=self.log, resume=self.resume)


def seed_line(seed: int, given: int | None) -> str:
    """How to repeat the run."""
    if given is not None:
        return f"seed {seed}"
    return f"seed {seed} (random; repeat with --seed {seed})"


def game_line(plan: MatchPlan, played: PlayedGame, verbose: int, pairing: bool) -> str:
    """One finished game: seating, durak, bouts, moves, forfeit; with ``-vv`` its moves."""
    o = played.outcome
    seats = " / ".join(plan.specs[a] for a in o.seats)
    who = "draw" if o.durak is None else f"durak {plan.specs[o.durak]}"
    label = f"{' vs '.join(plan.specs)}: " if pairing else ""
    line = (f"{label}game {o.game} (deal {o.game // plan.rules.players}): {seats}: {who}, "
            f"{o.bouts} bouts, {o.moves} moves")  # fmt: skip
    if o.forfeit is not None:
        line += f"; forfeit by {plan.specs[o.seats[o.forfeit.seat]]} ({o.forfeit.fault}: " \
                f"{o.forfeit.message})"  # fmt: skip
    if verbose > 1:
        line += "\n    " + " ".join(played.actions)
    return line


def drive(run: Run, settings: RunSettings, out: Console, pairing: bool = False) -> bool:
    """Play ``run`` with a progress bar; True if Ctrl-C stopped it (finished games kept)."""
    err = stderr_console()
    for note in run.notes:
        err.print(f"note: {note}")
    if run.resumed:
        err.print(f"resuming: {run.resumed} of {run.total} games already in {run.log}")
    with GameProgress(run.total, run.resumed, wanted(settings.quiet), out) as bar:
        try:
            with closing(run.play()) as games:  # closed at once on Ctrl-C
                for p, played in games:
                    bar.advance()
                    if settings.verbose:
                        bar.print(game_line(run.plans[p], played, settings.verbose, pairing))
        except KeyboardInterrupt:
            return True
    return False


def finish(run: Run, settings: RunSettings, out: Console, interrupted: bool) -> None:
    """The timing and log lines; after Ctrl-C, the message and exit code 130."""
    played = sum(r.games for r in run.results()) - run.resumed
    out.print(timing_line(run.wall_seconds, played, run.jobs_used))
    if run.log is not None:
        out.print(f"log: {run.log} ({run.resumed + played} games, {run.resumed} resumed)")
    if interrupted:
        done = run.resumed + played
        keep = "pass --log FILE to keep games across runs"
        if run.log is not None:
            keep = f"they are in {run.log}; run the same command with --resume to finish"
        stderr_console().print(f"interrupted: {done} of {run.total} games finished; {keep}")
        raise typer.Exit(INTERRUPTED)


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON in ``path`` (``-``: standard output)."""
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if str(path) == "-":
        sys.stdout.write(text)
    else:
        path.write_text(text, encoding="utf-8")


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """``rows`` as CSV with a header in ``path`` (``-``: standard output)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else [], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    if str(path) == "-":
        sys.stdout.write(buffer.getvalue())
    else:
        path.write_text(buffer.getvalue(), encoding="utf-8")
