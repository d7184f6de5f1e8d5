"""A seat played by a person (``durak play`` at the terminal, ``durak serve`` in a browser):
the exception that ends a game when the person leaves, and the game's log entry.

The entry is of kind ``play`` (``durak.arena.gamelog.entry``): deal ``derive_seed(seed, game)``,
the person's seat named ``human`` among the agents' specs, so ``durak replay`` checks it
like any other.
"""

from __future__ import annotations

from collections.abc import Sequence

from durak.agents.base import replacements
from durak.arena.gamelog.entry import Ending, LogEntry
from durak.arena.play.game import GameRecord
from durak.rules import Action, Rules, Visibility, is_terminal, loser, new_game, step
from durak.seeding import derive_seed

__all__ = ["PlayerLeft", "play_entry"]


class PlayerLeft(BaseException):
    """The person left the game (a ``BaseException``, so the referee does not take it for a
    fault of the seat)."""


def play_entry(
    rules: Rules,
    names: tuple[str, ...],
    seed: int,
    open_world: Visibility,
    game: int,
    actions: Sequence[Action],
    record: GameRecord | None,
    move_timeout: float | None = None,
) -> LogEntry:
    """The log entry of a game with a person, played under ``move_timeout``: finished or
    forfeited (``record``), or stopped after ``actions`` (``record`` is ``None``), with its
    bouts and decisions counted from the actions: interrupted, or finished if they end the
    game (it was stopped as it ended)."""
    n = rules.players
    deal = derive_seed(seed, game)
    if record is None:
        state, bouts, decisions = new_game(rules, deal), 0, [0] * n
        for action in actions:
            bouts += not state.table
            decisions[state.turn] += 1
            state = step(state, action)
        over = is_terminal(state)
        record = GameRecord(
            rules,
            deal,
            tuple(actions),
            loser(state) if over else None,
            bouts,
            (0.0,) * n,
            tuple(decisions),
            (0.0,) * n,
        )
        end: Ending = "finished" if over else "interrupted"
    else:
        end = "finished" if record.forfeit is None else "forfeit"
    return LogEntry(
        "play",
        rules,
        names,
        seed,
        open_world,
        move_timeout,
        game,
        deal,
        tuple(range(n)),
        tuple(str(a) for a in record.actions),
        end,
        record.loser,
        record.bouts,
        record.decisions,
        record.think_time,
        record.max_think,
        record.forfeit,
        replaced=replacements(names),
    )
