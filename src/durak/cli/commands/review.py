"""``durak review``: where a logged game was lost, by an analysing agent's judgement.

The log is re-validated as ``durak replay`` validates it (a tampered log is the same one
line, exit 2); the game is chosen as ``durak replay`` chooses it; each decision of the
reviewed seats is analysed from that seat's observation only
(:mod:`durak.arena.gamelog.review`).  The output is a table of those decisions (the
action played, the one the analyst preferred, the value lost) and the largest mistakes
first, or the review as JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from durak.arena.gamelog.review import Decision, Review, review_entry, reviewed_seats
from durak.cli.commands.replay import checked_games, select_game
from durak.cli.console import stderr_console, stdout_console
from durak.cli.errors import user_errors
from durak.cli.options import Force, JsonFile, Quiet
from durak.cli.progress import GameProgress, wanted
from durak.cli.run_options import ReportFiles
from durak.files import FilePlan, Input, write_atomic


def _value(v: float | None) -> str:
    return "-" if v is None else f"{v:+.3f}"


def _loss(d: Decision) -> str:
    if d.forced:
        return "forced"
    return "?" if d.loss is None else f"{d.loss:.3f}"


def _decisions(review: Review, title: str) -> Table:
    table = Table("step", "seat", "played", "value", "preferred", "value", "lost", title=title)
    for d in review.decisions:
        same = d.played == d.chosen
        table.add_row(
            str(d.step),
            str(d.seat),
            str(d.played),
            _value(d.played_value),
            "=" if same else str(d.chosen),
            "" if same else _value(d.chosen_value),
            _loss(d),
        )
    return table


def _mistakes(review: Review, top: int) -> Table:
    table = Table(
        "step", "seat", "played", "preferred", "lost", title=f"largest mistakes (top {top})"
    )
    for d in review.mistakes()[:top]:
        table.add_row(str(d.step), str(d.seat), str(d.played), str(d.chosen), _loss(d))
    return table


def review(
    file: Annotated[
        Path, typer.Argument(help="A log written by --log.", dir_okay=False, show_default=False)
    ],
    game: Annotated[
        int | None,
        typer.Argument(
            help="The index of the game to review (default: the log's only game).",
            show_default=False,
        ),
    ] = None,
    line: Annotated[
        int | None,
        typer.Option(help="Review the game on this line of the file.", show_default=False),
    ] = None,
    seat: Annotated[
        list[int] | None,
        typer.Option(
            help="Review this seat (repeat for more; default: the seats a person played, "
            "else every seat).",
            show_default=False,
        ),
    ] = None,
    agent: Annotated[
        str, typer.Option(help="The analysing agent's spec (one that can analyse).")
    ] = "strongest",
    seed: Annotated[
        int, typer.Option(help="Seed of the analysis (the same seed, the same review).")
    ] = 0,
    top: Annotated[int, typer.Option(help="How many of the largest mistakes to list.", min=0)] = 10,
    json_file: JsonFile = None,
    force: Force = False,
    quiet: Quiet = False,
) -> None:
    """Review a logged game: at each decision of a seat, what was played, what the analysing
    agent preferred and the value lost; the largest mistakes first.

    The log is re-validated through the engine first, as durak replay does.
    """
    reports = ReportFiles(json_file=json_file, force=force)
    with user_errors():
        (reports.files() + FilePlan(inputs=(Input(file, "the log FILE"),))).check()
    games = checked_games(file)
    shown = select_game(games, file, game, line, index="game")
    entry = shown.entry
    with user_errors():
        seats = reviewed_seats(entry, seat)
        total = sum(1 for m in shown.movers if m in seats)
        with GameProgress(total, 0, wanted(quiet), stderr_console(), "decisions") as bar:
            found = review_entry(
                entry, agent, seats=seats, seed=seed, path=file, progress=lambda *_: bar.advance()
            )
    to_stdout = json_file is not None and str(json_file) == "-"
    if json_file is not None:
        text = json.dumps(found.to_json(), ensure_ascii=False, indent=2)
        if to_stdout:
            print(text)
        else:
            with user_errors():
                write_atomic(json_file, lambda f: f.write(f"{text}\n".encode()), reports.existing())
    out = stderr_console() if to_stdout else stdout_console()
    names = " / ".join(entry.specs[a] for a in entry.seats)
    seats_text = ", ".join(str(s) for s in found.seats)
    title = (
        f"{entry.kind} game {entry.game} of {names} (line {entry.line}): seat {seats_text}"
        f" reviewed by {found.analyst}, seed {seed}"
    )
    out.print(_decisions(found, title))
    out.print(_mistakes(found, top))
    out.print(
        f"{len(found.decisions)} decisions · {len(found.mistakes())} lost value · "
        f"total lost {found.total_loss:.3f}"
    )
