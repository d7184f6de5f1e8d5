"""``durak replay``: check a game log through the engine and step through a logged game.

Every entry of the file is re-validated (:mod:`durak.arena.gamelog.replay`) before anything is
shown; the first corrupt or illegal line is reported with its number and the reason.
The game is shown with every hand visible, as a referee would see it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from durak.agents.heuristics.tactics import sorted_by_power
from durak.arena.gamelog.entry import LogEntry
from durak.arena.gamelog.files import read_log
from durak.arena.gamelog.replay import Replay, check_unique, replay_entry
from durak.cli.console import stdout_console
from durak.cli.errors import fail, user_errors
from durak.cli.options import describe_rules
from durak.rules import CardSet, GameState, Suit


def _cards(cards: CardSet, trump: Suit | None) -> str:
    return " ".join(str(c) for c in sorted_by_power(cards, trump)) or "(none)"


def _table(state: GameState) -> str:
    pairs = "  ".join(f"{a}/{'-' if d is None else d}" for a, d in state.table)
    return (pairs or "empty") + (" (the defender takes)" if state.taking else "")


def _deal(state: GameState, names: list[str]) -> list[str]:
    trump = (
        "no trumps"
        if state.trump_suit is None
        else f"trump {state.trump_suit}"
        + ("" if state.trump_card is None else f" ({state.trump_card})")
    )
    lines = [f"deal: {trump} · talon {len(state.talon)} · seat {state.attacker} leads"]
    lines += [
        f"  seat {p} {names[p]}: {_cards(h, state.trump_suit)}" for p, h in enumerate(state.hands)
    ]
    return lines


def _steps(game: Replay) -> list[tuple[str, bool]]:
    """The deal, a line at each new bout and one per action (flagged True)."""
    entry = game.entry
    names = [entry.specs[a] for a in entry.seats]
    width = max(map(len, names))  # the action column lines up whatever the specs' lengths
    lines = [(text, False) for text in _deal(game.states[0], names)]
    bout = 0
    for k, (action, mover) in enumerate(zip(game.actions, game.movers, strict=True)):
        before, after = game.states[k], game.states[k + 1]
        if not before.table:
            bout += 1
            sizes = " ".join(str(len(h)) for h in before.hands)
            lines.append(
                (
                    f"bout {bout}: seat {before.attacker} attacks seat {before.defender}"
                    f" · talon {len(before.talon)} · discard {len(before.discard)} · "
                    f"hands {sizes}",
                    False,
                )
            )
        lines.append(
            (
                f"  {k + 1:4}. seat {mover} {names[mover]:<{width}} {action!s:<16} "
                f"table {_table(after)}",
                True,
            )
        )
    return lines


def _go_on() -> bool:
    """Wait for Enter; False after q or at the end of input."""
    try:
        return input().strip().lower() != "q"
    except EOFError:
        return False


def _header(e: LogEntry) -> list[str]:
    """The lines above a shown game: which game, its seeds, its rules, and each agent that
    replaced another registration."""
    return [
        f"{e.kind} game {e.game} of {' vs '.join(e.specs)} (line {e.line}) · seed {e.seed}"
        f" · deal seed {e.deal_seed}",
        f"rules: {describe_rules(e.rules)}",
        *(f"replaced: {n} is the agent registered by {s} over another" for n, s in e.replaced),
    ]


def _ending(game: Replay) -> str:
    e = game.entry
    if e.end == "interrupted":
        return f"interrupted after {len(e.actions)} moves (no durak)"
    who = "a draw" if e.durak is None else f"durak {e.specs[e.durak]} (agent {e.durak})"
    if e.forfeit is not None:
        who += f" by forfeit: {e.forfeit.fault}: {e.forfeit.message}"
    return f"end: {who} · {e.bouts} bouts · {len(e.actions)} moves · checked by the engine"


def checked_games(file: Path) -> list[Replay]:
    """Every game of the log ``file``, each re-validated through the engine; a corrupt or
    illegal entry, or a match game logged twice, is a one-line error (exit 2)."""
    with user_errors():
        entries = read_log(file).entries
        check_unique(entries, file)
        return [replay_entry(e, file) for e in entries]


def select_game(
    games: list[Replay], file: Path, game: int | None, line: int | None, index: str = "--game"
) -> Replay:
    """The one game of ``games`` with index ``game`` and on line ``line`` (either may be
    ``None``: any); a one-line error (exit 2) naming ``index`` (how the command takes the
    index) if there is none or more than one."""
    chosen = [
        g
        for g in games
        if (game is None or g.entry.game == game) and (line is None or g.entry.line == line)
    ]
    if not chosen:
        if game is None and line is None:
            raise fail(f"{file} holds no game")
        raise fail(
            f"{file} has no game with {f'{index} {game}' if game is not None else ''}"
            f"{' ' if game is not None and line is not None else ''}"
            f"{'--line ' + str(line) if line is not None else ''}"
        )
    if len(chosen) > 1:
        lines = ", ".join(str(g.entry.line) for g in chosen)
        which = f"index {game}" if game is not None else "no index given"
        raise fail(
            f"{file} has {len(chosen)} games with {which} (lines {lines}); choose one with --line"
        )
    return chosen[0]


def replay(
    file: Annotated[
        Path, typer.Argument(help="A log written by --log.", dir_okay=False, show_default=False)
    ],
    game: Annotated[
        int | None,
        typer.Option(help="Show the game with this index (match logs).", show_default=False),
    ] = None,
    line: Annotated[
        int | None, typer.Option(help="Show the game on this line of the file.", show_default=False)
    ] = None,
    step: Annotated[
        bool, typer.Option(help="Wait for Enter after each move (q and Enter stops).")
    ] = False,
) -> None:
    """Check a game log through the engine, or step through one of its games.

    Every entry is re-validated; a corrupt or illegal one is reported with its line.  Without
    --game or --line the games are listed.
    """
    games = checked_games(file)
    out = stdout_console()
    if game is None and line is None:
        table = Table(
            "line",
            "kind",
            "game",
            "seating",
            "end",
            "durak",
            "bouts",
            "moves",
            title=f"{file}: {len(games)} games, all valid",
        )
        for g in games:
            e = g.entry
            table.add_row(
                str(e.line),
                e.kind,
                str(e.game),
                " / ".join(e.specs[a] for a in e.seats),
                e.end,
                "-" if e.durak is None else e.specs[e.durak],
                str(e.bouts),
                str(len(e.actions)),
            )
        out.print(table)
        return
    shown = select_game(games, file, game, line)
    for text in _header(shown.entry):
        out.print(text)
    for text, is_move in _steps(shown):
        out.print(text)
        if step and is_move and not _go_on():
            return
    out.print(_ending(shown))
