"""``durak train dmc``: Deep Monte-Carlo training with actors on a backend, checkpoints,
``--resume``, periodic evaluation on fixed deals, a CSV and a learning curve.

The run stops after ``--games`` episodes or ``--hours`` hours of training (whichever
comes first; both count across resumes).  Every ``--interval`` episodes the current
network plays ``--eval-games`` games against each of ``greedy`` and ``lowest`` on the same
deals (duplicate format, from a seed of their own that no training episode uses), and a
CSV row and a line are written.  A checkpoint (``OUT.ckpt``) and the model (``OUT``) are
written every five minutes, on Ctrl-C or SIGTERM, and at the end; ``--resume`` continues
from the checkpoint exactly where it stopped.  Ctrl-C and SIGTERM take effect when the
round in progress ends (about a second), so a checkpoint never holds half a round.
"""

from __future__ import annotations

import csv
import math
import shlex
import time
from pathlib import Path
from typing import Any

import attrs
import typer

from durak.agents import Agent, make_agent, parse_spec
from durak.agents.faulty import FaultyAgent
from durak.agents.human import HumanAgent
from durak.agents.specs import params_of, typed_params
from durak.arena.runs.backend import BackendError
from durak.arena.runs.backends import open_backend
from durak.arena.runs.pool import LocalPool
from durak.arena.runs.run import run_match
from durak.arena.runs.signals import Terminated, hold_interrupts, sigterm_interrupts
from durak.cli.driver import seed_line, stderr_console, stdout_console
from durak.cli.errors import INTERRUPTED, TERMINATED, USAGE, describe, user_errors
from durak.cli.options import UsageError, choose_seed, describe_rules
from durak.cli.progress import GameProgress, wanted
from durak.cli.render import duration
from durak.cli.training_output import rules_flags
from durak.learn.dmc_settings import DmcSettings
from durak.rules import Rules
from durak.seeding import derive_seed

#: The fixed opponents of every evaluation.
EVAL_OPPONENTS = ("greedy", "lowest")
#: Seconds between checkpoints.
CHECKPOINT_SECONDS = 300.0
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


@attrs.frozen
class DmcRun:
    """The options of one ``durak train dmc`` command, checked."""

    spec: str
    opponents: tuple[str, ...]
    rules: Rules
    settings: DmcSettings
    episodes: int | None
    hours: float | None
    out: Path
    csv_path: Path
    png: Path | None
    interval: int
    eval_games: int
    resume: bool
    force: bool

    @property
    def checkpoint(self) -> Path:
        """Where the checkpoint goes: ``OUT.ckpt``."""
        return self.out.with_name(self.out.name + ".ckpt")

    def done(self, episodes: int, seconds: float) -> bool:
        """Whether training has reached ``--games`` or ``--hours``."""
        return (self.episodes is not None and episodes >= self.episodes) or (
            self.hours is not None and seconds >= self.hours * 3600
        )


def split_opponents(vs: list[str]) -> tuple[str, ...]:
    """The opponent specs of ``--vs`` values, each a comma-separated list in which a piece
    of the form ``key=value`` continues the spec before it: ``self,greedy`` is two specs,
    ``mcts:limit=5,samples=1`` one (an agent's name never holds ``=``).
    :class:`UsageError` for a parameter with no spec before it in its ``--vs``."""
    specs: list[str] = []
    for item in vs:
        started = len(specs)
        for piece in (p.strip() for p in item.split(",")):
            if not piece:
                continue
            if _is_parameter(piece):
                if len(specs) == started:
                    raise UsageError(f"--vs {item}: {piece!r} is a parameter of no agent")
                specs[-1] += f",{piece}"
            else:
                specs.append(piece)
    return tuple(specs)


def _is_parameter(piece: str) -> bool:
    """Whether ``piece`` is ``key=value`` (an ``=`` before any ``:``), not a spec."""
    equals, colon = piece.find("="), piece.find(":")
    return equals != -1 and (colon == -1 or equals < colon)


#: The agents that cannot be an opponent of DMC training, and why.
UNFIT: dict[type, str] = {
    FaultyAgent: "faulty breaks on purpose, to test referees; training has no referee "
    "to forfeit it",
    HumanAgent: "a person at the terminal cannot be an opponent of DMC's actor processes "
    "(they play thousands of games); play one with durak play",
}


def training_opponent(spec: str, rules: Rules, unfit: tuple[type, ...] = tuple(UNFIT)) -> Agent:
    """The agent of an opponent spec for training under ``rules``: ``SpecError`` for a bad
    spec, :class:`UsageError` for an agent of a class in ``unfit`` (see :data:`UNFIT`),
    also as another agent's part (``solver:fallback=human``)."""
    agent = make_agent(spec, rules)
    for part in _parts(agent):
        for kind in unfit:
            if isinstance(part, kind):
                raise UsageError(f"--vs {spec}: {UNFIT[kind]}")
    return agent


def _parts(agent: object) -> list[object]:
    """``agent`` and the agents it is built from (attrs fields that are agents), deep."""
    parts, kind = [agent], type(agent)
    if attrs.has(kind):
        for field in attrs.fields(kind):
            value = getattr(agent, field.name, None)
            if value is not agent and callable(getattr(value, "act", None)):
                parts += _parts(value)
    return parts


def dmc_opponents(vs: list[str], rules: Rules) -> tuple[str, ...]:
    """The opponents of ``--vs self,greedy`` (see :func:`split_opponents`; repeated
    ``--vs`` add to the list); each agent spec is built once to check it (``SpecError``
    names a bad one, :func:`training_opponent`)."""
    names = split_opponents(vs)
    if not names:
        raise UsageError("--vs: give self and/or agent specs, e.g. --vs self,greedy,lowest")
    for name in names:
        if name != "self":
            training_opponent(name, rules)
    return names


def dmc_settings(spec: str) -> DmcSettings:
    """The settings of ``dmc:key=value,...``."""
    name, raw = parse_spec(spec)
    values: dict[str, Any] = typed_params(name, params_of(DmcSettings), raw)
    settings = DmcSettings(**values)
    settings.check()
    return settings


def train_dmc(
    run: DmcRun,
    *,
    seed: int | None,
    backend: str,
    jobs: int,
    address: str | None,
    quiet: bool,
) -> None:
    """Train (or resume) ``run``; see the module doc."""
    from durak.learn.dmc_learner import DmcTrainer  # noqa: PLC0415 - needs torch
    from durak.learn.dmc_net import save_model  # noqa: PLC0415

    with user_errors():
        if run.resume and not run.checkpoint.exists():
            raise UsageError(f"--resume: no checkpoint {run.checkpoint} to continue from")
        if not run.resume and run.out.exists() and not run.force:
            raise UsageError(f"--out {run.out} exists; pass --force to overwrite it, or --resume")
        logged = _logged_seed(run.checkpoint) if run.resume and seed is None else None
        the_seed = choose_seed(seed) if logged is None else logged
        trainer = DmcTrainer(run.rules, run.opponents, the_seed, run.settings)
        if run.resume:
            trainer.load_checkpoint(run.checkpoint)
        log = _open_csv(run.csv_path, append=run.resume)
        workers = open_backend(backend, jobs=jobs, address=address)
    console = stdout_console()
    console.print(
        f"train: {run.spec} vs {','.join(run.opponents)} · {_goal(run)} · "
        f"{seed_line(the_seed, seed, None if logged is None else run.checkpoint.name)} · "
        f"evaluation every {run.interval:,} episodes"
    )
    console.print(f"rules: {describe_rules(run.rules)}")
    where = workers.where if backend == "ray" else f"{jobs} local process{'es' * (jobs > 1)}"
    console.print(f"actors: {where}")
    if run.resume:
        console.print(f"resuming: {trainer.episodes:,} episodes, {duration(trainer.seconds)}")
    eval_seed = derive_seed(the_seed, -7)  # no training episode deals from this stream
    next_eval = (trainer.episodes // run.interval + 1) * run.interval
    last_save = time.monotonic()
    stopped: tuple[str, int] | None = None
    rate_from = (trainer.episodes, 0, trainer.seconds)  # episodes, decisions, seconds
    decisions = 0

    def save(meta: dict[str, Any]) -> None:
        trainer.save_checkpoint(run.checkpoint)
        partial = run.out.with_name(run.out.name + ".partial")
        save_model(partial, trainer.model(meta))
        partial.replace(run.out)

    meta = {"command": _command(run, the_seed)}
    total = run.episodes
    progress = GameProgress(total, trainer.episodes, wanted(quiet), console, unit="episodes")
    with workers, progress as bar:
        try:
            with sigterm_interrupts():
                while not run.done(trainer.episodes, trainer.seconds):
                    with hold_interrupts():  # a checkpoint is always at a round's end
                        stats = trainer.round(workers)
                    decisions += stats.decisions
                    bar.advance(run.settings.round)
                    finished = run.done(trainer.episodes, trainer.seconds)
                    if trainer.episodes >= next_eval or finished:
                        row = _evaluate(trainer, run, eval_seed, stats.loss, rate_from, decisions)
                        log.writerow([row[c] for c in CSV_COLUMNS])
                        bar.print(_line(row, run))
                        next_eval = (trainer.episodes // run.interval + 1) * run.interval
                        rate_from = (trainer.episodes, 0, trainer.seconds)
                        decisions = 0
                    if time.monotonic() - last_save >= CHECKPOINT_SECONDS:
                        save(meta)
                        last_save = time.monotonic()
        except Terminated:
            stopped = ("terminated (SIGTERM)", TERMINATED)
        except KeyboardInterrupt:
            stopped = ("interrupted", INTERRUPTED)
        except BackendError as e:  # a worker lost: the round is undone, the rest is kept
            stopped = (f"error: {describe(e)}", USAGE)
        finally:
            log.close()
    with user_errors():
        save(meta)
    written = [str(run.out), str(run.checkpoint), str(run.csv_path)]
    if run.png is not None and _draw(run, the_seed):
        written.append(str(run.png))
    console.print(
        f"trained: {trainer.episodes:,} episodes, {trainer.samples:,} samples in "
        f"{duration(trainer.seconds)} of training"
    )
    console.print(f"wrote: {', '.join(written)}")
    if stopped is not None:
        stderr_console().print(
            f"{stopped[0]}: saved after {trainer.episodes:,} episodes; run the same command "
            "with --resume to continue"
        )
        raise typer.Exit(stopped[1])
    others = ["greedy"] * (run.rules.players - 1)
    words = ["durak", "match", f"dmc:path={run.out}", *others, "--games", "1000"]
    words += ["--seed", str(the_seed + 1), *rules_flags(run.rules)]
    console.print(f"evaluate: {shlex.join(words)}")


def _goal(run: DmcRun) -> str:
    parts = []
    if run.episodes is not None:
        parts.append(f"{run.episodes:,} episodes")
    if run.hours is not None:
        parts.append(f"{run.hours:g} h")
    return " or ".join(parts)


def _command(run: DmcRun, seed: int) -> str:
    goal = ["--games", str(run.episodes)] if run.episodes is not None else []
    goal = goal or ["--hours", f"{run.hours:g}"]
    words = ["durak", "train", run.spec, "--vs", ",".join(run.opponents), *goal]
    words += ["--seed", str(seed), *_players_flag(run.rules), *rules_flags(run.rules)]
    return shlex.join([*words, "--out", run.out.name])


def _players_flag(rules: Rules) -> list[str]:
    return [] if rules.players == 2 else ["--players", str(rules.players)]


def _evaluate(
    trainer: Any,
    run: DmcRun,
    eval_seed: int,
    loss: float,
    since: tuple[int, int, float],
    decisions: int,
) -> dict[str, Any]:
    """The CSV row of an evaluation of the current network."""
    from durak.learn.dmc_net import save_model  # noqa: PLC0415 - needs torch

    started = time.perf_counter()
    probe = run.out.with_name(run.out.name + ".eval")
    save_model(probe, trainer.model())
    row: dict[str, Any] = {
        "episodes": trainer.episodes,
        "rounds": trainer.rounds,
        "samples": trainer.samples,
        "hours": round(trainer.seconds / 3600, 4),
        "loss": "" if math.isnan(loss) else f"{loss:.5f}",
    }
    try:
        for opponent in EVAL_OPPONENTS:
            specs = [f"dmc:path={probe}", opponent] + [opponent] * (run.rules.players - 2)
            result = run_match(
                run.rules, specs, games=run.eval_games, seed=eval_seed, backend=LocalPool(1)
            )
            row[f"win_{opponent}"] = f"{result.win_rate(0):.4f}"
    finally:
        probe.unlink(missing_ok=True)
        trainer.seconds += time.perf_counter() - started  # the wall time counts evaluations
    seconds = max(trainer.seconds - since[2], 1e-9)
    row["episodes_per_second"] = f"{(trainer.episodes - since[0]) / seconds:.1f}"
    row["decisions_per_second"] = f"{decisions / seconds:.0f}"
    return row


def _line(row: dict[str, Any], run: DmcRun) -> str:
    wins = " · ".join(f"vs {o} {float(row[f'win_{o}']):.1%}" for o in EVAL_OPPONENTS)
    return (
        f"episodes {row['episodes']:,} · {duration(float(row['hours']) * 3600)} · {wins} "
        f"({run.eval_games} games each) · loss {row['loss'] or '-'} · "
        f"{row['episodes_per_second']} episodes/s"
    )


class _CsvLog:
    def __init__(self, path: Path, append: bool) -> None:
        fresh = not append or not path.exists() or path.stat().st_size == 0
        self._file = path.open("a" if append else "w", encoding="utf-8", newline="")
        self._writer = csv.writer(self._file, lineterminator="\n")
        if fresh:
            self.writerow(list(CSV_COLUMNS))

    def writerow(self, row: list[Any]) -> None:
        self._writer.writerow(row)
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def _open_csv(path: Path, append: bool) -> _CsvLog:
    return _CsvLog(path, append)


def _logged_seed(checkpoint: Path) -> int | None:
    """The seed recorded in a checkpoint, so ``--resume`` needs no ``--seed``."""
    from durak.learn.dmc_learner import CHECKPOINT_FORMAT, CHECKPOINT_VERSION  # noqa: PLC0415
    from durak.learn.dmc_net import DmcModelError  # noqa: PLC0415
    from durak.learn.model_file import read_model_file  # noqa: PLC0415

    data, _ = read_model_file(checkpoint, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, DmcModelError)
    identity = data.get("identity")
    seed = identity.get("seed") if isinstance(identity, dict) else None
    return seed if isinstance(seed, int) else None


def _draw(run: DmcRun, seed: int) -> bool:
    """The learning curve from every row of the CSV (earlier sessions included)."""
    from durak.learn.plot import MatplotlibMissingError, evaluation_curve  # noqa: PLC0415

    assert run.png is not None
    with run.csv_path.open(encoding="utf-8") as f:
        points = [
            {k: float(v) for k, v in r.items() if v not in ("", None)} for r in csv.DictReader(f)
        ]
    if not points:
        return False
    title = f"durak train {run.spec} vs {','.join(run.opponents)} (seed {seed})"
    try:
        evaluation_curve(points, EVAL_OPPONENTS, run.png, title)
    except MatplotlibMissingError as e:
        stderr_console().print(f"warning: {e}; skipped {run.png}")
        return False
    except OSError as e:
        stderr_console().print(f"warning: cannot write {run.png}: {e.strerror or e}")
        return False
    return True
