"""The one stop path of the long commands (:mod:`durak.cli.stopping`): Ctrl-C, SIGTERM, an
error the run survives and an end of input each become a :class:`Stopped` with its exit
code, anything else goes through, and the stop line is one line on standard error."""

from __future__ import annotations

import signal

import pytest
import typer

from durak.arena.runs.signals import Terminated
from durak.cli.stopping import Stopped, stoppable
from durak.files import FileError


@pytest.mark.parametrize(
    ("raised", "expected"),
    [
        (KeyboardInterrupt(), Stopped("interrupted", 130)),
        (Terminated(), Stopped("terminated (SIGTERM)", 143)),
        (FileError("run.jsonl", "cannot write: disk full"), Stopped(
            "error: run.jsonl: cannot write: disk full", 2)),
        (OSError(28, "No space left on device", "log"), Stopped(
            "error: log: No space left on device", 2)),
        (EOFError(), Stopped("end of input", 130)),
    ],
)  # fmt: skip
def test_each_stop_is_recorded_with_its_exit_code(raised: BaseException, expected: Stopped) -> None:
    with stoppable((OSError, FileError), ends={EOFError: "end of input"}) as stop:
        assert stop.stopped is None
        raise raised
    assert stop.stopped == expected


def test_a_block_that_ends_is_not_stopped() -> None:
    with stoppable((OSError,)) as stop:
        pass
    assert stop.stopped is None


@pytest.mark.parametrize("raised", [ValueError("a bad option"), OSError("not listed"), EOFError()])
def test_an_exception_not_listed_goes_through(raised: Exception) -> None:
    with pytest.raises(type(raised)), stoppable((FileError,)):
        raise raised


def test_sigterm_in_the_block_stops_it_and_the_handler_is_put_back() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with stoppable() as stop:
        signal.raise_signal(signal.SIGTERM)  # its handler has run when this returns
        raise AssertionError("SIGTERM did not stop the block")
    assert stop.stopped == Stopped("terminated (SIGTERM)", 143)
    assert signal.getsignal(signal.SIGTERM) is before


def test_the_stop_line_is_one_line_on_standard_error(capsys: pytest.CaptureFixture[str]) -> None:
    exit_ = Stopped("interrupted", 130).exit("3 of 10 games finished")
    assert isinstance(exit_, typer.Exit) and exit_.exit_code == 130
    error = Stopped("error: log: disk  full", 2).exit("saved")
    assert error.exit_code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "interrupted: 3 of 10 games finished\nerror: log: disk full: saved\n"


def test_ctrl_c_before_the_block_starts_goes_through_as_an_interruption(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Ctrl-C while the SIGTERM handler is being set: the block never ran, so the
    # interruption goes to the command's own Ctrl-C path (not "generator didn't yield").
    def interrupted(signum: int, handler: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(signal, "signal", interrupted)
    ran = []
    with pytest.raises(KeyboardInterrupt), stoppable():
        ran.append(True)
    assert ran == []
