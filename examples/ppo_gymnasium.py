"""MaskablePPO (sb3-contrib) on the Gymnasium environment, then its win rate with an interval.

``DurakEnv`` has ``action_masks()``, the method MaskablePPO calls, so it trains on the
environment unchanged (Huang and Ontañón, "A Closer Look at Invalid Action Masking in
Policy Gradient Algorithms", FLAIRS 2022).  The opponents are agent specs.  A short run on a
20-card deck against ``random``; docs/learning.md reports a longer one.
Needs ``durak-lab[ppo]``.  Run: ``python examples/ppo_gymnasium.py``.
"""

from __future__ import annotations

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from durak.arena import wilson
from durak.envs.gymnasium_env import DurakEnv
from durak.rules import Rules


def win_rate(model: MaskablePPO | None, env: DurakEnv, episodes: int, seed: int) -> float:
    """The share of ``episodes`` the learner's seat wins (a draw counts half); ``None``
    plays uniformly random legal actions (seeded), the baseline."""
    score, rng = 0.0, np.random.default_rng(seed)
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed + episode)
        done = False
        while not done:
            if model is None:
                action = rng.choice(np.flatnonzero(obs["action_mask"]))
            else:
                action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, done, _, _ = env.step(int(action))
        score += 1.0 if reward > 0 else 0.5 if reward == 0 else 0.0
    return score / episodes


if __name__ == "__main__":
    torch.set_num_threads(1)
    env = DurakEnv(rules=Rules(lowest_rank=10), opponents=("random",))
    model = MaskablePPO(
        "MultiInputPolicy", env, n_steps=512, batch_size=128, seed=0, device="cpu", verbose=0
    )
    model.learn(4096)
    episodes = 200
    for name, player in (("uniform random moves", None), ("MaskablePPO", model)):
        rate = win_rate(player, env, episodes, seed=10_000)
        low, high = wilson(rate * episodes, episodes)
        print(f"{name} vs random: {rate:.1%} [{low:.1%}, {high:.1%}] over {episodes} deals")
