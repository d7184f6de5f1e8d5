"""The options every ``durak train`` learner takes, as one checked value."""

from __future__ import annotations

from pathlib import Path

import attrs

from durak.cli.options import RulesOptions


@attrs.frozen
class TrainRequest:
    """The learner spec and the options shared by every learner's training: opponents
    (``--vs``), ``--out``, the goal in games, the seed, the interval, ``--players``, the
    rules, the outputs and ``--quiet``."""

    spec: str
    vs: list[str]
    out: Path
    episodes: int | None
    seed: int | None
    interval: int | None
    players: int | None
    rules_options: RulesOptions
    csv_file: Path | None
    plot: Path | None
    no_plot: bool
    force: bool
    quiet: bool

    @property
    def csv_path(self) -> Path:
        """``--csv``, by default ``--out`` with the suffix ``.csv``."""
        return self.csv_file or self.out.with_suffix(".csv")

    @property
    def png(self) -> Path | None:
        """The learning curve's file: ``--plot``, by default ``--out`` with the suffix
        ``.png``; ``None`` with ``--no-plot``."""
        return None if self.no_plot else self.plot or self.out.with_suffix(".png")
