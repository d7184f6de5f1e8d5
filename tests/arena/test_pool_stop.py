"""Stopping a pool in which a worker died while sending a result
(:func:`durak.arena.runs.pool._stop`): the pool's result thread waits for the rest of the
message, and ``Pool.terminate`` joins that thread, so a plain stop waits forever.
``tests/learn/test_dmc.py``'s SIGTERM to a training's process group found it, about once
in ten runs on a loaded machine."""

from __future__ import annotations

import struct
import threading

from durak.arena.runs.pool import _pool, _stop


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
