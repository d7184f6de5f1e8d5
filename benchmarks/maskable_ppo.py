"""sb3-contrib's MaskablePPO on ``DurakEnv`` against ``lowest``, in a stated budget.

    .venv/bin/python benchmarks/maskable_ppo.py --steps 200000 --seed 1 --eval-seed 20261127
    .venv/bin/python benchmarks/maskable_ppo.py --quick          # a short check that it runs

The policy trains with the env's defaults (2 players, 36 cards, the learner's seat drawn
per deal) for ``--steps`` environment steps on one torch thread.  It is then evaluated as
every strength figure here is: duplicate deals (each deal played twice, seats swapped)
against ``lowest``, from an evaluation seed that no training deal used, with a 98% Wilson
interval.  The policy is greedy (``deterministic=True``) over the legal actions only.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import torch
from sb3_contrib import MaskablePPO

from durak.agents import make_agent
from durak.arena.play.game import play_game
from durak.arena.scores.wilson import wilson
from durak.encoding import ActionSpace
from durak.envs.gymnasium_env import DurakEnv, encode
from durak.rules import Action, Observation, Rules
from durak.seeding import derive_seed


class PpoAgent:
    """The trained policy as an agent: the most probable legal action."""

    name = "maskable-ppo"

    def __init__(self, model: Any, rules: Rules) -> None:
        self.model = model
        self.space = ActionSpace(rules)

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The policy's greedy legal action."""
        obs = encode(observation, self.space)
        mask = obs["action_mask"].astype(bool)
        action, _ = self.model.predict(obs, action_masks=mask, deterministic=True)
        return self.space.decode(int(action))


def evaluate(model: Any, rules: Rules, deals: int, seed: int) -> tuple[int, int, int]:
    """Wins, draws and games of the policy against ``lowest`` over ``deals`` duplicate
    deals."""
    agent = PpoAgent(model, rules)
    lowest = make_agent("lowest", rules)
    wins = draws = 0
    for d in range(deals):
        deal = derive_seed(seed, d)
        for seat in (0, 1):
            agents = [agent, lowest] if seat == 0 else [lowest, agent]
            record = play_game(rules, agents, deal)
            if record.loser is None:
                draws += 1
            elif record.loser != seat:
                wins += 1
    return wins, draws, 2 * deals


def main() -> None:
    """Train, evaluate and print one table row."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eval-seed", type=int, default=20261127)
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--quick", action="store_true", help="2,048 steps, 20 deals")
    args = parser.parse_args()
    if args.quick:
        args.steps, args.deals = 2048, 20
    torch.set_num_threads(1)
    rules = Rules()
    env = DurakEnv(rules=rules, opponents=("lowest",))
    model = MaskablePPO("MultiInputPolicy", env, seed=args.seed, device="cpu", verbose=0)
    started = time.perf_counter()
    model.learn(args.steps)
    seconds = time.perf_counter() - started
    wins, draws, games = evaluate(model, rules, args.deals, args.eval_seed)
    low, high = wilson(wins, games)
    print(
        f"MaskablePPO, {args.steps:,} steps (seed {args.seed}), {seconds:,.0f} s, "
        f"{args.steps / seconds:,.0f} steps/s: vs lowest {wins / games:.1%} "
        f"[{low:.1%}, {high:.1%}] over {games} games ({draws} draws), eval seed {args.eval_seed}"
    )


if __name__ == "__main__":
    main()
