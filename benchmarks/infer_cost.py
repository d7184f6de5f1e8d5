"""The cost of policy-based inference per decision (``infer=...``), by opponent model.

    .venv/bin/python benchmarks/infer_cost.py                    # 10 games, 64 candidates
    .venv/bin/python benchmarks/infer_cost.py --games 4 --candidates 16 --models greedy
    .venv/bin/python benchmarks/infer_cost.py --games 4 --candidates 16 --chain 300 --models greedy

Game ``g`` deals seed ``9100 + g`` of the 36-card two-player game; ``greedy`` plays both
seats.  At every decision of seat 0 with a choice, it times
:func:`~durak.agents.inference.belief.weigh_worlds` (the candidates' worlds, pasts, replays and
likelihoods, with the model's scores cached for the decision, as the agents do; with
``--chain``, the Metropolis-Hastings steps after them), once per model.  One line per
model: the mean, 99th percentile and largest time per decision, and the mean per
candidate and chain step.  The cost grows with the game's length (one replay of the record
per candidate), so late decisions are the dear ones.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from durak.agents import make_agent
from durak.agents.guides import Guidance, make_guide
from durak.agents.inference.belief import weigh_worlds
from durak.agents.inference.inferring import opponent_model
from durak.agents.inference.record import GameLog
from durak.rules import Rules, is_terminal, legal_actions, new_game, observe, step


def main() -> None:
    """Play, time, print one line per model."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--candidates", type=int, default=64)
    parser.add_argument("--chain", type=int, default=0, help="Metropolis-Hastings steps")
    parser.add_argument("--models", default="greedy,dmc,mix")
    args = parser.parse_args()
    greedy = make_agent("greedy")
    models = args.models.split(",")
    guide = make_guide("dmc") if {"dmc", "mix"} & set(models) else None
    times: dict[str, list[float]] = {m: [] for m in models}
    for g in range(args.games):
        state = new_game(Rules(), 9100 + g)
        log = GameLog(observe(state, 0))
        while not is_terminal(state):
            if state.turn == 0 and len(legal_actions(state)) > 1:
                for m in models:
                    guidance = None if guide is None else Guidance(guide, 1.0)
                    model = opponent_model(m, 0.1, 0.5, guidance)
                    started = time.perf_counter()
                    weigh_worlds(log, model, args.candidates, random.Random(g), args.chain)
                    times[m].append(time.perf_counter() - started)
            mover = state.turn
            action = greedy.act(observe(state, mover), random.Random(0))
            state = step(state, action)
            log.moves.append((mover, action, observe(state, 0)))
    for m, spent in times.items():
        spent.sort()
        print(
            f"{m}: {len(spent)} decisions, {args.candidates} candidates, {args.chain} steps: "
            f"mean {statistics.mean(spent) * 1000:.1f} ms, "
            f"99th percentile {spent[int(0.99 * len(spent))] * 1000:.1f} ms, "
            f"max {spent[-1] * 1000:.1f} ms, "
            f"{statistics.mean(spent) / (args.candidates + args.chain) * 1000:.2f} ms per "
            "candidate or step"
        )


if __name__ == "__main__":
    main()
