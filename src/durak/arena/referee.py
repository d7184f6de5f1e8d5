"""Fair play between agents: a faulty agent forfeits the game instead of stopping the run.

An agent is at fault when one of its calls raises, runs past the move time limit, or when
it returns an action that is not legal.  :class:`Referee` is the policy that
:func:`~durak.arena.game.play_game` applies when it is given one; without a referee the
runner is strict and lets every error propagate (``IllegalActionError`` included).

The time limit is enforced with ``signal.setitimer(ITIMER_REAL)``: an agent stuck in a
Python loop is interrupted by :class:`MoveTimeout`.  That needs the main thread of a POSIX
process (the CLI's games and the pool workers' games run there); elsewhere the limit is
checked after the call returns.  A signal cannot interrupt a long call inside C code until
it returns to the interpreter.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal, TypeAlias, TypeVar

import attrs

T = TypeVar("T")

#: The three faults: the agent raised, ran out of time, or chose an illegal action.
FaultKind: TypeAlias = Literal["error", "timeout", "illegal"]
FAULT_KINDS: tuple[FaultKind, ...] = ("error", "timeout", "illegal")


class MoveTimeout(BaseException):
    """Raised inside an agent's call when its time is up.

    A ``BaseException``, so that an agent's own ``except Exception`` cannot swallow it.
    """


class AgentFaultError(Exception):
    """One fault of an agent, as :meth:`Referee.call` reports it."""

    def __init__(self, kind: FaultKind, message: str) -> None:
        super().__init__(message)
        self.kind: FaultKind = kind
        self.message = message


@attrs.frozen
class Forfeit:
    """How a game was forfeited: the faulty ``seat``, the ``fault`` and a ``message``.

    ``action`` is the text of the illegal action for an ``illegal`` fault, else ``None``.
    """

    seat: int
    fault: FaultKind
    message: str
    action: str | None = None


#: The longest move time limit (a day): beyond it the timer itself could overflow.
MAX_MOVE_TIMEOUT = 86_400.0


def check_move_timeout(value: float | None) -> None:
    """Raise ``ValueError`` unless ``value`` is ``None`` or a number of seconds in
    ``(0, MAX_MOVE_TIMEOUT]`` (``inf`` and ``nan`` included in the refusals)."""
    if value is not None and not 0 < value <= MAX_MOVE_TIMEOUT:
        raise ValueError(
            f"the move time limit must be positive seconds up to {MAX_MOVE_TIMEOUT:g}, got {value}"
        )


def _check_timeout(
    _: object, attribute: attrs.Attribute[float | None], value: float | None
) -> None:
    check_move_timeout(value)


@attrs.frozen
class Referee:
    """The fault policy of a game: every fault forfeits, and moves may have a time limit.

    ``move_timeout``: seconds allowed for each call into an agent (``act`` and the watcher
    hooks), or ``None`` for no limit.
    """

    move_timeout: float | None = attrs.field(default=None, validator=_check_timeout)

    def call(self, fn: Callable[[], T]) -> T:
        """``fn()``, or :class:`AgentFaultError` if it raised an ``Exception`` or
        ``SystemExit`` (an agent may not end the run) or ran past the time limit.
        ``KeyboardInterrupt`` passes through untouched, and so does an error of the timer
        itself, which is never the agent's fault."""
        limit = self.move_timeout
        started = time.perf_counter()
        try:
            with time_limit(limit):
                try:
                    result = fn()
                except (Exception, SystemExit) as e:
                    raise AgentFaultError("error", f"{type(e).__name__}: {e}") from None
        except MoveTimeout:
            message = f"no answer within the {limit:g} s move limit"
            raise AgentFaultError("timeout", message) from None
        spent = time.perf_counter() - started
        if limit is not None and spent > limit:  # where no timer could interrupt it
            raise AgentFaultError("timeout", f"took {spent:.3g} s, over the {limit:g} s move limit")
        return result


def can_interrupt() -> bool:
    """Whether :func:`time_limit` can interrupt a call here (POSIX, main thread)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`MoveTimeout` in the body once ``seconds`` have passed.

    Does nothing for ``None`` or where :func:`can_interrupt` is false.  A timer the caller
    had running (e.g. a test timeout) is restored, minus the time spent here.
    """
    if seconds is None or not can_interrupt():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise MoveTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    outer_delay, outer_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    started = time.monotonic()
    try:
        yield
    finally:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:  # an alarm due just now may raise above; the handler is restored anyway
            signal.signal(signal.SIGALRM, previous)
            if outer_delay:
                left = max(1e-6, outer_delay - (time.monotonic() - started))
                signal.setitimer(signal.ITIMER_REAL, left, outer_interval)
