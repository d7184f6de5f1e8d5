"""``durak bench``: engine and search speed, the figures of the README's "Speed" section
(the workloads: :mod:`durak.arena.experiments.bench`)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from durak.arena.experiments.bench import (
    bench_alphabeta,
    bench_api,
    bench_engine,
    bench_ismcts,
    bench_mcts,
    bench_passive,
)
from durak.cli.console import stdout_console
from durak.rules import Rules


def bench(
    games: Annotated[
        int, typer.Option("--games", "-n", min=1, help="Games per player count.")
    ] = 2000,
    seed: Annotated[int, typer.Option(help="First deal seed.")] = 0,
    positions: Annotated[int, typer.Option(min=1, help="Positions per search benchmark.")] = 5,
    iterations: Annotated[
        int, typer.Option(min=1, help="MCTS and ISMCTS iterations per position.")
    ] = 1000,
    nodes: Annotated[int, typer.Option(min=1, help="Alpha-beta nodes per endgame.")] = 50_000,
    passive_decisions: Annotated[
        int, typer.Option(min=1, help="Decisions of the long passive game.")
    ] = 400_000,
) -> None:
    """Benchmark the engine and the searches (CPU time of this thread: see arena.experiments.bench).

    Engine speed (random games/s, µs per legal_actions+step, 2/4/6 players), the public
    API's checked loop against the unchecked one, a long passive 5-player game (the cost of
    the repetition record), then search speed on 2-player 36-card Durak: MCTS iterations/s
    ISMCTS iterations/s (the ismcts agent's greedy rollouts) and alpha-beta nodes/s.
    """
    console = stdout_console()
    table = Table("players", "games", "games/s", "µs per decision", "decisions/game")
    for players in (2, 4, 6):
        r = bench_engine(Rules(players=players), games, seed)
        table.add_row(
            str(players),
            str(games),
            f"{r.games_per_second:,.0f}",
            f"{r.us_per_decision:.2f}",
            f"{r.decisions / games:.1f}",
        )
    console.print(table)
    api = bench_api(Rules(), games, seed)
    table = Table(
        "loop (2 players, uniform random)",
        "games",
        "games/s",
        title="The public API: legal_actions + step, against step_unchecked",
    )
    table.add_row(
        "legal_actions + step (checked)", str(api.games), f"{api.games / api.checked_seconds:,.0f}"
    )
    table.add_row(
        "legal_actions + step_unchecked",
        str(api.games),
        f"{api.games / api.unchecked_seconds:,.0f}",
    )
    table.add_row("checked / unchecked", "", f"{api.ratio:.2f}")
    console.print(table)
    passive = bench_passive(Rules(players=5), passive_decisions, seed)
    console.print(
        f"long passive game (5 players, every defender takes): "
        f"{passive.decisions:,} decisions in {passive.seconds:.2f} s, "
        f"{passive.us_per_decision:.2f} µs per decision"
    )
    table = Table(
        "search",
        "positions",
        "work",
        "per second",
        "solved",
        title="Search on 2-player 36-card Durak: MCTS and ISMCTS from openings, "
        "alpha-beta on endgames (talon empty)",
    )
    for b in (
        bench_mcts(Rules(), positions, iterations, seed),
        bench_ismcts(Rules(), positions, iterations, seed),
        bench_alphabeta(Rules(), positions, nodes, seed),
    ):
        table.add_row(
            b.name,
            str(b.positions),
            f"{b.count:,} {b.unit}",
            f"{b.per_second:,.0f} {b.unit}/s",
            str(b.exact),
        )
    console.print(table)
