"""The ``durak`` command line (typer): matches and the engine benchmark."""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from durak.agents import SpecError, make_agent
from durak.arena.bench import bench_alphabeta, bench_engine, bench_mcts
from durak.arena.runner import derive_seed, play_game
from durak.rules import Rules, RulesError

app = typer.Typer(help="Durak: rules engine, agents and experiments.", no_args_is_help=True)
console = Console()


def _fail(message: str) -> typer.Exit:
    console.print(f"[red]error:[/red] {message}", highlight=False)
    return typer.Exit(code=2)


@app.command()
def match(
    specs: Annotated[list[str], typer.Argument(help="One agent spec per seat, e.g. random.")],
    games: Annotated[int, typer.Option(min=1, help="Number of games.")] = 100,
    seed: Annotated[int, typer.Option(help="Master seed; game i uses derive_seed(seed, i).")] = 0,
    lowest_rank: Annotated[int, typer.Option(help="Lowest rank in the deck (6: 36 cards).")] = 6,
    hand_size: Annotated[int, typer.Option(help="Cards per hand.")] = 6,
    transfer: Annotated[bool, typer.Option(help="Perevodnoy (transfer) variant.")] = False,
) -> None:
    """Play GAMES games between the agents; seats rotate so each agent sits everywhere."""
    try:
        rules = Rules(players=len(specs), lowest_rank=lowest_rank, hand_size=hand_size,
                      transfer=transfer)  # fmt: skip
        agents = [make_agent(s) for s in specs]
    except (SpecError, RulesError) as e:
        raise _fail(str(e)) from None
    n = len(specs)
    durak_count = [0] * n
    draws = 0
    start = time.perf_counter()
    for g in range(games):
        seats = [(k + g) % n for k in range(n)]  # seat s is played by agent seats[s]
        record = play_game(rules, [agents[a] for a in seats], derive_seed(seed, g))
        if record.loser is None:
            draws += 1
        else:
            durak_count[seats[record.loser]] += 1
    elapsed = time.perf_counter() - start
    console.print(f"seed {seed}, {games} games, {n} players, {elapsed:.2f} s "
                  f"({games / elapsed:.0f} games/s)", highlight=False)  # fmt: skip
    table = Table("agent", "spec", "not durak (wins)", "durak", "win rate")
    for i, spec in enumerate(specs):
        wins = games - durak_count[i] - draws
        table.add_row(str(i), spec, str(wins), str(durak_count[i]), f"{wins / games:.1%}")
    console.print(table)
    console.print(f"draws: {draws} ({draws / games:.1%})", highlight=False)


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
