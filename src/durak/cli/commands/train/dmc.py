"""``durak train dmc``: the options of Deep Monte-Carlo training and what it prints.

The schedule (rounds until ``--games`` or ``--hours``, an evaluation every ``--interval``
episodes, the CSV, checkpoints every five minutes) is :mod:`durak.learn.dmc.schedule`'s;
this module checks the options, opens the backend of the actors (``--jobs``,
``--backend``), plays the evaluations on the arena, and turns Ctrl-C and SIGTERM
(:mod:`durak.cli.stopping`) into a save at the end of the round in progress, so a
checkpoint never holds half a round; ``--resume`` continues from the checkpoint exactly
where it stopped.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Generator, Mapping
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from rich.console import Console

from durak.agents import parse_spec
from durak.agents.specs import params_of, typed_params
from durak.arena.runs.interface import Backend
from durak.arena.runs.pool import LocalPool
from durak.arena.runs.run import run_match
from durak.arena.runs.signals import hold_interrupts
from durak.cli.commands.train.opponents import dmc_opponents
from durak.cli.commands.train.output import draw_curve
from durak.cli.commands.train.request import TrainRequest
from durak.cli.console import duration, seed_line, stderr_console, stdout_console
from durak.cli.driver import Job, Step, drive
from durak.cli.errors import user_errors
from durak.cli.option_groups import option_group
from durak.cli.options import (
    UsageError,
    choose_seed,
    describe_rules,
    rules_flags,
)
from durak.cli.run_options import RunOptions
from durak.files import FilePlan, Input
from durak.learn.dmc.settings import DmcSettings
from durak.learn.torch_support import require_extra
from durak.rules import Rules

if TYPE_CHECKING:
    from durak.learn.dmc.schedule import DmcPlan

#: The help panel of the options only ``durak train dmc`` takes.
DMC = "Deep Monte-Carlo (dmc)"


@option_group
@attrs.frozen
class DmcOptions:
    """The options only ``durak train dmc`` takes: where its actors run (``where``:
    ``--jobs``, ``--backend``, ``--address``, :class:`~durak.cli.run_options.RunOptions`).
    Its goal (``--games``, ``--hours``, ...) is the request's
    :class:`~durak.cli.learning.LearningGoal`."""

    where: RunOptions = attrs.field(factory=RunOptions)


def dmc_settings(spec: str) -> DmcSettings:
    """The settings of ``dmc:key=value,...``."""
    name, raw = parse_spec(spec)
    values: dict[str, Any] = typed_params(name, params_of(DmcSettings), raw)
    settings = DmcSettings(**values)
    settings.check()
    return settings


@attrs.frozen
class DmcRun:
    """A DMC training run that reached its goal: its master ``seed`` (given, drawn or read
    from the checkpoint), ``rules``, the model file ``out`` and the ``episodes`` trained."""

    seed: int
    rules: Rules
    out: Path
    episodes: int


def train_dmc(request: TrainRequest, options: DmcOptions) -> None:
    """Train (or resume) the DMC run of ``request``, then print the ``durak match``
    command that evaluates the model; see the module doc."""
    console = stdout_console()
    run = run_dmc(request, options, console)
    others = ["greedy"] * (run.rules.players - 1)
    words = ["durak", "match", f"dmc:path={run.out}", *others, "--games", "1000"]
    words += ["--seed", str(run.seed + 1), *rules_flags(run.rules)]
    console.print(f"evaluate: {shlex.join(words)}")


def run_dmc(request: TrainRequest, options: DmcOptions, console: Console) -> DmcRun:
    """Train (or resume) the DMC run of ``request`` with ``options``, printing on
    ``console``, until its goal; a bad option is one line, exit 2, and a stop (Ctrl-C,
    SIGTERM, an error the run survives) saves the run and exits with its code."""
    with user_errors():
        require_extra("dmc")  # before the modules that import numpy and torch
    from durak.learn.dmc.checkpoint import checkpoint_seed  # noqa: PLC0415 - torch
    from durak.learn.dmc.learner import DmcTrainer  # noqa: PLC0415
    from durak.learn.dmc.schedule import (  # noqa: PLC0415
        DmcSchedule,
        EvaluationCsv,
        csv_columns,
    )

    seed = request.seed
    with user_errors():
        plan, rules, opponents, settings = _checked(request, options)
        resume = request.goal.resume
        logged = checkpoint_seed(plan.checkpoint) if resume and seed is None else None
        the_seed = choose_seed(seed) if logged is None else logged
        trainer = DmcTrainer(rules, opponents, the_seed, settings)
        if resume:
            trainer.load_checkpoint(plan.checkpoint)
        log = EvaluationCsv(plan.csv_path, resume, csv_columns(trainer))

    def match(specs: list[str], games: int, seed: int) -> float:
        result = run_match(rules, specs, games=games, seed=seed, backend=LocalPool(1))
        return result.win_rate(0)

    meta = {"command": _command(request.spec, opponents, plan, rules, the_seed)}
    schedule = DmcSchedule(trainer, plan, match, meta)
    header = (
        f"train: {request.spec} vs {','.join(opponents)} · {_goal(plan)} · "
        f"{seed_line(the_seed, seed, None if logged is None else plan.checkpoint.name)} · "
        f"evaluation every {plan.interval:,} episodes",
        f"rules: {describe_rules(rules)}",
    )
    notes: tuple[str, ...] = ()
    if resume:
        notes = (f"resuming: {trainer.episodes:,} episodes, {duration(trainer.seconds)}",)
    started = trainer.episodes

    def loop(workers: Backend | None) -> Generator[Step, None, None]:
        assert workers is not None  # the actors run on a backend, local or Ray
        with closing(log):
            for done in schedule.rounds(workers, log, hold_interrupts):
                yield Step(settings.round, None if done.row is None else _line(done.row, plan))

    # A worker lost, a file that cannot be written: the round is undone, the rest is kept
    # (if it can be saved).
    driven = drive(
        Job(header, plan.episodes, trainer.episodes, "episodes", notes=notes),
        console,
        loop,
        quiet=request.quiet,
        backend=options.where.open_backend,
    )
    with user_errors():
        schedule.save()
    _warn_unfaded(trainer.model().meta)
    written = [str(plan.out), str(plan.checkpoint), str(plan.csv_path)]
    title = f"durak train {request.spec} vs {','.join(opponents)} (seed {the_seed})"
    png = request.goal.png
    if png is not None and draw_curve(png, _curve(plan, title)):
        written.append(str(png))
    console.print(
        f"trained: {trainer.episodes:,} episodes, {trainer.samples:,} samples in "
        f"{duration(trainer.seconds)} of training"
    )
    console.print(f"wrote: {', '.join(written)}")
    driven.close(
        console,
        f"saved after {trainer.episodes:,} episodes; run the same command with --resume "
        "to continue",
        rate=(trainer.episodes - started, "episodes"),
    )
    return DmcRun(the_seed, rules, plan.out, trainer.episodes)


def _warn_unfaded(meta: Mapping[str, Any]) -> None:
    """A ``warning:`` line on standard error if the model was saved before its privileged
    inputs had faded out (its play then lacks inputs it still leaned on)."""
    coefficient = meta.get("privileged_coefficient", 0.0)
    if coefficient > 0:
        stderr_console().print(
            f"warning: saved before the privileged inputs faded out (coefficient "
            f"{coefficient:.4f}, recorded in the model's meta); the model plays without them"
        )


def _checked(
    request: TrainRequest, options: DmcOptions
) -> tuple[DmcPlan, Rules, tuple[str, ...], DmcSettings]:
    """The plan, rules, opponents and settings of the run, every option checked
    (:class:`UsageError`, ``SpecError``, :class:`~durak.files.FileError`) and every file
    of the run checked writable before any training."""
    from durak.learn.dmc.schedule import DmcPlan  # noqa: PLC0415 - needs numpy

    options.where.check()
    goal = request.goal
    episodes, hours = goal.episodes, goal.hours
    if episodes is None and hours is None:
        raise UsageError("durak train dmc needs --games N or --hours H (or both)")
    if (episodes is not None and episodes <= 0) or (hours is not None and not hours > 0):
        raise UsageError("--games and --hours must be positive")
    interval = 50_000 if goal.interval is None else goal.interval
    if interval <= 0:
        raise UsageError(f"--interval must be positive, got {interval}")
    rules = request.rules_options.rules(request.players or 2, request.players)
    if str(request.csv_path) == "-":
        raise UsageError("--csv -: dmc appends its CSV across resumes; give it a file")
    files = request.files(checkpoint=True) + _expert_input(request.spec)
    opponents = dmc_opponents(request.vs, rules)
    settings = dmc_settings(request.spec)
    plan = DmcPlan(episodes, hours, interval, goal.curve_games, request.out, request.csv_path)
    if goal.resume and not plan.checkpoint.exists():
        raise UsageError(f"--resume: no checkpoint {plan.checkpoint} to continue from")
    if not goal.resume and plan.out.is_file() and not request.force:
        raise UsageError(f"--out {plan.out} exists; pass --force to overwrite it, or --resume")
    files.check()
    return plan, rules, opponents, settings


def _expert_input(spec: str) -> FilePlan:
    """The files the learner spec reads: its start network (``init=``) and its expert
    dataset (``expert=``)."""
    _, raw = parse_spec(spec)
    read = [Input(raw[key], f"the learner's {key}=") for key in ("init", "expert") if raw.get(key)]
    return FilePlan.of(inputs=read)


def _goal(plan: DmcPlan) -> str:
    parts = []
    if plan.episodes is not None:
        parts.append(f"{plan.episodes:,} episodes")
    if plan.hours is not None:
        parts.append(f"{plan.hours:g} h")
    return " or ".join(parts)


def _command(spec: str, opponents: tuple[str, ...], plan: DmcPlan, rules: Rules, seed: int) -> str:
    """The ``durak train`` command of the run, for the model's record."""
    goal = ["--games", str(plan.episodes)] if plan.episodes is not None else []
    goal = goal or ["--hours", f"{plan.hours:g}"]
    words = ["durak", "train", spec, "--vs", ",".join(opponents), *goal]
    players = [] if rules.players == 2 else ["--players", str(rules.players)]
    words += ["--seed", str(seed), *players, *rules_flags(rules)]
    return shlex.join([*words, "--out", plan.out.name])


def _line(row: dict[str, Any], plan: DmcPlan) -> str:
    from durak.learn.dmc.schedule import EVAL_OPPONENTS  # noqa: PLC0415 - needs numpy

    wins = " · ".join(f"vs {o} {float(row[f'win_{o}']):.1%}" for o in EVAL_OPPONENTS)
    expert = f" · expert loss {row['expert_loss'] or '-'}" if "expert_loss" in row else ""
    return (
        f"episodes {row['episodes']:,} · {duration(float(row['hours']) * 3600)} · {wins} "
        f"({plan.eval_games} games each) · loss {row['loss'] or '-'}{expert} · "
        f"{row['episodes_per_second']} episodes/s"
    )


def _curve(plan: DmcPlan, title: str) -> Callable[[Path], bool]:
    """The drawing of the learning curve from every row of the CSV (earlier sessions
    included), for :func:`~durak.cli.commands.train.output.draw_curve`."""

    def draw(png: Path) -> bool:
        from durak.learn.dmc.schedule import EVAL_OPPONENTS, read_evaluations  # noqa: PLC0415
        from durak.learn.plot import evaluation_curve  # noqa: PLC0415

        points = read_evaluations(plan.csv_path)
        if points:
            evaluation_curve(points, EVAL_OPPONENTS, png, title)
        return bool(points)

    return draw
