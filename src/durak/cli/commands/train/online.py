"""``durak train`` for an online learner (``qlearn``, ``dqn``, a plugin's): episodes at a
table of fixed opponents, driven by :func:`durak.learn.online.train`, with one line and one
CSV row per interval, the learner saved to ``--out`` and its learning curve drawn."""

from __future__ import annotations

import random
from collections.abc import Generator
from contextlib import closing
from pathlib import Path
from typing import Annotated

import attrs
import typer
from rich.console import Console

from durak.agents.base import Agent
from durak.agents.seats import NO_FAULTS
from durak.agents.solver import ExactEndgame
from durak.arena.runs.interface import Backend
from durak.cli.commands.train.opponents import seat_opponents, training_opponent
from durak.cli.commands.train.output import (
    IntervalCsv,
    TrainProgress,
    draw_curve,
    evaluate_command,
    interval_line,
)
from durak.cli.commands.train.request import TrainRequest
from durak.cli.console import seed_line, stderr_console, stdout_console
from durak.cli.driver import Job, Step, drive
from durak.cli.errors import user_errors
from durak.cli.option_groups import option_group
from durak.cli.options import RUN, UsageError, choose_seed, describe_rules
from durak.cli.progress import wanted
from durak.envs.solo import SoloStep, SoloTable
from durak.files import atomic_path
from durak.learn.online import IntervalStats
from durak.learn.online import train as run_training
from durak.learn.plot import learning_curve
from durak.learn.registry import SavableLearner, make_learner
from durak.rules import Action, Observation, is_terminal, loser


@option_group
@attrs.frozen
class OnlineOptions:
    """The options only an online learner's training takes.

    Attributes:
      solve_endgame: ``--solve-endgame``, the node limit of the exact endgame moves the
        learner plays (once every card is known and only two players hold cards);
        ``None``: the learner plays every move.
    """

    solve_endgame: Annotated[
        int | None,
        typer.Option(
            help="Play the learner's exact endgame moves (once every card is known and only "
            "two players hold cards, at any table size) "
            "with a solve of at most this many nodes, as solver:nodes=N,fallback=... plays them; "
            "the learner learns the other decisions.",
            rich_help_panel=RUN,
            min=1,
            show_default=False,
        ),
    ] = None


@attrs.define
class _Watched:
    """The learner as :func:`~durak.learn.online` drives it, also reporting each finished
    episode to the progress bar (won: the learner is not the durak; a draw is not a win,
    as in :class:`IntervalStats`)."""

    learner: SavableLearner
    table: SoloTable
    bar: TrainProgress
    episodes: int = 0

    def explore(self, observation: Observation, rng: random.Random) -> Action:
        return self.learner.explore(observation, rng)

    def update(
        self, observation: Observation, action: Action, reward: float, after: SoloStep
    ) -> None:
        self.learner.update(observation, action, reward, after)

    def end_episode(self) -> None:
        self.learner.end_episode()
        self.episodes += 1
        state = self.table.state
        durak_seat = loser(state) if is_terminal(state) else None
        self.bar.episode(durak_seat is not None and durak_seat != self.table.learner)

    def policy(self) -> Agent:
        return self.learner.policy()


def train_online(request: TrainRequest, options: OnlineOptions) -> None:
    """Train the online learner of ``request``: plays ``--games`` episodes with the learner
    in a seat drawn from each deal's seed, reporting the win rate and mean reward every
    interval (lines, CSV, PNG), then saves the learner to ``--out`` and prints the
    ``durak match`` command that evaluates it."""
    spec, episodes, seed = request.spec, request.goal.episodes, request.seed
    solve_endgame = options.solve_endgame
    with user_errors():
        if episodes is None:
            raise UsageError("--games is required: how many training games (episodes)")
        interval = 1000 if request.goal.interval is None else request.goal.interval
        if episodes <= 0 or interval <= 0:
            raise UsageError(
                f"--games and --interval must be positive, got {episodes} and {interval}"
            )
        out = request.out
        opponents = seat_opponents(request.vs, request.players)
        rules = request.rules_options.rules(1 + len(opponents), request.players)
        csv_path, png = request.csv_path, request.goal.png
        if out.is_file() and not request.force:
            raise UsageError(f"--out {out} exists; pass --force to overwrite it")
        request.files(checkpoint=False).check()
        learner = make_learner(spec, rules)
        pilot = None if solve_endgame is None else ExactEndgame(solve_endgame)
        # A person may teach a learner at the terminal; a faulty agent would only crash it.
        agents = [training_opponent(v, rules, NO_FAULTS) for v in opponents]
        table = SoloTable(rules, agents, autopilot=pilot)
        the_seed = choose_seed(seed)
        log = IntervalCsv(csv_path)
    # With --csv -, standard output carries the CSV alone.
    console = stderr_console() if str(csv_path) == "-" else stdout_console()
    header = (
        f"train: {spec} vs {', '.join(opponents)} · {episodes:,} episodes · "
        f"{seed_line(the_seed, seed)} · interval {interval:,}",
        f"rules: {describe_rules(rules)}",
    )
    stats: list[IntervalStats] = []
    bar = TrainProgress(episodes, wanted(request.quiet), console)
    watched = _Watched(learner, table, bar)

    def loop(_: Backend | None) -> Generator[Step, None, None]:
        with closing(log):
            for s in run_training(
                watched,
                table,
                episodes=episodes,
                seed=the_seed,
                rewards=learner.rewards,
                interval=interval,
            ):
                stats.append(s)
                log.write(s)
                bar.interval(interval_line(s, episodes))
                yield Step(s.games)

    # An opponent that cannot play these rules (say a Q-table of other rules) raises
    # ValueError mid-run: a one-line error, and nothing saved.  A stop keeps what was
    # learned (saved below); so does the end of a human opponent's input.
    with user_errors():
        driven = drive(
            Job(header, episodes, 0, "episodes"),
            console,
            loop,
            quiet=request.quiet,
            progress=bar,
            ends={EOFError: "end of input"},
        )
    with user_errors():
        _save(learner, out)
    title = f"durak train {spec} vs {', '.join(opponents)} (seed {the_seed})"
    console.print(f"trained: {watched.episodes:,} episodes")
    _finish(console, out, csv_path, png, stats, title)
    driven.close(
        console,
        f"saved the learner after {watched.episodes:,} of {episodes:,} episodes (the CSV "
        "has the finished intervals)",
        rate=(watched.episodes, "episodes"),
    )
    command = evaluate_command(spec, out, opponents, rules, the_seed + 1, solve_endgame)
    console.print(f"evaluate: {command}")


def _save(learner: SavableLearner, out: Path) -> None:
    """``learner.save(out)``, atomically whatever the learner (it writes a temporary file
    that then replaces ``out``): a failed or interrupted save leaves any old ``out`` whole
    and no temporary file (with --force, it is replaced only by a complete file)."""
    with atomic_path(out, "replace") as partial:
        learner.save(partial)


def _finish(
    console: Console,
    out: Path,
    csv_path: Path,
    png: Path | None,
    stats: list[IntervalStats],
    title: str,
) -> None:
    """The learning curve and the list of files written."""
    written = [str(out), str(csv_path)]

    def draw(path: Path) -> bool:
        if stats:
            learning_curve(stats, path, title)
        return bool(stats)

    if png is not None and draw_curve(png, draw):
        written.append(str(png))
    console.print(f"wrote: {', '.join(written)}")
