"""The greedy rollout policy reads the bitmasks, and chooses what the greedy agent chooses."""

from __future__ import annotations

import pytest

from durak.agents.heuristics.evals import greedy_rollout
from durak.agents.heuristics.simple import greedy_choice
from durak.rules import Rules, legal_actions
from durak.testing.games import random_game

VARIANTS = [
    Rules(),
    Rules(players=4),
    Rules(players=3, throw_in="neighbours"),
    Rules(players=3, transfer=True),
    Rules(trumps=False, lowest_rank=9, hand_size=4),
    Rules(players=6, lowest_rank=2, first_bout_cap=5),
]


@pytest.mark.parametrize("rules", VARIANTS)
def test_greedy_rollout_is_the_greedy_choice_in_every_state(rules: Rules) -> None:
    kinds = set()
    for seed in range(12):
        for state in random_game(rules, seed)[:-1]:
            legal = legal_actions(state)
            expected = greedy_choice(legal, state.trump_suit, len(state.talon))
            assert greedy_rollout(state) == expected, state
            kinds.add(type(expected).__name__)
    assert {"Attack", "Defend", "Take", "Pass"} <= kinds
