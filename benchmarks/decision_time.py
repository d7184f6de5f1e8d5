"""Time per decision of one agent of a match: mean, 99th percentile and maximum.

    .venv/bin/python benchmarks/decision_time.py "ismcts:prior=dmc,value=dmc" greedy \
        --games 100 --seed 20261130
    .venv/bin/python benchmarks/decision_time.py ismcts greedy --games 20 --world full

It plays games ``0 .. games-1`` of the match ``durak match SPECS --seed SEED`` (the same
deals and seatings, one process) and times every ``act`` call of the agent ``--agent``
(index into SPECS, 0 by default).  ``durak match`` reports the mean and the maximum; this
adds the percentiles, over all decisions and over those with two or more legal actions.
The win rate it prints is that of those games, so a run can be checked against the match.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from durak.agents import Agent
from durak.arena.play.match import MatchPlan, build_agents, play_match_game
from durak.rules import Action, Observation, Rules


class _Timed:
    """``inner`` with every ``act`` timed (other attributes, such as watcher hooks, pass
    through)."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.all: list[float] = []
        self.choices: list[float] = []

    def act(self, observation: Observation, rng: random.Random) -> Action:
        started = time.perf_counter()
        action = self.inner.act(observation, rng)
        spent = time.perf_counter() - started
        self.all.append(spent)
        if len(observation.legal_actions) > 1:
            self.choices.append(spent)
        return action

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _line(label: str, times: list[float]) -> str:
    if not times:
        return f"{label}: none"
    t = sorted(times)

    def at(q: float) -> float:
        return t[min(len(t) - 1, int(q * len(t)))] * 1000

    return (
        f"{label}: {len(t)} decisions, mean {sum(t) / len(t) * 1000:.2f} ms, "
        f"median {at(0.5):.2f} ms, 99th percentile {at(0.99):.2f} ms, max {t[-1] * 1000:.2f} ms"
    )


def main() -> None:
    """Play, time, print three lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--agent", type=int, default=0)
    parser.add_argument("--world", choices=("closed", "hands", "full"), default="closed")
    args = parser.parse_args()
    rules = Rules(players=len(args.specs))
    world = {"closed": False, "hands": True, "full": "full"}[args.world]
    plan = MatchPlan(rules, args.specs, args.seed, args.games, world)  # type: ignore[arg-type]
    agents = list(build_agents(plan.specs, rules))
    timed = _Timed(agents[args.agent])
    agents[args.agent] = timed
    wins = draws = 0
    for g in range(args.games):
        durak = play_match_game(plan, g, agents).outcome.durak
        draws += durak is None
        wins += durak is not None and durak != args.agent
    print(f"{' vs '.join(args.specs)}, seed {args.seed}, {args.games} games, world {args.world}")
    print(f"agent {args.agent} not the durak in {wins} games, {draws} draws")
    print(_line("every decision", timed.all))
    print(_line("decisions with a choice", timed.choices))


if __name__ == "__main__":
    main()
