"""Play one game between agents and keep a replayable record of it.

Each game is seeded on its own (:func:`derive_seed`), so results do not depend on the order
or the process in which games run.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import attrs

from durak.agents.base import Agent, Watcher
from durak.rules import (
    Action,
    GameState,
    IllegalActionError,
    Rules,
    is_terminal,
    loser,
    new_game,
    observe,
    step,
)

_MASK64 = (1 << 64) - 1


def _mix(x: int) -> int:
    """The SplitMix64 step: a bijection on 64-bit integers that scatters nearby inputs."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def derive_seed(seed: int, *parts: int) -> int:
    """A 64-bit seed for sub-stream ``parts`` of ``seed``, the same in every process."""
    x = _mix(seed & _MASK64)
    for part in parts:
        x = _mix((x + (part & _MASK64)) & _MASK64)
    return x


@attrs.frozen
class GameRecord:
    """One finished game.

    * ``rules``, ``seed``: replaying ``actions`` from ``new_game(rules, seed)`` reproduces it.
    * ``actions``: every action in order.
    * ``loser``: the durak's seat, or ``None`` for a draw.
    * ``bouts``: the number of bouts played.
    * ``think_time``/``decisions``: seconds spent and decisions made, per seat.
    * ``max_think``: the longest single decision, per seat, in seconds.
    """

    rules: Rules
    seed: int
    actions: tuple[Action, ...]
    loser: int | None
    bouts: int
    think_time: tuple[float, ...]
    decisions: tuple[int, ...]
    max_think: tuple[float, ...]

    def replay(self) -> GameState:
        """The final state, re-validated action by action through the engine."""
        state = new_game(self.rules, self.seed)
        for action in self.actions:
            state = step(state, action)
        return state


def play_game(
    rules: Rules, agents: Sequence[Agent], seed: int, open_world: bool = False
) -> GameRecord:
    """Play one game, seat ``i`` played by ``agents[i]``.

    The deal comes from ``seed``; agent ``i`` draws from ``Random(derive_seed(seed, i))``.
    Agents that implement :class:`~durak.agents.Watcher` are told of the start, of every
    action and of the end, each through its own observation.  Raises
    :class:`IllegalActionError` naming the agent if one returns an illegal action.
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
    for p, watcher in watchers:
        watcher.game_started(observe(state, p, open_world))
    while not is_terminal(state):
        if not state.table:
            bouts += 1
        p = state.turn
        started = time.perf_counter()
        action = agents[p].act(observe(state, p, open_world), rngs[p])
        spent = time.perf_counter() - started
        think[p] += spent
        longest[p] = max(longest[p], spent)
        decisions[p] += 1
        try:
            state = step(state, action)
        except IllegalActionError as e:
            raise IllegalActionError(f"agent {agents[p].name!r} in seat {p}: {e}") from None
        actions.append(action)
        for q, watcher in watchers:
            watcher.action_taken(p, action, observe(state, q, open_world))
    for p, watcher in watchers:
        watcher.game_ended(observe(state, p, open_world), loser(state))
    return GameRecord(rules, seed, tuple(actions), loser(state), bouts, tuple(think),
                      tuple(decisions), tuple(longest))  # fmt: skip
