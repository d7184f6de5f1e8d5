"""One game of a web server with a person, its game on its own thread.

A :class:`Table` runs :func:`~durak.arena.play.game.play_game` on a thread of its own, so the
agents think off the server's event loop, under a :class:`~durak.arena.play.referee.Referee`
with the server's move time limit (the person's seat is untimed) and an off switch.  The
person's seat is a :class:`RemoteSeat`: when it must act it publishes the person's
observation and waits for the browser's choice; as a watcher it hears every action.
Requests change a table only through :meth:`Table.submit`, which accepts the person's legal
action on the view they saw (its ``version``) and nothing else; a request that waits for a
change (a long poll, an action being played) awaits it on the event loop and holds no
thread.  The server's tables are held by :class:`~durak.web.registry.Tables`.
"""

from __future__ import annotations

import asyncio
import queue
import random
import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Any

import attrs

from durak.agents import make_agent
from durak.agents.base import Agent
from durak.arena.gamelog.entry import LogEntry
from durak.arena.play.game import GameRecord, play_game
from durak.arena.play.person import PlayerLeft, play_entry
from durak.arena.play.referee import GameStopped, Referee, Stop
from durak.rules import Action, Observation, new_game, observe
from durak.seeding import derive_seed
from durak.web.hints import Hinter, hint_seed
from durak.web.settings import GameSettings, Limits, RequestError
from durak.web.views import Move, Outcome, table_view

__all__ = ["Clock", "RemoteSeat", "Table"]

#: How long a request waits for the game's thread to play the person's action, in seconds.
APPLY_WAIT = 10.0

#: A clock in seconds (``time.monotonic`` by default; tests pass their own).
Clock = Callable[[], float]


_LEFT = object()  # put in the queue when the table closes


@attrs.define(eq=False)
class RemoteSeat:
    """The person's seat: it publishes what the person sees and waits for their action."""

    table: Table
    name: str = "human"

    def game_started(self, observation: Observation) -> None:
        """Show the deal."""
        self.table._show(observation, None)

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        """Show every action (they are public)."""
        self.table._show(observation, Move(player, action))

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        """Nothing: the table records the outcome when the game returns."""

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """Wait for the person's action (:class:`PlayerLeft` if the table closes)."""
        self.table._show(observation, None)
        choice = self.table._choices.get()
        if choice is _LEFT:
            raise PlayerLeft
        assert isinstance(choice, Action)
        return choice


@attrs.define(eq=False)
class _Waiter:
    """A request waiting on the event loop for a table to change; woken from any thread."""

    loop: asyncio.AbstractEventLoop = attrs.field(factory=asyncio.get_running_loop)
    event: asyncio.Event = attrs.field(factory=asyncio.Event)
    poll: bool = False

    def wake(self) -> None:
        with suppress(RuntimeError):  # the loop has closed: nobody waits any more
            self.loop.call_soon_threadsafe(self.event.set)


class Table:
    """One game with a person, played on its own thread (see the module doc); with
    ``settings.hints``, ``analyst`` (:func:`durak.web.hints.analyst`) gives its hints
    (none without an analyst)."""

    def __init__(
        self,
        game_id: str,
        settings: GameSettings,
        log: Callable[[LogEntry], None],
        clock: Clock,
        limits: Limits,
        analyst: Agent | None = None,
    ) -> None:
        self.id = game_id
        self.settings = settings
        self._log = log
        self._clock = clock
        self._limits = limits
        self.touched = clock()
        rules = settings.rules
        agents: list[Agent] = [make_agent(spec, rules) for spec in settings.opponents]
        self._seat = RemoteSeat(self)
        agents.insert(settings.seat, self._seat)
        self._agents = agents
        self._stop = Stop()
        self._referee = Referee(limits.move_timeout, frozenset({settings.seat}), self._stop)
        hints = settings.hints and analyst is not None
        self._hinter = Hinter(analyst, rules, self._referee) if hints and analyst else None
        self._lock = threading.Lock()
        self._waiters: set[_Waiter] = set()
        self._choices: queue.Queue[object] = queue.Queue()
        deal = derive_seed(settings.seed, settings.game)
        self._observation = observe(new_game(rules, deal), settings.seat)
        self._history: list[Move] = []
        self._actions: list[Action] = []
        self._version = 0
        self._outcome: Outcome | None = None
        self._pending = False  # an action submitted, not yet played
        self._closed = False  # then no request waits on the table any more
        self._logging = threading.Lock()  # held while the game is logged, once
        self._logged = False
        self.entry: LogEntry | None = None  # the game's log entry, once it is logged
        self._thread = threading.Thread(target=self._run, name=f"table-{game_id}", daemon=True)

    def start(self) -> None:
        """Start the game's thread."""
        self._thread.start()

    def _run(self) -> None:
        s = self.settings
        try:
            deal = derive_seed(s.seed, s.game)
            record = play_game(s.rules, self._agents, deal, False, self._referee)
        except (PlayerLeft, GameStopped):
            self.log_unfinished()
            return
        finally:
            self._agents = []  # free the agents' memory (search trees, models)
        forfeit = None if record.forfeit is None else record.forfeit.message
        with self._lock:
            self._outcome = Outcome(record.loser, forfeit)
            self._changed()
        self._log_once(record)

    def _log_once(self, record: GameRecord | None) -> None:
        """Log the game, finished (``record``) or as far as it went, unless it is logged."""
        s = self.settings
        with self._logging:
            if self._logged:
                return
            with self._lock:
                actions = list(self._actions)
            limit = self._limits.move_timeout
            entry = play_entry(s.rules, s.names, s.seed, False, s.game, actions, record, limit)
            self._log(entry)
            self.entry = entry
            self._logged = True

    def log_unfinished(self) -> None:
        """Log the game as far as it went, as interrupted, unless it is logged already (for
        a table whose thread is stuck past the server's shutdown)."""
        self._log_once(None)

    def _changed(self) -> None:
        """A new version (called under the lock): wake every waiting request."""
        self._version += 1
        for waiter in self._waiters:
            waiter.wake()

    def _show(self, observation: Observation, move: Move | None) -> None:
        with self._lock:
            if move is None and observation == self._observation:
                return  # asked to act on the view already shown: it stays valid
            self._observation = observation
            if move is not None:
                self._history.append(move)
                self._actions.append(move.action)
                if move.seat == self.settings.seat:
                    self._pending = False
            self._changed()

    def view(self) -> dict[str, Any]:
        """The person's table now."""
        self.touched = self._clock()
        with self._lock:
            return table_view(
                self._observation,
                self.settings.names,
                self._history,
                game=self.id,
                version=self._version,
                seed=self.settings.seed,
                outcome=self._outcome,
                hints=self._hinter is not None,
            )

    def _polls(self) -> int:
        return sum(w.poll for w in self._waiters)

    @property
    def polls(self) -> int:
        """How many long polls wait on this table now."""
        with self._lock:
            return self._polls()

    async def newer_than(self, version: int, wait: float) -> None:
        """Return once the table is newer than ``version``, or after ``wait`` seconds (a
        long poll: the page learns of an agent's move as soon as it is made);
        :class:`RequestError` (429) if ``max_polls`` requests wait on this table already."""
        await self._until(lambda: self._version > version, wait, poll=True)

    async def _until(self, ready: Callable[[], bool], wait: float, *, poll: bool) -> None:
        """Wait on the event loop, holding no thread, until ``ready()`` (read under the
        lock at each change), the table closes or ``wait`` seconds have passed."""
        waiter = _Waiter(poll=poll)
        with self._lock:
            if ready() or self._closed:
                return
            if poll and self._polls() >= self._limits.max_polls:
                raise RequestError(
                    429, f"{self._limits.max_polls} requests wait on this game already"
                )
            self._waiters.add(waiter)
        deadline = waiter.loop.time() + wait
        try:
            while True:
                with suppress(TimeoutError):
                    await asyncio.wait_for(waiter.event.wait(), deadline - waiter.loop.time())
                waiter.event.clear()
                with self._lock:
                    if ready() or self._closed or waiter.loop.time() >= deadline:
                        return
        finally:
            with self._lock:
                self._waiters.discard(waiter)

    async def submit(self, text: str, version: int) -> None:
        """Play the person's action ``text`` (the engine's notation, as the view lists it),
        chosen on the view of ``version``, and wait (up to :data:`APPLY_WAIT` s) until it
        is played; :class:`RequestError` (409) if the game has moved on or it is not the
        person's turn, (422) if it is not a legal action."""
        self.touched = self._clock()
        with self._lock:
            o = self._observation
            if self._outcome is not None or o.is_terminal:
                raise RequestError(409, "the game is over")
            if version != self._version:
                raise RequestError(
                    409,
                    f"stale action: the table is at version {self._version}, "
                    f"the action was chosen at {version}",
                )
            if o.turn != o.player or not o.legal_actions:
                raise RequestError(409, "it is not your turn")
            legal = {str(a): a for a in o.legal_actions}
            if text not in legal:
                raise RequestError(422, f"not a legal action: {text!r}; legal: {', '.join(legal)}")
            self._changed()  # the same view cannot send a second action
            self._pending = True
            self._choices.put(legal[text])
        # Answer with the action played, so the answer's view is never the one it was
        # chosen on (its legal actions are gone).
        await self._until(lambda: not self._pending, APPLY_WAIT, poll=False)

    def hint(self) -> dict[str, Any]:
        """The hint of the person's decision on the view now (:mod:`durak.web.hints`);
        :class:`RequestError` (403) if the table gives no hints, (409) if the game is over
        or it is not the person's turn (an action of theirs on its way included)."""
        self.touched = self._clock()
        if self._hinter is None:
            raise RequestError(403, "hints are off at this table")
        with self._lock:
            o, version = self._observation, self._version
            if self._outcome is not None or self._closed or o.is_terminal:
                raise RequestError(409, "the game is over")
            if o.turn != o.player or not o.legal_actions or self._pending:
                raise RequestError(409, "it is not your turn")
        s = self.settings
        seed = hint_seed(s.seed, s.game, version)
        return self._hinter.hint(o, seed, game=self.id, version=version)

    def close(self) -> None:
        """End the game (the person left): its agents are stopped and its thread logs it
        as interrupted."""
        self._stop.set()
        self._choices.put(_LEFT)
        with self._lock:
            self._closed = True
            for waiter in self._waiters:
                waiter.wake()

    @property
    def finished(self) -> bool:
        """Whether the game is over."""
        with self._lock:
            return self._outcome is not None

    def join(self, timeout: float | None = None) -> None:
        """Wait for the game's thread."""
        self._thread.join(timeout)

    def alive(self) -> bool:
        """Whether the game's thread still runs."""
        return self._thread.is_alive()
