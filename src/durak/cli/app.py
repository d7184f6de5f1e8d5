"""The ``durak`` command line (typer): matches and the benchmarks."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from durak.agents import SpecError
from durak.arena.bench import bench_alphabeta, bench_engine, bench_mcts
from durak.arena.tournament import run_match
from durak.rules import Rules, RulesError

app = typer.Typer(help="Durak: rules engine, agents and experiments.", no_args_is_help=True)
# Wide enough for the match table when the output is not a terminal (pipes, logs, tests).
console = Console(width=None if sys.stdout.isatty() else 140)


def _fail(message: str) -> typer.Exit:
    console.print(f"[red]error:[/red] {message}", highlight=False)
    return typer.Exit(code=2)


@app.command()
def match(
    specs: Annotated[list[str], typer.Argument(help="One agent spec per seat, e.g. random.")],
    games: Annotated[int, typer.Option(min=1, help="Games (deals x seat rotations).")] = 100,
    seed: Annotated[int, typer.Option(help="Master seed; deal d is derive_seed(seed, d).")] = 0,
    jobs: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 1,
    open_world: Annotated[bool, typer.Option(help="Every player sees every hand.")] = False,
    lowest_rank: Annotated[int, typer.Option(help="Lowest rank in the deck (6: 36 cards).")] = 6,
    hand_size: Annotated[int, typer.Option(help="Cards per hand.")] = 6,
    transfer: Annotated[bool, typer.Option(help="Perevodnoy (transfer) variant.")] = False,
) -> None:
    """Play GAMES games between the agents, each deal once per seat rotation; report win
    and durak rates with 98% Wilson intervals and thinking time per decision."""
    try:
        rules = Rules(players=len(specs), lowest_rank=lowest_rank, hand_size=hand_size,
                      transfer=transfer)  # fmt: skip
        result = run_match(rules, specs, games=games, seed=seed, jobs=jobs,
                           open_world=open_world)  # fmt: skip
    except (SpecError, RulesError) as e:
        raise _fail(str(e)) from None
    n = len(specs)
    console.print(f"seed {seed}, {games} games, {n} players, {jobs} jobs, "
                  f"{result.wall_seconds:.2f} s wall", highlight=False)  # fmt: skip
    table = Table("#", "spec", "wins", "win rate", "98% CI", "durak", "durak rate", "98% CI",
                  "ms/dec", "max ms")  # fmt: skip
    for i, spec in enumerate(specs):
        wl, wh = result.win_interval(i)
        dl, dh = result.durak_interval(i)
        think, longest = result.mean_think(i) * 1000, result.max_think(i) * 1000
        table.add_row(str(i), spec, str(result.wins(i)), f"{result.win_rate(i):.1%}",
                      f"{wl:.1%}-{wh:.1%}", str(result.durak_count(i)),
                      f"{result.durak_count(i) / games:.1%}", f"{dl:.1%}-{dh:.1%}",
                      f"{think:.1f}", f"{longest:.0f}")  # fmt: skip
    console.print(table)
    console.print(f"draws: {result.draws} ({result.draws / games:.1%})", highlight=False)


@app.command()
def bench(
    games: Annotated[int, typer.Option(min=1, help="Games per player count.")] = 2000,
    seed: Annotated[int, typer.Option(help="First deal seed.")] = 0,
    positions: Annotated[int, typer.Option(min=1, help="Positions per search benchmark.")] = 5,
    iterations: Annotated[int, typer.Option(min=1, help="MCTS iterations per position.")] = 1000,
    nodes: Annotated[int, typer.Option(min=1, help="Alpha-beta nodes per endgame.")] = 50_000,
) -> None:
    """Engine speed (random games/s, µs per legal_actions+step, 2/4/6 players), then search
    speed on 2-player 36-card Durak: MCTS iterations/s and alpha-beta nodes/s."""
    table = Table("players", "games", "games/s", "µs per decision", "decisions/game")
    for players in (2, 4, 6):
        r = bench_engine(Rules(players=players), games, seed)
        table.add_row(str(players), str(games), f"{r.games_per_second:,.0f}",
                      f"{r.us_per_decision:.2f}", f"{r.decisions / games:.1f}")  # fmt: skip
    console.print(table)
    table = Table("search", "positions", "work", "per second", "solved",
                  title="Search on 2-player 36-card Durak: MCTS from openings, "
                  "alpha-beta on endgames (talon empty)")  # fmt: skip
    for b in (bench_mcts(Rules(), positions, iterations, seed),
              bench_alphabeta(Rules(), positions, nodes, seed)):  # fmt: skip
        table.add_row(b.name, str(b.positions), f"{b.count:,} {b.unit}",
                      f"{b.per_second:,.0f} {b.unit}/s", str(b.exact))  # fmt: skip
    console.print(table)


def main() -> None:
    """Entry point of the ``durak`` script."""
    app()
