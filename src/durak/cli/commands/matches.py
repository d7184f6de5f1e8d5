"""The experiment commands ``durak match`` and ``durak tournament`` (Zarlykov's 2023 CLI
and its ``-tournament``)."""

from __future__ import annotations

from typing import Annotated

import typer

from durak.arena.experiments.report import (
    match_report,
    match_rows,
    tournament_report,
    tournament_rows,
)
from durak.arena.experiments.tournament import Tournament, TournamentResult
from durak.arena.play.match import MatchPlan
from durak.cli.console import visibility_label
from durak.cli.driver import finish
from durak.cli.errors import user_errors
from durak.cli.option_groups import expand
from durak.cli.options import (
    RULES,
    Players,
    RulesOptions,
    Specs,
    UsageError,
    describe_rules,
)
from durak.cli.run_options import ReportFiles, RunSettings
from durak.cli.tables import (
    match_summary,
    match_table,
    ranking_table,
    tournament_matrix,
)


@expand
def match(
    specs: Specs,
    players: Players = None,
    *,
    rules_options: RulesOptions,
    settings: RunSettings,
    reports: ReportFiles,
) -> None:
    """Play a duplicate match between agents, one spec per seat.

    Seats rotate so that each deal is played once per rotation (twice, seats swapped, with
    two players).  Prints Zarlykov's statistics: win and durak rates with Wilson intervals,
    draws, bouts per game, moves per bout, time per move, and forfeits.
    """
    games, confidence = settings.games, settings.confidence
    with user_errors():
        if len(specs) < 2:
            raise UsageError(
                f"a match needs at least two agents, one spec per seat; got {len(specs)}"
            )
        rules = rules_options.rules(len(specs), players)
        the_seed = settings.the_seed()
        plan = MatchPlan(
            rules, tuple(specs), the_seed, games, settings.visibility, settings.referee()
        )
        outputs = settings.outputs(reports)
        run = settings.run([plan])
    out = outputs.console()
    n = rules.players
    deals = games // n
    balance = (
        f" = {deals} deal{'s' * (deals != 1)} × {n} seatings"
        if games % n == 0
        else f" (not a multiple of {n}: seats are not balanced)"
    )
    limit = settings.move_timeout
    header = (
        f"match: {' vs '.join(specs)} · {settings.seed_line(the_seed)} · {games} games{balance}",
        f"rules: {describe_rules(rules)}"
        + visibility_label(settings.visibility)
        + ("" if limit is None else f" · move limit {limit:g} s"),
    )
    driven = settings.drive(run, header, out)
    result = run.results()[0]
    if result.games:
        out.print(match_table(result, confidence))
        for line in match_summary(result, confidence):
            out.print(line)
    rows, report = match_rows(result, confidence), match_report(result, confidence)
    finish(run, driven, out, outputs, rows, report)


@expand
def tournament(
    specs: Specs,
    players: Annotated[
        int,
        typer.Option(
            help="Players per game: a tournament is two-player (for 3-6, use durak match).",
            rich_help_panel=RULES,
        ),
    ] = 2,
    *,
    rules_options: RulesOptions,
    settings: RunSettings,
    reports: ReportFiles,
) -> None:
    """Round robin: a two-player duplicate match for every pair of agents.

    Every pair plays GAMES games on the same deals.  Prints the matrix of row-vs-column
    scores (a draw counts half) with Wilson intervals, and the ranking by mean score.
    """
    games, confidence, open_world = settings.games, settings.confidence, settings.visibility
    with user_errors():
        if players != 2:
            raise UsageError(
                f"a tournament is two-player (every pair of agents plays a duplicate "
                f"match), not {players}-player; for {players} players run durak "
                "match with one spec per seat"
            )
        rules = rules_options.rules(2)
        the_seed = settings.the_seed()
        t = Tournament(rules, tuple(specs), the_seed, games, open_world, settings.referee())
        outputs = settings.outputs(reports)
        run = settings.run(t.plans())
    out = outputs.console()
    header = (
        f"tournament: {len(specs)} agents, {len(t.pairs)} pairings × {games} games · "
        f"{settings.seed_line(the_seed)}",
        f"rules: {describe_rules(rules)}" + visibility_label(open_world),
    )
    driven = settings.drive(run, header, out, pairing=True)
    result = TournamentResult(t, tuple(run.results()))
    out.print(tournament_matrix(result, confidence))
    out.print(ranking_table(result, confidence))
    rows, report = tournament_rows(result, confidence), tournament_report(result, confidence)
    finish(run, driven, out, outputs, rows, report)
