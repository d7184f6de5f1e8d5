"""Ctrl-C at any moment of a command that runs games or actors (every command with
``--jobs``, found in the typer app, so that a new one is covered or fails here) ends it
with exit code 130, one ``interrupted`` line on standard error and no traceback: while
Python imports the command line, while the command starts, while its pool of workers
starts (``-j 2``) and while it runs.  Issue 61: a Ctrl-C in the first second of a
``-j 2`` run printed ``EOFError`` and ``AssertionError`` tracebacks after the clean line.

Each command runs in a process group of its own, as a terminal's foreground job, and the
SIGINT goes to the whole group, as a terminal's Ctrl-C does: the workers get it too.  The
moments are counted from the program's first line (a launcher touches a file, then runs
``python -m durak``): a signal during the interpreter's own start, before any program
runs, is Python's fatal error, no program's.  Nothing is asserted about when each moment
falls; only the outcome, whatever it is.  Every file goes to ``tmp_path``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import typer.main

from durak.cli.app import app
from tests.support.extras import require_extra

Result = subprocess.CompletedProcess[str]

#: When the SIGINT comes: seconds after the program starts (while Python imports the
#: command line, on most machines), or after the command's first line of output (its
#: header: the run and its pool are starting).
MOMENTS = (("start", 0.2), ("output", 0.0), ("output", 0.3), ("output", 1.0))
#: More games than any run plays before the last moment.
MANY = "1000000"
#: The 4-card deck of docs/openspiel.md.
TINY = ["--suits", "2", "--lowest-rank", "13", "--hand-size", "2"]
#: What every run below is given: two jobs (a pool of worker processes, actors for
#: ``train``, whose start is the moment the tracebacks came from), a seed, a tiny deck.
COMMON = ["--jobs", "2", "--seed", "1", *TINY]
#: A minimal invocation of each command with ``--jobs``, after the command's name and
#: before :data:`COMMON`, that lasts well past the last moment; ``{out}`` is the run's
#: own folder.
INVOCATIONS: dict[str, list[str]] = {
    "match": ["random", "random", "-n", MANY, "--log", "{out}/run.jsonl"],
    "tournament": ["random", "lowest", "-n", MANY, "--json", "{out}/t.json"],
    "grid": ["mcts:limit={l}", "-p", "l=2,3", "--vs", "random", "-n", MANY],
    "ladder": ["random", "lowest", "-n", MANY, "--file", "{out}/ladder.json"],
    "dataset": ["random", "random", "-n", MANY, "--out", "{out}/data"],
    "exploit": ["random", "--method", "search", "--limit", "2", "--eval-games", MANY],
    "train": [
        "dmc:round=8,chunk=4,hidden=16,layers=2,batch=64", "--vs", "greedy", "--games", MANY,
        "--out", "{out}/net.pt", "--no-plot",
    ],
}  # fmt: skip
#: The module a command's invocation needs (its extra): the test skips without it.
NEEDS = {"dataset": "pyarrow", "train": "torch"}

#: What marks a traceback or a crash on standard error (a traceback's header, rich's
#: included, its last line, Python's fatal error).
FAULTS = ("Traceback", "Error:", "KeyboardInterrupt", "Fatal Python error", "terminate called")
#: ``python -m durak ARGS`` once a file given first exists (the program has started).
LAUNCHER = (
    "import pathlib, runpy, sys; pathlib.Path(sys.argv.pop(1)).touch(); "
    "runpy.run_module('durak', run_name='__main__', alter_sys=True)"
)


def commands_with_jobs() -> list[str]:
    """The commands of the app with a ``--jobs`` option."""
    group = typer.main.get_command(app)
    commands = getattr(group, "commands", {})
    return sorted(
        name
        for name, command in commands.items()
        if any("--jobs" in getattr(p, "opts", ()) for p in command.params)
    )


def test_the_table_names_the_commands_with_jobs() -> None:
    found = commands_with_jobs()
    assert "match" in found and "train" in found  # the detection itself works
    missing, stale = set(found) - set(INVOCATIONS), set(INVOCATIONS) - set(found)
    assert not missing, f"add a minimal invocation to INVOCATIONS for {sorted(missing)}"
    assert not stale, f"INVOCATIONS has rows for no command with --jobs: {sorted(stale)}"


def interrupt_at(args: list[str], moment: tuple[str, float], folder: Path) -> Result:
    """Run ``durak ARGS`` in its own process group, send the group SIGINT at ``moment``,
    and return how it ended (a run still going 300 s later is killed: a hang guard)."""
    folder.mkdir()
    started = folder / "started"
    process = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, str(started), *args],
        cwd=folder,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},  # the first line as it is printed
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        anchor, seconds = moment
        while not started.exists() and process.poll() is None:
            time.sleep(0.005)
        first = process.stdout.readline() if anchor == "output" and process.stdout else ""
        time.sleep(seconds)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    return Result(args, process.returncode, first + out, err)


def stopped_cleanly(result: Result) -> str | None:
    """Why ``result`` is not a clean stop (``None`` if it is): exit code 130 with one
    ``interrupted`` line on standard error and nothing that looks like a traceback, or a
    run that ended by itself (exit 0) before the signal."""
    lines = result.stderr.splitlines()
    stops = [line for line in lines if line.startswith("interrupted")]
    faults = [line for line in lines if any(mark in line for mark in FAULTS)]
    if result.returncode == 0 and not faults:
        return None  # finished before the signal
    if result.returncode != 130:
        return f"exit code {result.returncode}"
    if len(stops) != 1:
        return f"{len(stops)} interrupted lines"
    if faults:
        return f"a traceback or error: {faults[-1]!r}"
    return None


@pytest.mark.parametrize("command", commands_with_jobs())
def test_ctrl_c_at_any_moment_ends_with_one_line(command: str, tmp_path: Path) -> None:
    if command not in INVOCATIONS:
        pytest.fail(f"add a minimal invocation of {command!r} to INVOCATIONS", pytrace=False)
    if command in NEEDS:
        require_extra(NEEDS[command])

    def run(moment: tuple[str, float]) -> Result:
        out = tmp_path / f"{moment[1]}s-after-{moment[0]}"
        args = [a.replace("{out}", str(out)) for a in INVOCATIONS[command]]
        return interrupt_at([command, *args, *COMMON], moment, out)

    with ThreadPoolExecutor(len(MOMENTS)) as runs:  # the moments side by side: a short test
        results = list(runs.map(run, MOMENTS))
    for moment, result in zip(MOMENTS, results, strict=True):
        why = stopped_cleanly(result)
        assert why is None, (
            f"SIGINT {moment[1]} s after its {moment[0]}: {why}\n{result.stderr[-3000:]}"
        )
