"""Playing the games of several match plans, in this process or in worker processes.

Games come back as they finish, each tagged with its plan; a game's outcome depends only
on its plan and index, never on the worker that played it.  Workers ignore Ctrl-C: the
parent receives it, stops the workers and keeps what had arrived; :func:`hold_ctrl_c` lets
the parent finish recording a game before it stops.  Each worker plays its
games in its main thread, so the referee's move timer works there.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from durak.agents.base import Agent
from durak.arena.match import MatchPlan, PlayedGame, build_agents, play_match_game

Task = tuple[int, int]  # (plan index, game index)

# A worker's plans and agents, set when it starts.
_plans: list[MatchPlan] = []
_agents: dict[int, tuple[Agent, ...]] = {}


def play_serial(
    plans: Sequence[MatchPlan], tasks: Sequence[Task]
) -> Iterator[tuple[int, PlayedGame]]:
    """Play ``tasks`` in order in this process, one set of agents per plan."""
    agents: dict[int, tuple[Agent, ...]] = {}
    for p, game in tasks:
        if p not in agents:
            agents[p] = build_agents(plans[p].specs)
        yield p, play_match_game(plans[p], game, agents[p])


def play_parallel(
    plans: Sequence[MatchPlan], tasks: Sequence[Task], jobs: int
) -> Iterator[tuple[int, PlayedGame]]:
    """Play ``tasks`` in ``jobs`` worker processes; yields games as they finish.

    Closing the iterator early, or an exception (Ctrl-C included) while waiting, stops the
    workers at once; games still running are lost, never half-reported.
    """
    pool = multiprocessing.get_context().Pool(jobs, _start_worker, (tuple(plans),))
    finished = False
    try:
        # One game per task, so each comes back (and is logged) as soon as it finishes.
        yield from pool.imap_unordered(_play_task, tasks, 1)
        finished = True
    finally:
        if finished:
            pool.close()
        else:
            pool.terminate()
        pool.join()


def _start_worker(plans: tuple[MatchPlan, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    _plans[:] = plans
    _agents.clear()


def _play_task(task: Task) -> tuple[int, PlayedGame]:
    p, game = task
    if p not in _agents:
        _agents[p] = build_agents(_plans[p].specs)
    return p, play_match_game(_plans[p], game, _agents[p])


@contextmanager
def hold_ctrl_c() -> Iterator[None]:
    """Delay Ctrl-C (SIGINT) until the block is done; in the main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if pressed and callable(previous):
            previous(signal.SIGINT, None)
        elif pressed and previous == signal.SIG_DFL:
            raise KeyboardInterrupt
