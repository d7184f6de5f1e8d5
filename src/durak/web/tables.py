"""The games of a web server: one table per game, its game on its own thread.

A :class:`Table` runs :func:`~durak.arena.play.game.play_game` on a thread of its own, so the
agents think off the server's event loop, under a :class:`~durak.arena.play.referee.Referee`
with the server's move time limit (the person's seat is untimed) and an off switch.  The
person's seat is a :class:`RemoteSeat`: when it must act it publishes the person's
observation and waits for the browser's choice; as a watcher it hears every action.
Requests change a table only through :meth:`Table.submit`, which accepts the person's legal
action on the view they saw (its ``version``) and nothing else; a request that waits for a
change (a long poll, an action being played) awaits it on the event loop and holds no
thread.  :class:`Tables` checks every spec against the server's
:class:`~durak.web.policy.AgentPolicy`, creates tables under unguessable ids up to a cap,
closes idle ones (stopping their agents), and appends every game, finished or not, to one
JSONL log that ``durak replay`` reads.
"""

from __future__ import annotations

import asyncio
import queue
import random
import secrets
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

import attrs

from durak.agents import make_agent
from durak.agents.base import Agent, SpecError
from durak.arena.gamelog.entry import LogEntry
from durak.arena.gamelog.files import LogWriter
from durak.arena.play.game import GameRecord, play_game
from durak.arena.play.person import PlayerLeft, play_entry
from durak.arena.play.referee import GameStopped, Referee, Stop, check_move_timeout
from durak.rules import Action, Observation, Rules, new_game, observe
from durak.seeding import derive_seed
from durak.web.policy import AgentPolicy, short
from durak.web.views import Move, Outcome, table_view

__all__ = ["GameSettings", "Limits", "RequestError", "Table", "Tables"]

#: How long a request waits for the game's thread to play the person's action, in seconds.
APPLY_WAIT = 10.0

#: A clock in seconds (``time.monotonic`` by default; tests pass their own).
Clock = Callable[[], float]


class RequestError(Exception):
    """A request that cannot be served: ``status`` (a 4xx or 503 code) and a one-line
    message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _positive(_: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if not value > 0:
        raise ValueError(f"{attribute.name} must be positive, got {value}")


def _move_timeout(_: object, __: attrs.Attribute[Any], value: float) -> None:
    check_move_timeout(value)


@attrs.frozen
class Limits:
    """What a server grants its clients: ``move_timeout`` seconds for each decision of an
    agent (over it, the agent forfeits), ``idle_seconds`` before a table nobody asks about
    is closed, ``max_tables`` tables held at once (then 503) and ``max_polls`` long polls
    waiting on one table (then 429)."""

    move_timeout: float = attrs.field(default=5.0, validator=_move_timeout)
    idle_seconds: float = attrs.field(default=1800.0, validator=_positive)
    max_tables: int = attrs.field(default=1000, validator=_positive)
    max_polls: int = attrs.field(default=8, validator=_positive)


@attrs.frozen
class GameSettings:
    """What a person chooses: the rules, their seat, the opponents' agent specs (in seat
    order, the person's seat left out) and the seed (``game`` picks the deal)."""

    rules: Rules
    seat: int
    opponents: tuple[str, ...]
    seed: int
    game: int = 0

    def __attrs_post_init__(self) -> None:
        if len(self.opponents) != self.rules.players - 1:
            raise RequestError(
                400, f"{self.rules.players} players need {self.rules.players - 1} opponents"
            )
        if not 0 <= self.seat < self.rules.players:
            raise RequestError(400, f"seat {self.seat} is not a seat of this game")

    @property
    def names(self) -> tuple[str, ...]:
        """Every seat's name: the specs, and ``human`` for the person."""
        o = self.opponents
        return (*o[: self.seat], "human", *o[self.seat :])

    def rematch(self) -> GameSettings:
        """The same deal with the seats turned one place: the person takes the next seat,
        and the opponents keep their order around the table."""
        n = self.rules.players
        names = list(self.names)
        turned = names[-1:] + names[:-1]
        seat = (self.seat + 1) % n
        others = tuple(turned[:seat] + turned[seat + 1 :])
        return GameSettings(self.rules, seat, others, self.seed, self.game)

    def next_game(self) -> GameSettings:
        """The next deal of the same seed."""
        return attrs.evolve(self, game=self.game + 1)


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
    """One game with a person, played on its own thread (see the module doc)."""

    def __init__(
        self,
        game_id: str,
        settings: GameSettings,
        log: Callable[[LogEntry], None],
        clock: Clock,
        limits: Limits,
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
            self._log(play_entry(s.rules, s.names, s.seed, False, s.game, actions, record, limit))
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


class Tables:
    """Every table of a server, by id, under ``limits``; specs are checked against
    ``policy``.  Idle tables are closed after ``limits.idle_seconds``."""

    def __init__(
        self,
        log_path: Path,
        limits: Limits | None = None,
        policy: AgentPolicy | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        self.limits = Limits() if limits is None else limits
        self.policy = AgentPolicy() if policy is None else policy
        self._clock = clock
        self._tables: dict[str, Table] = {}
        self._closing: list[Table] = []  # closed, their threads not yet ended
        self._closed = False
        self._lock = threading.Lock()
        self._writer = LogWriter(log_path)
        self._log_lock = threading.Lock()

    def _log(self, entry: LogEntry) -> None:
        with self._log_lock:
            self._writer.write(entry)

    def _held(self) -> int:
        """Tables held (under the lock): open ones and closed ones still stopping."""
        self._closing = [t for t in self._closing if t.alive()]
        return len(self._tables) + len(self._closing)

    def _room(self) -> None:
        if self._held() >= self.limits.max_tables:
            raise RequestError(
                503, f"the server holds {self.limits.max_tables} games, its limit; try later"
            )

    def open(self, settings: GameSettings) -> Table:
        """A new table playing ``settings``, started; :class:`RequestError` (400) for a
        spec the policy refuses or that does not build, (503) when the server is full."""
        self.sweep()
        try:
            for spec in settings.opponents:
                self.policy.check(spec)
            with self._lock:
                self._room()
            table = Table(secrets.token_urlsafe(12), settings, self._log, self._clock, self.limits)
        except SpecError as e:
            raise RequestError(400, str(e)) from None
        with self._lock:
            self._room()
            self._tables[table.id] = table
        table.start()
        return table

    def get(self, game_id: str) -> Table:
        """The table ``game_id``; :class:`RequestError` (404) if there is none (any more)."""
        self.sweep()
        with self._lock:
            table = self._tables.get(game_id)
        if table is None:
            closed = "it may have been closed after idling"
            raise RequestError(404, f"no game {short(game_id)} ({closed})")
        return table

    def sweep(self) -> list[str]:
        """Close and forget the tables idle for longer than ``idle_seconds``; their ids."""
        now = self._clock()
        with self._lock:
            idle = [t for t in self._tables.values() if now - t.touched > self.limits.idle_seconds]
            for t in idle:
                del self._tables[t.id]
            self._closing += idle
        for t in idle:
            t.close()
        return [t.id for t in idle]

    def close(self, patience: float = 2.0) -> None:
        """Close every table (the requests waiting on them are answered), wait up to
        ``patience`` seconds in all for their threads, log the games of those still
        running as interrupted, and close the log; once."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            tables = [*self._tables.values(), *self._closing]
            self._tables.clear()
            self._closing.clear()
        for t in tables:
            t.close()
        deadline = time.monotonic() + patience
        for t in tables:
            t.join(max(0.0, deadline - time.monotonic()))
        for t in tables:
            t.log_unfinished()
        with self._log_lock:
            self._writer.close()

    def __len__(self) -> int:
        with self._lock:
            return len(self._tables)
