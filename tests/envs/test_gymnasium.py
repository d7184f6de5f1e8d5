"""The Gymnasium environment (:mod:`durak.envs.gymnasium_env`): Gymnasium's ``check_env``, and over
many random games agreement with the true state of its table (observations, masks, rewards),
seeding, the redeal of games that end before the learner acts, errors and ``clone``."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("gymnasium")

import attrs
import gymnasium
import numpy as np
from gymnasium.utils import seeding
from gymnasium.utils.env_checker import check_env

from durak.agents import LowestAgent, RandomAgent, SpecError
from durak.encoding import ActionSpace, encode_observation
from durak.envs.gymnasium_env import MAX_DEALS, DurakEnv
from durak.envs.solo import SoloStep
from durak.rules import IllegalActionError, Rules, legal_actions, loser, observe, returns

VARIANTS = [
    Rules(),
    Rules(players=3),
    Rules(players=4, transfer=True),
    Rules(players=6, throw_in="neighbours"),
    Rules(lowest_rank=10, hand_size=4, transfer=True),
]
IDS = [f"{r.players}p-{r.deck_size}c{'-transfer' if r.transfer else ''}" for r in VARIANTS]


def _env(rules: Rules, **kwargs: Any) -> DurakEnv:
    return DurakEnv(rules=rules, opponents=["random"] * (rules.players - 1), **kwargs)


def _pick(mask: np.ndarray[Any, Any], rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("rules", VARIANTS[:3], ids=IDS[:3])
def test_gymnasium_check_env(rules: Rules) -> None:
    # check_env steps unmasked samples, so it needs illegal_action="lose"; made through
    # gymnasium.make so that it can also check every render mode and close.
    made = gymnasium.make(
        "Durak-v0", rules=rules, opponents=["random"] * (rules.players - 1), illegal_action="lose"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(made.unwrapped)
    assert not [str(w.message) for w in caught]


@pytest.mark.parametrize("open_world", [False, True])
@pytest.mark.parametrize("rules", VARIANTS, ids=IDS)
def test_random_games_agree_with_the_table(rules: Rules, open_world: bool) -> None:
    rng = np.random.default_rng(8)
    space = ActionSpace(rules)
    e = _env(rules, open_world=open_world)
    seats = set()
    for seed in range(8):
        obs, info = e.reset(seed=seed)
        reward, done, truncated = 0.0, False, False
        while True:
            state, seat = e.table.state, e.table.learner
            assert info["seat"] == seat and e.observation_space.contains(obs)
            view = observe(state, seat, open_world)
            np.testing.assert_array_equal(obs["observation"], encode_observation(view))
            legal = legal_actions(state) if not done else ()
            assert done or state.turn == seat
            want_mask = space.mask(legal).astype(np.int8)
            np.testing.assert_array_equal(obs["action_mask"], want_mask)
            np.testing.assert_array_equal(info["action_mask"], want_mask)
            assert not truncated
            if done:
                break
            assert reward == 0.0
            obs, reward, done, truncated, info = e.step(_pick(obs["action_mask"], rng))
        seats.add(seat)
        assert reward == returns(state)[seat] and info["loser"] == loser(state)
        assert sum(returns(state)) == pytest.approx(0.0)
    assert len(seats) > 1  # learner_seat=None: the seat changes with the deal


def _trajectory(e: DurakEnv, seed: int | None, games: int = 2) -> list[Any]:
    rng = np.random.default_rng(0)
    out: list[Any] = []
    for g in range(games):
        obs, _ = e.reset(seed=seed if g == 0 else None)
        done = False
        while not done:
            action = _pick(obs["action_mask"], rng)
            obs, reward, done, _, _ = e.step(action)
            out.append((action, reward, obs["observation"].tobytes()))
    return out


def test_same_seed_same_trajectory() -> None:
    rules = Rules(players=3, transfer=True)
    a, b = _env(rules), _env(rules)
    assert _trajectory(a, 21, games=3) == _trajectory(b, 21, games=3)
    assert _trajectory(a, 21) != _trajectory(a, 22)


def test_fixed_seat_and_opponent_specs() -> None:
    e = DurakEnv(rules=Rules(players=3), opponents=("lowest", "random"), learner_seat=1)
    for seed in range(3):
        assert e.reset(seed=seed)[1]["seat"] == 1
    assert [type(a) for a in e.table.opponents] == [LowestAgent, RandomAgent]
    with pytest.raises(ValueError, match="3 players need 2 opponent specs, got 1"):
        DurakEnv(rules=Rules(players=3), opponents=("random",))
    with pytest.raises(ValueError, match="sequence of agent specs"):
        DurakEnv(rules=Rules(players=6), opponents="smart")
    with pytest.raises(SpecError, match="nosuchagent"):
        DurakEnv(opponents=("nosuchagent",))


def test_reset_redeals_games_that_end_before_the_learner_acts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    e = _env(Rules(players=3), learner_seat=2)
    real = e.table.reset
    deals: list[int] = []

    def first_deal_ends(seed: int) -> SoloStep:
        deals.append(seed)
        result = real(seed)
        return attrs.evolve(result, done=True) if len(deals) == 1 else result

    monkeypatch.setattr(e.table, "reset", first_deal_ends)
    obs, _ = e.reset(seed=4)
    gen, _ = seeding.np_random(4)  # the generator Env.reset(seed=4) makes
    assert deals == [int(gen.integers(0, 2**63 - 1)) for _ in range(2)]
    other = _env(Rules(players=3), learner_seat=2)
    assert not other.table.reset(deals[1]).done
    assert e.table.state == other.table.state  # the second deal, played to the learner's turn
    assert obs["action_mask"].any()
    np.testing.assert_array_equal(obs["observation"], encode_observation(observe(e.table.state, 2)))
    monkeypatch.setattr(e.table, "reset", lambda seed: attrs.evolve(real(seed), done=True))
    with pytest.raises(RuntimeError, match=f"{MAX_DEALS} deals"):
        e.reset(seed=5)


def test_errors() -> None:
    e = _env(Rules())
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)
    obs, _ = e.reset(seed=2)
    before = e.table.state
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=rf"action index {bad} \(learner\)"):
        e.step(bad)
    with pytest.raises(ValueError, match="out of range"):
        e.step(ActionSpace(Rules()).size)
    assert e.table.state is before
    rng = np.random.default_rng(1)
    done = False
    while not done:
        obs, _, done, _, _ = e.step(np.int64(_pick(obs["action_mask"], rng)))
    assert not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)


def test_illegal_action_lose_mode_ends_the_episode() -> None:
    e = _env(Rules(players=3), illegal_action="lose")
    obs, _ = e.reset(seed=6)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, done, truncated, info = e.step(bad)
    assert (reward, done, truncated) == (-1.0, True, False)
    assert info["illegal_action"] and info["loser"] == info["seat"]
    assert not obs["action_mask"].any()
    with pytest.raises(ValueError, match="illegal_action"):
        _env(Rules(), illegal_action="ignore")


def test_clone_is_independent_and_continues_identically() -> None:
    e = _env(Rules(players=4))
    obs, _ = e.reset(seed=13)
    rng = np.random.default_rng(3)
    for _ in range(5):
        obs, _, done, _, _ = e.step(_pick(obs["action_mask"], rng))
        assert not done
    before = e.table.state
    twin, twin2 = e.clone(), e.clone()
    assert twin.table.state is before  # shared, immutable: O(1)
    done, twin_obs = False, obs
    while not done:
        twin_obs, _, done, _, _ = twin.step(_pick(twin_obs["action_mask"], rng))
    assert e.table.state is before
    rng_a, rng_b = np.random.default_rng(4), np.random.default_rng(4)
    obs2 = obs
    for _ in range(3):  # the opponents' random streams were copied too
        obs, *_ = e.step(_pick(obs["action_mask"], rng_a))
        obs2, *_ = twin2.step(_pick(obs2["action_mask"], rng_b))
        assert e.table.state == twin2.table.state
    e.reset()
    twin2.reset()  # and so was the deal generator
    assert e.table.state == twin2.table.state


def test_ansi_render_and_registration() -> None:
    e = _env(Rules(players=3), render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert text is not None and f"player {e.table.learner}" in text
    assert isinstance(gymnasium.make("Durak-v0").unwrapped, DurakEnv)
    with pytest.raises(ValueError, match="render_mode"):
        _env(Rules(), render_mode="rgb_array")


@pytest.mark.parametrize("bad", [10**6, -1])
def test_an_index_out_of_range_loses_in_lose_mode(bad: int) -> None:
    e = _env(Rules(), illegal_action="lose")
    e.reset(seed=2)
    _, reward, done, _, info = e.step(bad)
    assert (reward, done) == (-1.0, True) and info["illegal_action"]
    raising = _env(Rules())
    raising.reset(seed=2)
    with pytest.raises(ValueError, match="out of range"):
        raising.step(bad)
