"""The games of a web server: one table per game, its game on its own thread.

A :class:`Table` runs :func:`~durak.arena.game.play_game` on a thread of its own, so the
agents think off the server's event loop.  The person's seat is a :class:`RemoteSeat`: when
it must act it publishes the person's observation and waits for the browser's choice; as a
watcher it hears every action.  Requests change a table only through :meth:`Table.submit`,
which accepts the person's legal action on the view they saw (its ``version``) and nothing
else.  :class:`Tables` creates tables under unguessable ids, closes idle ones, and appends
every finished (or abandoned) game to one JSONL log that ``durak replay`` reads.
"""

from __future__ import annotations

import queue
import random
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from durak.agents import make_agent
from durak.agents.base import Agent
from durak.arena.game import play_game
from durak.arena.logs import LogWriter
from durak.arena.person import PlayerLeft, play_entry
from durak.arena.referee import Referee
from durak.rules import Action, Observation, Rules, new_game, observe
from durak.seeding import derive_seed
from durak.web.views import Move, Outcome, table_view

__all__ = ["GameSettings", "RequestError", "Table", "Tables"]

#: How long a request waits for the game's thread to play the person's action, in seconds.
APPLY_WAIT = 10.0

#: A clock in seconds (``time.monotonic`` by default; tests pass their own).
Clock = Callable[[], float]


class RequestError(Exception):
    """A request that cannot be served: ``status`` (a 4xx code) and a one-line message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


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
        for spec in self.opponents:
            if spec.split(":", 1)[0].strip() == "human":
                raise RequestError(400, "human asks at the server's terminal: choose an agent")

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


class Table:
    """One game with a person, played on its own thread (see the module doc)."""

    def __init__(
        self, game_id: str, settings: GameSettings, log: Callable[[Any], None], clock: Clock
    ) -> None:
        self.id = game_id
        self.settings = settings
        self._log = log
        self._clock = clock
        self.touched = clock()
        rules = settings.rules
        agents: list[Agent] = [make_agent(spec, rules) for spec in settings.opponents]
        self._seat = RemoteSeat(self)
        agents.insert(settings.seat, self._seat)
        self._agents = agents
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._choices: queue.Queue[object] = queue.Queue()
        deal = derive_seed(settings.seed, settings.game)
        self._observation = observe(new_game(rules, deal), settings.seat)
        self._history: list[Move] = []
        self._actions: list[Action] = []
        self._version = 0
        self._outcome: Outcome | None = None
        self._pending = False  # an action submitted, not yet played
        self._thread = threading.Thread(target=self._run, name=f"table-{game_id}", daemon=True)

    def start(self) -> None:
        """Start the game's thread."""
        self._thread.start()

    def _run(self) -> None:
        s = self.settings
        try:
            record = play_game(s.rules, self._agents, derive_seed(s.seed, s.game), False, Referee())
        except PlayerLeft:
            self._log(play_entry(s.rules, s.names, s.seed, False, s.game, self._actions, None))
            return
        forfeit = None if record.forfeit is None else record.forfeit.message
        with self._lock:
            self._outcome = Outcome(record.loser, forfeit)
            self._version += 1
            self._changed.notify_all()
        self._log(play_entry(s.rules, s.names, s.seed, False, s.game, record.actions, record))

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
            self._version += 1
            self._changed.notify_all()

    def view(self, after: int | None = None, wait: float = 0.0) -> dict[str, Any]:
        """The person's table now; with ``after``, first wait up to ``wait`` seconds for a
        version newer than ``after`` (a long poll: the page learns of an agent's move as
        soon as it is made)."""
        self.touched = self._clock()
        with self._lock:
            if after is not None:
                self._changed.wait_for(lambda: self._version > after, timeout=wait)
            return table_view(
                self._observation,
                self.settings.names,
                self._history,
                game=self.id,
                version=self._version,
                seed=self.settings.seed,
                outcome=self._outcome,
            )

    def submit(self, text: str, version: int) -> None:
        """Play the person's action ``text`` (the engine's notation, as the view lists it),
        chosen on the view of ``version``; :class:`RequestError` (409) if the game has
        moved on or it is not the person's turn, (422) if it is not a legal action."""
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
            self._version += 1  # the same view cannot send a second action
            self._pending = True
            self._choices.put(legal[text])
            # Answer with the action played, so the answer's view is never the one it was
            # chosen on (its legal actions are gone).
            self._changed.wait_for(lambda: not self._pending, timeout=APPLY_WAIT)

    def close(self) -> None:
        """End the game (the person left); its thread logs it as interrupted."""
        self._choices.put(_LEFT)

    @property
    def finished(self) -> bool:
        """Whether the game is over."""
        with self._lock:
            return self._outcome is not None

    def join(self, timeout: float | None = None) -> None:
        """Wait for the game's thread."""
        self._thread.join(timeout)


class Tables:
    """Every table of a server, by id; idle ones are closed after ``idle_seconds``."""

    def __init__(self, log_path: Path, idle_seconds: float, clock: Clock = time.monotonic) -> None:
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._tables: dict[str, Table] = {}
        self._lock = threading.Lock()
        self._writer = LogWriter(log_path)
        self._log_lock = threading.Lock()

    def _log(self, entry: Any) -> None:
        with self._log_lock:
            self._writer.write(entry)

    def open(self, settings: GameSettings) -> Table:
        """A new table playing ``settings``, started."""
        self.sweep()
        table = Table(secrets.token_urlsafe(12), settings, self._log, self._clock)
        with self._lock:
            self._tables[table.id] = table
        table.start()
        return table

    def get(self, game_id: str) -> Table:
        """The table ``game_id``; :class:`RequestError` (404) if there is none (any more)."""
        self.sweep()
        with self._lock:
            table = self._tables.get(game_id)
        if table is None:
            raise RequestError(404, f"no game {game_id!r} (it may have been closed after idling)")
        return table

    def sweep(self) -> list[str]:
        """Close and forget the tables idle for longer than ``idle_seconds``; their ids."""
        now = self._clock()
        with self._lock:
            idle = [t for t in self._tables.values() if now - t.touched > self.idle_seconds]
            for t in idle:
                del self._tables[t.id]
        for t in idle:
            t.close()
        return [t.id for t in idle]

    def close(self) -> None:
        """Close every table, wait for their threads, and close the log."""
        with self._lock:
            tables = list(self._tables.values())
            self._tables.clear()
        for t in tables:
            t.close()
        for t in tables:
            t.join(5)
        with self._log_lock:
            self._writer.close()

    def __len__(self) -> int:
        with self._lock:
            return len(self._tables)
