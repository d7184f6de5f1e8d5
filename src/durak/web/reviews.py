"""Reviews of a web server's finished games: each computed once, in the background, kept.

A review (:mod:`durak.arena.gamelog.review`) is of the person's seat only, from that
seat's observations, so it shows nothing the person could not see at the table: each
decision's position is the table view of that observation (:func:`~durak.web.views.table_view`,
the function every view of the game is built by), the moves are the public actions, and
the analysis is built from the observation (``tests/web/test_review.py`` looks for every
card the person never saw).  The game's log entry is replayed through the engine first,
so an entry the engine refuses is never reviewed.

:class:`Reviews` computes at most ``limits.max_reviews`` reviews at once, each on a worker
thread (one more is a 503), reports their progress, and keeps the answers of the last
``limits.max_tables`` games: a second request is served from the cache, encoded once.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

import attrs

from durak.agents.base import make_agent
from durak.arena.gamelog.entry import LogEntry, LogError
from durak.arena.gamelog.replay import replay_entry
from durak.arena.gamelog.review import AgentFactory, Review, decision_json, review_entry
from durak.rules import Observation
from durak.web.policy import short
from durak.web.settings import Limits, RequestError
from durak.web.table import Table
from durak.web.views import table_view

__all__ = ["ANALYST", "Reviews", "position", "review_view"]

#: The analysing agent of a server's reviews.
ANALYST = "strongest"

#: How long a request waits for a game that has just ended to be logged, in seconds.
LOGGING_WAIT = 2.0

#: Where a review's replay errors say the game was read from.
_SOURCE = "the server's log"

#: The fields of a table view that show a position.
_POSITION = ("seats", "hand", "table", "trump", "talon", "discard", "attacker", "defender")

State = Literal["running", "done", "failed"]


class _StoppedError(Exception):
    """The server is closing: the review stops at its next decision."""


def position(observation: Observation, names: Sequence[str]) -> dict[str, Any]:
    """What the person saw at a decision: the fields of :data:`_POSITION` of the table
    view of their observation (every seat's hand size and known cards, their hand, the
    table, the trump, the talon and discard counts, the roles)."""
    view = table_view(observation, names, [], game="", version=0, seed=0, outcome=None)
    return {key: view[key] for key in _POSITION}


def review_view(review: Review, names: Sequence[str]) -> dict[str, Any]:
    """A web review of the person's seat: the seat, the names, the analyst, every public
    move, each decision (:func:`~durak.arena.gamelog.review.decision_json`) with its
    position, the steps of the mistakes (largest loss first), the total loss and who
    lost."""
    game, entry = review.game, review.entry
    durak = None if entry.durak is None else entry.seats.index(entry.durak)
    return {
        "seat": review.seats[0],
        "names": list(names),
        "analyst": review.analyst,
        "moves": [
            {"seat": s, "name": names[s], "action": str(a)}
            for s, a in zip(game.movers, game.actions, strict=True)
        ],
        "decisions": [
            {**decision_json(d), "position": position(d.observation, names)}
            for d in review.decisions
        ],
        "mistakes": [d.step for d in review.mistakes()],
        "total_loss": review.total_loss,
        "result": {"durak": durak, "draw": durak is None},
    }


@attrs.define(eq=False)
class _Job:
    """One game's review: its progress, then its answer (encoded) or why it failed."""

    game: str
    total: int
    done: int = 0
    state: State = "running"
    detail: str | None = None
    encoded: bytes | None = None

    def answer(self) -> bytes:
        """The review's state as JSON (the finished answer is encoded once)."""
        if self.encoded is not None:
            return self.encoded
        return _encode(self, None)


def _encode(job: _Job, review: dict[str, Any] | None) -> bytes:
    state = {
        "game": job.game,
        "state": job.state,
        "done": job.done,
        "total": job.total,
        "detail": job.detail,
        "review": review,
    }
    return json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode()


class Reviews:
    """The reviews of a server's games, by game id, under ``limits``, by the agent of spec
    ``analyst`` (built by ``make``) with ``seed``."""

    def __init__(
        self,
        limits: Limits,
        analyst: str = ANALYST,
        seed: int = 0,
        make: AgentFactory = make_agent,
    ) -> None:
        self.limits = limits
        self.analyst = analyst
        self.seed = seed
        self._make = make
        self._jobs: OrderedDict[str, _Job] = OrderedDict()
        self._lock = threading.Lock()
        self._closed = False
        self._pool = ThreadPoolExecutor(limits.max_reviews, thread_name_prefix="review")

    def cached(self, game_id: str) -> bytes | None:
        """The review of ``game_id`` as it stands (running, done or failed), or ``None`` if
        none was started."""
        with self._lock:
            job = self._jobs.get(game_id)
            return None if job is None else job.answer()

    def state(self, game_id: str) -> bytes:
        """:meth:`cached`, or :class:`RequestError` (404) if no review was started."""
        found = self.cached(game_id)
        if found is None:
            raise RequestError(404, f"no review of game {short(game_id)} (POST starts one)")
        return found

    def start(self, table: Table) -> bytes:
        """Start the review of ``table``'s game (or give the one started already);
        :class:`RequestError` (409) if the game is not over or its log entry does not
        replay, (503) if ``max_reviews`` reviews are running."""
        found = self.cached(table.id)
        if found is not None:
            return found
        entry = _finished_entry(table)
        try:
            game = replay_entry(entry, _SOURCE)
        except LogError as e:
            raise RequestError(409, f"the game cannot be reviewed: {e}") from None
        seat = table.settings.seat
        job = _Job(table.id, game.movers.count(seat))
        with self._lock:
            if table.id in self._jobs:
                return self._jobs[table.id].answer()
            if self._closed:
                raise RequestError(503, "the server is closing")
            running = sum(j.state == "running" for j in self._jobs.values())
            if running >= self.limits.max_reviews:
                raise RequestError(503, f"the server reviews {running} games, its limit; try later")
            self._jobs[table.id] = job
            self._forget_old()
        self._pool.submit(self._run, job, entry, seat, table.settings.names)
        return job.answer()

    def _forget_old(self) -> None:
        """Drop the oldest finished reviews beyond ``max_tables`` (under the lock)."""
        done = [g for g, j in self._jobs.items() if j.state != "running"]
        for g in done[: max(0, len(self._jobs) - self.limits.max_tables)]:
            del self._jobs[g]

    def _run(self, job: _Job, entry: LogEntry, seat: int, names: Sequence[str]) -> None:
        def progress(done: int, _: int) -> None:
            with self._lock:
                job.done = done
                if self._closed:
                    raise _StoppedError

        try:
            review = review_entry(
                entry,
                self.analyst,
                seats=[seat],
                seed=self.seed,
                path=_SOURCE,
                progress=progress,
                make=self._make,
            )
            view = review_view(review, names)
        except _StoppedError:
            return
        except Exception as e:  # any fault of the analyst: the job says so, never hangs
            with self._lock:
                job.state, job.detail = "failed", " ".join(str(e).split()) or type(e).__name__
            return
        with self._lock:
            job.state = "done"
            job.encoded = _encode(job, view)

    def close(self) -> None:
        """Stop the running reviews (at their next decision) and the workers."""
        with self._lock:
            self._closed = True
        self._pool.shutdown(wait=False, cancel_futures=True)


def _finished_entry(table: Table) -> LogEntry:
    """The log entry of ``table``'s finished game; :class:`RequestError` (409) if the game
    is not over."""
    if table.finished and table.entry is None:
        table.join(LOGGING_WAIT)  # it has just ended: its thread logs it now
    entry = table.entry
    if not table.finished or entry is None:
        raise RequestError(409, "the game is not over: a review is of a finished game")
    return entry
