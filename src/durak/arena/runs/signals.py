"""Stopping a run cleanly on Ctrl-C (SIGINT) and on SIGTERM, which ``kill`` and batch
schedulers send.

Both end a run the same way: :class:`Terminated` is a ``KeyboardInterrupt``, so every path
that keeps the finished games on Ctrl-C keeps them on SIGTERM too.  :func:`hold_interrupts`
lets the parent finish recording a game before either signal takes effect.  Only the main
thread receives signals, so both helpers do nothing elsewhere.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

#: The signals that stop a run.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread as an interruption."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` (a ``KeyboardInterrupt``)."""
    if not _main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def hold_interrupts() -> Iterator[None]:
    """Delay SIGINT and SIGTERM until the block is done, then act on the first one.  A
    signal whose handler was set outside Python is left alone: it could not be put back."""
    if not _main_thread():
        yield
        return
    caught: list[int] = []
    previous = {
        s: signal.signal(s, lambda signum, frame: caught.append(signum))
        for s in STOP_SIGNALS
        if signal.getsignal(s) is not None
    }
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if caught:
            handler = previous[signal.Signals(caught[0])]
            if callable(handler):
                handler(caught[0], None)
            elif handler == signal.SIG_DFL and caught[0] == signal.SIGINT:
                raise KeyboardInterrupt
            elif handler == signal.SIG_DFL:
                raise Terminated
