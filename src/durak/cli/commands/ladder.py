"""``durak ladder``: ratings for a population of agents, kept in a ladder file.

Every pair of agents plays a two-player duplicate match (:mod:`durak.arena.experiments.ladder`),
and the agents are rated from all the games: Bradley–Terry on the Elo scale with bootstrap
intervals (:mod:`durak.arena.scores.ratings`), or α-Rank (:mod:`durak.arena.scores.alpharank`).
With ``--file`` the games are kept: a later run with more agents plays only their
pairings, and an interrupted run continues where it stopped.
"""

from __future__ import annotations

import enum
from collections.abc import Generator
from pathlib import Path
from typing import Annotated, Any

import attrs
import typer

from durak.arena.experiments.ladder import Ladder, LadderSetup, Schedule, check_specs
from durak.arena.experiments.ladder_file import file_seed, read_ladder, write_ladder
from durak.arena.runs.interface import Backend
from durak.arena.scores.alpharank import alpharank_ratings, check_openspiel
from durak.arena.scores.ratings import EXTRA, Rating, elo_ratings
from durak.cli.console import Outputs, print_resolutions, seed_line
from durak.cli.driver import Job, Step, drive
from durak.cli.errors import user_errors
from durak.cli.option_groups import expand, option_group
from durak.cli.options import (
    OUTPUT,
    RUN,
    Confidence,
    MoveTimeout,
    PlotFile,
    Quiet,
    RulesOptions,
    Seed,
    Specs,
    check_confidence,
    check_timeout,
    choose_seed,
    describe_rules,
)
from durak.cli.run_options import ReportFiles, RunOptions
from durak.cli.tables import ladder_table
from durak.extras import check_installed
from durak.files import FilePlan, Output
from durak.learn.plot import ratings_chart


class Method(enum.StrEnum):
    """How the agents are rated."""

    bradley_terry = "bradley-terry"
    alpharank = "alpharank"


PairGames = Annotated[
    int,
    typer.Option(
        "--games",
        "-n",
        min=2,
        help="Games per pair of agents (even: each deal is played twice, seats swapped).",
        rich_help_panel=RUN,
    ),
]


@option_group
@attrs.frozen
class LadderSettings:
    """The run options of ``durak ladder`` (the ladder file takes the place of ``--log``
    and ``--resume``).

    Attributes:
      games: ``--games``, per pair.
      seed, move_timeout, confidence, quiet: as in
        :class:`~durak.cli.run_options.RunSettings`.
      where: ``--jobs``, ``--backend``, ``--address``
        (:class:`~durak.cli.run_options.RunOptions`).
    """

    games: PairGames = 100
    seed: Seed = None
    where: RunOptions = attrs.field(factory=RunOptions)
    move_timeout: MoveTimeout = None
    confidence: Confidence = 0.98
    quiet: Quiet = False

    def __attrs_post_init__(self) -> None:
        self.where.check()
        check_confidence(self.confidence)
        check_timeout(self.move_timeout)


def _save(file: Path | None) -> Any:
    def save(ladder: Ladder) -> None:
        if file is not None:
            write_ladder(file, ladder)

    return save


def _rate(
    method: Method, ladder: Ladder, specs: list[str], anchor: str, resamples: int, conf: float
) -> list[Rating]:
    """The ratings of ``specs`` from the ladder's games, best first; the same whatever
    the order of ``specs`` (they are rated in sorted order)."""
    specs = sorted(specs)
    matchups = ladder.matchups(specs)
    seed = ladder.setup.seed
    if method is Method.alpharank:
        rated = alpharank_ratings(specs, matchups, confidence=conf, resamples=resamples, seed=seed)
    else:
        rated = elo_ratings(
            specs, matchups, anchor, confidence=conf, resamples=resamples, seed=seed
        )
    return sorted(rated, key=lambda r: (-r.rating, specs.index(r.agent)))


def _default_anchor(specs: list[str], anchor: str | None) -> str:
    if anchor is None:
        return "random" if "random" in specs else specs[0]
    if anchor not in specs:
        raise ValueError(f"--anchor {anchor!r} is not one of the agents: {', '.join(specs)}")
    return anchor


@expand
def ladder(
    specs: Specs,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            help="The ladder file (JSON): its games are read back, and the new ones added; "
            "without it nothing is kept.",
            rich_help_panel=RUN,
            show_default=False,
            dir_okay=False,
        ),
    ] = None,
    method: Annotated[
        Method,
        typer.Option(
            help="bradley-terry: Elo-scale ratings; alpharank: α-Rank masses "
            "(pip install 'durak-lab\\[openspiel]').",
            rich_help_panel=OUTPUT,
        ),
    ] = Method.bradley_terry,
    anchor: Annotated[
        str | None,
        typer.Option(
            help="The agent rated 0 (default: random if present, else the first).",
            rich_help_panel=OUTPUT,
            show_default=False,
        ),
    ] = None,
    bootstrap: Annotated[
        int,
        typer.Option(min=1, help="Bootstrap resamples of the intervals.", rich_help_panel=OUTPUT),
    ] = 1000,
    plot: PlotFile = None,
    *,
    rules_options: RulesOptions,
    settings: LadderSettings,
    reports: ReportFiles,
) -> None:
    """Rate agents: a round robin of two-player duplicate matches, Bradley–Terry ratings.

    Every pair of agents plays GAMES games (each deal twice, seats swapped) on deals of its
    own, drawn from the seed and the pair's two specs.  The agents are rated on the Elo
    scale (Bradley & Terry 1952), the anchor at 0, with bootstrap intervals over the deals;
    or by α-Rank (Omidshafiei et al. 2019).  With --file the games are kept: adding an
    agent plays only its pairings, and a stopped run continues where it stopped.
    """
    with user_errors():
        _check_extras(method, plot)
        rules = rules_options.rules(2)
        plays = check_specs(specs, rules)
        seed = _seed(settings.seed, file)
        setup = LadderSetup(rules, seed, settings.move_timeout)
        own = FilePlan.of(
            [
                None if file is None else Output(file, "--file", "replace"),
                None if plot is None else Output(plot, "--plot", reports.existing()),
            ]
        )
        (own + reports.files()).check()
        the_ladder = read_ladder(file, setup) if file is not None else Ladder(setup)
        specs, anchors = the_ladder.names(specs), the_ladder.names([anchor] if anchor else [])
        the_anchor = _default_anchor(specs, anchors[0] if anchors else None)
        outputs = reports.open()
        schedule = the_ladder.schedule(specs, settings.games)
    _play(the_ladder, schedule, settings, outputs, file, specs, seed, plays)
    with user_errors():
        rated = _rate(method, the_ladder, specs, the_anchor, bootstrap, settings.confidence)
    out = outputs.console()
    out.print(ladder_table(rated, settings.confidence, method is Method.alpharank))
    with user_errors():
        _report(outputs, rated, method, the_anchor, setup, file, plot)


def _check_extras(method: Method, plot: Path | None) -> None:
    """One line naming the extra that the fit, ``--method alpharank`` or ``--plot`` lacks."""
    check_installed("durak ladder", EXTRA, "numpy", "choix")
    if method is Method.alpharank:
        check_openspiel()
    if plot is not None:
        check_installed("the ratings plot", EXTRA, "matplotlib")


def _seed(given: int | None, file: Path | None) -> int:
    """``--seed``; without it the ladder file's seed, or else a random one."""
    from_file = None if file is None else file_seed(file)
    return from_file if given is None and from_file is not None else choose_seed(given)


def _play(
    the_ladder: Ladder,
    schedule: Schedule,
    settings: LadderSettings,
    outputs: Outputs,
    file: Path | None,
    specs: list[str],
    seed: int,
    plays: list[str],
) -> None:
    """Play the schedule's games (:func:`~durak.cli.driver.drive`), after a header that
    names what each agent that the rules resolve plays (``plays``); a stop saves the
    ladder and exits."""
    out = outputs.console()
    pairs = len(specs) * (len(specs) - 1) // 2
    source = None if file is None or not file.exists() else str(file)
    kept = "" if file is None else f" · file {file}"
    todo = schedule.total
    header = (
        f"ladder: {len(specs)} agents, {pairs} pairings × {settings.games} games · "
        f"{seed_line(seed, settings.seed, source)}{kept}",
        f"rules: {describe_rules(the_ladder.setup.rules)}",
        f"to play: {todo} games in {len(schedule.plans)} pairings"
        f"{'' if todo else ' (every pairing is in the file)'}",
    )
    if not todo:
        for line in header:
            out.print(line)
        print_resolutions(out.print, plays)
        return

    def loop(backend: Backend | None) -> Generator[Step, None, None]:
        assert backend is not None
        for count in schedule.play(backend, _save(file)):
            yield Step(count)

    driven = drive(
        Job(header, todo, resolutions=tuple(plays)),
        out,
        loop,
        quiet=settings.quiet,
        backend=settings.where.open_backend,
    )
    keep = "pass --file FILE to keep games across runs"
    if file is not None:
        keep = f"the whole deals finished are in {file}; run the same command to finish"
    driven.close(out, keep)


def _report(
    outputs: Outputs,
    rated: list[Rating],
    method: Method,
    anchor: str,
    setup: LadderSetup,
    file: Path | None,
    plot: Path | None,
) -> None:
    """Write the ``--json``/``--csv`` reports and the ``--plot``."""
    rows = [attrs.asdict(r) for r in rated]
    report = {
        "method": method.value,
        "anchor": None if method is Method.alpharank else anchor,
        **setup.identity(),
        "file": None if file is None else str(file),
        "ratings": [
            {"agent": r.agent, "rating": r.rating, "interval": [r.low, r.high], "games": r.games}
            for r in rated
        ],
    }
    outputs.write(rows, report)
    if plot is not None:
        label = "α-Rank mass" if method is Method.alpharank else f"Elo rating ({anchor} = 0)"
        ratings_chart(
            [(r.agent, r.rating, r.low, r.high) for r in rated],
            plot,
            f"durak ladder: {len(rated)} agents",
            label,
        )
