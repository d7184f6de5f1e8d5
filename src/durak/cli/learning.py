"""The goal and files of a training run, declared once for ``durak train`` (every learner)
and ``durak exploit --method learn``: :class:`LearningGoal`.

``--eval-games`` is not among them: across the CLI it means the games of the final
evaluation of an agent a command found (``durak exploit``); the games of each point of a
learning curve are ``--curve-games``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import attrs
import typer

from durak.cli.option_groups import option_group
from durak.cli.options import PlotFile, UsageError
from durak.files import STDOUT, Existing, FilePlan, Output

#: The help panel of the learning options.
LEARNING = "Learning"


@option_group
@attrs.frozen
class LearningGoal:
    """How long a learner trains, what it writes, and whether it continues a run.

    Attributes:
      out: ``--out``, the model (or Q-table) file; ``None``: not given.
      episodes: ``--games``, training games (episodes); ``None``: not given.
      hours: ``--hours``, training time across resumes (dmc); ``None``: no limit.
      interval: ``--interval``, episodes per report or curve point; ``None``: the
        training's default.
      resume: ``--resume``: continue from the checkpoint ``OUT.ckpt`` (dmc).
      curve_games: ``--curve-games``, games against each opponent per curve point (dmc).
      plot: ``--plot``, the learning curve (default ``OUT.png``); no_plot: ``--no-plot``.

    The values are as given: :meth:`checked_out` and each training check those they use.
    """

    out: Annotated[
        Path | None,
        typer.Option(
            help="Save the trained learner here (a Q-table JSON or a model file); required.",
            rich_help_panel=LEARNING,
            show_default=False,
            dir_okay=False,
        ),
    ] = None
    episodes: Annotated[
        int | None,
        typer.Option(
            "--games",
            "-n",
            help="Training games (episodes); dmc: this, --hours or both, counted across "
            "resumes in whole rounds.",
            rich_help_panel=LEARNING,
            show_default=False,
        ),
    ] = None
    hours: Annotated[
        float | None,
        typer.Option(
            help="dmc: stop after this many hours of training (across resumes).",
            rich_help_panel=LEARNING,
            show_default=False,
        ),
    ] = None
    interval: Annotated[
        int | None,
        typer.Option(
            help="Episodes per reported interval (a line, a CSV row, a point of the curve); "
            "dmc: episodes between evaluations.  Default 1,000 (dmc: 50,000).",
            rich_help_panel=LEARNING,
            show_default=False,
        ),
    ] = None
    resume: Annotated[
        bool,
        typer.Option(help="dmc: continue from the checkpoint OUT.ckpt.", rich_help_panel=LEARNING),
    ] = False
    curve_games: Annotated[
        int,
        typer.Option(
            min=2,
            help="dmc: games against each of greedy and lowest per point of the curve.",
            rich_help_panel=LEARNING,
        ),
    ] = 200
    plot: PlotFile = None
    no_plot: Annotated[
        bool,
        typer.Option("--no-plot", help="Draw no learning curve.", rich_help_panel=LEARNING),
    ] = False

    def checked_out(self, purpose: str = "the trained learner is saved") -> Path:
        """``--out``; :class:`UsageError` if it was not given."""
        if self.out is None:
            raise UsageError(f"--out FILE is required: where {purpose}")
        return self.out

    @property
    def png(self) -> Path | None:
        """The learning curve's file: ``--plot``, by default ``--out`` with the suffix
        ``.png``; ``None`` with ``--no-plot`` (or without ``--out``)."""
        if self.no_plot or (self.plot is None and self.out is None):
            return None
        return self.plot or self.checked_out().with_suffix(".png")

    def files(self, csv: Path, force: bool, *, checkpoint: bool) -> FilePlan:
        """Every file of the training: ``--out``, the CSV ``csv`` (appended to when
        resuming), the plot and, with ``checkpoint`` (dmc), ``OUT.ckpt`` and
        ``OUT.eval``."""
        out = self.checked_out()
        again: Existing = "replace" if force or self.resume else "refuse"
        rows: Existing = "append" if self.resume else again
        outputs = [
            Output(out, "--out", again),
            None if str(csv) == STDOUT else Output(csv, "--csv", rows),
            None if self.png is None else Output(self.png, "--plot", again),
        ]
        if checkpoint:
            outputs += [
                Output(out.with_name(out.name + ".ckpt"), "the checkpoint OUT.ckpt", again),
                Output(out.with_name(out.name + ".eval"), "the model OUT.eval", "replace"),
            ]
        return FilePlan.of(outputs)
