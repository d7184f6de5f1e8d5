"""Stopping a pool in which a worker died while sending a result
(:func:`durak.arena.runs.pool._stop`): the pool's result thread waits for the rest of the
message, and ``Pool.terminate`` joins that thread, so a plain stop waits forever.
``tests/learn/test_dmc.py``'s SIGTERM to a training's process group found it, about once
in ten runs on a loaded machine.  And a Ctrl-C while a pool starts stops it too."""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import signal
import struct
import sys
import threading
from pathlib import Path

import pytest

from durak.arena.runs.pool import _pool, _stop
from tests.support.doc_blocks import run


def test_a_pool_stops_with_half_a_result_in_its_pipe() -> None:
    pool = _pool(1, ())
    # What a worker killed in the middle of a send leaves: a message's length and a part
    # of its body.
    pool._outqueue._writer._send(struct.pack("!i", 1000) + b"x" * 10)
    stopper = threading.Thread(target=_stop, args=(pool,), daemon=True)
    stopper.start()
    stopper.join(timeout=120)  # a hang guard only: the stop takes well under a second
    assert not stopper.is_alive(), "the pool's stop hung on the half-sent result"
    assert not pool._result_handler.is_alive()
    assert all(worker.exitcode is not None for worker in pool._pool)


# A Ctrl-C in the first second of a `-j 2` run (issue 61) printed tracebacks after the clean
# stop line: the fork server and the workers it forks had Python's Ctrl-C handler until they
# set their own, and one in the parent while `multiprocessing.Pool` was being built left
# workers that nothing stopped.

FORKED_PROCESS_PRESSES_CTRL_C = """
import multiprocessing
import signal

from durak.arena.runs.pool import _start_fork_server

if __name__ == "__main__":
    _start_fork_server()
    context = multiprocessing.get_context("forkserver")
    # The first thing the process runs: a Ctrl-C, as one to the process group would come
    # to a worker before its initializer ignores it.
    process = context.Process(target=signal.raise_signal, args=(signal.SIGINT,))
    process.start()
    process.join()
    print(process.exitcode)
"""


def test_a_process_the_fork_server_starts_is_not_interrupted_by_ctrl_c(tmp_path: Path) -> None:
    # A fresh interpreter: a fork server this test process started before would decide.
    (tmp_path / "script.py").write_text(FORKED_PROCESS_PRESSES_CTRL_C, encoding="utf-8")
    result = run([sys.executable, "script.py"], tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["0"], result.stderr[-2000:]
    assert "KeyboardInterrupt" not in result.stderr


def test_ctrl_c_while_the_pool_is_built_stops_its_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    populate = multiprocessing.pool.Pool._repopulate_pool  # type: ignore[attr-defined]

    def populate_then_ctrl_c(pool: multiprocessing.pool.Pool) -> None:
        populate(pool)  # the workers are starting; the pool's threads are not yet
        signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(multiprocessing.pool.Pool, "_repopulate_pool", populate_then_ctrl_c)
    before = set(multiprocessing.active_children())
    try:
        with pytest.raises(KeyboardInterrupt):
            _pool(2, ())
        left = set(multiprocessing.active_children()) - before
        assert not left, f"workers left running: {left}"
    finally:
        for process in set(multiprocessing.active_children()) - before:
            process.kill()  # on a failure, so that the suite does not keep them
