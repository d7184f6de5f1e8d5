"""``durak train`` (train a learner, save it, write its learning curve) and ``durak
learners`` (the registered learners and their parameters).

Each way of training declares its own option group (:mod:`~durak.cli.option_groups`):
:class:`~durak.cli.commands.train.online.OnlineOptions` for the online learners (every
learner the registry can build, :attr:`~durak.learn.registry.TrainerInfo.online`), and
:class:`~durak.cli.commands.train.dmc.DmcOptions` for ``dmc``, which trains with a schedule
of its own; the options every learner takes are one group too,
:class:`~durak.cli.commands.train.request.TrainRequest`.  ``durak train`` takes every
group, runs the learner's training with the request and its group, and refuses, in one
line, an option given from another learner's group.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import attrs
import typer

import durak.learn  # noqa: F401 - registers the learners
from durak.agents.base import load_plugins
from durak.cli.commands.listing import print_listing
from durak.cli.commands.train.dmc import DmcOptions, train_dmc
from durak.cli.commands.train.online import OnlineOptions, train_online
from durak.cli.commands.train.request import TrainRequest
from durak.cli.errors import user_errors
from durak.cli.option_groups import expand, option_names
from durak.cli.options import Force, JsonFile, UsageError
from durak.learn.registry import TrainerInfo, learner_of
from durak.learn.registry import learners as registered_learners


@attrs.frozen
class Training:
    """One way to train.

    Attributes:
      options: the option group (:func:`~durak.cli.option_groups.option_group`) of the
        options only its learners take.
      run: the training, given the request and the ``options`` given.
      refused: the options of the shared groups this training has no use for.
    """

    options: type
    run: Callable[[TrainRequest, Any], None]
    refused: tuple[str, ...] = ()


#: The training of every online learner (its episodes are its goal, in this process).
ONLINE = Training(OnlineOptions, train_online, ("hours", "resume", "curve_games"))
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
    foreign = {
        field: type(group)
        for group in groups
        if not isinstance(group, training.options)
        for field in option_names(type(group))
    }
    foreign.update(dict.fromkeys(training.refused, type(None)))
    for field, group_type in foreign.items():
        source = ctx.get_parameter_source(field)
        if source is not None and source.name == "COMMANDLINE":
            flag = max(options[field].opts, key=len)
            takers = [
                n
                for n, info in registered_learners().items()
                if field not in training_of(info).refused
                and (group_type is type(None) or training_of(info).options is group_type)
            ]
            raise UsageError(
                f"{flag}: not an option of durak train {name} (only for {', '.join(takers)})"
            )


@expand
def train(
    ctx: typer.Context, *, request: TrainRequest, online: OnlineOptions, dmc: DmcOptions
) -> None:
    """Train a learner against fixed opponents, save it, and write its learning curve.

    dmc (Deep Monte-Carlo) plays self-play, earlier copies and/or fixed opponents (--vs
    self,past,greedy) on actor processes (--jobs, --backend ray), stops after --games or
    --hours, writes a checkpoint every five minutes and continues from it with --resume.

    Plays GAMES games (episodes) with the learner in a seat drawn from each deal's seed, reporting
    the win rate and mean reward every INTERVAL episodes (lines, CSV, PNG), then saves the
    learner to --out and prints the durak match command that evaluates it.
    """
    groups: list[object] = [online, dmc]
    with user_errors():
        load_plugins()  # third-party packages may add learners through agent plugins
        info = learner_of(request.spec)
        training = training_of(info)
        refuse_foreign_options(ctx, info.name, training, groups)
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
