"""The ``durak`` command: the entry point of the script and of ``python -m durak``.

A Ctrl-C at any moment ends the command with one line on standard error and exit code 130
(:mod:`durak.cli.stopping`), never a traceback.  Two moments need this module:

* the command line's imports, which take a second or more before any of its code runs:
  a Ctrl-C there prints ``interrupted``;
* any import, then or later (numpy and PyTorch are imported when a command needs them): a
  ``KeyboardInterrupt`` raised inside one leaves the module half-initialized, and some
  libraries do not survive it (PyTorch, interrupted in its C++ start-up, aborts the
  process; interrupted while it imports numpy, it carries on without numpy's functions
  and fails later).  So in this process a Ctrl-C waits until the import in progress is
  done, and then interrupts as usual.
"""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading
from types import FrameType

#: The exit code of a command stopped by Ctrl-C (128 + SIGINT), as ``durak.cli.errors``.
_INTERRUPTED = 130
#: How soon a Ctrl-C that came during an import is tried again, in seconds.
_RETRY_SECONDS = 0.05


def _importing(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs inside an import (importlib's machinery is on its stack)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib._bootstrap"):
            return True
        frame = frame.f_back
    return False


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGINT's handler: ``KeyboardInterrupt``, as Python's own, except inside an import,
    where the signal is delivered again shortly, until the import is done."""
    if _importing(frame):
        retry = threading.Timer(_RETRY_SECONDS, _thread.interrupt_main, (signum,))
        retry.daemon = True
        retry.start()
        return
    raise KeyboardInterrupt


def main() -> None:
    """Run the command line; a Ctrl-C before a command's own stop path is in place prints
    ``interrupted`` on standard error and exits with code 130.  A Ctrl-C already ignored
    (a job started with ``nohup``) stays ignored."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupt)
    try:
        from durak.cli.app import main as run  # noqa: PLC0415 - after the handler

        run()
    except KeyboardInterrupt:  # before any command began: nothing to save or close
        print("interrupted", file=sys.stderr, flush=True)
        # Not SystemExit: Python exits by SIGINT after a Ctrl-C during its imports
        # (exit status -2 in 3 of 24 runs), whatever the code asked.
        os._exit(_INTERRUPTED)


if __name__ == "__main__":
    main()
