"""Two versions of durak side by side in one process: the figures of issue 37's table.

    git worktree add /tmp/durak-old 5b0aab7
    .venv/bin/python benchmarks/speed_compare.py /tmp/durak-old/src src --rounds 5

Both source trees are imported into this one process (each under its own copy of the
``durak`` modules), and every workload alternates between them round by round, with a new
seed each round, so that both see the same machine load.  Each figure is the median over
the rounds of the work done per second of this thread's CPU time (``time.thread_time``: a
machine shared with other jobs slows the wall clock, not this count).  The workloads use
only the public API both versions share:

* ``readme``: random 2-player games through ``legal_actions`` + ``step`` (the README's loop);
* ``unchecked``: the same games through ``step_unchecked``;
* ``players4`` / ``players6``: ``durak bench``'s engine rows (the ``random`` agent's policy);
* ``ismcts``: SO-ISMCTS iterations as the ``ismcts`` agent runs them (greedy rollouts, bias
  20) from openings; ``mcts``: UCT iterations with random rollouts from openings;
* ``alphabeta``: alpha-beta nodes on 2-player endgames (``durak bench``'s row);
* ``dmc`` (with ``--dmc``): episodes of one Deep Monte-Carlo actor (torch on one thread).

The same seeds must give the same searches in both versions: the script says when a
search's decision or visit counts differ.
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

Modules = dict[str, ModuleType]
#: A workload: ``(modules, seed) -> (units of work, what it decided)``.
Workload = Callable[[Modules, int], tuple[int, object]]


def load(path: str, learn: bool) -> Modules:
    """The durak modules of the source tree at ``path``, imported afresh (with ``learn``,
    the Deep Monte-Carlo actor's too, which need torch)."""
    for name in [m for m in sys.modules if m == "durak" or m.startswith("durak.")]:
        del sys.modules[name]
    sys.path.insert(0, path)
    names = ["durak.rules", "durak.search", "durak.agents.heuristics.evals"]
    if learn:
        names.append("durak.learn.dmc")
    try:
        loaded = {name.rsplit(".", 1)[-1]: importlib.import_module(name) for name in names}
        if learn:
            # The dmc modules moved into the package durak.learn.dmc (issue 38).
            sep = "." if (Path(path) / "durak/learn/dmc").is_dir() else "_"
            for part in ("actor", "net"):
                loaded[f"dmc_{part}"] = importlib.import_module(f"durak.learn.dmc{sep}{part}")
        # The bench module moved into durak.arena.experiments (issue 38).
        bench = (
            "experiments.bench" if (Path(path) / "durak/arena/experiments").is_dir() else "bench"
        )
        loaded["bench"] = importlib.import_module(f"durak.arena.{bench}")
        return loaded
    finally:
        sys.path.remove(path)


def _games(m: Modules, seed: int, games: int, checked: bool) -> tuple[int, object]:
    rules_mod = m["rules"]
    rules = rules_mod.Rules()
    advance = rules_mod.step if checked else rules_mod.step_unchecked
    legal_actions, new_game = rules_mod.legal_actions, rules_mod.new_game
    rng = random.Random(seed)
    for g in range(seed, seed + games):
        state = new_game(rules, g)
        while state.turn >= 0:
            state = advance(state, rng.choice(legal_actions(state)))
    return games, None


def _engine(m: Modules, seed: int, players: int, games: int) -> tuple[int, object]:
    result = m["bench"].bench_engine(m["rules"].Rules(players=players), games, seed)
    return games, result.decisions


def _ismcts(m: Modules, seed: int, positions: int, iterations: int) -> tuple[int, object]:
    r, s, evals = m["rules"], m["search"], m["evals"]
    rules = r.Rules()
    game = r.DurakGame(rules)
    decided = []
    for k in range(seed, seed + positions):
        state = r.new_game(rules, k)
        settings: dict[str, Any] = {
            "rollout": evals.greedy_rollout,
            "heuristic": evals.greedy_heuristic,
            "bias": 20.0,
        }
        if hasattr(s, "TreeSettings"):  # one settings value since issue 38
            settings = {"settings": s.TreeSettings(**settings)}
        result = s.ismcts(
            game,
            r.observe(state, state.turn),
            player=state.turn,
            budget=s.Budget(iterations=iterations),
            rng=k,
            **settings,
        )
        # As text: the two trees' action classes never compare equal.
        decided.append((str(result.action), [(str(a), n) for a, n in result.visits]))
    return positions * iterations, decided


def _mcts(m: Modules, seed: int, positions: int, iterations: int) -> tuple[int, object]:
    result = m["bench"].bench_mcts(m["rules"].Rules(), positions, iterations, seed)
    return result.count, None


def _alphabeta(m: Modules, seed: int, positions: int, nodes: int) -> tuple[int, object]:
    result = m["bench"].bench_alphabeta(m["rules"].Rules(), positions, nodes, seed)
    return result.count, result.exact


def _dmc(m: Modules, seed: int, episodes: int) -> tuple[int, object]:
    """One Deep Monte-Carlo actor chunk against self, greedy and lowest with the bundled
    model's weights (``benchmarks/dmc_profile.py``'s actor), on one torch thread."""
    model = m["dmc_net"].load_model(m["dmc"].BUNDLED)
    weights = {k: v.numpy() for k, v in model.net.state_dict().items()}
    opponents = ("self", "greedy", "lowest")
    task = m["dmc_actor"].ActorTask(  # by keyword: the older commits' take them too
        rules=m["rules"].Rules(),
        hidden=model.hidden,
        weights=weights,
        seed=1,
        first=seed,
        count=episodes,
        epsilon=0.05,
        opponents=opponents,
    )
    return episodes, m["dmc_actor"].collect(task).decisions


def workloads(scale: float) -> dict[str, tuple[str, Workload]]:
    """Every workload by name, with its unit; ``scale`` multiplies the work per round."""

    def n(x: int) -> int:
        return max(1, round(x * scale))

    return {
        "readme": ("games", lambda m, s: _games(m, s, n(300), checked=True)),
        "unchecked": ("games", lambda m, s: _games(m, s, n(300), checked=False)),
        "players4": ("games", lambda m, s: _engine(m, s, 4, n(150))),
        "players6": ("games", lambda m, s: _engine(m, s, 6, n(100))),
        "ismcts": ("iterations", lambda m, s: _ismcts(m, s, 2, n(300))),
        "mcts": ("iterations", lambda m, s: _mcts(m, s, 2, n(400))),
        "alphabeta": ("nodes", lambda m, s: _alphabeta(m, s, 2, n(20_000))),
        "dmc": ("episodes", lambda m, s: _dmc(m, s, n(32))),
    }


def main() -> None:
    """Print each workload's median rate in both trees and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="the old source tree (the directory holding durak/)")
    parser.add_argument("new", help="the new source tree")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scale", type=float, default=1.0, help="work per round, relative")
    parser.add_argument("--only", action="append", help="run only these workloads")
    parser.add_argument("--dmc", action="store_true", help="also the DMC actor (needs torch)")
    args = parser.parse_args()
    trees = [load(args.old, args.dmc), load(args.new, args.dmc)]
    if args.dmc:
        import torch  # noqa: PLC0415 - only with --dmc

        torch.set_num_threads(1)  # the actor's inference in this thread, timed by thread_time
    print("| workload | old /s | new /s | new / old | rounds |")
    print("|---|---|---|---|---|")
    for name, (unit, run) in workloads(args.scale).items():
        if (args.only and name not in args.only) or (name == "dmc" and not args.dmc):
            continue
        rates: list[list[float]] = [[], []]
        decided: list[list[Any]] = [[], []]
        for k in range(args.rounds):
            seed = args.seed + 1000 * k
            for i in (0, 1) if k % 2 == 0 else (1, 0):
                started = time.thread_time()
                units, what = run(trees[i], seed)
                rates[i].append(units / (time.thread_time() - started))
                decided[i].append(what)
        old, new = (statistics.median(r) for r in rates)
        note = "" if decided[0] == decided[1] else " (different results!)"
        print(
            f"| {name} ({unit}) | {old:,.0f} | {new:,.0f} | {new / old:.2f}{note} | {args.rounds} |"
        )


if __name__ == "__main__":
    main()
