"""Play one game between agents and keep a replayable record of it.

Each game is seeded on its own (:func:`~durak.seeding.derive_seed`), so results do not
depend on the order or the process in which games run.  Given a
:class:`~durak.arena.play.referee.Referee`, a faulty agent forfeits (it becomes the durak and the
record says why); without one, play is strict and an agent's error propagates.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from functools import partial
from typing import TypeVar

import attrs

from durak.agents.base import Agent, Watcher
from durak.arena.play.referee import AgentFaultError, Forfeit, Referee
from durak.rules import (
    Action,
    GameState,
    IllegalActionError,
    Rules,
    Visibility,
    is_terminal,
    loser,
    new_game,
    observe,
    step,
)
from durak.seeding import derive_seed

T = TypeVar("T")


@attrs.frozen
class GameRecord:
    """One finished game.

    * ``rules``, ``seed``: replaying ``actions`` from ``new_game(rules, seed)`` reproduces it.
    * ``actions``: every action in order.
    * ``loser``: the durak's seat, or ``None`` for a draw.
    * ``bouts``: the number of bouts played (begun).
    * ``think_time``/``decisions``: seconds spent and decisions made, per seat.
    * ``max_think``: the longest single decision, per seat, in seconds.
    * ``forfeit``: why the game ended early, if an agent was at fault (then ``loser`` is
      its seat and the actions stop where the fault happened).
    """

    rules: Rules
    seed: int
    actions: tuple[Action, ...]
    loser: int | None
    bouts: int
    think_time: tuple[float, ...]
    decisions: tuple[int, ...]
    max_think: tuple[float, ...]
    forfeit: Forfeit | None = None

    def replay(self) -> GameState:
        """The last state, re-validated action by action through the engine (terminal unless
        the game was forfeited)."""
        state = new_game(self.rules, self.seed)
        for action in self.actions:
            state = step(state, action)
        return state


class _ForfeitError(Exception):
    def __init__(self, forfeit: Forfeit) -> None:
        self.forfeit = forfeit


def _call(referee: Referee | None, seat: int, fn: Callable[[], T]) -> T:
    """``fn()``; with a referee, a fault of seat ``seat`` ends the game as a forfeit."""
    if referee is None:
        return fn()
    try:
        return referee.call(fn, seat)
    except AgentFaultError as e:
        raise _ForfeitError(Forfeit(seat, e.kind, e.message)) from None


def play_game(
    rules: Rules,
    agents: Sequence[Agent],
    seed: int,
    open_world: Visibility = False,
    referee: Referee | None = None,
) -> GameRecord:
    """Play one game, seat ``i`` played by ``agents[i]``.

    The deal comes from ``seed``; agent ``i`` draws from ``Random(derive_seed(seed, i))``.
    Agents that implement :class:`~durak.agents.Watcher` are told of the start, of every
    action and of the end, each through its own observation.

    Without a ``referee`` an agent's exception propagates, and an illegal action raises
    :class:`IllegalActionError` naming the agent.  With one, the first fault (an exception
    from ``act`` or a hook, a move over the time limit, an illegal action) ends the game:
    that seat is the durak and ``forfeit`` says why; the other watchers still hear
    ``game_ended``.  A fault in ``game_ended`` is ignored: the game is decided by then.
    """
    if len(agents) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} agents, got {len(agents)}")
    state = new_game(rules, seed)
    rngs = [random.Random(derive_seed(seed, i)) for i in range(rules.players)]
    actions: list[Action] = []
    think = [0.0] * rules.players
    longest = [0.0] * rules.players
    decisions = [0] * rules.players
    bouts = 0
    watchers = [(p, a) for p, a in enumerate(agents) if isinstance(a, Watcher)]
    forfeit: Forfeit | None = None
    try:
        for p, watcher in watchers:
            _call(referee, p, partial(watcher.game_started, observe(state, p, open_world)))
        while not is_terminal(state):
            if not state.table:
                bouts += 1
            p = state.turn
            observation = observe(state, p, open_world)
            started = time.perf_counter()
            try:
                action = _call(referee, p, partial(agents[p].act, observation, rngs[p]))
            finally:
                spent = time.perf_counter() - started
                think[p] += spent
                longest[p] = max(longest[p], spent)
                decisions[p] += 1
            try:
                state = step(state, action)
            except IllegalActionError as e:
                if referee is not None:
                    raise _ForfeitError(Forfeit(p, "illegal", str(e), str(action))) from None
                raise IllegalActionError(f"agent {agents[p].name!r} in seat {p}: {e}") from None
            actions.append(action)
            for q, watcher in watchers:
                _call(
                    referee,
                    q,
                    partial(watcher.action_taken, p, action, observe(state, q, open_world)),
                )
        lost = loser(state)
    except _ForfeitError as f:
        forfeit = f.forfeit
        lost = forfeit.seat
    for p, watcher in watchers:
        if forfeit is None or p != forfeit.seat:
            ended = partial(watcher.game_ended, observe(state, p, open_world), lost)
            with suppress(_ForfeitError):  # the game was decided before game_ended
                _call(referee, p, ended)
    return GameRecord(
        rules,
        seed,
        tuple(actions),
        lost,
        bouts,
        tuple(think),
        tuple(decisions),
        tuple(longest),
        forfeit,
    )
