"""The PettingZoo AEC environment (:mod:`durak.envs.aec`): PettingZoo's own ``api_test`` and
``seed_test`` on several variants, and, over many random games, agreement with a shadow
engine game (turn order, observations, masks, rewards), seeding, errors and ``clone``."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("pettingzoo")

import numpy as np
from pettingzoo.test import api_test, seed_test  # type: ignore[import-untyped]

from durak.agents.human import describe
from durak.encoding import ActionSpace, encode_observation
from durak.envs.aec import DurakAECEnv, env, raw_env
from durak.rules import (
    GameState,
    IllegalActionError,
    Rules,
    is_terminal,
    legal_actions,
    loser,
    new_game,
    observe,
    returns,
    step,
)

VARIANTS = [
    Rules(),
    Rules(players=3),
    Rules(players=4),
    Rules(players=6),
    Rules(transfer=True),
    Rules(players=4, transfer=True, throw_in="neighbours"),
    Rules(lowest_rank=10, hand_size=4),
    Rules(players=3, lowest_rank=12, hand_size=2, transfer=True),
]
IDS = [f"{r.players}p-{r.deck_size}c{'-transfer' if r.transfer else ''}" for r in VARIANTS]

# PettingZoo's api_test only knows its own envs with dict observations by name, so it warns
# about every third-party one; anything else it says is a real problem.
KNOWN_WARNINGS = ("Observation is not a NumPy array", "Observation space for each agent")


@pytest.mark.parametrize("rules", VARIANTS, ids=IDS)
def test_pettingzoo_api_and_seed_tests(rules: Rules) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(rules=rules), num_cycles=1000, verbose_progress=False)
        api_test(raw_env(rules=rules, open_world=True), num_cycles=1000, verbose_progress=False)
        seed_test(lambda: env(rules=rules), num_cycles=1000)
    unexpected = {str(w.message) for w in caught if not str(w.message).startswith(KNOWN_WARNINGS)}
    assert not unexpected


def _pick(mask: np.ndarray[Any, Any], rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def _check_views(e: DurakAECEnv, state: GameState, open_world: bool) -> None:
    """Every agent's observation and mask agree with the shadow engine state."""
    space = ActionSpace(state.rules)
    for p, agent in enumerate(e.possible_agents):
        obs = e.observe(agent)
        want = encode_observation(observe(state, p, open_world))
        assert obs["observation"].dtype == np.float32
        np.testing.assert_array_equal(obs["observation"], want)
        legal = legal_actions(state) if state.turn == p else ()
        np.testing.assert_array_equal(obs["action_mask"], space.mask(legal).astype(np.int8))
        assert obs["action_mask"].dtype == np.int8


@pytest.mark.parametrize("open_world", [False, True])
@pytest.mark.parametrize("rules", VARIANTS, ids=IDS)
def test_random_games_agree_with_the_engine(rules: Rules, open_world: bool) -> None:
    rng = np.random.default_rng(7)
    space = ActionSpace(rules)
    e = raw_env(rules=rules, open_world=open_world)
    for seed in range(6):
        e.reset(seed=seed)
        shadow = new_game(rules, seed)
        while not is_terminal(shadow):
            assert e.game_state == shadow
            assert e.agent_selection == f"player_{shadow.turn}"
            _check_views(e, shadow, open_world)
            assert all(e.infos[a] == {} for a in e.agents)
            assert not any(e.terminations.values()) and not any(e.truncations.values())
            assert all(r == 0 for r in e.rewards.values())
            for p in shadow.players_out:  # out early: still an agent, never to act
                assert f"player_{p}" in e.agents and e.agent_selection != f"player_{p}"
            obs, *_ = e.last()
            action = _pick(obs["action_mask"], rng)
            shadow = step(shadow, space.decode(action))
            e.step(action)
        _check_views(e, shadow, open_world)
        want = returns(shadow)
        assert all(e.terminations[a] for a in e.possible_agents)
        assert [e.rewards[a] for a in e.possible_agents] == list(want)
        assert sum(want) == pytest.approx(0.0)
        lost = loser(shadow)
        if lost is not None:
            assert want[lost] == -1.0
        while e.agents:  # each dead agent sees its whole return, then steps None
            _obs, reward, terminated, truncated, _info = e.last()
            assert terminated and not truncated
            assert reward == want[int(e.agent_selection.split("_")[1])]
            e.step(None)


def _trajectory(e: DurakAECEnv, seed: int | None, games: int = 2) -> list[tuple[str, int]]:
    rng = np.random.default_rng(0)
    out: list[tuple[str, int]] = []
    for g in range(games):
        e.reset(seed=seed if g == 0 else None)
        while not e.terminations[e.agent_selection]:
            obs, *_ = e.last()
            action = _pick(obs["action_mask"], rng)
            out.append((e.agent_selection, action))
            e.step(action)
    return out


def test_seeding_is_explicit_and_reproducible() -> None:
    rules = Rules(players=3)
    e = raw_env(rules=rules)
    e.reset(seed=123)
    assert e.game_state == new_game(rules, 123)
    a, b = raw_env(rules=rules), raw_env(rules=rules)
    # Resets without a seed continue a stream fixed by the last explicit seed.
    assert _trajectory(a, 5, games=3) == _trajectory(b, 5, games=3)
    assert _trajectory(a, 5) != _trajectory(a, 6)
    a.reset(seed=5)
    a.reset()
    first = a.game_state
    a.reset()
    assert a.game_state != first


def test_illegal_actions_raise_and_change_nothing() -> None:
    e = raw_env(rules=Rules())
    e.reset(seed=3)
    before, agent = e.game_state, e.agent_selection
    obs, *_ = e.last()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=rf"action index {bad} \({agent}\)"):
        e.step(bad)
    with pytest.raises(ValueError, match="out of range"):
        e.step(ActionSpace(Rules()).size)
    with pytest.raises(ValueError, match="must act"):
        e.step(None)
    assert e.game_state is before and e.agent_selection == agent
    e.step(np.int64(_pick(obs["action_mask"], np.random.default_rng(1))))
    assert e.game_state != before


def test_dead_agents_accept_only_none() -> None:
    e = raw_env(rules=Rules(lowest_rank=12, hand_size=3))
    e.reset(seed=9)
    rng = np.random.default_rng(2)
    while not e.terminations[e.agent_selection]:
        e.step(_pick(e.last()[0]["action_mask"], rng))
    with pytest.raises(ValueError, match="only valid action is None"):
        e.step(0)
    e.step(None)
    e.step(None)
    assert e.agents == []


def test_clone_is_independent_and_continues_identically() -> None:
    rules = Rules(players=4, transfer=True)
    e = raw_env(rules=rules)
    e.reset(seed=11)
    rng = np.random.default_rng(3)
    for _ in range(15):
        e.step(_pick(e.last()[0]["action_mask"], rng))
    snapshot = (e.game_state, e.agent_selection, dict(e.rewards), list(e.agents))
    twin, twin2 = e.clone(), e.clone()
    assert twin.game_state is e.game_state  # shared, immutable: O(1)
    while twin.agents:
        obs, _r, done, _t, _i = twin.last()
        twin.step(None if done else _pick(obs["action_mask"], rng))
    assert (e.game_state, e.agent_selection, dict(e.rewards), list(e.agents)) == snapshot
    assert not any(e.terminations.values())
    rng_a, rng_b = np.random.default_rng(4), np.random.default_rng(4)
    for _ in range(10):
        e.step(_pick(e.last()[0]["action_mask"], rng_a))
        twin2.step(_pick(twin2.last()[0]["action_mask"], rng_b))
        assert e.game_state == twin2.game_state
        assert e.agent_selection == twin2.agent_selection


def test_ansi_render_shows_the_acting_players_view() -> None:
    e = raw_env(rules=Rules(players=3), render_mode="ansi")
    e.reset(seed=4)
    s = e.game_state
    assert e.render() == describe(observe(s, s.turn))
    rng = np.random.default_rng(5)
    while not e.terminations[e.agent_selection]:
        e.step(_pick(e.last()[0]["action_mask"], rng))
    text = e.render()
    assert text is not None and "game over" in text
    lost = loser(e.game_state)
    assert ("draw" if lost is None else f"player {lost} is the durak") in text
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")


def test_stepping_after_every_agent_has_left_is_a_clear_error() -> None:
    e = raw_env(rules=Rules())
    rng = np.random.default_rng(1)
    e.reset(seed=4)
    while not e.terminations[e.agent_selection]:
        obs, *_ = e.last()
        e.step(_pick(obs["action_mask"], rng))
    while e.agents:  # PettingZoo's convention: each finished agent steps None and leaves
        e.step(None)
    with pytest.raises(ValueError, match="every agent has left; call reset"):
        e.step(None)
