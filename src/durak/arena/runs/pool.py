"""The local backend: games in this process, or in a pool of worker processes.

Games come back as they finish, in batches, each game tagged with its plan; a game's
outcome depends only on its plan and index, never on the worker that played it.  Workers
play batches of games sized to last about half a second
(:class:`~durak.arena.runs.interface.BatchSizer`), so the cost of passing work between
processes stays small beside cheap games.  Tasks are drawn lazily from their iterator and
at most two batches per worker are in flight, so memory stays flat however many games a
run has.
Workers ignore Ctrl-C and die quietly on SIGTERM: the parent receives the signal, stops the
workers and keeps what had arrived (:mod:`durak.arena.runs.signals`).  A parent waiting on
its workers notices one that died, as ``concurrent.futures`` does (``BrokenProcessPool``):
``multiprocessing.Pool`` starts another in its place but never hands it the dead one's
tasks, so waiting on would be forever (a SIGTERM to the whole process group, as ``kill --
-PGID``, job control and service managers send, kills the workers while the parent holds
the signal until its round ends).  Each worker plays its games in its main thread, so the
referee's move timer works there.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import multiprocessing.forkserver
import multiprocessing.pool
import multiprocessing.resource_tracker
import os
import pickle
import queue
import signal
from collections.abc import Callable, Generator, Iterable, Sequence
from itertools import islice
from typing import Any

import attrs

from durak.agents.base import Agent, adopt_registry, registry, registry_snapshot
from durak.arena.play.match import MatchPlan, play_task
from durak.arena.runs.interface import (
    A,
    BackendError,
    Batch,
    BatchSizer,
    Closing,
    Played,
    R,
    Task,
    play_batch,
)
from durak.arena.runs.signals import STOP_SIGNALS, hold_interrupts

# A worker's plans and agents, set when it starts.
_plans: list[MatchPlan] = []
_agents: dict[int, tuple[Agent, ...]] = {}

#: Why the workers of a pool died as they started: almost always a script that runs its
#: games at import time, which each worker process does again when it imports the script.
WORKERS_DIED = (
    "the worker processes exit as they start: a script that runs games must keep its code "
    'under `if __name__ == "__main__":`, because every worker process imports the script again'
)


class WorkerStartError(RuntimeError):
    """The pool's worker processes die as they start (see :data:`WORKERS_DIED`)."""


class WorkerLostError(BackendError):
    """A worker process was killed (by a signal) while the parent waited on the pool: the
    tasks it held are lost, so the wait ends with this error rather than never."""


#: How often a parent waiting on its pool looks for a worker that died, in seconds.
_POLL_SECONDS = 0.2


@attrs.frozen
class LocalPool(Closing):
    """Up to ``jobs`` processes on this machine (no more than its cores); one job plays a
    match in this process.  :meth:`start` keeps a pool of ``jobs`` processes until
    :meth:`close`.  Every pool's processes are started by a fork server (:func:`_pool`)."""

    jobs: int = attrs.field(default=1)
    _workers: list[Any] = attrs.field(factory=list, init=False, eq=False, repr=False)

    @jobs.validator
    def _positive(self, attribute: attrs.Attribute[int], value: int) -> None:
        if type(value) is not int or value < 1:
            raise ValueError(f"jobs must be a positive integer, got {value!r}")

    @property
    def where(self) -> str:
        """``local pool, N processes`` (``this process`` for one)."""
        return self.where_for(self.capacity())

    def where_for(self, count: int) -> str:
        """Where :meth:`play` plays ``count`` games: in no more processes than games."""
        n = min(self.capacity(), max(count, 1))
        return "this process" if n == 1 else f"local pool, {n} processes"

    def capacity(self) -> int:
        """``jobs``, at most the machine's cores."""
        return min(self.jobs, os.cpu_count() or 1)

    def play(
        self, plans: Sequence[MatchPlan], tasks: Iterable[Task], count: int
    ) -> Generator[Batch, None, None]:
        """Play ``tasks`` serially (one game per batch), or in ``min(capacity, count)``
        processes if that is more than one.  See :class:`~durak.arena.runs.interface.Backend`."""
        jobs = min(self.capacity(), count)
        if jobs > 1:
            return play_parallel(plans, tasks, count, jobs)
        return ([played] for played in play_serial(plans, tasks))

    def start(self, fn: Callable[[A], R], args: Sequence[A]) -> Callable[[], list[R]]:
        """See :meth:`~durak.arena.runs.interface.Backend.start`: the tasks run in the pool's
        ``jobs`` processes (one at least, even for one job)."""
        if not self._workers:
            self._workers.append(_pool(self.jobs, ()))
        pool = self._workers[0]
        started = _workers(pool)
        pending = pool.map_async(fn, args, chunksize=1)

        def wait() -> list[R]:
            while not pending.ready():
                pending.wait(_POLL_SECONDS)
                if not pending.ready():
                    try:
                        _check_workers(pool, started)
                    except BaseException:
                        self.close()  # broken: a later start begins a fresh pool
                        raise
            results: list[R] = pending.get()
            return results

        return wait

    def close(self) -> None:
        """Stop the pool of :meth:`start`, if one was started."""
        while self._workers:
            _stop(self._workers.pop())


def _pool(jobs: int, plans: tuple[MatchPlan, ...]) -> Any:
    """``jobs`` worker processes started by the fork server, each given ``plans`` and the
    parent's agent registry, exactly (so an agent registered at run time, a script's own,
    a test's or an ``--agent-module``'s, plays there too, and a name means the same agent
    as in the parent).  A process forked from one whose torch has started its
    thread pool waits forever on that pool's threads, which the fork did not copy: a
    ``dmc`` or ``dqn`` match with two jobs hung at its first decision when its workers were
    forked from the parent, which loads the models to check the specs.

    Ctrl-C and SIGTERM wait while the pool is built
    (:func:`~durak.arena.runs.signals.hold_interrupts`): one raised half-way through
    ``multiprocessing.Pool`` would leave workers that nothing stops, some of them still
    reading what the parent never finished sending.  One that came meanwhile stops the
    built pool, then is raised."""
    context = multiprocessing.get_context("forkserver")
    pool = None
    try:
        with hold_interrupts():
            _start_fork_server()
            pool = context.Pool(jobs, _start_worker, (plans, _sendable_registry()))
        return pool
    except BaseException:
        if pool is not None:
            _stop(pool)
        raise


def _sendable_registry() -> bytes:
    """The registry snapshot the workers adopt; :class:`BackendError` naming the agent
    whose factory pickle cannot send (a lambda or a function defined in a function)."""
    try:
        return registry_snapshot()
    except (pickle.PicklingError, AttributeError, TypeError):
        for name, info in registry().items():
            try:
                pickle.dumps(info.factory)
            except (pickle.PicklingError, AttributeError, TypeError):
                raise BackendError(
                    f"agent {name!r} cannot be sent to worker processes: register a "
                    "module-level function or class as its factory, not a lambda or a local "
                    "function (or play with one job)"
                ) from None
        raise


def _start_fork_server() -> None:
    """Start the fork server, if it is not running, with SIGINT and SIGTERM blocked, which
    it keeps: a signal mask passes through ``fork`` and ``exec``, and the server never
    unblocks them.  So a Ctrl-C or a SIGTERM to the whole process group neither interrupts
    the server while it starts (a ``KeyboardInterrupt`` traceback from its imports), nor
    ends it later (the pool, which starts a worker in place of each that ends, would fail
    in a thread of its own and then could not be terminated).  Each process it forks
    inherits the mask, so a worker is not interrupted while it starts either (importing
    the main module can take a second), until :func:`_start_worker` unblocks both.  CPython
    starts its resource tracker the same way (bpo-33613); that start unblocks both signals
    after it, so it comes first.  The mask is this thread's, for the start only: a signal
    sent to this process meanwhile waits, or goes to another thread, and is never lost."""
    multiprocessing.resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def play_serial(plans: Sequence[MatchPlan], tasks: Iterable[Task]) -> Generator[Played, None, None]:
    """Play ``tasks`` in order in this process, one set of agents per plan."""
    agents: dict[int, tuple[Agent, ...]] = {}
    for task in tasks:
        yield play_task(plans, task, agents)


def play_parallel(
    plans: Sequence[MatchPlan], tasks: Iterable[Task], count: int, jobs: int
) -> Generator[Batch, None, None]:
    """Play ``tasks`` (``count`` of them) in ``jobs`` worker processes, in batches sized by
    :class:`~durak.arena.runs.interface.BatchSizer`; yields each batch as it finishes.

    Closing the iterator early, or an exception (Ctrl-C included) while waiting, stops the
    workers at once; games still running are lost, never half-reported.
    """
    done: queue.SimpleQueue[tuple[float, Batch] | BaseException] = queue.SimpleQueue()
    source = iter(tasks)
    batches = BatchSizer(count, jobs)
    in_flight = 0
    finished = False

    def fill() -> int:
        submitted = 0
        while in_flight + submitted < batches.in_flight:
            batch = list(islice(source, batches.next_size()))
            if not batch:
                break
            pool.apply_async(_play_batch, (batch,), callback=done.put, error_callback=done.put)
            submitted += 1
        return submitted

    pool = _pool(jobs, tuple(plans))
    try:  # at once: the pool is this block's to stop
        started = _workers(pool)
        in_flight += fill()
        while in_flight:
            item = _next_result(done, pool, started)
            in_flight -= 1
            if isinstance(item, BaseException):
                raise item
            seconds, games = item
            batches.record(len(games), seconds)
            in_flight += fill()
            yield games
        finished = True
    finally:
        if finished:
            pool.close()
            pool.join()
        else:
            _stop(pool)


def _workers(pool: Any) -> dict[int | None, Any]:
    """``pool``'s worker processes by process id (multiprocessing.Pool keeps them in
    ``_pool`` and replaces a worker that ends; none ends while the pool runs)."""
    return {p.pid: p for p in getattr(pool, "_pool", ())}


def _check_workers(pool: Any, started: dict[int | None, Any]) -> None:
    """Raise if a worker of ``started`` is gone from ``pool``: :class:`WorkerLostError`
    for one killed by a signal (its tasks are lost), else :class:`WorkerStartError` (one
    that exits by itself does so as it starts, and its replacement would do the same)."""
    now = _workers(pool)
    gone = [p for pid, p in started.items() if pid not in now]
    if not gone:
        return
    # The pool joins a worker before it drops it, so its exit code is known here.
    killed = sorted({-p.exitcode for p in gone if p.exitcode is not None and p.exitcode < 0})
    if killed:
        names = ", ".join(_signal_name(k) for k in killed)
        raise WorkerLostError(
            f"a worker process was killed by {names}; the work it held is lost, so the "
            "run stops here"
        )
    raise WorkerStartError(WORKERS_DIED)


def _stop(pool: Any) -> None:
    """Stop ``pool`` and its workers at once, where ``pool.terminate()`` alone can wait
    forever after a worker died (a SIGTERM to the whole process group): it takes the
    queues' locks, and a worker idle between tasks dies holding the task queue's read
    lock; and the pool starts workers in place of the dead, which may pick up the lost
    tasks and, started by the fork server with SIGTERM blocked, not yet act on
    ``terminate``'s SIGTERM.  So the pool's thread that starts workers is stopped first
    (as ``terminate`` stops it), then every worker is killed, and each lock, whoever held
    it now dead, is freed before ``terminate`` takes it.  The pool's task thread, which
    stopping the worker thread ends, would put an end marker to the result thread through
    the result queue while its lock is freed and its pipe closed here (a traceback of
    the pool's thread, seen under a SIGTERM to the process group); the result thread is
    ended below instead, so the marker is dropped."""
    pool._outqueue.put = _drop
    pool._worker_handler._state = multiprocessing.pool.TERMINATE
    pool._change_notifier.put(None)
    pool._worker_handler.join()
    workers = list(_workers(pool).values())
    for process in workers:
        process.kill()
    if workers:
        multiprocessing.connection.wait([process.sentinel for process in workers])
    for lock in (pool._inqueue._rlock, getattr(pool._outqueue, "_wlock", None)):
        if lock is not None:
            lock.acquire(False)  # taken now, or held by a dead process: free it either way
            lock.release()
    _end_result_thread(pool)
    pool.terminate()
    pool.join()


def _drop(obj: object) -> None:
    """Nothing: the result queue's ``put`` once the pool is stopped (:func:`_stop`)."""


def _end_result_thread(pool: Any) -> None:
    """End the pool's result thread before ``terminate`` joins it.  A worker killed while
    it sent a result leaves part of a message in the result pipe, and the thread waits for
    the rest forever; ``terminate``'s wake-up message would only add to the part (it is
    dropped: :func:`_stop`).  Every worker is dead here, so the pool's own end is the
    pipe's last writer: closing it gives the thread end-of-file, on which it exits.  The
    lost tasks' entries leave the pool's cache (``terminate`` refuses a cache without the
    thread)."""
    pool._outqueue._writer.close()
    pool._result_handler.join()
    pool._cache.clear()


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _next_result(
    done: queue.SimpleQueue[tuple[float, Batch] | BaseException],
    pool: Any,
    started: dict[int | None, Any],
) -> tuple[float, Batch] | BaseException:
    """The next finished batch; raises (:func:`_check_workers`) if a worker died meanwhile."""
    while True:
        try:
            return done.get(timeout=_POLL_SECONDS)
        except queue.Empty:
            pass
        _check_workers(pool, started)  # outside the handler: no "during handling" context


def _start_worker(plans: tuple[MatchPlan, ...], agents: bytes) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # and SIGTERM: a worker just ends
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # blocked by the fork server
    _plans[:] = plans
    _agents.clear()
    adopt_registry(agents)  # the parent's registry, agents registered at run time included


def _play_batch(batch: list[Task]) -> tuple[float, Batch]:
    return play_batch(_plans, batch, _agents)
