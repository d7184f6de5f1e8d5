"""Ctrl-C a Ray run many times and count how each run ends: the figure behind the Ray
backend's stop without ``ray.cancel`` (``durak.arena.runs.ray_cluster``, "Stopping";
``docs/verification.md``, "Two copies of the suite at once").

    .venv/bin/python benchmarks/ray_interrupts.py --runs 40

Each run is ``durak match mcts:limit=20,samples=1 greedy -n 40 --seed 8+i --backend ray``
on a simulated two-node cluster (one CPU each), interrupted with SIGINT once its log
holds ``1 + i % 6`` games.  A run should end with exit 130, no traceback and no failed
Ray check; one second after it ends, no worker of the cluster should still be playing
(this counts every ``ray::_play_batch`` process on the machine, so run it alone).
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

DURAK = [sys.executable, "-c", "from durak.cli.app import main; main()"]


def playing_workers() -> int:
    """How many Ray worker processes on this machine are playing a batch now."""
    busy = 0
    for d in Path("/proc").iterdir():
        try:
            busy += (d / "cmdline").read_bytes().startswith(b"ray::_play_batch")
        except OSError:
            continue
    return busy


def interrupted_run(address: str, i: int) -> tuple[int, bool, bool, int]:
    """Run ``i``: its exit code, whether Ray failed a check, whether a traceback was
    printed, and the workers still playing one second after it ended."""
    log = Path(tempfile.mkdtemp()) / "run.jsonl"
    args = ["match", "mcts:limit=20,samples=1", "greedy", "-n", "40", "--seed", str(8 + i)]
    proc = subprocess.Popen(
        [*DURAK, *args, "--quiet", "--backend", "ray", "--address", address, "--log", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while (not log.exists() or log.read_bytes().count(b"\n") < 1 + i % 6) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    time.sleep(1.0)
    return proc.returncode, "Check failed" in err, "Traceback" in err, playing_workers()


def main() -> None:
    """Interrupt ``--runs`` runs and print each one's ending, then the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    runs = parser.parse_args().runs
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        sys.exit("SIGINT is ignored here (a nohup'd shell?), so the runs would not stop")
    from ray.cluster_utils import Cluster  # noqa: PLC0415 - the ray extra

    nodes = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    nodes.add_node(num_cpus=1)
    nodes.wait_for_nodes()
    counts: Counter[tuple[int, bool, bool, int]] = Counter()
    try:
        for i in range(runs):
            ending = interrupted_run(nodes.address, i)
            counts[ending] += 1
            print(
                f"run {i}: exit {ending[0]}, failed check {ending[1]}, "
                f"traceback {ending[2]}, workers playing after 1 s: {ending[3]}",
                flush=True,
            )
    finally:
        nodes.shutdown()  # type: ignore[no-untyped-call]
    print("(exit, failed check, traceback, workers playing): runs")
    for ending, n in sorted(counts.items()):
        print(f"{ending}: {n}")


if __name__ == "__main__":
    main()
