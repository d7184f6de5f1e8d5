"""The bundled ``dmc`` agent's time per decision with a choice, against ``greedy``.

    .venv/bin/python benchmarks/dmc_decision_time.py          # 200 games, as in docs/learning.md
    .venv/bin/python benchmarks/dmc_decision_time.py --games 10

Game ``g`` deals seed ``9000 + g``; ``dmc`` sits in seat ``g % 2``.  Only its decisions with
two or more legal actions are timed (forced ones are answered without the network).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from durak.agents import make_agent
from durak.rules import Rules, is_terminal, legal_actions, new_game, observe, step


def main() -> None:
    """Play, time, print one line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    dmc, greedy = make_agent("dmc"), make_agent("greedy")
    rng = random.Random(5)
    times: list[float] = []
    for g in range(args.games):
        state = new_game(Rules(), 9000 + g)
        while not is_terminal(state):
            o = observe(state, state.turn)
            if state.turn == g % 2 and len(legal_actions(state)) > 1:
                started = time.perf_counter()
                action = dmc.act(o, rng)
                times.append(time.perf_counter() - started)
            else:
                action = greedy.act(o, rng)
            state = step(state, action)
    times.sort()
    print(
        f"{len(times)} decisions with a choice: mean {statistics.mean(times) * 1000:.3f} ms, "
        f"99th percentile {times[int(0.99 * len(times))] * 1000:.3f} ms, "
        f"max {times[-1] * 1000:.3f} ms"
    )


if __name__ == "__main__":
    main()
