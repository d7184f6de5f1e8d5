"""Rollouts play on ``DurakGame.simulation_state``: the same position without the records only
observations read (issue 37), so every action, step, return and search decision is the same."""

from __future__ import annotations

import random
from collections.abc import Sequence

import attrs
import pytest

from durak.agents.heuristics import evals
from durak.rules import DurakGame, GameState, Rules, legal_actions, new_game, observe, returns
from durak.rules import step_unchecked as step
from durak.search import Budget, TreeSettings, ismcts, mcts
from durak.testing.games import random_game
from tests.support.invariants import check_invariants

VARIANTS = [Rules(), Rules(players=3, transfer=True), Rules(players=4, lowest_rank=9, hand_size=4)]


def _with_record(rules: Rules) -> list[GameState]:
    """States of a few random games that carry the origins record."""
    found = [s for seed in range(8) for s in random_game(rules, seed) if s.knowledge.from_talon]
    assert len(found) > 20
    return found[::5]


@pytest.mark.parametrize("rules", VARIANTS)
def test_the_simulation_state_drops_only_the_talon_record(rules: Rules) -> None:
    for state in _with_record(rules):
        light = DurakGame.simulation_state(state)
        check_invariants(light)
        assert not light.knowledge.from_talon and light.knowledge.origins == ()
        assert light.knowledge.exposed == state.knowledge.exposed
        assert attrs.evolve(light, knowledge=state.knowledge) == state
    plain = next(s for s in random_game(rules, 0) if not s.knowledge.from_talon)
    assert DurakGame.simulation_state(plain) is plain


@pytest.mark.parametrize("rules", VARIANTS)
def test_the_simulation_state_plays_out_exactly_as_the_state(rules: Rules) -> None:
    for k, state in enumerate(_with_record(rules)):
        rng = random.Random(k)
        full, light = state, DurakGame.simulation_state(state)
        while full.turn >= 0:
            legal = legal_actions(full)
            assert legal_actions(light) == legal
            action = legal[rng.randrange(len(legal))]
            full, light = step(full, action), step(light, action)
            assert (light.hand_masks, light.talon, light.table, light.turn, light.history) == (
                full.hand_masks,
                full.talon,
                full.table,
                full.turn,
                full.history,
            )
        assert returns(light) == returns(full)


class _NoSimulationState(DurakGame):
    """DurakGame without the hook: rollouts play on the full states."""

    def __getattribute__(self, name: str) -> object:
        if name == "simulation_state":
            raise AttributeError(name)
        return super().__getattribute__(name)


class _Counting(DurakGame):
    """DurakGame counting the rollouts that start from its simulation state."""

    calls: list[GameState] = []  # noqa: RUF012 - one list for the test

    @staticmethod
    def simulation_state(state: GameState) -> GameState:
        _Counting.calls.append(state)
        return DurakGame.simulation_state(state)


def test_rollouts_start_from_the_simulation_state() -> None:
    rules = Rules()
    state = new_game(rules, 0)
    _Counting.calls.clear()
    result = mcts(_Counting(rules), state, budget=Budget(iterations=30), rng=0)
    assert len(_Counting.calls) == result.stats.iterations == 30
    _Counting.calls.clear()
    ismcts(_Counting(rules), observe(state, state.turn), player=state.turn,
           budget=Budget(iterations=30), rng=0)  # fmt: skip
    assert len(_Counting.calls) == 30


def _decisions(game: DurakGame, seeds: Sequence[int]) -> list[object]:
    out: list[object] = []
    for seed in seeds:
        state = new_game(game.rules, seed)
        greedy = ismcts(
            game,
            observe(state, state.turn),
            player=state.turn,
            budget=Budget(iterations=60),
            rng=seed,
            settings=TreeSettings(
                rollout=evals.greedy_rollout, heuristic=evals.greedy_heuristic, bias=20.0
            ),
        )
        uniform = mcts(game, state, budget=Budget(iterations=60), rng=seed)
        out += [greedy.action, greedy.visits, uniform.action, uniform.visits, uniform.vector]
    return out


def test_searches_decide_the_same_with_and_without_the_simulation_state() -> None:
    rules = Rules()
    seeds = [s for s in range(12) if new_game(rules, s).knowledge.from_talon][:3]
    assert len(seeds) == 3
    with pytest.raises(AttributeError):
        _NoSimulationState(rules).simulation_state  # noqa: B018 - the hook is hidden
    assert _decisions(DurakGame(rules), seeds) == _decisions(_NoSimulationState(rules), seeds)
