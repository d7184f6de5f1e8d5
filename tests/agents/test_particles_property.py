"""The particle belief (:class:`durak.agents.inference.particles.WorldFilter`) never keeps
a world the mover could not have moved in: after every move of a played game, each world
it holds is one in which every move so far was legal and which shows the observer exactly
what it saw (its observation of the world is the observation it was given)."""

from __future__ import annotations

import random

import pytest

from durak.agents.inference.opponents import GreedyModel
from durak.agents.inference.particles import WorldFilter
from durak.rules import Rules, legal_actions, new_game, observe, step


@pytest.mark.parametrize(("players", "seed"), [(2, 0), (2, 1), (3, 2), (4, 3)])
def test_every_world_kept_shows_the_observer_what_it_saw(players: int, seed: int) -> None:
    rules = Rules(players=players, lowest_rank=10, hand_size=4)
    rng, play = random.Random(seed), random.Random(seed + 100)
    state = new_game(rules, seed)
    me = 0
    models = [GreedyModel(0.3), GreedyModel(1.0)]
    f = WorldFilter.start(observe(state, me), len(models), 24, rng)
    moves = 0
    while state.turn >= 0 and moves < 60:
        before, mover = observe(state, me), state.turn
        legal = legal_actions(state)
        action = GreedyModel(0.5).rollout(state, play) if mover != me else play.choice(legal)
        state = step(state, action)
        after = observe(state, me)
        posterior = lambda q: [0.5, 0.5]  # noqa: E731
        if f.advance(mover, action, after, models, posterior, rng) is None:
            f.restart(before, action, after, models, 12, posterior, rng)
        moves += 1
        assert f.worlds, moves
        for w in f.worlds:
            assert observe(w, me) == after, (moves, action)
        for q, rows in f.weights.items():
            assert all(len(row) == len(f.worlds) for row in rows), q
            assert all(x >= 0 for row in rows for x in row), q
    assert moves >= 20
