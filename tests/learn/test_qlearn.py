"""Tabular Q-learning: the update, the greedy choice, the file format and a short training."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from durak.agents import SpecError, make_agent
from durak.arena.play.game import play_game
from durak.envs import SoloTable
from durak.learn import QAgent, QLearner, QTable, QTableError, make_learner, train
from durak.learn.qlearn import greedy_group
from durak.learn.qlearn.abstraction import ABSTRACTIONS, GROUPINGS
from durak.rules import Observation, Rules, legal_actions, new_game, observe, sample_world, step


def _observations(rules: Rules, games: int, seed: int) -> list[Observation]:
    """The acting player's observation at every decision of random games."""
    rng = random.Random(seed)
    out = []
    for g in range(games):
        state = new_game(rules, seed * 1000 + g)
        while state.turn >= 0:
            out.append(observe(state, state.turn))
            state = step(state, rng.choice(legal_actions(state)))
    return out


@pytest.mark.parametrize("name", sorted(ABSTRACTIONS))
def test_groups_cover_every_kind_of_play_and_hide_nothing(name: str) -> None:
    rules = Rules(players=3, transfer=True)
    for o in _observations(rules, 4, 1):
        groups = GROUPINGS[name](o)
        assert set(groups.values()) <= set(o.legal_actions)
        assert {type(a) for a in groups.values()} == {type(a) for a in o.legal_actions}
        # The state key reads only the observation: every consistent world gives it back.
        world = sample_world(o, random.Random(7))
        assert ABSTRACTIONS[name](observe(world, o.player)) == ABSTRACTIONS[name](o)


def test_the_step_size_is_one_over_visits_down_to_alpha() -> None:
    rules = Rules()
    learner = QLearner(rules, alpha=0.25, gamma=0.0, shaping=0.0)
    table = SoloTable(rules, [make_agent("lowest")], learner_seat=0)
    before = table.reset(3).observation
    after = table.step(learner.explore(before, random.Random(0)))
    expected = 0.0
    for n, reward in enumerate([0.5, -0.5, 1.0, 1.0, -1.0, 0.0], start=1):
        action = learner.explore(before, random.Random(0))
        learner.update(before, action, reward, after)
        expected += max(0.25, 1 / n) * (reward - expected)
        ((state, row),) = learner.table.q.items()
        ((key, value),) = row.items()
        assert value == pytest.approx(expected)
        assert learner.table.visits[state][key] == n
    with pytest.raises(RuntimeError, match="explore"):
        learner.update(before, action, 0.5, after)


def test_the_target_bootstraps_from_the_greedy_value_of_the_next_decision() -> None:
    rules = Rules()
    key = ABSTRACTIONS["crampton"]
    learner = QLearner(rules, gamma=0.5, shaping=0.0, min_visits=2)
    table = SoloTable(rules, [make_agent("lowest")], learner_seat=0)
    for seed in range(20):  # a deal whose first two decisions differ in abstract state
        first = table.reset(seed)
        second = table.step(first.observation.legal_actions[0])
        if not second.done and key(first.observation) != key(second.observation):
            break
    groups = GROUPINGS["crampton"](second.observation)
    values = {g: -0.1 * i for i, g in enumerate(groups)}
    learner.table.q[key(second.observation)] = dict(values)
    learner.table.visits[key(second.observation)] = {g: 2 for g in groups}
    action = learner.explore(first.observation, random.Random(0))
    learner.update(first.observation, action, 1.0, second)
    (value,) = learner.table.q[key(first.observation)].values()
    assert value == pytest.approx(1.0 + 0.5 * max(values.values()))


def test_greedy_needs_min_visits_to_leave_the_default() -> None:
    o = next(o for o in _observations(Rules(), 3, 2) if len(GROUPINGS["crampton"](o)) > 2)
    groups = GROUPINGS["crampton"](o)
    table = QTable(Rules(), "crampton")
    state = ABSTRACTIONS["crampton"](o)
    default = greedy_group(table, state, groups, o, 5)
    other = next(k for k in groups if k != default)
    table.q[state] = {default: 0.1, other: 0.9}
    table.visits[state] = {default: 9, other: 4}
    assert greedy_group(table, state, groups, o, 5) == default
    table.visits[state][other] = 5
    assert greedy_group(table, state, groups, o, 5) == other
    table.q[state][other] = 0.0
    assert greedy_group(table, state, groups, o, 5) == default


def _trained(episodes: int, seed: int, spec: str = "qlearn") -> QLearner:
    rules = Rules()
    learner = make_learner(spec, rules)
    assert isinstance(learner, QLearner)
    table = SoloTable(rules, [make_agent("random")])
    for _ in train(
        learner, table, episodes=episodes, seed=seed, rewards=learner.rewards, interval=episodes
    ):
        pass
    return learner


def test_init_continues_training_from_a_saved_table(tmp_path: Path) -> None:
    """30 episodes, saved, then 30 more from the file: the run starts from the saved values,
    visits and episode count, and the result differs both from them and from 30 fresh
    episodes on the same deals."""
    flat = "qlearn:abstraction=plus,eps_start=0.1,eps_end=0.1"
    first = _trained(30, 5, flat)
    path = tmp_path / "q.json"
    first.save(path)
    more = make_learner(f"{flat},init={path}", Rules())
    assert isinstance(more, QLearner)
    assert more.table.q == first.table.q and more.table.episodes == 30
    assert more.table.settings["init"] == str(path)
    rules = Rules()
    fresh = _trained(30, 6, flat)  # different deals: the values differ from the continued
    for _ in train(
        more,
        SoloTable(rules, [make_agent("random")]),
        episodes=30,
        seed=6,
        rewards=more.rewards,
        interval=30,
    ):
        pass
    assert more.table.episodes == 60
    assert more.table.q not in (fresh.table.q, first.table.q)
    for state, row in first.table.visits.items():  # counts only grow
        for key, n in row.items():
            assert more.table.visits[state][key] >= n


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("qlearn:init={path}", "uses abstraction 'plus', not 'crampton'"),
        ("qlearn:abstraction=plus,init={other}", "was trained for"),
        ("qlearn:init={missing}", "qlearn: init: "),
    ],
)
def test_init_rejects_a_table_of_other_settings(tmp_path: Path, spec: str, message: str) -> None:
    path, other = tmp_path / "q.json", tmp_path / "other.json"
    _trained(5, 1, "qlearn:abstraction=plus").save(path)
    QTable(Rules(lowest_rank=10), "plus").save(other)
    given = spec.format(path=path, other=other, missing=tmp_path / "none.json")
    with pytest.raises(SpecError, match=message):
        make_learner(given, Rules())


def test_training_is_deterministic_and_saves_and_loads(tmp_path: Path) -> None:
    a, b = _trained(60, 5, "qlearn:abstraction=plus"), _trained(60, 5, "qlearn:abstraction=plus")
    assert a.table.q == b.table.q and a.table.q
    path = tmp_path / "q.json"
    a.save(path)
    loaded = QTable.load(path)
    assert loaded == a.table
    agent = make_agent(f"qlearn:path={path},min_visits=1")
    assert isinstance(agent, QAgent)
    rng = random.Random(0)
    for o in _observations(Rules(), 5, 9):
        assert agent.act(o, rng) == QAgent(a.table, 1).act(o, rng)


def test_a_short_training_run_beats_random_by_a_wide_margin() -> None:
    learner = _trained(300, 11)
    agent, rules = learner.policy(), Rules()
    lost = sum(
        play_game(
            rules,
            [agent, make_agent("random")] if g % 2 == 0 else [make_agent("random"), agent],
            900 + g,
        ).loser
        == g % 2
        for g in range(200)
    )
    assert lost / 200 < 0.25


def test_the_agent_refuses_other_rules() -> None:
    agent = QAgent(QTable(Rules(), "crampton"))
    o = _observations(Rules(lowest_rank=10), 1, 1)[0]
    with pytest.raises(ValueError, match="trained for"):
        agent.act(o, random.Random(0))


def _doc() -> dict[str, object]:
    table = QTable(Rules(), "plus", {"s": {"A": 0.5}}, 3, {}, {"s": {"A": 2}})
    return {
        "format": "durak-qtable",
        "version": 1,
        "abstraction": table.abstraction,
        "rules": {"players": 2},
        "episodes": 3,
        "settings": {},
        "q": table.q,
        "visits": table.visits,
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "other"}, "not a Q-table"),
        ({"version": 2}, "version 2 is not supported"),
        ({"abstraction": "nope"}, "unknown abstraction 'nope'"),
        ({"rules": {"players": 9}}, "players"),
        ({"episodes": -1}, "'episodes' must be a count"),
        ({"q": {"s": {"A": "x"}}}, "bad value 'x'"),
        ({"q": {"s": {"A": True}}}, "bad value True"),
        ({"q": {"s": []}}, "must map actions"),
        ({"visits": {"s": {"B": 1}}}, "without a value"),
        ({"visits": {"s": {"A": 0}}}, "bad value 0"),
    ],
)
def test_bad_files_are_rejected_by_name(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_doc() | change))
    with pytest.raises(QTableError, match=message) as e:
        QTable.load(path)
    assert str(path) in str(e.value)
    with pytest.raises(SpecError, match=r"qlearn: .*bad\.json"):
        make_agent(f"qlearn:path={path}")


def test_a_good_file_loads_and_garbage_does_not(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    path.write_text(json.dumps(_doc()))
    assert QTable.load(path).q == {"s": {"A": 0.5}}
    path.write_bytes(b"\x00\xffnot json")
    with pytest.raises(QTableError, match="not a Q-table"):
        QTable.load(path)
    with pytest.raises(QTableError, match="cannot read"):
        QTable.load(tmp_path / "missing.json")
    with pytest.raises(SpecError, match="give the Q-table file"):
        make_agent("qlearn")


def test_monte_carlo_targets_learn_every_decision_from_the_games_return() -> None:
    rules = Rules()
    learner = QLearner(rules, target="mc", shaping=0.0, eps_start=1.0, eps_end=1.0)
    table = SoloTable(rules, [make_agent("lowest")], learner_seat=1)
    outcomes = set()
    for stats in train(learner, table, episodes=1, seed=2, rewards=learner.rewards):
        outcomes.add((stats.wins - stats.losses) * 1.0)
    # Without shaping every decision's return is the outcome, so every value equals it.
    values = {v for row in learner.table.q.values() for v in row.values()}
    assert values == outcomes
    assert sum(n for row in learner.table.visits.values() for n in row.values()) > 5
    with pytest.raises(SpecError, match=r"qlearn: target must be one of td, mc, got 'sarsa'"):
        QLearner(rules, target="sarsa")


def test_qlearn_specs_load_the_plugin_without_importing_durak_learn_first(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    QTable(Rules(), "plus").save(path)
    code = (
        "import sys\n"
        "from durak.agents import make_agent, registry\n"
        "assert 'durak.learn' not in sys.modules, 'the core imported durak.learn'\n"
        f"agent = make_agent('qlearn:path={path}')\n"
        "assert 'durak.learn' in sys.modules and {'qlearn', 'dqn'} <= set(registry())\n"
        "print(type(agent).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "QAgent"
