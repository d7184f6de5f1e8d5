"""``durak train`` (train a learner against fixed agents, save it, write its learning curve)
and ``durak learners`` (the registered learners and their parameters)."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Annotated

import attrs
import typer
from rich.console import Console

import durak.learn  # noqa: F401 - registers the learners
from durak.agents.base import Agent, load_plugins, parse_spec
from durak.agents.faulty import FaultyAgent
from durak.agents.solver import ExactEndgame
from durak.cli.commands.listing import print_listing
from durak.cli.driver import seed_line, stderr_console, stdout_console
from durak.cli.errors import INTERRUPTED, user_errors
from durak.cli.option_groups import expand
from durak.cli.options import (
    OUTPUT,
    RUN,
    Address,
    BackendName,
    BackendOption,
    JsonFile,
    Players,
    Quiet,
    RulesOptions,
    Seed,
    UsageError,
    choose_seed,
    describe_rules,
)
from durak.cli.progress import wanted
from durak.cli.training_dmc import (
    DmcRun,
    dmc_opponents,
    dmc_settings,
    train_dmc,
    training_opponent,
)
from durak.cli.training_output import (
    IntervalCsv,
    TrainProgress,
    evaluate_command,
    interval_line,
)
from durak.envs.solo import SoloStep, SoloTable
from durak.learn.plot import MatplotlibMissingError, learning_curve
from durak.learn.registry import SavableLearner, make_learner
from durak.learn.registry import learners as registered_learners
from durak.learn.train import IntervalStats
from durak.learn.train import train as run_training
from durak.rules import Action, Observation, is_terminal, loser

#: The help panel of the options only ``durak train dmc`` takes.
DMC = "Deep Monte-Carlo (dmc)"


@attrs.define
class _Watched:
    """The learner as :func:`~durak.learn.train` drives it, also reporting each finished
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


def seat_opponents(vs: list[str], players: int | None) -> list[str]:
    """One opponent spec per other seat: ``vs`` itself, or its single spec repeated when
    ``--players`` asks for more seats.  :class:`UsageError` if the counts disagree."""
    if players is None or len(vs) == players - 1:
        return list(vs)
    if len(vs) == 1 and players > 1:
        return vs * (players - 1)
    raise UsageError(
        f"--players {players} needs {players - 1} --vs opponents (or one, for "
        f"every other seat), got {len(vs)}"
    )


def _check_output(out: Path, csv_path: Path, plot: Path | None, force: bool) -> None:
    """Refuse, before any training, outputs that could not be written at the end."""
    if out.is_dir():
        raise UsageError(f"--out {out} is a directory")
    if out.exists() and not force:
        raise UsageError(f"--out {out} exists; pass --force to overwrite it")
    for path in (out, csv_path, plot):
        if path is not None and not path.parent.is_dir():
            raise UsageError(f"{path}: no such directory {str(path.parent)!r}")
    if out.resolve() in {csv_path.resolve(), plot.resolve() if plot else None}:
        raise UsageError(f"--out {out} would be overwritten by the CSV or the plot")


@expand
def train(
    spec: Annotated[
        str,
        typer.Argument(
            help="Learner spec, e.g. qlearn, 'qlearn:abstraction=plus,alpha=0.05', dqn "
            "(see durak learners).",
            show_default=False,
        ),
    ],
    vs: Annotated[
        list[str],
        typer.Option(
            help="Opponent spec, one per other seat (repeat --vs); a single --vs fills every "
            "other seat of --players.",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            help="Save the trained learner here (a Q-table JSON, a DQN model file).",
            rich_help_panel=OUTPUT,
            show_default=False,
            dir_okay=False,
        ),
    ],
    episodes: Annotated[
        int | None,
        typer.Option(
            "--games",
            "-n",
            help="Training games (episodes); required (dmc: this, --hours or both; counted "
            "across resumes, in whole rounds).",
            rich_help_panel=RUN,
            show_default=False,
        ),
    ] = None,
    seed: Seed = None,
    interval: Annotated[
        int | None,
        typer.Option(
            help="Episodes per reported interval (a line, a CSV row, a point of the curve); "
            "dmc: episodes between evaluations.  Default 1,000 (dmc: 50,000).",
            rich_help_panel=RUN,
            show_default=False,
        ),
    ] = None,
    players: Players = None,
    *,
    rules_options: RulesOptions,
    csv_file: Annotated[
        Path | None,
        typer.Option(
            "--csv",
            metavar="[FILE|-]",
            help="The intervals as CSV to FILE ('-' or no value: standard output; default: "
            "--out with the suffix .csv).",
            rich_help_panel=OUTPUT,
            show_default=False,
            dir_okay=False,
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            help="The learning curve as PNG (default: --out with the suffix .png).",
            rich_help_panel=OUTPUT,
            show_default=False,
            dir_okay=False,
        ),
    ] = None,
    no_plot: Annotated[
        bool,
        typer.Option("--no-plot", help="Do not draw the learning curve.", rich_help_panel=OUTPUT),
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite an existing --out.", rich_help_panel=OUTPUT)
    ] = False,
    solve_endgame: Annotated[
        int | None,
        typer.Option(
            help="Play the learner's exact endgame moves (2 players, once every card is known) "
            "with a solve of at most this many nodes, as solver:nodes=N,fallback=... plays them; "
            "the learner learns the other decisions.",
            rich_help_panel=RUN,
            min=1,
            show_default=False,
        ),
    ] = None,
    hours: Annotated[
        float | None,
        typer.Option(
            help="dmc: stop after this many hours of training (across resumes).",
            rich_help_panel=DMC,
            show_default=False,
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(help="dmc: continue from the checkpoint OUT.ckpt.", rich_help_panel=DMC),
    ] = False,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", "-j", min=1, help="dmc: actor processes (or Ray CPUs).", rich_help_panel=DMC
        ),
    ] = 1,
    backend: BackendOption = BackendName.local,
    address: Address = None,
    eval_games: Annotated[
        int,
        typer.Option(
            min=2,
            help="dmc: games against each of greedy and lowest per evaluation.",
            rich_help_panel=DMC,
        ),
    ] = 200,
    quiet: Quiet = False,
) -> None:
    """Train a learner against fixed opponents, save it, and write its learning curve.

    dmc (Deep Monte-Carlo) plays self-play and/or fixed opponents (--vs self,greedy) on
    actor processes (--jobs, --backend ray), stops after --games or --hours, writes a
    checkpoint every five minutes and continues from it with --resume.

    Plays GAMES games (episodes) with the learner in a seat drawn from each deal's seed, reporting
    the win rate and mean reward every INTERVAL episodes (lines, CSV, PNG), then saves the
    learner to --out and prints the durak match command that evaluates it.
    """
    if parse_spec(spec)[0] == "dmc":
        _train_dmc(
            spec, vs, episodes, hours, out, seed, interval, players, rules_options,
            csv_file, plot, no_plot, force, resume, jobs, backend.value, address,
            eval_games, quiet,
        )  # fmt: skip
        return
    with user_errors():
        extra = [o for o, v in (("--hours", hours), ("--resume", resume)) if v]
        extra += [o for o, v in (("--jobs", jobs != 1), ("--address", address)) if v]
        if extra or backend is not BackendName.local:
            raise UsageError(f"{', '.join(extra) or '--backend'}: only for durak train dmc")
        if episodes is None:
            raise UsageError("--games is required: how many training games (episodes)")
        interval = 1000 if interval is None else interval
        if episodes <= 0 or interval <= 0:
            raise UsageError(
                f"--games and --interval must be positive, got {episodes} and {interval}"
            )
        opponents = seat_opponents(vs, players)
        rules = rules_options.rules(1 + len(opponents), players)
        if solve_endgame is not None and rules.players != 2:
            raise UsageError(
                f"--solve-endgame needs 2 players (every card is known only "
                f"then), got {rules.players}"
            )
        csv_path = csv_file or out.with_suffix(".csv")
        png = None if no_plot else plot or out.with_suffix(".png")
        _check_output(out, csv_path, png, force)
        load_plugins()  # third-party packages may add learners through agent plugins
        learner = make_learner(spec, rules)
        pilot = None if solve_endgame is None else ExactEndgame(solve_endgame)
        # A person may teach a learner at the terminal; a faulty agent would only crash it.
        agents = [training_opponent(v, rules, (FaultyAgent,)) for v in opponents]
        table = SoloTable(rules, agents, autopilot=pilot)
        the_seed = choose_seed(seed)
        log = IntervalCsv(csv_path)
    # With --csv -, standard output carries the CSV alone.
    console = stderr_console() if str(csv_path) == "-" else stdout_console()
    console.print(
        f"train: {spec} vs {', '.join(opponents)} · {episodes:,} episodes · "
        f"{seed_line(the_seed, seed)} · interval {interval:,}"
    )
    console.print(f"rules: {describe_rules(rules)}")
    stats: list[IntervalStats] = []
    started = time.perf_counter()
    stopped: str | None = None
    # An opponent that cannot play these rules (say a Q-table of other rules) raises
    # ValueError mid-run: a one-line error, and nothing saved.
    with user_errors(), TrainProgress(episodes, wanted(quiet), console) as bar:
        watched = _Watched(learner, table, bar)
        run = run_training(
            watched,
            table,
            episodes=episodes,
            seed=the_seed,
            rewards=learner.rewards,
            interval=interval,
        )
        try:
            for s in run:
                stats.append(s)
                log.write(s)
                bar.interval(interval_line(s, episodes))
        except KeyboardInterrupt:
            stopped = "interrupted"  # Ctrl-C: keep what was learned (saved below)
        except EOFError:
            stopped = "end of input"  # a human opponent's input ended: the same
        finally:
            log.close()
    wall = time.perf_counter() - started
    with user_errors():
        _save(learner, out)
    title = f"durak train {spec} vs {', '.join(opponents)} (seed {the_seed})"
    _finish(console, watched.episodes, wall, out, csv_path, png, stats, title)
    if stopped is not None:
        stderr_console().print(
            f"{stopped}: saved the learner after {watched.episodes:,} of "
            f"{episodes:,} episodes (the CSV has the finished intervals)"
        )
        raise typer.Exit(INTERRUPTED)
    command = evaluate_command(spec, out, opponents, rules, the_seed + 1, solve_endgame)
    console.print(f"evaluate: {command}")


def _train_dmc(
    spec: str,
    vs: list[str],
    episodes: int | None,
    hours: float | None,
    out: Path,
    seed: int | None,
    interval: int | None,
    players: int | None,
    rules_options: RulesOptions,
    csv_file: Path | None,
    plot: Path | None,
    no_plot: bool,
    force: bool,
    resume: bool,
    jobs: int,
    backend: str,
    address: str | None,
    eval_games: int,
    quiet: bool,
) -> None:
    """``durak train dmc``: check the options, then :func:`train_dmc`."""
    with user_errors():
        if episodes is None and hours is None:
            raise UsageError("durak train dmc needs --games N or --hours H (or both)")
        if (episodes is not None and episodes <= 0) or (hours is not None and not hours > 0):
            raise UsageError("--games and --hours must be positive")
        interval = 50_000 if interval is None else interval
        if interval <= 0:
            raise UsageError(f"--interval must be positive, got {interval}")
        rules = rules_options.rules(players or 2, players)
        csv_path = csv_file or out.with_suffix(".csv")
        if str(csv_path) == "-":
            raise UsageError("--csv -: dmc appends its CSV across resumes; give it a file")
        png = None if no_plot else plot or out.with_suffix(".png")
        for path in (out, csv_path, png):
            if path is not None and not path.parent.is_dir():
                raise UsageError(f"{path}: no such directory {str(path.parent)!r}")
        run = DmcRun(
            spec,
            dmc_opponents(vs, rules),
            rules,
            dmc_settings(spec),
            episodes,
            hours,
            out,
            csv_path,
            png,
            interval,
            eval_games,
            resume,
            force,
        )
    train_dmc(run, seed=seed, backend=backend, jobs=jobs, address=address, quiet=quiet)


def _save(learner: SavableLearner, out: Path) -> None:
    """``learner.save(out)``, atomically whatever the learner: a failed or interrupted save
    leaves any old ``out`` whole (with --force, it is replaced only by a complete file)."""
    partial = out.with_name(out.name + ".partial")
    try:
        learner.save(partial)
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)


def _finish(
    console: Console,
    done: int,
    wall: float,
    out: Path,
    csv_path: Path,
    png: Path | None,
    stats: list[IntervalStats],
    title: str,
) -> None:
    """The timing line, the learning curve and the list of files written."""
    console.print(
        f"trained: {done:,} episodes in {wall:.1f} s · "
        f"{done / wall if wall > 0 else 0:,.0f} episodes/s"
    )
    written = [str(out), str(csv_path)]
    if png is not None and stats:
        try:
            learning_curve(stats, png, title)
            written.append(str(png))
        except MatplotlibMissingError as e:
            stderr_console().print(f"warning: {e}; skipped {png}")
        except OSError as e:
            stderr_console().print(f"warning: cannot write {png}: {e.strerror or e}")
    console.print(f"wrote: {', '.join(written)}")


def learners(
    name: Annotated[
        str | None, typer.Argument(help="Show only this learner.", show_default=False)
    ] = None,
    json_file: JsonFile = None,
) -> None:
    """List the learners of durak train with their parameters and defaults.

    A spec is NAME or NAME:key=value,... e.g. 'qlearn:abstraction=plus,alpha=0.05'.
    """
    load_plugins()
    print_listing(
        registered_learners(),
        name,
        "learner",
        "learners: durak train NAME or NAME:key=value,...",
        json_file,
    )
