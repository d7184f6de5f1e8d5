"""CPU time per decision of the ``pomcp`` best response against a heuristic on the real deck
(issue 62's speed target: at most 1 s mean per decision at the default budget, one core),
as ``durak exploit --method search`` builds it (guided by the shipped network where it
fits; ``--playouts`` for the unguided search).

Process time (one core's work, whatever the machine's load) of every decision with a
choice, over two seeded games against the target (``--target``, ``greedy`` by default;
seeds 6301 and 6302):

    .venv/bin/python benchmarks/br_decision_time.py 300 [--playouts] [--target smart]

``--specs A B ...`` times those agents instead, one after the other in one run, each after
``--warm`` games against the target (seeds 6401, ...) that it hears as in a match (so that
``opponent=auto,carry=true`` has learnt its opponent, and ``respond=N`` answers it):

    .venv/bin/python benchmarks/br_decision_time.py --warm 12 --specs \
        "ismcts:prior=dmc,value=dmc,limit=200,batch=8,opponent=auto,carry=true" \
        "ismcts:prior=dmc,value=dmc,limit=200,batch=8,opponent=auto,carry=true,respond=150"
"""

from __future__ import annotations

import argparse
import random
import time

import attrs

from durak.agents import make_agent
from durak.agents.base import Agent
from durak.agents.searchers.exploiter import search_exploiter_spec
from durak.arena import play_game
from durak.rules import Action, Observation, Rules


@attrs.define
class Timed:
    """``agent`` with the process time of each of its decisions with a choice; its game
    hooks passed on, so that it infers as it does in a match."""

    agent: Agent
    name: str = "timed"
    times: list[float] = attrs.field(factory=list)

    def act(self, observation: Observation, rng: random.Random) -> Action:
        start = time.process_time()
        action = self.agent.act(observation, rng)
        if len(observation.legal_actions) > 1:
            self.times.append(time.process_time() - start)
        return action

    def game_started(self, observation: Observation) -> None:
        self.agent.game_started(observation)  # type: ignore[attr-defined]

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        self.agent.action_taken(player, action, observation)  # type: ignore[attr-defined]

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        self.agent.game_ended(observation, loser)  # type: ignore[attr-defined]


def main() -> None:
    """Print the mean and the largest CPU time per decision at the budget given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("limit", type=int, nargs="?", default=300)
    parser.add_argument("--playouts", action="store_true", help="the unguided search")
    parser.add_argument("--target", default="greedy")
    parser.add_argument("--specs", nargs="*", help="time these agents instead")
    parser.add_argument("--warm", type=int, default=0, help="games each plays before")
    args = parser.parse_args()
    rules = Rules()
    specs = args.specs or [
        search_exploiter_spec(args.target, args.limit, None if args.playouts else rules)
    ]
    for spec in specs:
        timed = Timed(make_agent(spec, rules))
        target = make_agent(args.target, rules)
        for g in range(args.warm):
            seats = [timed.agent, target] if g % 2 == 0 else [target, timed.agent]
            play_game(rules, seats, 6401 + g)
        for seed in (6301, 6302):
            play_game(rules, [timed, target], seed)
        t = timed.times
        mean, top = 1000 * sum(t) / len(t), 1000 * max(t)
        print(f"{spec}: {len(t)} decisions, mean CPU {mean:.0f} ms, max {top:.0f} ms")


if __name__ == "__main__":
    main()
