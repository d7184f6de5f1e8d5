"""The schedule of a Deep Monte-Carlo training run, as DouZero's ``douzero/dmc`` keeps its
training loop beside the learner (Zha et al., ICML 2021): rounds until a goal, periodic
evaluation on fixed deals, a CSV of the evaluations, and checkpoints.

The run stops after ``episodes`` episodes or ``hours`` hours of training (whichever comes
first; both count across resumes).  Every ``interval`` episodes the current network plays
``eval_games`` games against each of :data:`EVAL_OPPONENTS` on the same deals (duplicate
format, from ``derive_seed(seed, -7)``, a stream no training episode deals from), and a row
of :data:`CSV_COLUMNS` (and ``expert_loss``, the distillation term's cross-entropy, in a
run with ``expert``: :func:`csv_columns`) is appended to the CSV.  A checkpoint
(``OUT.ckpt``) and the model (``OUT``) are written every :data:`CHECKPOINT_SECONDS` by
:meth:`DmcSchedule.rounds`, and by :meth:`DmcSchedule.save` when the caller stops (the
goal, Ctrl-C, SIGTERM), each atomically (:mod:`durak.files`: a failed write leaves the
old file and no temporary one).

The matches are played by a :class:`Match` the caller gives (the CLI plays them on the
arena, which ``durak.learn`` does not import), and the caller may hold interrupts during a
round (``hold``), so that a checkpoint never holds half a round.
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

import attrs

from durak.files import FileError, open_stream, read_source
from durak.learn.dmc.learner import DmcTrainer, RoundStats, Workers
from durak.learn.dmc.net import save_model
from durak.seeding import derive_seed

__all__ = [
    "CHECKPOINT_SECONDS",
    "CSV_COLUMNS",
    "EVAL_OPPONENTS",
    "MAX_CSV_BYTES",
    "DmcPlan",
    "DmcSchedule",
    "EvaluationCsv",
    "Match",
    "Progress",
    "csv_columns",
    "read_evaluations",
]

#: The fixed opponents of every evaluation.
EVAL_OPPONENTS = ("greedy", "lowest")
#: Seconds between checkpoints.
CHECKPOINT_SECONDS = 300.0
#: The largest CSV of evaluations read back (for the learning curve).
MAX_CSV_BYTES = 256 << 20
#: The CSV header: one row per evaluation.
CSV_COLUMNS = (
    "episodes",
    "rounds",
    "samples",
    "hours",
    "loss",
    *(f"win_{o}" for o in EVAL_OPPONENTS),
    "episodes_per_second",
    "decisions_per_second",
)

#: The column of a run with ``expert``: the mean cross-entropy of its last round's steps.
EXPERT_COLUMN = "expert_loss"


def csv_columns(trainer: DmcTrainer) -> tuple[str, ...]:
    """The CSV header of ``trainer``'s run: :data:`CSV_COLUMNS`, then
    :data:`EXPERT_COLUMN` if it learns from an expert (so other runs' CSVs are as before)."""
    return CSV_COLUMNS + ((EXPERT_COLUMN,) if trainer.expert is not None else ())


class Match(Protocol):
    """Plays the evaluation games."""

    def __call__(self, specs: list[str], games: int, seed: int) -> float:
        """The win rate of seat 0's agent (``specs[0]``) over ``games`` games of ``specs``
        (one spec per seat) dealt from ``seed``."""
        ...


@attrs.frozen
class DmcPlan:
    """Where a run goes and what it writes: the goal (``episodes``, ``hours``: either may
    be ``None``, not both), the episodes between evaluations, the games against each
    evaluation opponent, the model file ``out`` and the evaluations' CSV."""

    episodes: int | None
    hours: float | None
    interval: int
    eval_games: int
    out: Path
    csv_path: Path

    @property
    def checkpoint(self) -> Path:
        """Where the checkpoint goes: ``OUT.ckpt``."""
        return self.out.with_name(self.out.name + ".ckpt")

    def done(self, episodes: int, seconds: float) -> bool:
        """Whether training has reached ``episodes`` or ``hours``."""
        return (self.episodes is not None and episodes >= self.episodes) or (
            self.hours is not None and seconds >= self.hours * 3600
        )


@attrs.frozen
class Progress:
    """One finished round: its statistics, and the CSV row of the evaluation that followed
    it (``None`` if none was due)."""

    stats: RoundStats
    row: dict[str, Any] | None


class EvaluationCsv:
    """The CSV of the evaluations, appended to across resumes (the header, ``columns``,
    only in a new or empty file), else replaced; each row is flushed, so a stopped run
    keeps the rows so far.  :class:`~durak.files.FileError` for a path that is not a
    regular file."""

    def __init__(self, path: Path, append: bool, columns: tuple[str, ...] = CSV_COLUMNS) -> None:
        self.path = path
        self.columns = columns
        raw = open_stream(path, "append" if append else "replace")
        fresh = not append or raw.seek(0, io.SEEK_END) == 0
        self._file = io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8", newline="")
        self._writer = csv.writer(self._file, lineterminator="\n")
        if fresh:
            self.write(list(columns))

    def write(self, row: list[Any]) -> None:
        """Append ``row``; :class:`~durak.files.FileError` if it cannot be written."""
        try:
            self._writer.writerow(row)
            self._file.flush()
        except OSError as e:
            raise FileError(self.path, f"cannot write: {e.strerror or e}") from None

    def close(self) -> None:
        """Close the file (a row that could not be written was reported by :meth:`write`)."""
        with contextlib.suppress(OSError):
            self._file.close()


def read_evaluations(path: Path) -> list[dict[str, float]]:
    """The rows of the evaluations' CSV in ``path`` as numbers (empty cells left out);
    :class:`~durak.files.FileError` unless it is a regular file of at most
    :data:`MAX_CSV_BYTES`."""
    text = read_source(path, MAX_CSV_BYTES).decode("utf-8")
    return [
        {k: float(v) for k, v in r.items() if v not in ("", None)}
        for r in csv.DictReader(io.StringIO(text, newline=""))
    ]


class DmcSchedule:
    """The schedule of ``trainer``'s run toward ``plan``: evaluations played by ``match``,
    and the model written with ``meta`` in its record; see the module doc."""

    def __init__(
        self, trainer: DmcTrainer, plan: DmcPlan, match: Match, meta: dict[str, Any]
    ) -> None:
        self.trainer, self.plan, self.match, self.meta = trainer, plan, match, meta
        #: The deals of every evaluation: no training episode deals from this stream.
        self.eval_seed = derive_seed(trainer.seed, -7)

    @property
    def done(self) -> bool:
        """Whether the run has reached its goal."""
        return self.plan.done(self.trainer.episodes, self.trainer.seconds)

    def rounds(
        self,
        workers: Workers,
        log: EvaluationCsv,
        hold: Callable[[], AbstractContextManager[object]] = contextlib.nullcontext,
    ) -> Iterator[Progress]:
        """Play rounds on ``workers`` until the goal, each inside ``hold()``; evaluate every
        ``interval`` episodes and after the last round (a row in ``log``), and checkpoint
        every :data:`CHECKPOINT_SECONDS`.  The caller saves at the end (:meth:`save`)."""
        trainer, plan = self.trainer, self.plan
        next_eval = (trainer.episodes // plan.interval + 1) * plan.interval
        last_save = time.monotonic()
        rate_from = (trainer.episodes, trainer.seconds)
        decisions = 0
        while not self.done:
            with hold():  # a checkpoint is always at a round's end
                stats = trainer.round(workers)
            decisions += stats.decisions
            row = None
            if trainer.episodes >= next_eval or self.done:
                row = self.evaluate(stats.loss, rate_from, decisions)
                log.write([row[c] for c in log.columns])
                next_eval = (trainer.episodes // plan.interval + 1) * plan.interval
                rate_from = (trainer.episodes, trainer.seconds)
                decisions = 0
            if time.monotonic() - last_save >= CHECKPOINT_SECONDS:
                self.save()
                last_save = time.monotonic()
            yield Progress(stats, row)

    def save(self) -> None:
        """Write the checkpoint, then the model (atomically: a stopped or failed write
        leaves the old file whole; :class:`~durak.files.FileError` names the file)."""
        self.trainer.save_checkpoint(self.plan.checkpoint)
        save_model(self.plan.out, self.trainer.model(self.meta))

    def evaluate(self, loss: float, since: tuple[int, float], decisions: int) -> dict[str, Any]:
        """The CSV row of an evaluation of the current network, whose wall time counts as
        training time; the speeds are over the ``decisions`` since ``since`` (episodes,
        seconds)."""
        trainer, plan = self.trainer, self.plan
        started = time.perf_counter()
        probe = plan.out.with_name(plan.out.name + ".eval")
        save_model(probe, trainer.model())
        row: dict[str, Any] = {
            "episodes": trainer.episodes,
            "rounds": trainer.rounds,
            "samples": trainer.samples,
            "hours": round(trainer.seconds / 3600, 4),
            "loss": _cell(loss),
        }
        if trainer.expert is not None:
            row[EXPERT_COLUMN] = _cell(trainer.expert.mean_loss)
        try:
            for opponent in EVAL_OPPONENTS:
                specs = [f"dmc:path={probe}"] + [opponent] * (trainer.rules.players - 1)
                row[f"win_{opponent}"] = f"{self.match(specs, plan.eval_games, self.eval_seed):.4f}"
        finally:
            probe.unlink(missing_ok=True)
            trainer.seconds += time.perf_counter() - started
        seconds = max(trainer.seconds - since[1], 1e-9)
        row["episodes_per_second"] = f"{(trainer.episodes - since[0]) / seconds:.1f}"
        row["decisions_per_second"] = f"{decisions / seconds:.0f}"
        return row


def _cell(loss: float) -> str:
    """A loss in the CSV: five decimals, empty for ``nan`` (no step yet)."""
    return "" if math.isnan(loss) else f"{loss:.5f}"
