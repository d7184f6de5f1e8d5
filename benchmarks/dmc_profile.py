"""Where a Deep Monte-Carlo actor and learner spend their time (cProfile, one process).

    .venv/bin/python benchmarks/dmc_profile.py             # the table of docs/learning.md
    .venv/bin/python benchmarks/dmc_profile.py --quick     # a short check that it runs

One actor chunk (64 episodes against ``self,greedy,lowest``, the bundled model's weights)
and one round's learner steps (the default batch and reuse, on those samples) are
profiled; the table splits their time into the engine (``durak.rules``), the features
(``dmc.features`` with ``encode_observation``), inference (torch forward passes), the
opponents' agents, the optimizer steps and the rest.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from durak.learn.dmc import BUNDLED
from durak.learn.dmc.actor import ActorTask, collect
from durak.learn.dmc.learner import DmcTrainer
from durak.learn.dmc.net import load_model
from durak.learn.dmc.settings import DmcSettings
from durak.rules import Rules

#: Profile entries (``file:function`` substrings) counted under each heading, by their
#: cumulative time; the first heading that matches a frame takes it.
PARTS = {
    "features (dmc.features, encode_observation)": ("dmc/features.py", "observations.py"),
    "torch (forward passes; backward and Adam in the learner)": ("torch",),
    "numpy (arrays built and copied)": ("numpy",),
    "opponents (greedy, lowest)": ("agents/heuristics/simple.py", "agents/heuristics/tactics.py"),
    "engine (durak.rules)": ("durak/rules/",),
}


def split(stats: pstats.Stats, total: float) -> list[tuple[str, float]]:
    """Self time per heading (every frame's own time goes to the first matching heading)."""
    sums = dict.fromkeys(PARTS, 0.0)
    other = 0.0
    for (file, _, function), (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        where = f"{file}:{function}"  # a builtin's file is "~"; its name says whose it is
        for name, patterns in PARTS.items():
            if any(p in where for p in patterns):
                sums[name] += own
                break
        else:
            other += own
    return [*sums.items(), ("the rest (the loops' own Python)", other)]


def main() -> None:
    """Profile, print the two tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rules = Rules()
    model = load_model(BUNDLED)
    weights = {k: v.numpy() for k, v in model.net.state_dict().items()}
    chunk = 8 if args.quick else 64
    task = ActorTask(
        rules=rules,
        hidden=model.hidden,
        weights=weights,
        seed=1,
        first=0,
        count=chunk,
        epsilon=0.05,
        opponents=("self", "greedy", "lowest"),
    )
    profile = cProfile.Profile()
    started = time.perf_counter()
    profile.enable()
    samples = collect(task)
    profile.disable()
    actor = time.perf_counter() - started
    print(f"actor: {chunk} episodes, {samples.decisions:,} decisions, {actor:.2f} s profiled")
    print("| part | seconds | share |\n|---|---|---|")
    for name, seconds in split(pstats.Stats(profile), actor):
        print(f"| {name} | {seconds:.2f} | {seconds / actor:.0%} |")

    trainer = DmcTrainer(rules, ["self"], 1, DmcSettings())
    trainer.buffer_rows.append(samples.rows)  # the learner's buffer, as a round leaves it
    trainer.buffer_targets.append(samples.targets)
    profile = cProfile.Profile()
    started = time.perf_counter()
    profile.enable()
    _, steps = trainer._learn()
    profile.disable()
    learner = time.perf_counter() - started
    print(f"\nlearner: {steps} steps of {DmcSettings().batch} rows, {learner:.2f} s profiled")
    print("| part | seconds | share |\n|---|---|---|")
    for name, seconds in split(pstats.Stats(profile), learner):
        if seconds:
            print(f"| {name} | {seconds:.2f} | {seconds / learner:.0%} |")


if __name__ == "__main__":
    main()
