"""``durak train`` (train a learner, save it, write its learning curve) and ``durak
learners`` (the registered learners and their parameters).

Each way of training declares its own option group (:mod:`~durak.cli.option_groups`):
:class:`~durak.cli.train.online.OnlineOptions` for the online learners (every learner the
registry can build, :attr:`~durak.learn.registry.TrainerInfo.online`), and
:class:`~durak.cli.train.dmc.DmcOptions` for ``dmc``, which trains with a schedule of its
own.  ``durak train`` takes every group, runs the learner's training with its group, and
refuses, in one line, an option given from another learner's group.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, cast

import attrs
import typer

import durak.learn  # noqa: F401 - registers the learners
from durak.agents.base import load_plugins
from durak.cli.commands.listing import print_listing
from durak.cli.errors import user_errors
from durak.cli.option_groups import expand
from durak.cli.options import (
    OUTPUT,
    RUN,
    Force,
    JsonFile,
    Players,
    Quiet,
    RulesOptions,
    Seed,
    UsageError,
)
from durak.cli.train.dmc import DmcOptions, train_dmc
from durak.cli.train.online import OnlineOptions, train_online
from durak.cli.train.request import TrainRequest
from durak.learn.registry import TrainerInfo, learner_of
from durak.learn.registry import learners as registered_learners


@attrs.frozen
class Training:
    """One way to train: the option group its learners take, and its run."""

    options: type
    run: Callable[[TrainRequest, Any], None]


#: The training of every online learner.
ONLINE = Training(OnlineOptions, train_online)
#: The learners that train with a loop of their own, by name.
OWN_LOOPS: dict[str, Training] = {"dmc": Training(DmcOptions, train_dmc)}
#: Every way to train (each option group once).
TRAININGS = (ONLINE, *OWN_LOOPS.values())


def training_of(info: TrainerInfo) -> Training:
    """How the registered learner ``info`` trains; :class:`UsageError` for a learner with
    a loop of its own that ``durak train`` does not know."""
    if info.online:
        return ONLINE
    if info.name not in OWN_LOOPS:
        raise UsageError(f"durak train cannot run {info.name}'s own training loop")
    return OWN_LOOPS[info.name]


def refuse_foreign_options(
    ctx: typer.Context, name: str, training: Training, groups: list[object]
) -> None:
    """:class:`UsageError` naming the first option given on the command line (of ``ctx``)
    that belongs to another training's group than ``training``'s (``name``: the
    learner)."""
    options = {p.name: p for p in ctx.command.params}
    for group in groups:
        if isinstance(group, training.options):
            continue
        for field in attrs.fields(cast(Any, type(group))):
            source = ctx.get_parameter_source(field.name)
            if source is not None and source.name == "COMMANDLINE":
                flag = max(options[field.name].opts, key=len)
                takers = [
                    n
                    for n, info in registered_learners().items()
                    if isinstance(group, training_of(info).options)
                ]
                raise UsageError(
                    f"{flag}: not an option of durak train {name} (only for {', '.join(takers)})"
                )


@expand
def train(
    ctx: typer.Context,
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
    force: Force = False,
    online: OnlineOptions,
    dmc: DmcOptions,
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
    groups: list[object] = [online, dmc]
    with user_errors():
        load_plugins()  # third-party packages may add learners through agent plugins
        info = learner_of(spec)
        training = training_of(info)
        refuse_foreign_options(ctx, info.name, training, groups)
    request = TrainRequest(
        spec, vs, out, episodes, seed, interval, players, rules_options, csv_file, plot,
        no_plot, force, quiet,
    )  # fmt: skip
    training.run(request, next(g for g in groups if isinstance(g, training.options)))


def learners(
    name: Annotated[
        str | None, typer.Argument(help="Show only this learner.", show_default=False)
    ] = None,
    json_file: JsonFile = None,
    force: Force = False,
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
        force,
    )
