"""How a long command stops before its end and keeps what is done: the one stop path of
``match``, ``tournament`` and ``grid`` (:func:`durak.cli.driver.drive`) and of both
trainers (``durak train``).

* Ctrl-C: ``interrupted``, exit code 130;
* SIGTERM (``kill``, a batch scheduler): ``terminated (SIGTERM)``, exit code 143
  (:func:`~durak.arena.runs.signals.sigterm_interrupts`);
* an error the command survives (a log or a file that cannot be written, a backend that
  lost its workers): ``error: MESSAGE``, exit code 2, as every usage error.

:func:`stoppable` turns each into a :class:`Stopped`; the command then saves what it has
and ends with :meth:`Stopped.exit`, one line that says what was kept and how to continue.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import attrs
import typer

from durak.arena.runs.signals import Terminated, sigterm_interrupts
from durak.cli.console import stderr_console
from durak.cli.errors import INTERRUPTED, TERMINATED, USAGE, describe, error


@attrs.frozen
class Stopped:
    """Why a run ended before its end.

    Attributes:
      reason: the start of the stop line: ``interrupted``, ``terminated (SIGTERM)``, a
        reason of :func:`stoppable`'s ``ends`` (``end of input``) or ``error: MESSAGE``.
      exit_code: 130 (Ctrl-C, and the ``ends``), 143 (SIGTERM) or 2 (an error).
    """

    reason: str
    exit_code: int

    def exit(self, kept: str) -> typer.Exit:
        """Print ``REASON: kept`` on standard error (an error as an ``error:`` line) and
        return the exit with :attr:`exit_code`, to raise."""
        line = f"{self.reason}: {kept}"
        if self.exit_code == USAGE:
            error(line.removeprefix("error: "))
        else:
            stderr_console().print(line)
        return typer.Exit(self.exit_code)


@attrs.define
class Stop:
    """The stop of the block of :func:`stoppable`: ``stopped`` is ``None`` until it
    stops, then why."""

    stopped: Stopped | None = None


@contextmanager
def stoppable(
    errors: tuple[type[Exception], ...] = (), ends: Mapping[type[Exception], str] | None = None
) -> Iterator[Stop]:
    """Run the block with SIGTERM as an interruption, and end it quietly on Ctrl-C, on
    SIGTERM, on an exception of ``errors`` (``error: MESSAGE``, exit code 2) or on one of
    ``ends`` (its reason, exit code 130), recording why in the :class:`Stop` it yields.
    Any other exception goes through."""
    stop = Stop()
    # The handlers wrap the yield only: a Ctrl-C before the block starts goes through to
    # the command's own interruption path, since a generator must yield once.
    with sigterm_interrupts():
        try:
            yield stop
        except Terminated:  # a KeyboardInterrupt: first
            stop.stopped = Stopped("terminated (SIGTERM)", TERMINATED)
        except KeyboardInterrupt:
            stop.stopped = Stopped("interrupted", INTERRUPTED)
        except errors as e:
            stop.stopped = Stopped(f"error: {describe(e)}", USAGE)
        except tuple(ends or ()) as e:
            reason = next(r for kind, r in (ends or {}).items() if isinstance(e, kind))
            stop.stopped = Stopped(reason, INTERRUPTED)
