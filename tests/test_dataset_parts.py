"""The dataset's parts in process (issue 65's second mutation pass over ``durak.dataset``):
a recorded policy, the recorder of a watching agent, a game's rows without policies, a
plan's checks, the waves ``write_shards`` hands a backend, a worker's kept agents, and a
shard's games table and row groups."""

from __future__ import annotations

import gc
import json
import random
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pytest

import tests.support.faulty_agents  # noqa: F401 - registers the test-* agents
from durak.agents.heuristics.simple import greedy_action
from durak.agents.interface.analysis import ActionAssessment, Analysis
from durak.arena.play.game import play_game
from durak.arena.play.match import build_agents
from durak.dataset import shards
from durak.dataset.recorder import policy_of
from durak.dataset.rows import play_rows
from durak.dataset.run import DatasetPlan, write_shards
from durak.dataset.shards import ShardFiles, build_shard
from durak.dataset.store import DatasetDir
from durak.encoding import ActionSpace
from durak.rules import Action, Observation, Rules, new_game, observe
from tests.support.extras import require_extra

pa = require_extra("pyarrow")
pq = require_extra("pyarrow.parquet")


def test_a_policy_with_an_action_without_a_share_is_one_hot_on_the_choice() -> None:
    rules = Rules()
    state = new_game(rules, 5)
    first, second, *rest = observe(state, state.turn).legal_actions
    assessed = (
        ActionAssessment(first, 0.5, share=0.75),
        ActionAssessment(second, None, share=None),  # e.g. a move no search visited
        *(ActionAssessment(a, None, share=0.0) for a in rest),
    )
    analysis = Analysis(state.turn, "x", first, assessed, "search")
    space = ActionSpace(rules)
    policy = policy_of(analysis, space)
    expected = np.zeros(space.size, np.float32)
    expected[space.encode(first)] = 1.0
    assert np.array_equal(policy, expected)


@attrs.define
class _Watching:
    """A greedy agent that notes every hook it hears."""

    name: str = "watching"
    heard: list[tuple[str, Any]] = attrs.Factory(list)

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return greedy_action(observation)

    def game_started(self, observation: Observation) -> None:
        self.heard.append(("started", observation.player))

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        self.heard.append(("action", action))

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        self.heard.append(("ended", loser))


def test_a_watching_agent_behind_a_recorder_hears_the_start_each_action_and_the_end() -> None:
    plan = DatasetPlan(Rules(), ("random", "greedy"), seed=8, games=3, shard_games=3).match
    watcher = _Watching()
    agents = (build_agents(("random",), plan.rules)[0], watcher)
    for game in range(3):
        watcher.heard.clear()
        rows = play_rows(plan, game, agents)
        seat = plan.seats(game).index(1)
        record = rows.record
        assert watcher.heard == [
            ("started", seat),
            *(("action", a) for a in record.actions),
            ("ended", record.loser),
        ]


def test_the_rows_of_a_game_played_without_policy_hold_no_policies() -> None:
    plan = DatasetPlan(Rules(), ("random", "greedy"), seed=2, games=2, shard_games=2).match
    agents = build_agents(plan.specs, plan.rules)
    for game in range(2):
        rows = play_rows(plan, game, agents)
        assert len(rows.actions) > 0 and rows.policies is None
        with_policy = play_rows(plan, game, agents, policy=True)
        assert with_policy.policies == (None,) * len(rows.actions)  # neither can analyse


@pytest.mark.parametrize(
    ("games", "shard_games", "message"),
    [
        (0, 1, "a dataset needs at least one game, got 0"),
        (-3, 1, "a dataset needs at least one game, got -3"),
        (4, 0, "a shard holds at least one game, got 0"),
        (4, -1, "a shard holds at least one game, got -1"),
    ],
)
def test_a_plan_of_no_games_or_of_empty_shards_is_refused(
    games: int, shard_games: int, message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        DatasetPlan(Rules(), ("random", "greedy"), seed=1, games=games, shard_games=shard_games)
    assert str(caught.value) == message


def test_a_plan_of_one_game_in_one_shard_is_accepted() -> None:
    plan = DatasetPlan(Rules(), ("random", "greedy"), seed=1, games=1, shard_games=1)
    assert plan.shard_count == 1 and plan.layout.games_of(0) == range(1)


@pytest.mark.parametrize("specs", [("random",), ("random", "greedy", "random")])
def test_a_plan_whose_specs_do_not_fill_the_seats_is_refused(specs: tuple[str, ...]) -> None:
    with pytest.raises(ValueError) as caught:
        DatasetPlan(Rules(), specs, seed=1, games=4, shard_games=2)
    assert str(caught.value) == f"2 players need 2 agent specs, got {len(specs)}"


class _Waves:
    """A backend of ``workers`` workers that builds the shards it is handed here, noting
    when each wave is started and when its results are taken."""

    def __init__(self, workers: int, log: list[str]) -> None:
        self.workers = workers
        self.log = log

    def capacity(self) -> int:
        return self.workers

    def start(
        self, fn: Callable[[Any], ShardFiles], args: Sequence[Any]
    ) -> Callable[[], list[ShardFiles]]:
        wave = [task.index for task in args]
        self.log.append(f"start {wave}")
        results = [fn(task) for task in args]

        def taken() -> list[ShardFiles]:
            self.log.append(f"take {wave}")
            return results

        return taken


def test_write_shards_hands_waves_of_as_many_shards_as_workers_two_in_flight(
    tmp_path: Path,
) -> None:
    plan = DatasetPlan(Rules(), ("random", "greedy"), seed=6, games=5, shard_games=1)
    log: list[str] = []
    backend = _Waves(2, log)
    with DatasetDir(tmp_path / "d", plan.description(), "new") as store:
        for shard in write_shards(plan, store, backend):  # type: ignore[arg-type]
            log.append(f"commit {shard.index}")
    assert log == [
        "start [0, 1]",
        "start [2, 3]",  # the next wave already started ...
        "take [0, 1]",
        "start [4]",  # ... and the one after before the first is written
        "commit 0",
        "commit 1",
        "take [2, 3]",
        "commit 2",
        "commit 3",
        "take [4]",
        "commit 4",
    ]


def test_a_worker_builds_a_runs_agents_once_for_all_its_shards(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    other = DatasetPlan(Rules(), ("greedy", "greedy"), seed=1, games=1, shard_games=1)
    build_shard(other.task(0))  # a worker that built another run's shard before
    plan = DatasetPlan(Rules(), ("random", "greedy"), seed=4, games=3, shard_games=1)
    built: list[tuple[str, ...]] = []

    def counting(specs: Sequence[str], rules: Rules | None = None) -> Any:
        built.append(tuple(specs))
        return build_agents(specs, rules)

    monkeypatch.setattr(shards, "build_agents", counting)
    for k in range(plan.shard_count):
        build_shard(plan.task(k))
    assert built == [plan.specs]


def test_a_worker_lets_the_agents_of_a_previous_run_go(monkeypatch: pytest.MonkeyPatch) -> None:
    first = DatasetPlan(Rules(), ("random", "random"), seed=1, games=1, shard_games=1)
    then = DatasetPlan(Rules(), ("greedy", "random"), seed=1, games=1, shard_games=1)
    refs: list[weakref.ref[Any]] = []

    def watched(specs: Sequence[str], rules: Rules | None = None) -> Any:
        agents = build_agents(specs, rules)
        refs.extend(weakref.ref(a) for a in agents)
        return agents

    monkeypatch.setattr(shards, "build_agents", watched)
    build_shard(DatasetPlan(Rules(), ("greedy", "greedy"), seed=1, games=1, shard_games=1).task(0))
    refs.clear()
    build_shard(first.task(0))
    assert len(refs) == 2
    build_shard(then.task(0))
    gc.collect()
    assert [r() is None for r in refs] == [True, True, False, False]


def _games_table(files: ShardFiles) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(pa.BufferReader(files.game_bytes)).to_pylist()
    return rows


@pytest.mark.parametrize("faulty", ["test-illegal", "test-crash"])
def test_a_shard_records_a_forfeit_as_play_game_reports_it_the_action_only_if_illegal(
    faulty: str,
) -> None:
    plan = DatasetPlan(Rules(), (faulty, "greedy"), seed=9, games=2, shard_games=2)
    match = plan.match
    agents = build_agents(match.specs, match.rules)
    for row in _games_table(build_shard(plan.task(0))):
        g = row["game"]
        seated = [agents[a] for a in match.seats(g)]
        played = play_game(match.rules, seated, match.deal_seed(g), False, match.referee)
        f = played.forfeit
        assert f is not None and row["end"] == "forfeit"
        expected: dict[str, Any] = {"seat": f.seat, "fault": f.fault, "message": f.message}
        if faulty == "test-illegal":
            assert f.fault == "illegal" and f.action is not None
            expected["action"] = f.action
        else:
            assert f.fault == "error" and f.action is None
        assert json.loads(row["forfeit"]) == expected


def test_a_shard_records_no_forfeit_for_a_finished_game() -> None:
    plan = DatasetPlan(Rules(), ("random", "greedy"), seed=9, games=3, shard_games=3)
    table = _games_table(build_shard(plan.task(0)))
    assert len(table) == 3
    for row in table:
        assert row["end"] == "finished" and row["durak"] is not None
        assert row["forfeit"] is None


def _groups(counts: Sequence[int], limit: int) -> list[int]:
    """The row groups' sizes of games of ``counts`` decisions: each closed after the game
    that brings it to ``limit`` decisions, or after the last game."""
    sizes, rows = [], 0
    for k, count in enumerate(counts):
        rows += count
        if rows >= limit or k == len(counts) - 1:
            sizes.append(rows)
            rows = 0
    return sizes


def test_a_shards_row_groups_close_after_the_game_that_reaches_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = DatasetPlan(Rules(), ("random", "greedy"), seed=7, games=5, shard_games=5)
    agents = build_agents(plan.specs, plan.rules)
    counts = [len(play_rows(plan.match, g, agents).actions) for g in range(5)]
    limit = counts[0] + counts[1]  # the second game brings the first group to it exactly
    monkeypatch.setattr(shards, "ROWS_PER_GROUP", limit)
    files = build_shard(plan.task(0))
    meta = pq.ParquetFile(pa.BufferReader(files.decision_bytes)).metadata
    found = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert found == _groups(counts, limit)
    assert found[0] == limit and len(found) > 1 and files.decisions == sum(counts)
