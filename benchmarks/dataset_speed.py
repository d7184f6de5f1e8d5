"""The speed and memory of ``durak dataset`` on ``random`` self-play, on one core: issue 51's
target is at least 10,000 decisions written per second, and memory flat over 100,000 games.

    .venv/bin/python benchmarks/dataset_speed.py                  # 100,000 games, seed 1
    .venv/bin/python benchmarks/dataset_speed.py --games 2000     # a short check that it runs

One ``durak dataset random random --games N --seed S --jobs 1 --shards K --quiet --out DIR``
runs as a child process (the real command, start-up and imports included in its wall time),
its resident set size (VmRSS of ``/proc/PID/status``) sampled every half second.  Then:

* **decisions**: the row count of the Parquet files it wrote, read back with pyarrow (from
  each file's footer), and checked against the sum in ``_manifest.json``;
* **decisions/s**: decisions over the child's wall seconds; beside it the command's own
  figure (its ``time:`` line: the writing loop only) and decisions per CPU-second of the
  child (user + system), which a busy machine changes less;
* **memory**: the peak RSS (the kernel's high-water mark of the child) and the RSS at 10%,
  50% and 90% of the run's duration, each the highest sample of the tenth of the run that
  starts there (RSS rises and falls with every row group and file built, so one sample
  would say more about where in that cycle it fell than about the trend).  Memory is
  **flat** when the RSS at 90% is within 10% of the RSS at 10% (the first tenth is
  warm-up: imports, the agents, the first files); a run with fewer than
  :data:`MIN_SAMPLES` samples in each of those tenths is too short to tell.

The default seed, 1, is that of docs/cli.md's example.  The dataset goes to a temporary
folder, removed at the end unless ``--keep``.  Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

DURAK = [sys.executable, "-c", "from durak.cli.app import main; main()"]
#: Seconds between two RSS samples.
INTERVAL = 0.5
#: The RSS at 90% of the run may exceed the RSS at 10% by this fraction and still be flat.
FLAT_TOLERANCE = 0.10
#: Fewer samples than this in a tenth of the run: too short to call its memory flat or not.
MIN_SAMPLES = 10
#: The issue's target.
TARGET_RATE = 10_000


@dataclass(frozen=True)
class Sample:
    """The child's RSS (KiB) ``seconds`` after it started."""

    seconds: float
    rss_kib: int


@dataclass(frozen=True)
class Memory:
    """The RSS (KiB) at 10%, 50% and 90% of the run, and whether it stayed flat (``None``:
    too few samples to tell)."""

    early: int
    middle: int
    late: int
    flat: bool | None


def vm_rss(status: str) -> int | None:
    """The ``VmRSS`` of a ``/proc/PID/status`` text in KiB; ``None`` if it has none (a
    process that is exiting)."""
    found = re.search(r"^VmRSS:\s+(\d+) kB$", status, re.MULTILINE)
    return None if found is None else int(found.group(1))


def tenth(samples: list[Sample], start: float) -> list[Sample]:
    """The samples from ``start`` to ``start + 0.1`` of the run (the last sample's time;
    the end included in the last tenth), in order; ``samples`` in time order, not empty."""
    end = samples[-1].seconds
    low, high = start * end, (start + 0.1) * end
    return [s for s in samples if low <= s.seconds and (s.seconds < high or high >= end)]


def memory(samples: list[Sample]) -> Memory:
    """The RSS at 10%, 50% and 90% of the run and the flat verdict (see the module)."""
    windows = [tenth(samples, f) for f in (0.1, 0.5, 0.9)]
    early, middle, late = (max((s.rss_kib for s in w), default=0) for w in windows)
    enough = all(len(w) >= MIN_SAMPLES for w in windows)
    flat = late <= early * (1 + FLAT_TOLERANCE) if enough else None
    return Memory(early, middle, late, flat)


def cli_rate(stdout: str) -> float | None:
    """The decisions/s of ``durak dataset``'s ``time:`` line, ``None`` if it printed none."""
    found = re.search(r"^time: .*· ([\d,]+) decisions/s( · |$)", stdout, re.MULTILINE)
    return None if found is None else float(found.group(1).replace(",", ""))


def decisions_written(folder: Path) -> tuple[int, int]:
    """The rows of the decision files in ``folder`` (their Parquet footers) and the
    decisions its manifest lists."""
    import pyarrow.parquet as pq  # noqa: PLC0415 - the dataset extra, only after the run

    rows = sum(pq.ParquetFile(p).metadata.num_rows for p in folder.glob("part-*.parquet"))
    manifest = json.loads((folder / "_manifest.json").read_text(encoding="utf-8"))
    return rows, sum(int(s["decisions"]) for s in manifest["shards"])


def _rss_of(pid: int) -> int | None:
    try:
        return vm_rss(Path(f"/proc/{pid}/status").read_text(encoding="utf-8"))
    except OSError:  # gone already
        return None


@dataclass(frozen=True)
class Run:
    """A finished child run: its samples, wall and CPU seconds, peak RSS (KiB), output."""

    samples: list[Sample]
    wall: float
    cpu: float
    peak_kib: int
    stdout: str


def run_dataset(command: list[str]) -> Run:
    """Run ``command``, sampling its RSS until it ends; exits with its stderr if it
    fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    samples: list[Sample] = []
    while True:
        rss = _rss_of(child.pid)
        if rss is not None:
            samples.append(Sample(time.perf_counter() - started, rss))
        try:
            stdout, stderr = child.communicate(timeout=INTERVAL)
            break
        except subprocess.TimeoutExpired:
            continue
    wall = time.perf_counter() - started
    if child.returncode != 0 or not samples:
        sys.exit(f"durak dataset failed (exit {child.returncode}): {stderr.strip()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # RUSAGE_CHILDREN's high-water mark is the largest of the children: here the only one
    peak = max(after.ru_maxrss, *(s.rss_kib for s in samples))
    return Run(samples, wall, cpu, peak, stdout)


def report(games: int, decisions: int, run: Run) -> list[str]:
    """The benchmark's lines for a run that wrote ``decisions`` rows of ``games`` games."""
    mem = memory(run.samples)
    rate = decisions / run.wall
    own = cli_rate(run.stdout)
    verdict = {None: "too short to tell", True: "yes", False: "NO"}[mem.flat]
    return [
        f"games: {games:,}",
        f"decisions written: {decisions:,} (row count of the Parquet files)",
        f"wall: {run.wall:.1f} s (start-up included) · CPU: {run.cpu:.1f} s",
        f"decisions/s: {rate:,.0f} wall · {decisions / run.cpu:,.0f} per CPU-second · "
        f"{'-' if own is None else f'{own:,.0f}'} by the command's own time: line "
        f"(target {TARGET_RATE:,}: {'met' if rate >= TARGET_RATE else 'NOT met'} on wall)",
        f"peak RSS: {run.peak_kib / 1024:.1f} MiB",
        f"RSS at 10% / 50% / 90% of the run (the highest sample of the tenth from there): "
        f"{mem.early / 1024:.1f} / {mem.middle / 1024:.1f} / {mem.late / 1024:.1f} MiB "
        f"({len(run.samples)} samples, every {INTERVAL} s)",
        f"memory flat (RSS at 90% within {FLAT_TOLERANCE:.0%} of RSS at 10%): {verdict}",
    ]


def main() -> None:
    """Run the command once and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--shard-games", type=int, default=1_000, help="--shards of the run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the dataset, print where")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="dataset-speed-"))
    out = folder / "dataset"
    command = [*DURAK, "dataset", "random", "random", "--games", str(args.games)]
    command += ["--seed", str(args.seed), "--jobs", "1", "--shards", str(args.shard_games)]
    command += ["--quiet", "--out", str(out)]
    print("$ durak " + " ".join(command[len(DURAK) :]), flush=True)
    try:
        run = run_dataset(command)
        rows, listed = decisions_written(out)
        if rows != listed:
            sys.exit(f"the files hold {rows:,} decisions, the manifest lists {listed:,}")
        print("\n".join(report(args.games, rows, run)))
    finally:
        if args.keep:
            print(f"kept: {out}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
