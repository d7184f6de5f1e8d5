"""The registry of a web server's games: :class:`Tables`, one
:class:`~durak.web.table.Table` per game, by id.

Invariants of :class:`Tables`:

* every spec is checked against the server's :class:`~durak.web.policy.AgentPolicy`
  before a table is built (a refused one is a 400), the hints' analyst's too;
* the hints' analyst is one agent for every table (it builds each rules' agent once, at
  the first hint of a table of those rules);
* a table's id is unguessable (``secrets.token_urlsafe``);
* the tables held, open ones and closed ones whose thread still runs, never exceed
  ``limits.max_tables`` (a full server answers 503);
* a table idle for longer than ``limits.idle_seconds`` is closed, its agents stopped, and
  forgotten;
* every game, finished or not, is appended once to the one JSON Lines log that ``durak
  replay`` reads (``docs/web.md``).
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from pathlib import Path

import attrs

from durak.agents.base import Agent, SpecError
from durak.agents.naming import canonical_spec
from durak.arena.gamelog.entry import LogEntry
from durak.arena.gamelog.files import LogWriter
from durak.rules import Rules
from durak.web.hints import HINT_AGENT, analyst, ready
from durak.web.policy import AgentPolicy, short
from durak.web.settings import GameSettings, Limits, RequestError
from durak.web.table import Clock, Table

__all__ = ["Tables"]


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
        self._hints: Agent | None = None

    def _analyst(self) -> Agent:
        """The hints' analyst of every table, built on first use."""
        with self._lock:
            if self._hints is None:
                self._hints = analyst()
            return self._hints

    def warm(self, rules: Rules) -> None:
        """Build the hints' analyst and resolve it for ``rules`` now (its network and
        PyTorch loaded), so that the first hint at such a table does not load them while
        other requests wait; nothing if the analyst cannot play ``rules``."""
        with contextlib.suppress(SpecError):
            ready(self._analyst(), rules)

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
        """A new table playing ``settings``, its opponents named by their canonical specs
        (:func:`~durak.agents.naming.canonical_spec`: the page and the log show those),
        started; :class:`RequestError` (400) for a spec the policy refuses or that does not
        build, (503) when the server is full."""
        self.sweep()
        try:
            for spec in settings.opponents:
                self.policy.check(spec)
            named = tuple(canonical_spec(spec) for spec in settings.opponents)
            settings = attrs.evolve(settings, opponents=named)
            if settings.hints:
                self.policy.check(HINT_AGENT)
            with self._lock:
                self._room()
            analyst = self._analyst() if settings.hints else None
            game_id = secrets.token_urlsafe(12)
            table = Table(game_id, settings, self._log, self._clock, self.limits, analyst)
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
