"""The interface of the backends that play a run's games, and what every backend shares.

* :class:`Backend`: the interface (``where``, ``where_for``, ``capacity``, ``play``,
  ``start``, ``close``, the context manager); :class:`Closing` gives the context manager
  to an implementation; :class:`BackendError` is a backend that cannot be used.
* :class:`BatchSizer`: how many games the next batch holds; :func:`play_batch` plays one.
* :func:`refuse_in_starting_worker`: a run started in a worker still importing the
  parent's main script ends that worker quietly (every run calls it).

A :class:`~durak.arena.runs.run.Run` says what to play and logs what finishes; a backend
plays the games it is handed and yields each one once, as it finishes (in batches of games
that finished together).  A game's outcome depends only on its plan and index
(:mod:`durak.arena.play.match`), so every backend gives the same games; only the
finishing order and the timings differ.  Two backends exist, chosen by name in
:mod:`durak.arena.runs.backends`:

* ``local`` (:class:`~durak.arena.runs.pool.LocalPool`): this process, or a pool of worker
  processes on this machine; the default.
* ``ray`` (:class:`~durak.arena.runs.ray_cluster.RayCluster`): Ray tasks on a local Ray instance
  or on a cluster (Moritz et al., "Ray: A Distributed Framework for Emerging AI
  Applications", OSDI 2018).  Ray is imported only when this backend is chosen.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Generator, Iterable, MutableMapping, Sequence
from types import TracebackType
from typing import Protocol, Self, TypeVar

import attrs

from durak.agents.base import Agent
from durak.arena.play.match import MatchPlan, PlayedGame, play_task

#: One game to play: (plan index, game index).
Task = tuple[int, int]
#: One game played: (plan index, game).
Played = tuple[int, PlayedGame]
#: Games that finished together (one task's worth); a backend yields them as one.
Batch = list[Played]

A = TypeVar("A")
R = TypeVar("R")

#: The seconds a batch of games should take: long beside a backend's per-task cost, short
#: enough for a live progress bar and log.
TASK_SECONDS = 0.5
#: The most games in one batch.
MAX_BATCH = 512
#: Batches in flight per worker: one running, one queued behind it.
IN_FLIGHT_PER_WORKER = 2


@attrs.define
class BatchSizer:
    """The size of each next batch of a run of ``count`` games on ``workers`` CPUs.

    Until a batch has finished, one game; then as many as take :data:`TASK_SECONDS` at the
    seconds per game measured so far, at most :data:`MAX_BATCH`, and at most an even share
    of what is left among the batches in flight, so the last batches are small.
    """

    count: int
    workers: int
    submitted: int = 0
    games: int = 0
    seconds: float = 0.0

    @property
    def in_flight(self) -> int:
        """How many batches to keep submitted."""
        return self.workers * IN_FLIGHT_PER_WORKER

    def next_size(self) -> int:
        """The size of the next batch (counted as submitted)."""
        size = 1
        if self.games:
            size = round(TASK_SECONDS * self.games / max(self.seconds, 1e-9))
        share = -(-(self.count - self.submitted) // self.in_flight)
        size = max(1, min(size, MAX_BATCH, share))
        self.submitted += size
        return size

    def record(self, games: int, seconds: float) -> None:
        """A batch of ``games`` took ``seconds`` on its worker."""
        self.games += games
        self.seconds += seconds


def play_batch(
    plans: Sequence[MatchPlan],
    tasks: Sequence[Task],
    agents: MutableMapping[int, tuple[Agent, ...]],
) -> tuple[float, Batch]:
    """Play ``tasks`` in a worker, with the agents cached in ``agents``; return the seconds
    it took and the games."""
    started = time.perf_counter()
    games = [play_task(plans, task, agents) for task in tasks]
    return time.perf_counter() - started, games


def refuse_in_starting_worker() -> None:
    """End this process quietly if it is a worker still importing the parent's main script
    (multiprocessing marks such a process ``_inheriting``): a run started there is the
    script's own run started again, and would fight the parent for its log.  The parent
    sees its worker die and raises :class:`~durak.arena.runs.pool.WorkerStartError`, one
    line that says why.  Every run calls it, whatever its backend."""
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise SystemExit(1)


class BackendError(ValueError):
    """A backend that cannot start or lost its workers: Ray missing, a bad address, ..."""


class Backend(Protocol):
    """Plays games of match plans somewhere; a context manager that releases what it holds.

    Invariants: :meth:`play` yields every task it was handed exactly once (never twice, even
    when a worker dies and its games are played again); closed early or raising (Ctrl-C
    included), it loses only unfinished games, and its workers stop by the backend's close.
    """

    @property
    def where(self) -> str:
        """Where the games run, for people: ``local pool, 2 processes``, ..."""
        ...

    def where_for(self, count: int) -> str:
        """Where :meth:`play` would play ``count`` games (a pool uses no more processes
        than games)."""
        ...

    def capacity(self) -> int:
        """How many games it can play at once."""
        ...

    def play(
        self, plans: Sequence[MatchPlan], tasks: Iterable[Task], count: int
    ) -> Generator[Batch, None, None]:
        """Play ``tasks`` (``count`` of them) of ``plans``; yield the games as they finish,
        in batches that finished together (the run logs a batch whole or not at all)."""
        ...

    def start(self, fn: Callable[[A], R], args: Sequence[A]) -> Callable[[], list[R]]:
        """Begin ``fn(a)`` for every ``a`` of ``args`` on the workers (never in this
        process, which stays free meanwhile); return a function that waits for the
        results and returns them in the order of ``args``.  ``fn`` must be importable by
        name (a module-level function) and ``args`` picklable.  A task's exception is
        raised by the waiting function."""
        ...

    def close(self) -> None:
        """Release the workers (and a Ray instance it started); idempotent."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...


class Closing:
    """``with backend: ...`` closes the backend when the block ends."""

    def close(self) -> None:
        """Release what the backend holds (nothing here)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
