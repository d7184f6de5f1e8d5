"""Replaying a logged game through the engine, which re-validates every entry.

Every action text must parse and be legal where it was played; a finished game must end
where the log ends with the durak the log names and the bouts it counts; a forfeited or
interrupted game must stop before its end, and an action given as illegal must be so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeAlias

import attrs

from durak.arena.gamelog.entry import LogEntry, LogError
from durak.rules import (
    Action,
    GameState,
    IllegalActionError,
    is_terminal,
    legal_actions,
    loser,
    new_game,
    parse_action,
    step,
)

_Fail: TypeAlias = Callable[[str], LogError]


@attrs.frozen
class Replay:
    """A validated game: ``states[0]`` is the deal and ``states[k + 1]`` the state after
    ``actions[k]``; ``movers[k]`` is the seat that played ``actions[k]``."""

    entry: LogEntry
    states: tuple[GameState, ...]
    actions: tuple[Action, ...]
    movers: tuple[int, ...]

    @property
    def final(self) -> GameState:
        """The last state."""
        return self.states[-1]


def replay_entry(entry: LogEntry, path: Path | str = "log") -> Replay:
    """Step ``entry``'s actions through the engine from its deal.

    Raises :class:`LogError` naming ``path``, the entry's line and the first action or
    outcome that does not hold.
    """

    def fail(reason: str) -> LogError:
        return LogError(path, entry.line or None, reason)

    state = new_game(entry.rules, entry.deal_seed)
    states, actions, movers, bouts = [state], [], [], 0
    for k, text in enumerate(entry.actions, 1):
        try:
            action = parse_action(text)
        except ValueError:
            raise fail(f"action {k} {text!r} is not an action") from None
        if is_terminal(state):
            raise fail(f"action {k} {text} comes after the end of the game")
        bouts += not state.table
        movers.append(state.turn)
        try:
            state = step(state, action)
        except IllegalActionError as e:
            raise fail(f"action {k} {text} is illegal: {e}") from None
        states.append(state)
        actions.append(action)
    _check_end(entry, state, bouts, fail)
    return Replay(entry, tuple(states), tuple(actions), tuple(movers))


def check_unique(entries: Iterable[LogEntry], path: Path | str = "log") -> None:
    """Raise :class:`LogError` at the first match game logged twice: the same run (rules,
    specs, seed, open world and move limit) and game index on two lines, as when two runs
    wrote one log.  Games with a person (kind ``play``) are each a session of their own:
    a rematch, or two people choosing one seed, plays a logged deal again, and a log of
    sessions holds both games."""
    seen: dict[tuple[str, int], int] = {}
    for e in entries:
        if e.kind != "match":
            continue
        key = (repr(e.identity()), e.game)
        if key in seen:
            raise LogError(
                path,
                e.line or None,
                f"game {e.game} of {' vs '.join(e.specs)} is already logged at line {seen[key]}",
            )
        seen[key] = e.line


def _check_end(entry: LogEntry, state: GameState, bouts: int, fail: _Fail) -> None:
    if entry.end != "finished":
        if is_terminal(state):
            raise fail(f"the log says the game was {_ended(entry)}, but it was over")
        expected = None if entry.forfeit is None else entry.seats[entry.forfeit.seat]
        if entry.durak != expected:
            raise fail(f"durak {entry.durak} is not the forfeiting agent {expected}")
        f = entry.forfeit
        if f is not None and f.fault == "illegal" and f.action is not None:
            try:
                bad = parse_action(f.action)
            except ValueError:
                return  # the agent returned something that is not an action at all
            if bad in legal_actions(state):
                raise fail(f"the forfeited action {f.action} is legal")
        return
    if not is_terminal(state):
        raise fail(f"the game is not over after its {len(entry.actions)} actions")
    seat = loser(state)
    engine = None if seat is None else entry.seats[seat]
    if engine != entry.durak:
        raise fail(
            f"the log says the durak is {_agent(entry, entry.durak)}, "
            f"the engine says {_agent(entry, engine)}"
        )
    if bouts != entry.bouts:
        raise fail(f"the log counts {entry.bouts} bouts, the engine {bouts}")


def _agent(entry: LogEntry, agent: int | None) -> str:
    return "nobody (a draw)" if agent is None else f"agent {agent} ({entry.specs[agent]})"


def _ended(entry: LogEntry) -> str:
    return "forfeited" if entry.end == "forfeit" else "interrupted"
