"""Playing the games of several match plans, in this process or in worker processes.

Games come back as they finish, each tagged with its plan; a game's outcome depends only
on its plan and index, never on the worker that played it.  Tasks are drawn lazily from
their iterator and at most a few per worker are in flight, so memory stays flat however
many games a run has.  Workers ignore Ctrl-C and die quietly on SIGTERM: the parent
receives the signal, stops the workers and keeps what had arrived
(:mod:`durak.arena.signals`).  Each worker plays its games in its main thread, so the
referee's move timer works there.
"""

from __future__ import annotations

import multiprocessing
import queue
import signal
from collections.abc import Generator, Iterable, Sequence

from durak.agents.base import Agent
from durak.arena.match import MatchPlan, PlayedGame, build_agents, play_match_game

Task = tuple[int, int]  # (plan index, game index)

#: Tasks in flight per worker: enough to keep each busy, few enough to stay small.
IN_FLIGHT_PER_WORKER = 4

# A worker's plans and agents, set when it starts.
_plans: list[MatchPlan] = []
_agents: dict[int, tuple[Agent, ...]] = {}


def play_serial(
    plans: Sequence[MatchPlan], tasks: Iterable[Task]
) -> Generator[tuple[int, PlayedGame], None, None]:
    """Play ``tasks`` in order in this process, one set of agents per plan."""
    agents: dict[int, tuple[Agent, ...]] = {}
    for p, game in tasks:
        if p not in agents:
            agents[p] = build_agents(plans[p].specs, plans[p].rules)
        yield p, play_match_game(plans[p], game, agents[p])


def play_parallel(
    plans: Sequence[MatchPlan], tasks: Iterable[Task], jobs: int
) -> Generator[tuple[int, PlayedGame], None, None]:
    """Play ``tasks`` in ``jobs`` worker processes; yields games as they finish.

    At most :data:`IN_FLIGHT_PER_WORKER` tasks per worker are submitted ahead.  Closing the
    iterator early, or an exception (Ctrl-C included) while waiting, stops the workers at
    once; games still running are lost, never half-reported.
    """
    pool = multiprocessing.get_context().Pool(jobs, _start_worker, (tuple(plans),))
    done: queue.SimpleQueue[tuple[int, PlayedGame] | BaseException] = queue.SimpleQueue()
    source = iter(tasks)
    in_flight = 0
    finished = False

    def submit() -> bool:
        task = next(source, None)
        if task is None:
            return False
        pool.apply_async(_play_task, (task,), callback=done.put, error_callback=done.put)
        return True

    try:
        while in_flight < jobs * IN_FLIGHT_PER_WORKER and submit():
            in_flight += 1
        while in_flight:
            item = done.get()
            in_flight -= 1
            if isinstance(item, BaseException):
                raise item
            if submit():
                in_flight += 1
            yield item
        finished = True
    finally:
        if finished:
            pool.close()
        else:
            pool.terminate()
        pool.join()


def _start_worker(plans: tuple[MatchPlan, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # and SIGTERM: a worker just ends
    _plans[:] = plans
    _agents.clear()


def _play_task(task: Task) -> tuple[int, PlayedGame]:
    p, game = task
    if p not in _agents:
        _agents[p] = build_agents(_plans[p].specs, _plans[p].rules)
    return p, play_match_game(_plans[p], game, _agents[p])
