"""Deep Monte-Carlo training speed with 1 and 2 local actors and on Ray, side by side.

    .venv/bin/python benchmarks/dmc_throughput.py              # the table of docs/learning.md
    .venv/bin/python benchmarks/dmc_throughput.py --quick      # a short check that it runs

Each row is one ``durak train dmc --vs self,greedy,lowest`` run of the same episodes and
seed, run one after another in this one process, so that every row sees the same machine.
Episodes/s and decisions/s are the CSV's last evaluation row (the evaluation itself, which
is the same for every row, is not counted in them).  Then the bundled model plays
``durak match dmc greedy`` and its milliseconds per decision are read from the table.
Every row must end with the same weights: the schedule does not depend on the actors.
"""

from __future__ import annotations

import argparse
import csv
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DURAK = str(Path(sys.executable).with_name("durak"))
ROWS = [
    ("1 local actor", ["--jobs", "1"]),
    ("2 local actors", ["--jobs", "2"]),
    ("Ray, 2 CPUs", ["--jobs", "2", "--backend", "ray"]),
]


def train(
    folder: Path, name: str, episodes: int, options: list[str]
) -> tuple[dict[str, str], float, bytes]:
    """The last CSV row, the wall seconds and the model's weights of one run."""
    out = folder / f"{name}.pt"
    command = [DURAK, "train", "dmc", "--vs", "self,greedy,lowest", "--games", str(episodes)]
    command += ["--interval", str(episodes), "--seed", "3", "--out", str(out), "--no-plot"]
    started = time.perf_counter()
    subprocess.run([*command, *options], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - started
    with out.with_suffix(".csv").open(encoding="utf-8") as f:
        last = list(csv.DictReader(f))[-1]
    import torch  # noqa: PLC0415 - only here, after the runs

    state = torch.load(out, weights_only=True)["state_dict"]
    blob = b"".join(state[k].numpy().tobytes() for k in sorted(state))
    return last, wall, blob


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    episodes = 2_048 if args.quick else 25_600
    print("| actors | episodes | episodes/s | decisions/s | wall s (start and evaluation too) |")
    print("|---|---|---|---|---|")
    weights = set()
    with tempfile.TemporaryDirectory() as folder:
        for k, (label, options) in enumerate(ROWS):
            row, wall, blob = train(Path(folder), f"run{k}", episodes, options)
            weights.add(blob)
            print(
                f"| {label} | {episodes:,} | {float(row['episodes_per_second']):,.0f} | "
                f"{float(row['decisions_per_second']):,.0f} | {wall:.1f} |",
                flush=True,
            )
    print(f"same weights on every row: {len(weights) == 1}")
    games = 100 if args.quick else 1_000
    done = subprocess.run(
        [DURAK, "match", "dmc", "greedy", "--games", str(games), "--seed", "17", "--jobs", "1"],
        check=True,
        capture_output=True,
        text=True,
    )
    line = next(x for x in done.stdout.splitlines() if re.match(r"│ 0 │ dmc", x))
    cells = [c.strip() for c in line.split("│")]
    print(
        f"dmc in play ({games} games vs greedy, seed 17): {cells[-3]} ms/decision mean, "
        f"{cells[-2]} ms max"
    )


if __name__ == "__main__":
    main()
