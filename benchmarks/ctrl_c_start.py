"""How often a Ctrl-C early in a run prints more than its one stop line (issue 61, item 4).

Runs a command ROUNDS times per delay, sends SIGINT to its whole process group (as a
terminal's Ctrl-C does) DELAY seconds after its first line on standard output (``--from
start``: after it was started), and counts the runs that did not end with exit 130, exactly
one ``interrupted`` line and no traceback::

    python benchmarks/ctrl_c_start.py --rounds 5 --delays 0,0.05,0.1,0.2,0.3,0.5,0.8

The default command is ``durak match random random -n 100000 -j 2 --seed 1`` (the script
next to this Python).  The figures are in the closing note of issue 61.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

MARKS = ("Traceback", "Error", "KeyboardInterrupt", "Exception ignored")


def one_run(command: list[str], delay: float, from_start: bool) -> bool:
    """Whether one interrupted run ended cleanly."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    p = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=env,
    )
    assert p.stdout is not None
    first = "" if from_start else p.stdout.readline()
    try:
        p.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGINT)
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        return False
    text = first + out + err
    stops = [line for line in err.splitlines() if line.startswith("interrupted")]
    marked = [line for line in text.splitlines() if any(m in line for m in MARKS)]
    finished = p.returncode == 0  # the run ended before the signal: not a failure
    return finished or (p.returncode == 130 and len(stops) == 1 and not marked)


def main() -> None:
    """Print the count of unclean stops, per delay and in all."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--delays", default="0,0.05,0.1,0.2,0.3,0.5,0.8")
    parser.add_argument("--from", dest="origin", choices=("line", "start"), default="line")
    durak = str(Path(sys.executable).with_name("durak"))
    default = [durak, "match", "random", "random", "-n", "100000", "-j", "2", "--seed", "1"]
    parser.add_argument("command", nargs="*", default=default)
    args = parser.parse_args()
    delays = [float(d) for d in args.delays.split(",")]
    bad = total = 0
    for delay in delays:
        unclean = sum(
            not one_run(args.command, delay, args.origin == "start") for _ in range(args.rounds)
        )
        print(f"delay {delay:g} s: {unclean} of {args.rounds} unclean")
        bad += unclean
        total += args.rounds
    print(f"unclean stops: {bad} of {total}")


if __name__ == "__main__":
    main()
