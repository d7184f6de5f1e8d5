"""The options every ``durak train`` learner takes, declared once as an option group
(:mod:`durak.cli.option_groups`) and handed to the learner's training as one value."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import attrs
import typer

from durak.cli.learning import LearningGoal
from durak.cli.option_groups import option_group
from durak.cli.options import OUTPUT, Force, Players, Quiet, RulesOptions, Seed
from durak.files import FilePlan


@option_group
@attrs.frozen(kw_only=True)
class TrainRequest:
    """The learner spec and the options shared by every learner's training.

    Attributes:
      spec: the learner spec (the argument), e.g. ``qlearn:alpha=0.05``.
      vs: ``--vs``, the opponent specs as given (each training reads them its way).
      goal: ``--out``, ``--games``, ``--hours``, ``--interval``, ``--resume``,
        ``--curve-games``, ``--plot``, ``--no-plot`` (:class:`LearningGoal`).
      seed: ``--seed``; ``None``: a random one (dmc resuming: the checkpoint's).
      players: ``--players``; ``None``: inferred from ``--vs``.
      rules_options: the rules options.
      csv_file: ``--csv``; ``None``: see :attr:`csv_path`.
      force: ``--force``: replace output files that exist.
      quiet: ``--quiet``: no progress bar.

    The values are as given: each training checks those it uses.
    """

    spec: Annotated[
        str,
        typer.Argument(
            help="Learner spec, e.g. qlearn, 'qlearn:abstraction=plus,alpha=0.05', dqn "
            "(see durak learners).",
            show_default=False,
        ),
    ]
    vs: Annotated[
        list[str],
        typer.Option(
            help="Opponent spec, one per other seat (repeat --vs); a single --vs fills every "
            "other seat of --players.  dmc: a list met in turn, of agent specs, self and past "
            "(earlier copies), e.g. --vs self,past,greedy.",
            show_default=False,
        ),
    ]
    goal: LearningGoal = attrs.field(factory=LearningGoal)
    seed: Seed = None
    players: Players = None
    rules_options: RulesOptions = attrs.field(factory=RulesOptions)
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
    ] = None
    force: Force = False
    quiet: Quiet = False

    @property
    def out(self) -> Path:
        """``--out``; :class:`~durak.cli.options.UsageError` if it was not given."""
        return self.goal.checked_out()

    @property
    def csv_path(self) -> Path:
        """``--csv``, by default ``--out`` with the suffix ``.csv``."""
        return self.csv_file or self.out.with_suffix(".csv")

    def files(self, *, checkpoint: bool) -> FilePlan:
        """Every file the training writes (:meth:`LearningGoal.files`)."""
        return self.goal.files(self.csv_path, self.force, checkpoint=checkpoint)
