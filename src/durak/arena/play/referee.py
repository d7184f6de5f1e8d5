"""Fair play between agents: a faulty agent forfeits the game instead of stopping the run.

An agent is at fault when one of its calls raises, runs past the move time limit, or when
it returns an action that is not legal.  :class:`Referee` is the policy that
:func:`~durak.arena.play.game.play_game` applies when it is given one; without a referee the
runner is strict and lets every error propagate (``IllegalActionError`` included).

The time limit is enforced with ``signal.setitimer(ITIMER_REAL)`` on the main thread of a
POSIX process (the CLI's games and the pool workers' games run there): an agent stuck in a
Python loop is interrupted by :class:`MoveTimeout`.  On any other thread (a web table's
game) one watchdog thread raises it in the agent's thread instead (CPython's
``PyThreadState_SetAsyncExc``).  Neither can interrupt a long call inside C code (a
``time.sleep`` included, off the main thread) until it returns to the interpreter; the
limit is then checked when it does.

A :class:`Stop` calls a game off from another thread (a web table closing): the refereed
call in progress is interrupted, and every later one refused, with :class:`GameStopped`,
which is nobody's fault.
"""

from __future__ import annotations

import ctypes
import math
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


class GameStopped(BaseException):
    """Raised inside a refereed call, or at the next one, once the game's :class:`Stop` is
    set: the game was called off.  A ``BaseException``, so that no agent swallows it and
    the referee does not take it for a fault."""


class Stop:
    """A game's off switch, thrown from any thread (see the module docstring)."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def set(self) -> None:
        """Call the game off: interrupt the refereed call in progress, refuse the next."""
        self._event.set()
        _WATCHDOG.wake()

    def is_set(self) -> bool:
        """Whether the game was called off."""
        return self._event.is_set()


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
    hooks), or ``None`` for no limit; ``untimed``: the seats that are waited for (a
    person's): no limit, and a call of theirs is never interrupted, only refused once the
    game is called off (a person's seat ends its own wait); ``stop``: the game's off
    switch, if it has one.
    """

    move_timeout: float | None = attrs.field(default=None, validator=_check_timeout)
    untimed: frozenset[int] = frozenset()
    stop: Stop | None = attrs.field(default=None, eq=False, repr=False)

    def call(self, fn: Callable[[], T], seat: int | None = None) -> T:
        """``fn()`` on behalf of ``seat``, or :class:`AgentFaultError` if it raised an
        ``Exception`` or ``SystemExit`` (an agent may not end the run) or ran past the time
        limit.  ``KeyboardInterrupt`` passes through untouched, and so does an error of the
        timer itself, which is never the agent's fault; :class:`GameStopped` once ``stop``
        is set, before the call, during it or when it returns."""
        stop = self.stop
        if stop is not None and stop.is_set():
            raise GameStopped
        watched = seat not in self.untimed
        limit = self.move_timeout if watched else None
        started = time.perf_counter()
        try:
            with time_limit(limit, stop if watched else None):
                try:
                    result = fn()
                except (Exception, SystemExit) as e:
                    raise AgentFaultError("error", f"{type(e).__name__}: {e}") from None
        except MoveTimeout:
            message = f"no answer within the {limit:g} s move limit"
            raise AgentFaultError("timeout", message) from None
        if stop is not None and stop.is_set():
            raise GameStopped
        spent = time.perf_counter() - started
        if limit is not None and spent > limit:  # where no timer could interrupt it
            raise AgentFaultError("timeout", f"took {spent:.3g} s, over the {limit:g} s move limit")
        return result


def _by_signal() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def can_interrupt() -> bool:
    """Whether :func:`time_limit` can interrupt a call here: by a signal on the main thread
    (POSIX), by the watchdog on any thread (CPython)."""
    return _by_signal() or _ASYNC_RAISE is not None


@contextmanager
def time_limit(seconds: float | None, stop: Stop | None = None) -> Iterator[None]:
    """Raise :class:`MoveTimeout` in the body once ``seconds`` have passed, and
    :class:`GameStopped` once ``stop`` is set.

    Does nothing for ``None`` (and no ``stop``) or where :func:`can_interrupt` is false.
    On the main thread without ``stop`` the timer is a signal; a timer the caller had
    running (e.g. a test timeout) is restored, minus the time spent here.  Elsewhere the
    watchdog thread raises the exception in the body's thread.
    """
    if seconds is None or stop is not None or not _by_signal():
        if (seconds is None and stop is None) or _ASYNC_RAISE is None:
            yield
        else:
            with _WATCHDOG.watch(math.inf if seconds is None else seconds, stop):
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


def _async_raiser() -> Callable[[int, type[BaseException] | None], None] | None:
    """CPython's way to raise an exception in another thread (``None`` clears a pending
    one), or ``None`` where there is none."""
    api = getattr(ctypes, "pythonapi", None)
    setter = getattr(api, "PyThreadState_SetAsyncExc", None)
    if setter is None:
        return None

    def raise_in(thread: int, exc: type[BaseException] | None) -> None:
        setter(ctypes.c_ulong(thread), None if exc is None else ctypes.py_object(exc))

    return raise_in


_ASYNC_RAISE = _async_raiser()


@attrs.define(eq=False)
class _Watch:
    """One call being watched: its thread, deadline (``time.monotonic``) and off switch."""

    thread: int
    deadline: float
    stop: Stop | None


class _Watchdog:
    """One daemon thread for every watched call: at a call's deadline, or once its
    :class:`Stop` is set, it raises :class:`MoveTimeout` or :class:`GameStopped` in the
    call's thread, once, and forgets the call.  The call forgets itself when it ends under
    the same lock, so the exception never lands outside :func:`time_limit`: one raised
    but not yet delivered when the call ends is cleared, and the referee judges by the
    clock and the switch instead."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._watches: set[_Watch] = set()
        self._thread: threading.Thread | None = None

    def wake(self) -> None:
        """Look at every call again (an off switch was thrown)."""
        with self._cond:
            self._cond.notify()

    @contextmanager
    def watch(self, seconds: float, stop: Stop | None) -> Iterator[None]:
        """Watch the body: ``seconds`` from now (``inf``: no limit) and ``stop``."""
        assert _ASYNC_RAISE is not None
        watch = _Watch(threading.get_ident(), time.monotonic() + seconds, stop)
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="move-timer", daemon=True)
                self._thread.start()
            self._watches.add(watch)
            self._cond.notify()
        try:
            yield
        finally:
            with self._cond:
                fired = watch not in self._watches
                self._watches.discard(watch)
            if fired:
                _ASYNC_RAISE(watch.thread, None)

    def _run(self) -> None:
        assert _ASYNC_RAISE is not None
        with self._cond:
            while True:
                now = time.monotonic()
                for w in list(self._watches):
                    if w.stop is not None and w.stop.is_set():
                        exc: type[BaseException] = GameStopped
                    elif w.deadline <= now:
                        exc = MoveTimeout
                    else:
                        continue
                    self._watches.discard(w)
                    _ASYNC_RAISE(w.thread, exc)
                nearest = min((w.deadline for w in self._watches), default=math.inf)
                self._cond.wait(None if math.isinf(nearest) else nearest - now)


_WATCHDOG = _Watchdog()
