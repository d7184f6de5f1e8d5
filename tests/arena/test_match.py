"""Matches in the duplicate format, in one process or several, and Wilson intervals."""

from __future__ import annotations

import json
import os
import random
import signal
import threading
from collections.abc import Callable
from typing import Any

import attrs
import pytest

import tests.support.faulty_agents  # noqa: F401  (registers the test agents)
from durak.agents import GreedyAgent, Watcher, base, make_agent
from durak.arena.play.game import play_game
from durak.arena.play.match import MatchPlan, play_match_game
from durak.arena.runs.interface import BackendError
from durak.arena.runs.pool import LocalPool, WorkerLostError
from durak.arena.runs.run import run_match
from durak.arena.scores.wilson import wilson
from durak.rules import Action, Observation, Rules, new_game, step
from durak.seeding import derive_seed

SPECS = ("random", "random:stop_chance=0.6")


def test_each_deal_is_played_once_per_seat_rotation() -> None:
    rules = Rules(players=3)
    specs = ("random", "random:stop_chance=0.6", "random:stop_chance=0.0")
    for game in range(6):
        rotation = game % 3
        seats = [(s + rotation) % 3 for s in range(3)]  # seat -> agent
        record = play_game(rules, [make_agent(specs[a]) for a in seats], derive_seed(11, game // 3))
        played = play_match_game(MatchPlan(rules, specs, 11, 6), game)
        outcome = played.outcome
        assert outcome.durak == (None if record.loser is None else seats[record.loser])
        assert outcome.decisions == tuple(record.decisions[seats.index(a)] for a in range(3))
        assert outcome.seats == tuple(seats) and outcome.bouts == record.bouts
        assert played.actions == tuple(str(a) for a in record.actions)


def test_a_match_is_the_same_in_one_process_or_two() -> None:
    rules = Rules()
    one = run_match(rules, SPECS, games=30, seed=5)
    two = run_match(rules, SPECS, games=30, seed=5, backend=LocalPool(2))
    assert [o.durak for o in one.outcomes] == [o.durak for o in two.outcomes]
    assert [o.game for o in two.outcomes] == list(range(30))
    assert one.wins(0) == one.durak_count(1) and one.wins(1) == one.durak_count(0)
    assert one.wins(0) + one.wins(1) + one.draws == 30
    low, high = one.win_interval(0)
    assert low <= one.win_rate(0) <= high
    assert one.mean_think(0) >= 0 and one.max_think(0) >= one.mean_think(0)


def test_an_agent_registered_with_a_lambda_is_named_when_workers_cannot_receive_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The pool sends the registry pickled; a lambda factory cannot go (a PicklingError
    # traceback from inside multiprocessing before): one line naming the agent instead.
    def local_factory() -> GreedyAgent:  # defined in a function: pickle cannot name it
        return GreedyAgent()

    info = base.AgentInfo("test-lambda", "test only", (), local_factory)
    monkeypatch.setitem(base._REGISTRY, "test-lambda", info)
    with pytest.raises(BackendError, match=r"^agent 'test-lambda' cannot be sent to worker"):
        run_match(Rules(), ["random", "random"], games=2, seed=0, backend=LocalPool(2))
    one = run_match(Rules(), ["random", "test-lambda"], games=2, seed=0)  # one job: plays
    assert one.wins(0) + one.wins(1) + one.draws == 2


def test_run_match_checks_its_input() -> None:
    with pytest.raises(ValueError, match="2 players need 2 agent specs"):
        run_match(Rules(), ["random"], games=2, seed=0)
    with pytest.raises(ValueError, match="positive"):
        run_match(Rules(), SPECS, games=0, seed=0)
    with pytest.raises(ValueError, match="jobs must be a positive integer, got 0"):
        LocalPool(0)


@pytest.mark.parametrize(("k", "n"), [(0, 10), (10, 10), (3, 7), (450, 500)])
def test_wilson_contains_the_rate_and_stays_in_0_1(k: int, n: int) -> None:
    low, high = wilson(k, n)
    assert 0.0 <= low <= k / n <= high <= 1.0
    wide_low, wide_high = wilson(k, n, 0.999)
    assert wide_low <= low and high <= wide_high


def test_wilson_matches_the_closed_form_and_rejects_bad_input() -> None:
    z = 2.3263478740408408  # the 99th percentile of the standard normal
    k, n = 37, 80
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    assert wilson(k, n) == pytest.approx((centre - half, centre + half))
    for bad in [(1, 0, 0.98), (5, 4, 0.98), (1, 4, 1.0)]:
        with pytest.raises(ValueError):
            wilson(*bad)


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_matches_newcombe_1998(k: int, n: int, low: float, high: float) -> None:
    # Newcombe, "Two-sided confidence intervals for the single proportion: comparison of
    # seven methods", Statistics in Medicine 17 (1998), Table II, method 3 (Wilson), 95%.
    assert wilson(k, n, 0.95) == pytest.approx((low, high), abs=5e-5)


@attrs.define
class Recorder:
    """A greedy player that records every hook call it receives."""

    seat: int
    name: str = "recorder"
    calls: list[tuple[str, object]] = attrs.Factory(list)
    seen: list[Observation] = attrs.Factory(list)

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return GreedyAgent().act(observation, rng)

    def game_started(self, observation: Observation) -> None:
        self.calls.append(("start", None))
        self.seen.append(observation)

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        self.calls.append(("action", (player, action)))
        self.seen.append(observation)

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        self.calls.append(("end", loser))
        self.seen.append(observation)


@pytest.mark.parametrize("open_world", [False, True])
def test_watchers_hear_every_action_through_their_own_observation(open_world: bool) -> None:
    rules = Rules(players=3)
    agents = [Recorder(0), make_agent("random"), Recorder(2)]
    assert isinstance(agents[0], Watcher) and not isinstance(agents[1], Watcher)
    record = play_game(rules, agents, seed=8, open_world=open_world)
    replayed, movers = new_game(rules, 8), []
    for action in record.actions:
        movers.append(replayed.turn)
        replayed = step(replayed, action)
    for seat in (0, 2):
        watcher = agents[seat]
        assert isinstance(watcher, Recorder)
        assert watcher.calls[0] == ("start", None) and watcher.calls[-1] == ("end", record.loser)
        heard = [call[1] for call in watcher.calls[1:-1]]
        assert heard == list(zip(movers, record.actions, strict=True))
        assert all(o.player == seat for o in watcher.seen)
        assert all((o.hands is not None) == open_world for o in watcher.seen)
        assert watcher.seen[-1].hand_sizes == tuple(len(h) for h in replayed.hands)


def test_the_local_pool_starts_tasks_and_returns_them_in_order() -> None:
    with LocalPool(2) as pool:
        wait = pool.start(json.loads, ["[1]", "2", '"three"'])
        assert wait() == [[1], 2, "three"]
        failing = pool.start(json.loads, ["1", "x"])
        with pytest.raises(json.JSONDecodeError):
            failing()


def _outcome(wait: Callable[[], Any]) -> list[BaseException | Any]:
    """What ``wait()`` returned or raised, or nothing if it was still waiting after 60 s
    (a hang guard, run in a thread the test can leave behind)."""
    got: list[BaseException | Any] = []

    def target() -> None:
        try:
            got.append(wait())
        except BaseException as e:  # the outcome is the test's to judge
            got.append(e)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(60)
    return got


def test_a_pool_whose_worker_is_killed_says_so_instead_of_waiting_forever() -> None:
    # multiprocessing.Pool replaces a dead worker but never reruns its task: the wait
    # used to last forever (a SIGTERM to a training run's process group).
    with LocalPool(1) as pool:
        got = _outcome(pool.start(signal.raise_signal, [signal.SIGTERM]))
        assert len(got) == 1 and isinstance(got[0], WorkerLostError), got
        assert str(got[0]) == (
            "a worker process was killed by SIGTERM; the work it held is lost, so the run "
            "stops here"
        )
        assert pool.start(abs, [-3, 4])() == [3, 4]  # the broken pool was replaced


def test_a_match_whose_worker_is_killed_stops_saying_so() -> None:
    # It used to blame a script without a main guard ("exit as they start").
    with pytest.raises(WorkerLostError, match=r"^a worker process was killed by SIGTERM;"):
        run_match(Rules(), ["test-sigterm", "greedy"], games=4, seed=1, backend=LocalPool(2))


def test_a_pool_whose_idle_worker_was_killed_still_closes() -> None:
    # An idle worker holds the task queue's read lock; killed there (a SIGTERM to the
    # process group once a DMC round's tasks were done), Pool.terminate waited forever.
    pool = LocalPool(1)
    assert pool.start(abs, [-1])() == [1]
    (process,) = pool._workers[0]._pool
    os.kill(process.pid, signal.SIGTERM)
    process.join()  # now gone, maybe holding the lock
    assert _outcome(pool.close) == [None]
