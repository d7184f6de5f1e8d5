"""Crampton's reward scheme and the training loop's bookkeeping."""

from __future__ import annotations

import random

import pytest

from durak.agents import make_agent
from durak.envs import SoloTable
from durak.learn import RewardScheme, train
from durak.learn.qlearn import QLearner
from durak.learn.rewards import hand_potential
from durak.rules import Defend, Rules


def _episode(scheme: RewardScheme, seed: int) -> tuple[float, float, float]:
    """Total shaped reward, outcome and the first potential of one random-play episode."""
    table = SoloTable(Rules(), [make_agent("lowest")], learner_seat=0)
    now = table.reset(seed)
    rng = random.Random(seed)
    start = hand_potential(now.observation)
    total = 0.0
    while not now.done:
        before = now.observation
        action = rng.choice(before.legal_actions)
        now = table.step(action)
        total += scheme.reward(before, action, now)
    return total, now.reward, start


def test_undiscounted_shaping_telescopes_to_minus_the_first_potential() -> None:
    for seed in range(5):
        total, outcome, start = _episode(RewardScheme(shaping=0.5, gamma=1.0), seed)
        assert total == pytest.approx(outcome - 0.5 * start)
        plain, _, _ = _episode(RewardScheme(shaping=0.0), seed)
        assert plain == outcome


def test_the_defence_penalty_hits_only_a_needlessly_strong_defence() -> None:
    scheme = RewardScheme(shaping=0.0, defence_penalty=0.25)
    table = SoloTable(Rules(), [make_agent("lowest")])
    seen = {"cheap": 0, "dear": 0}
    for seed in range(40):
        now = table.reset(seed)
        while not now.done and min(seen.values()) == 0:
            o = now.observation
            defences = [a for a in o.legal_actions if type(a) is Defend]
            targets = {a.target for a in defences}
            options = [a for a in defences if a.target is next(iter(targets), None)]
            if len(options) > 1:
                twin = table.clone()
                ranked = sorted(options, key=lambda a: (a.card.suit is o.trump_suit, a.card.rank))
                cheap, dear = ranked[0], ranked[-1]
                assert scheme.reward(o, cheap, twin.clone().step(cheap)) == 0.0
                assert scheme.reward(o, dear, twin.step(dear)) == -0.25
                seen["cheap"] += 1
                seen["dear"] += 1
            now = table.step(o.legal_actions[0])
    assert min(seen.values()) > 0


def test_bad_schemes_are_refused() -> None:
    for kwargs in ({"win": 0.0}, {"shaping": -1.0}, {"defence_penalty": -0.1}, {"gamma": 1.5}):
        with pytest.raises(ValueError):
            RewardScheme(**kwargs)


def test_train_counts_every_game_once_per_interval() -> None:
    learner = QLearner(Rules(players=3))
    table = SoloTable(Rules(players=3), [make_agent("random"), make_agent("random")])
    stats = list(train(learner, table, episodes=25, seed=3, interval=10))
    assert [s.episodes for s in stats] == [10, 20, 25]
    assert [s.games for s in stats] == [10, 10, 5]
    assert all(s.wins + s.losses + s.draws == s.games for s in stats)
    assert learner.table.episodes == 25
    with pytest.raises(ValueError, match="positive"):
        next(train(learner, table, episodes=0, seed=3))
