"""``durak grid``: the parameter grid search (Zarlykov's 2023 ``-config``)."""

from __future__ import annotations

from typing import Annotated

import typer

from durak.arena.experiments.grid import Grid, GridResult, parse_param
from durak.arena.experiments.report import grid_report, grid_rows
from durak.cli.console import visibility_label
from durak.cli.driver import finish
from durak.cli.errors import user_errors
from durak.cli.option_groups import expand
from durak.cli.options import (
    RulesOptions,
    describe_rules,
)
from durak.cli.run_options import ReportFiles, RunSettings
from durak.cli.tables import grid_table


@expand
def grid(
    template: Annotated[
        str,
        typer.Argument(
            help="Agent spec to vary, e.g. 'mcts:limit=100'; {name} marks a placeholder.",
            show_default=False,
        ),
    ],
    param: Annotated[
        list[str],
        typer.Option(
            "--param",
            "-p",
            help="name=v1,v2,...; repeat for a product of values.",
            show_default=False,
        ),
    ],
    vs: Annotated[
        list[str] | None,
        typer.Option(
            help="Opponent spec, one per other seat (repeat for more players).",
            show_default="greedy",
        ),
    ] = None,
    *,
    rules_options: RulesOptions,
    settings: RunSettings,
    reports: ReportFiles,
) -> None:
    """Grid search over agent parameters (Zarlykov's -config).

    Every combination of the --param values plays a duplicate match of GAMES games against
    the --vs opponents on the same deals.  Prints each setting's score with its Wilson
    interval; * marks the best (every one of a tie).
    """
    opponents = tuple(vs or ["greedy"])
    games, confidence, open_world = settings.games, settings.confidence, settings.visibility
    with user_errors():
        rules = rules_options.rules(1 + len(opponents))
        the_seed = settings.the_seed()
        g = Grid(
            template,
            tuple(parse_param(p) for p in param),
            opponents,
            rules,
            the_seed,
            games,
            open_world,
            settings.referee(),
        )
        outputs = settings.outputs(reports)
        run = settings.run(g.plans())
    out = outputs.console()
    header = (
        f"grid: {template} with {' × '.join(p.split('=')[0] for p in param)} "
        f"({len(run.plans)} settings) vs {', '.join(opponents)} · {games} games each · "
        f"{settings.seed_line(the_seed)}",
        f"rules: {describe_rules(rules)}" + visibility_label(open_world),
    )
    driven = settings.drive(run, header, out, pairing=True)
    result = GridResult(g, tuple(run.results()))
    out.print(grid_table(result, confidence))
    rows, report = grid_rows(result, confidence), grid_report(result, confidence)
    finish(run, driven, out, outputs, rows, report)
