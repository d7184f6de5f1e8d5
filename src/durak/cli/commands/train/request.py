"""The options every ``durak train`` learner takes, declared once as an option group
(:mod:`durak.cli.option_groups`) and handed to the learner's training as one value."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import attrs
import typer

from durak.cli.option_groups import option_group
from durak.cli.options import OUTPUT, RUN, Force, Players, Quiet, RulesOptions, Seed


@option_group
@attrs.frozen(kw_only=True)
class TrainRequest:
    """The learner spec and the options shared by every learner's training.

    Attributes:
      spec: the learner spec (the argument), e.g. ``qlearn:alpha=0.05``.
      vs: ``--vs``, the opponent specs as given (each training reads them its way).
      out: ``--out``, where the trained learner is saved.
      episodes: ``--games``, the training games; ``None``: not given.
      seed: ``--seed``; ``None``: a random one (dmc resuming: the checkpoint's).
      interval: ``--interval``, episodes per report; ``None``: the training's default.
      players: ``--players``; ``None``: inferred from ``--vs``.
      rules_options: the rules options.
      csv_file: ``--csv``; ``None``: see :attr:`csv_path`.
      plot: ``--plot``; ``None``: see :attr:`png`.
      no_plot: ``--no-plot``: draw no learning curve.
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
    out: Annotated[
        Path,
        typer.Option(
            help="Save the trained learner here (a Q-table JSON, a DQN model file).",
            rich_help_panel=OUTPUT,
            show_default=False,
            dir_okay=False,
        ),
    ]
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
    ] = None
    seed: Seed = None
    interval: Annotated[
        int | None,
        typer.Option(
            help="Episodes per reported interval (a line, a CSV row, a point of the curve); "
            "dmc: episodes between evaluations.  Default 1,000 (dmc: 50,000).",
            rich_help_panel=RUN,
            show_default=False,
        ),
    ] = None
    players: Players = None
    rules_options: RulesOptions
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
    plot: Annotated[
        Path | None,
        typer.Option(
            help="The learning curve as PNG (default: --out with the suffix .png).",
            rich_help_panel=OUTPUT,
            show_default=False,
            dir_okay=False,
        ),
    ] = None
    no_plot: Annotated[
        bool,
        typer.Option("--no-plot", help="Do not draw the learning curve.", rich_help_panel=OUTPUT),
    ] = False
    force: Force = False
    quiet: Quiet = False

    @property
    def csv_path(self) -> Path:
        """``--csv``, by default ``--out`` with the suffix ``.csv``."""
        return self.csv_file or self.out.with_suffix(".csv")

    @property
    def png(self) -> Path | None:
        """The learning curve's file: ``--plot``, by default ``--out`` with the suffix
        ``.png``; ``None`` with ``--no-plot``."""
        return None if self.no_plot else self.plot or self.out.with_suffix(".png")
