"""Where the engine's time goes, per decision kind (issue 37's closing profile).

    .venv/bin/python benchmarks/decision_cost.py --games 300 --seed 0

For three workloads (``readme``: 2-player games through ``legal_actions`` + ``step``;
``unchecked``: the same through ``step_unchecked``; ``players4``: ``durak bench``'s
4-player games, the ``random`` agent's policy, through ``step_unchecked``) it records every
decision of seeded random games, groups them by kind (the action's type, and ``+end`` when
it ends the bout), and replays each group:

* the time per decision of ``legal_actions`` and of the step (this thread's CPU time, the
  best of ``--repeat`` replays, so that a shared machine's load counts as little as it can);
* per kind, cProfile's own time of the step's functions, as shares of that kind's replays
  (the replay loop left out), and the Python calls per decision.

A replay steps from recorded states, so it measures the engine alone (no policy, no loop);
a repetition record extended again by a replay copies its keys once, which a game does not.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time
from collections import defaultdict
from collections.abc import Callable

from durak.agents.heuristics.simple import random_choice
from durak.rules import (
    Action,
    GameState,
    Rules,
    legal_actions,
    new_game,
    step,
    step_unchecked,
)

Step = Callable[[GameState, Action], GameState]
HEADER = "| kind | per game | step µs | legal µs | calls/dec | own time (calls per decision) |"
Pairs = list[tuple[GameState, Action]]


def record(players: int, games: int, seed: int, uniform: bool) -> dict[str, Pairs]:
    """Every decision of ``games`` seeded random games, by kind (``uniform``: the README's
    ``rng.choice``; otherwise ``durak bench``'s random agent)."""
    rules = Rules(players=players)
    rng = random.Random(seed)
    kinds: dict[str, Pairs] = defaultdict(list)
    for g in range(seed, seed + games):
        state = new_game(rules, g)
        while state.turn >= 0:
            legal = legal_actions(state)
            action = rng.choice(legal) if uniform else random_choice(legal, rng.random, 0.2)
            after = step_unchecked(state, action)
            kind = type(action).__name__ + ("" if after.table else "+end")
            kinds[kind].append((state, action))
            state = after
    return kinds


def best_time(run: Callable[[], object], repeat: int) -> float:
    """The least thread CPU time of ``repeat`` calls of ``run``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.thread_time()
        run()
        best = min(best, time.thread_time() - start)
    return best


def replay_steps(advance: Step, pairs: Pairs) -> Callable[[], object]:
    """A replay of ``advance`` over the recorded decisions ``pairs``."""

    def run() -> None:
        for s, a in pairs:
            advance(s, a)

    return run


def replay_legal(pairs: Pairs) -> Callable[[], object]:
    """A replay of ``legal_actions`` over the recorded states of ``pairs``."""

    def run() -> None:
        for s, _ in pairs:
            legal_actions(s)

    return run


def own_times(
    run: Callable[[], object], decisions: int, repeat: int, top: int
) -> tuple[float, str]:
    """Python calls per decision of ``run`` (the replay's own loop left out), and its
    ``top`` functions by own time, as shares of the engine's time, over ``repeat`` runs."""
    profile = cProfile.Profile()
    for _ in range(repeat):
        profile.runcall(run)
    rows = {
        where: row
        for where, row in pstats.Stats(profile).stats.items()  # type: ignore[attr-defined]
        if not where[0].endswith("decision_cost.py")
    }
    total = sum(tt for _, _, tt, _, _ in rows.values())
    calls = sum(nc for _, nc, _, _, _ in rows.values()) / repeat
    ranked = sorted(rows.items(), key=lambda item: -item[1][2])[:top]
    parts = []
    for (path, _, name), (_, nc, tt, _, _) in ranked:
        where = name.split(" of ")[0] if path == "~" else f"{path.rsplit('/', 1)[-1]}:{name}"
        parts.append(f"{where} {100 * tt / total:.0f}% ({nc / repeat / decisions:.2g})")
    return calls / decisions, ", ".join(parts)


def main() -> None:
    """Print, per workload, a table of decision kinds with their costs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--top", type=int, default=5, help="functions shown per kind")
    args = parser.parse_args()
    workloads: list[tuple[str, int, bool, Step]] = [
        ("readme", 2, True, step),
        ("unchecked", 2, True, step_unchecked),
        ("players4", 4, False, step_unchecked),
    ]
    for name, players, uniform, advance in workloads:
        kinds = record(players, args.games, args.seed, uniform)
        total = sum(len(p) for p in kinds.values())
        print(f"\n### {name}: {total / args.games:.1f} decisions per game\n")
        print(HEADER)
        print("|---|---|---|---|---|---|")
        spent = 0.0
        for kind, pairs in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
            n = len(pairs)
            step_s = best_time(replay_steps(advance, pairs), args.repeat)
            legal_s = best_time(replay_legal(pairs), args.repeat)
            spent += step_s + legal_s
            calls, top = own_times(replay_steps(advance, pairs), n, args.repeat, args.top)
            print(
                f"| {kind} | {n / args.games:.1f} | {1e6 * step_s / n:.2f} | "
                f"{1e6 * legal_s / n:.2f} | {calls:.1f} | {top} |"
            )
        print(f"\nengine time per game (steps + legal_actions): {1e6 * spent / args.games:.0f} µs")


if __name__ == "__main__":
    main()
