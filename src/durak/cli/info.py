"""``durak agents`` (the registered agents, their parameters and defaults) and ``durak
bench`` (engine and search speed, the figures of the README's "Speed" section)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Protocol

import typer
from rich.table import Table

from durak.agents import registry
from durak.agents.base import Param
from durak.arena.experiments.bench import (
    bench_alphabeta,
    bench_api,
    bench_engine,
    bench_ismcts,
    bench_mcts,
    bench_passive,
)
from durak.cli.driver import stdout_console
from durak.cli.errors import fail, user_errors
from durak.cli.options import JsonFile
from durak.rules import Rules


def agents(
    name: Annotated[
        str | None, typer.Argument(help="Show only this agent.", show_default=False)
    ] = None,
    json_file: JsonFile = None,
) -> None:
    """List the agents with their parameters and defaults.

    A spec is NAME or NAME:key=value,key=value, e.g. 'mcts:limit=300,c=1.4'; parameters
    not given take their defaults.
    """
    print_listing(
        registry(), name, "agent", "agents: use NAME or NAME:key=value,... as a spec", json_file
    )


class Listed(Protocol):
    """A registry entry: an agent (``AgentInfo``) or a learner (``TrainerInfo``)."""

    @property
    def name(self) -> str:
        """The spec name."""
        ...

    @property
    def description(self) -> str:
        """A one-line description."""
        ...

    @property
    def params(self) -> tuple[Param, ...]:
        """The typed parameters."""
        ...


def print_listing(
    known: Mapping[str, Listed], name: str | None, kind: str, title: str, json_file: Path | None
) -> None:
    """Print the entries of ``known`` (only ``name``, if given) with their parameters, as a
    table, or as JSON to ``json_file`` (``-``: standard output); an unknown ``name`` is a
    usage error listing the known ones."""
    if name is not None and name not in known:
        raise fail(f"unknown {kind} {name!r}; known {kind}s: {', '.join(known)}")
    chosen = [known[name]] if name is not None else list(known.values())
    if json_file is not None:
        listing = [
            {
                "name": a.name,
                "description": a.description,
                "params": [
                    {
                        "name": p.name,
                        "type": p.kind.__name__,
                        "default": p.default,
                        "low": p.low,
                        "high": p.high,
                        "choices": list(p.choices),
                        "help": p.help,
                    }
                    for p in a.params
                ],
            }
            for a in chosen
        ]
        text = json.dumps(listing, indent=2)
        if str(json_file) == "-":
            print(text)
        else:
            with user_errors():
                json_file.write_text(text + "\n", encoding="utf-8")
        return
    table = Table(
        kind,
        "description",
        "parameters (name: type = default, range - meaning)",
        title=title,
        show_lines=True,
    )
    for info in chosen:
        params = "\n".join(p.describe() for p in info.params) or "(none)"
        table.add_row(info.name, info.description, params)
    stdout_console().print(table)


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
