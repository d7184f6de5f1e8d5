"""sb3-contrib's MaskablePPO runs on the Gymnasium env unchanged, through ``action_masks``."""

from __future__ import annotations

import numpy as np

from tests.support.extras import require_extra

require_extra("torch")
sb3_contrib = require_extra("sb3_contrib")

from durak.envs.gymnasium_env import DurakEnv  # noqa: E402
from durak.rules import Rules  # noqa: E402


def test_action_masks_are_the_legal_actions() -> None:
    env = DurakEnv(rules=Rules(lowest_rank=10), opponents=("lowest",))
    assert not env.action_masks().any()  # before reset
    _, info = env.reset(seed=1)
    for _ in range(200):
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool)) and mask.any()
        _, _, done, _, info = env.step(int(np.flatnonzero(mask)[0]))
        if done:
            assert not env.action_masks().any()
            _, info = env.reset()


def test_maskable_ppo_trains_a_few_hundred_steps_and_acts_legally() -> None:
    env = DurakEnv(rules=Rules(lowest_rank=10), opponents=("lowest",))
    model = sb3_contrib.MaskablePPO(
        "MultiInputPolicy", env, n_steps=128, batch_size=32, seed=0, device="cpu"
    )
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(256)
    after = list(model.policy.parameters())
    assert any(not (a == b).all() for a, b in zip(before, after, strict=True))
    obs, _ = env.reset(seed=3)
    for _ in range(100):
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        assert env.action_masks()[int(action)]
        obs, _, done, _, _ = env.step(int(action))
        if done:
            obs, _ = env.reset()
