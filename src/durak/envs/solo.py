"""One learner at a table of fixed agents: the single-agent view of a Durak game.

This is the engine-side core of the Gymnasium adapter (:mod:`durak.envs.gymnasium_env`) and of the
training loops in :mod:`durak.learn`, in the manner of Gymnasium's ``reset``/``step``
(Towers et al. 2024) but with engine values: :meth:`SoloTable.reset` deals and lets the
other seats play until the learner must act; :meth:`SoloTable.step` applies the learner's
action and again lets the others play.  It needs nothing beyond the core library.

The engine's :class:`~durak.rules.GameState` inside is immutable, so :meth:`SoloTable.clone`
is O(1) in the game (it copies the opponents' random streams, not the state).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import attrs

from durak.agents.base import Agent, Watcher
from durak.rules import (
    Action,
    GameState,
    Observation,
    Rules,
    Visibility,
    is_terminal,
    loser,
    new_game,
    observe,
    returns,
    step,
)
from durak.seeding import derive_seed

__all__ = ["Autopilot", "SoloStep", "SoloTable"]

#: Moves the learner's seat makes without the learner: an action, or ``None`` to let the
#: learner decide (e.g. :class:`durak.agents.solver.ExactEndgame`).
Autopilot = Callable[[Observation, random.Random], Action | None]


@attrs.frozen(slots=True)
class SoloStep:
    """What the learner sees after ``reset`` or ``step``.

    * ``observation``: the learner's own observation (its ``legal_actions`` are non-empty
      exactly when ``done`` is false).
    * ``reward``: the learner's share of :func:`~durak.rules.returns` (non-zero only when the
      game ends: -1 for the durak, ``+1/(n-1)`` for the others, 0 for a draw).
    * ``done``: the game is over.
    * ``loser``: the durak's seat once ``done`` (``None``: a draw, or not over).
    """

    observation: Observation
    reward: float
    done: bool
    loser: int | None


class SoloTable:
    """A game of ``rules`` where seat ``learner`` is played from outside and every other
    seat by an agent.

    ``opponents`` holds one agent per other seat, in seat order skipping the learner.  With
    ``learner_seat=None`` the seat comes from each deal's seed (``derive_seed(seed, 0) %
    players``), so over many seeds the learner sits everywhere; pass a seat to fix it.
    Opponent ``i`` draws from ``Random(derive_seed(seed, 1 + seat))``, so an episode is a
    function of its seed and of the learner's actions.  Opponents that are
    :class:`~durak.agents.Watcher` hear every action, as in :func:`~durak.arena.play_game`.

    An ``autopilot`` plays the learner's seat wherever it returns an action (drawing from
    ``Random(derive_seed(seed, 1 + players))``), so the learner sees only the decisions left
    to it: train with the autopilot the learned policy will be played with.  An autopilot
    that is a :class:`~durak.agents.Watcher` hears the game like the opponents do.
    """

    def __init__(
        self,
        rules: Rules,
        opponents: Sequence[Agent],
        *,
        learner_seat: int | None = None,
        open_world: Visibility = False,
        autopilot: Autopilot | None = None,
    ) -> None:
        if len(opponents) != rules.players - 1:
            raise ValueError(
                f"{rules.players} players need {rules.players - 1} opponents, got {len(opponents)}"
            )
        if learner_seat is not None and not 0 <= learner_seat < rules.players:
            raise ValueError(f"learner_seat must be in 0..{rules.players - 1}, got {learner_seat}")
        self.rules = rules
        self.opponents = tuple(opponents)
        self.fixed_seat = learner_seat
        self.open_world = open_world
        self.autopilot = autopilot
        self._pilot_rng = random.Random()
        self._state: GameState | None = None
        self._seat = 0
        self._seats: dict[int, Agent] = {}
        self._rngs: dict[int, random.Random] = {}
        self._watching: list[tuple[int, Watcher]] = []

    @property
    def state(self) -> GameState:
        """The current engine state; ``RuntimeError`` before the first :meth:`reset`."""
        if self._state is None:
            raise RuntimeError("call reset(seed) before using the table")
        return self._state

    @property
    def learner(self) -> int:
        """The learner's seat in the current game."""
        return self._seat

    def reset(self, seed: int) -> SoloStep:
        """Deal game ``seed`` and play the other seats until the learner must act (or the
        game ends first, which can happen with three or more players)."""
        players = self.rules.players
        seat = derive_seed(seed, 0) % players if self.fixed_seat is None else self.fixed_seat
        others = [p for p in range(players) if p != seat]
        self._seat = seat
        self._seats = dict(zip(others, self.opponents, strict=True))
        self._watching = self._watchers()  # once per game: the Protocol check is slow
        self._rngs = {p: random.Random(derive_seed(seed, 1 + p)) for p in others}
        self._pilot_rng = random.Random(derive_seed(seed, 1 + players))
        self._state = new_game(self.rules, seed)
        for p, watcher in self._watching:
            watcher.game_started(observe(self._state, p, self.open_world))
        return self._advance()

    def step(self, action: Action) -> SoloStep:
        """Apply the learner's ``action`` and play on until it must act again or the game
        ends.  Raises :class:`~durak.rules.IllegalActionError` (the state is unchanged) for
        an illegal action, and ``RuntimeError`` when the game is over or not begun."""
        state = self.state
        if is_terminal(state):
            raise RuntimeError("the game is over; call reset(seed) to deal a new one")
        self._state = step(state, action)
        self._tell(self._seat, action)
        return self._advance()

    def clone(self) -> SoloTable:
        """An independent copy that continues exactly as this table would (O(1) in the
        game: the state is shared, the random streams are copied).  The opponents and the
        autopilot are shared, so it suits stateless ones: every built-in agent but
        ``human``; an ``ExactEndgame`` autopilot's kept table would serve both tables, which
        can change which of several equally good moves it finds."""
        twin = SoloTable(
            self.rules,
            self.opponents,
            learner_seat=self.fixed_seat,
            open_world=self.open_world,
            autopilot=self.autopilot,
        )
        twin._state, twin._seat, twin._seats = self._state, self._seat, self._seats
        twin._watching = self._watching
        for p, rng in self._rngs.items():
            twin._rngs[p] = _copy(rng)
        twin._pilot_rng = _copy(self._pilot_rng)
        return twin

    def _advance(self) -> SoloStep:
        state = self.state
        seat, pilot = self._seat, self.autopilot
        while not is_terminal(state):
            p = state.turn
            if p != seat:
                action = self._seats[p].act(observe(state, p, self.open_world), self._rngs[p])
            elif pilot is None:
                break
            else:
                piloted = pilot(observe(state, p, self.open_world), self._pilot_rng)
                if piloted is None:
                    break
                action = piloted
            self._state = state = step(state, action)
            self._tell(p, action)
        done = is_terminal(state)
        lost = loser(state) if done else None
        if done:
            for p, watcher in self._watching:
                watcher.game_ended(observe(state, p, self.open_world), lost)
        reward = returns(state)[self._seat]
        return SoloStep(observe(state, self._seat, self.open_world), reward, done, lost)

    def _watchers(self) -> list[tuple[int, Watcher]]:
        """The opponents and the autopilot that follow the game, with their seats."""
        found: list[tuple[int, Watcher]] = [
            (p, a) for p, a in self._seats.items() if isinstance(a, Watcher)
        ]
        if isinstance(self.autopilot, Watcher):
            found.append((self._seat, self.autopilot))
        return found

    def _tell(self, player: int, action: Action) -> None:
        for p, watcher in self._watching:
            watcher.action_taken(player, action, observe(self.state, p, self.open_world))


def _copy(rng: random.Random) -> random.Random:
    twin = random.Random()
    twin.setstate(rng.getstate())
    return twin
