"""``durak dataset``: play games and write every decision as a row of Parquet, for
imitation learning and offline RL (:mod:`durak.dataset`; the ``dataset`` extra).

The games are those of ``durak match`` with the same specs, rules and seed; they are
written in files of ``--shards`` games, each file atomically, so Ctrl-C keeps every
finished file and ``--resume`` writes the rest, to the bytes one uninterrupted run writes.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import attrs
import typer

from durak.agents.interface.protocol import resolutions
from durak.agents.seats import UNATTENDED
from durak.arena.play.match import build_agents
from durak.arena.runs.interface import Backend
from durak.cli.console import (
    seed_line,
    stdout_console,
    visibility_label,
)
from durak.cli.driver import Job, Step, drive
from durak.cli.errors import user_errors
from durak.cli.option_groups import expand, option_group
from durak.cli.options import (
    OUTPUT,
    RUN,
    BackendName,
    Force,
    Players,
    Quiet,
    RulesOptions,
    Seed,
    Specs,
    UsageError,
    choose_seed,
    describe_rules,
)
from durak.cli.run_options import RunOptions, Sight
from durak.extras import check_installed
from durak.files import FilePlan, Output
from durak.rules import Visibility

if TYPE_CHECKING:
    from durak.dataset import DatasetDir, DatasetPlan
    from durak.dataset.store import Mode

DatasetGames = Annotated[
    int, typer.Option("--games", "-n", min=1, help="Games to play and write.", rich_help_panel=RUN)
]
Out = Annotated[
    Path,
    typer.Option(
        "--out",
        help="The dataset's folder: part-00000.parquet, ... (the decisions), _games/ (each "
        "game's public record), _manifest.json.",
        rich_help_panel=OUTPUT,
        show_default=False,
    ),
]
Shards = Annotated[
    int,
    typer.Option(
        "--shards",
        min=1,
        help="Games per file: part-00000.parquet holds games 0 to K-1, and so on.",
        rich_help_panel=OUTPUT,
    ),
]
ResumeDataset = Annotated[
    bool,
    typer.Option(
        "--resume",
        help="Continue the dataset in --out: its finished files are kept, the rest written.",
        rich_help_panel=RUN,
    ),
]
Policy = Annotated[
    bool,
    typer.Option(
        "--policy",
        help="Also write each decision's policy: the acting agent's visit shares (ismcts), "
        "else one-hot on its move; null for an agent that cannot analyse (greedy, say).",
        rich_help_panel=OUTPUT,
    ),
]


@option_group
@attrs.frozen
class DatasetSettings:
    """The options of ``durak dataset`` besides the specs and the rules.

    Attributes:
      games: ``--games``; out: ``--out``, the folder; shards: ``--shards``, games per file.
      seed: ``--seed``; ``None``: the dataset's when resuming, else a random one.
      where: ``--jobs``, ``--backend``, ``--address``
        (:class:`~durak.cli.run_options.RunOptions`).
      sight: what the players see, and the rows encode (``--open-world``,
        ``--full-information``, :class:`~durak.cli.run_options.Sight`).
      resume: ``--resume``; force: ``--force``, replace a dataset in ``out``.
      policy: ``--policy``, a ``policy`` column (:mod:`durak.dataset.recorder`).
      quiet: ``--quiet``: no progress bar.

    Invariants (a :class:`~durak.cli.options.UsageError` otherwise): not both ``--resume``
    and ``--force``.
    """

    games: DatasetGames
    out: Out
    shards: Shards = 1000
    seed: Seed = None
    where: RunOptions = attrs.field(factory=RunOptions)
    sight: Sight = attrs.field(factory=Sight)
    resume: ResumeDataset = False
    force: Force = False
    quiet: Quiet = False
    policy: Policy = False

    def __attrs_post_init__(self) -> None:
        self.where.check()
        if self.resume and self.force:
            raise UsageError("--resume continues the dataset in --out, --force replaces it")

    @property
    def mode(self) -> Mode:
        """How to open ``--out``: ``resume``, ``force`` or ``new``."""
        return "resume" if self.resume else "force" if self.force else "new"

    @property
    def visibility(self) -> Visibility:
        """What the players see."""
        return self.sight.visibility

    def backend_or_none(self) -> Backend | None:
        """``None`` (this process) for one local job, else the backend, started."""
        where = self.where
        if where.backend is BackendName.local and where.jobs == 1:
            return None
        return where.open_backend()

    def files(self) -> FilePlan:
        """The dataset's folder, as the run's output (its writer checks the contents)."""
        return FilePlan((Output(self.out, "--out", folder=True),))


@expand
def dataset(
    specs: Specs,
    players: Players = None,
    *,
    rules_options: RulesOptions,
    settings: DatasetSettings,
) -> None:
    """Play games and write every decision as a row of Parquet (imitation learning, offline RL).

    One spec per seat; the games are those of durak match with the same specs, rules and
    seed.  Each row: game, seed (the deal's), step, player, agent, observation (the
    durak.encoding vector), legal_mask, action (its index) and return (--policy: and the
    agent's policy); _games/ holds each
    game's public record.  pandas.read_parquet(OUT) reads the decisions.  Needs pip install
    'durak-lab\\[dataset]'.
    """
    with user_errors():
        check_installed("durak dataset", "dataset", "numpy", "pyarrow")
        # numpy and pyarrow: imported only now, so a bare install lists this command
        from durak.dataset import DatasetDir, DatasetPlan, manifest_seed  # noqa: PLC0415

        if len(specs) < 2:
            raise UsageError(
                f"a game needs at least two agents, one spec per seat; got {len(specs)}"
            )
        rules = rules_options.rules(len(specs), players)
        UNATTENDED.check_all(specs)
        # a bad spec fails before any file is written
        plays = resolutions(specs, build_agents(specs, rules), rules)
        resumed = settings.resume and settings.seed is None
        logged = manifest_seed(settings.out) if resumed else None
        seed = choose_seed(settings.seed) if logged is None else logged
        plan = DatasetPlan(
            rules,
            specs,
            seed,
            settings.games,
            settings.shards,
            settings.visibility,
            settings.policy,
        )
        settings.files().check()
        store = DatasetDir(settings.out, plan.description(), settings.mode)
    source = None if logged is None else str(settings.out)
    with store:
        _write(plan, store, settings, seed_line(seed, settings.seed, source), plays)


def _write(
    plan: DatasetPlan,
    store: DatasetDir,
    settings: DatasetSettings,
    seed_text: str,
    plays: list[str],
) -> None:
    """Write the shards ``store`` lacks (:func:`~durak.cli.driver.drive`), after a header
    that names what each agent that the rules resolve plays (``plays``); the summary, and
    after a stop, what was kept and how to finish."""
    from durak.dataset import write_shards  # noqa: PLC0415

    out = stdout_console()
    count = plan.shard_count
    resumed = len(store.done)
    notes = tuple(f"note: {note}" for note in store.notes)
    if resumed:
        notes += (f"resuming: {resumed} of {count} files already in {store.path}",)
    header = (
        f"dataset: {' vs '.join(plan.specs)} · {seed_text} · {plan.games} games in {count} "
        f"file{'s' * (count != 1)} of {plan.shard_games} · {store.path}",
        f"rules: {describe_rules(plan.rules)}" + visibility_label(plan.open_world),
    )
    done_games = sum(s.games for s in store.done.values())
    decisions = 0

    def loop(backend: Backend | None) -> Generator[Step, None, None]:
        nonlocal decisions
        for shard in write_shards(plan, store, backend):
            decisions += shard.decisions
            yield Step(shard.games)

    driven = drive(
        Job(header, plan.games, done_games, "games", tuple(plays), notes),
        out,
        loop,
        quiet=settings.quiet,
        backend=settings.backend_or_none,
    )
    kept = store.done.values()
    out.print(
        f"wrote: {len(kept)} of {count} files, {sum(s.games for s in kept):,} games, "
        f"{sum(s.decisions for s in kept):,} decisions ({resumed} files resumed)"
    )
    driven.close(
        out,
        f"{len(store.done)} of {count} files written to {store.path}; run the same "
        "command with --resume to finish",
        rate=(decisions, "decisions"),
    )
