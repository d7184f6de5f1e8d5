"""The backends side by side: the same ``durak match`` runs on one job, a local pool of two
and Ray with two CPUs, plus the costs the scaling estimate of docs/distributed.md uses.

    .venv/bin/python benchmarks/backends.py            # the table of docs/distributed.md
    .venv/bin/python benchmarks/backends.py --quick    # a short check that it all runs

Each row is one ``durak match`` command run as a subprocess, one after another in this one
run, so every row sees the same machine.  ``play s`` is the command's own ``time:`` line
(the games only); ``total s`` is the whole process, start-up (and Ray's start) included.
Every row must print the same statistics; the script stops if they differ.  Then:

* **Ray's cost per task**: a thousand empty tasks on a local Ray instance with two CPUs.
* **the driver's cost per game**: a :class:`~durak.arena.runs.run.Run` logging recorded games
  that a backend hands over at no cost, as the driver does for every finished game.
* **the transfer of a batch**: ``ray.put`` then ``ray.get`` of a batch of recorded games.
"""

from __future__ import annotations

import argparse
import logging
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Generator, Iterable, Sequence
from pathlib import Path

from durak.arena.play.match import MatchPlan
from durak.arena.runs.interface import MAX_BATCH, A, Batch, Closing, R, Task
from durak.arena.runs.run import Run
from durak.rules import Rules

DURAK = str(Path(sys.executable).with_name("durak"))
BACKENDS = [
    ["--jobs", "1"],
    ["--backend", "local", "--jobs", "2"],
    ["--backend", "ray", "--jobs", "2"],
]


def run(command: list[str]) -> tuple[float, float, list[str]]:
    """The play seconds, the total seconds and the statistics lines of one command."""
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    total = time.perf_counter() - started
    match = re.search(r"^time: ([\d.]+) s wall", done.stdout, re.MULTILINE)
    assert match is not None, done.stdout
    stats = [
        line.rsplit("│", 3)[0] if line.count("│") > 5 else line
        for line in done.stdout.splitlines()
        if not line.startswith(("time:", "runs on:"))
    ]
    return float(match.group(1)), total, stats


class Recorded(Closing):
    """A backend that hands over games played beforehand, at no cost."""

    def __init__(self, games: Batch) -> None:
        self.games = games

    @property
    def where(self) -> str:
        return "recorded games"

    def where_for(self, count: int) -> str:
        return self.where

    def capacity(self) -> int:
        return 1

    def start(self, fn: Callable[[A], R], args: Sequence[A]) -> Callable[[], list[R]]:
        results = [fn(a) for a in args]  # here, at once: the benchmark never uses it
        return lambda: results

    def play(
        self, plans: Sequence[MatchPlan], tasks: Iterable[Task], count: int
    ) -> Generator[Batch, None, None]:
        for start in range(0, len(self.games), MAX_BATCH):
            yield self.games[start : start + MAX_BATCH]


def costs(games: int) -> None:
    """Ray's per-task cost, the driver's per-game cost and a batch's transfer."""
    import ray  # noqa: PLC0415 - an extra

    plan = MatchPlan(Rules(), ("random", "greedy"), 1, games)
    recorded = list(Run([plan]).play())
    with tempfile.TemporaryDirectory() as folder:
        run_ = Run([plan], log=Path(folder) / "log.jsonl")
        started = time.perf_counter()
        for _ in run_.play(Recorded(recorded)):
            pass
        driver = (time.perf_counter() - started) / games
    print(f"driver, per game logged: {driver * 1e6:.0f} µs ({games} games)")

    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    try:

        @ray.remote
        def empty() -> None:
            return None

        ray.get([empty.remote() for _ in range(200)])  # workers started
        started = time.perf_counter()
        ray.get([empty.remote() for _ in range(1000)])
        per_task = (time.perf_counter() - started) / 1000
        print(f"ray, per empty task (2 CPUs): {per_task * 1e6:.0f} µs")
        batch = recorded[:MAX_BATCH]
        started = time.perf_counter()
        for _ in range(20):
            ray.get(ray.put(batch))
        per_batch = (time.perf_counter() - started) / 20
        print(
            f"ray, put+get of a {len(batch)}-game batch: {per_batch * 1e3:.1f} ms "
            f"({per_batch / len(batch) * 1e6:.0f} µs per game)"
        )
    finally:
        ray.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small runs, to check the script")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    runs = [
        (["random", "greedy"], 2_000 if args.quick else 20_000),
        (["ismcts:limit=200", "greedy"], 8 if args.quick else 200),
    ]
    print("| match | games | backend | play s | total s | games/s (play) |")
    print("|---|---|---|---|---|---|")
    for specs, games in runs:
        expected: list[str] | None = None
        for backend in BACKENDS:
            command = [DURAK, "match", *specs, "-n", str(games), "--seed", str(args.seed)]
            play, total, stats = run([*command, *backend])
            if expected is not None and stats != expected:
                sys.exit(f"{' '.join(backend)} printed other statistics than --jobs 1")
            expected = stats
            print(
                f"| {' vs '.join(specs)} | {games} | {' '.join(backend)} | {play:.2f} | "
                f"{total:.2f} | {games / play:,.1f} |",
                flush=True,
            )
    costs(2_000 if args.quick else 20_000)


if __name__ == "__main__":
    main()
