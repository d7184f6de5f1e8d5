"""DMC's league (durak.learn.dmc.league, ``--vs ...,past``): the pool of earlier copies, the
``past`` opponent in the actors, determinism and resuming; and any agent spec as an
opponent seat (a saved model, a search exploiter, an agent that watches its games)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import attrs
import numpy as np
import pytest
from typer.testing import CliRunner

from tests.support.extras import require_extra

torch = require_extra("torch")

import durak.learn.dmc.actor as actor_module  # noqa: E402
from durak.agents import make_agent  # noqa: E402
from durak.agents.base import register  # noqa: E402
from durak.agents.searchers.exploiter import search_exploiter_spec  # noqa: E402
from durak.cli.app import app  # noqa: E402
from durak.learn.dmc.actor import ActorTask, collect  # noqa: E402
from durak.learn.dmc.agent import DmcAgent  # noqa: E402
from durak.learn.dmc.features import decision_rows  # noqa: E402
from durak.learn.dmc.league import PastPool, Weights, past_pick  # noqa: E402
from durak.learn.dmc.learner import DmcTrainer  # noqa: E402
from durak.learn.dmc.net import DmcModel, build_network, load_model, save_model  # noqa: E402
from durak.learn.dmc.settings import DmcSettings  # noqa: E402
from durak.rules import Action, Observation, Rules, is_terminal, new_game, observe, step  # noqa: E402
from durak.seeding import derive_seed  # noqa: E402

torch.set_num_threads(1)
runner = CliRunner()
A = TypeVar("A")
R = TypeVar("R")
SMALL = Rules(lowest_rank=10)  # 20 cards: short games
TINY = DmcSettings(round=8, chunk=4, hidden=16, layers=2, batch=64, epsilon=0.2)
LEAGUE = attrs.evolve(TINY, past_every=1, past_keep=2)


class Inline:
    """Actor tasks run in this process, when the round waits for them."""

    def start(self, fn: Callable[[A], R], args: Sequence[A]) -> Callable[[], list[R]]:
        return lambda: [fn(a) for a in args]


def weights(net: Any) -> dict[str, Any]:
    return {k: v.detach().clone() for k, v in net.state_dict().items()}


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@attrs.define
class HookChecked:
    """A watcher that plays the first legal action and fails unless it was told of its
    game's start and of every action before each decision, one game at a time."""

    name: str = "hook-check"
    last: Observation | None = None

    def game_started(self, observation: Observation) -> None:
        if self.last is not None:
            raise AssertionError("one instance told of two games at once")
        self.last = observation

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        assert self.last is not None and self.last.player == observation.player
        self.last = observation

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        self.last = None

    def act(self, observation: Observation, rng: random.Random) -> Action:
        if observation != self.last:
            raise AssertionError("asked to move in a game it was not told of")
        return observation.legal_actions[0]


def hook_checked() -> HookChecked:
    return HookChecked()


register("hook-check", hook_checked, "test: a watcher that checks the hooks it hears", ())


def test_the_pool_keeps_a_copy_every_k_rounds_from_round_0_the_last_m() -> None:
    pool = PastPool(every=3, keep=2)
    taken: list[int] = []

    def take(r: int) -> Callable[[], Weights]:
        def copy() -> Weights:
            taken.append(r)
            return {"w": np.full(1, r, np.float32)}

        return copy

    for r in range(10):
        pool.offer(r, take(r))
        pool.offer(r, take(-1))  # the same round played again (after a lost one): no copy
    assert taken == [0, 3, 6, 9]
    assert pool.rounds == [6, 9] and [float(w["w"][0]) for w in pool.weights] == [6.0, 9.0]


def test_past_picks_are_uniform_in_the_pool_and_a_function_of_seed_and_episode() -> None:
    picks = [past_pick(7, e, 5) for e in range(2000)]
    assert picks == [past_pick(7, e, 5) for e in range(2000)]
    assert set(picks) == set(range(5))
    assert all(300 <= picks.count(i) <= 500 for i in range(5))
    assert picks != [past_pick(8, e, 5) for e in range(2000)]


def test_a_past_opponent_plays_its_copy_in_the_other_seats_and_only_the_learner_learns() -> None:
    torch.manual_seed(1)
    learner, copy = build_network(SMALL, (16,)), build_network(SMALL, (16,))
    w = {k: v.numpy() for k, v in learner.state_dict().items()}
    old = {k: v.numpy() for k, v in copy.state_dict().items()}
    task = ActorTask(
        rules=SMALL,
        hidden=(16,),
        weights=w,
        seed=5,
        first=0,
        count=4,
        epsilon=0.0,
        opponents=("past",),
        past={0: old},
        past_size=1,
    )
    got = collect(task)
    assert got.games == {"past": 4}
    agents = [DmcAgent(DmcModel(net, SMALL, (16,))) for net in (learner, copy)]
    expected = []
    for e in range(4):
        state, seat = new_game(SMALL, derive_seed(5, e)), e % 2  # the learner's seat rotates
        while not is_terminal(state):
            o = observe(state, state.turn)
            mine = o.player == seat
            action = agents[0 if mine else 1].act(o, random.Random(0))
            if mine and len(o.legal_actions) > 1:
                expected.append(decision_rows(o, o.legal_actions)[o.legal_actions.index(action)])
            state = step(state, action)
    rows = np.array(expected, dtype=np.float16)
    assert sorted(r.tobytes() for r in got.rows) == sorted(r.tobytes() for r in rows)


def test_a_run_against_past_uses_it_is_deterministic_and_resumes_exactly(tmp_path: Path) -> None:
    opponents = ["self", "past", "lowest"]

    def train(rounds: int) -> tuple[DmcTrainer, dict[str, int]]:
        trainer = DmcTrainer(SMALL, opponents, 9, LEAGUE)
        games: dict[str, int] = {}
        for _ in range(rounds):
            for k, v in trainer.round(Inline()).games.items():
                games[k] = games.get(k, 0) + v
        return trainer, games

    straight, games = train(4)
    assert games["past"] == len(range(1, 32, 3)) and straight.pool.rounds == [2, 3]
    twin, _ = train(4)
    assert same(weights(straight.net), weights(twin.net))  # same seed, same run
    cut, _ = train(2)
    cut.save_checkpoint(tmp_path / "c.ckpt")
    again = DmcTrainer(SMALL, opponents, 9, LEAGUE)
    again.load_checkpoint(tmp_path / "c.ckpt")
    assert again.pool.rounds == [0, 1]
    for _ in range(2):
        again.round(Inline())
    assert same(weights(straight.net), weights(again.net))
    assert again.pool.rounds == straight.pool.rounds
    for a, b in zip(again.pool.weights, straight.pool.weights, strict=True):
        assert all(np.array_equal(a[k], b[k]) for k in a)
    # The copies come from the learner: the first is the network it started with.
    start = DmcTrainer(SMALL, opponents, 9, LEAGUE).copy_for_play()
    first = train(1)[0].pool.weights[0]
    assert all(np.array_equal(start[k], first[k]) for k in start)


def test_a_saved_model_and_a_search_exploiter_can_be_opponents(tmp_path: Path) -> None:
    path = tmp_path / "m.pt"
    save_model(path, DmcTrainer(SMALL, ["self"], 2, TINY).model())
    exploiter = search_exploiter_spec("greedy", limit=2)
    trainer = DmcTrainer(SMALL, [f"dmc:path={path}", exploiter], 3, TINY)
    stats = trainer.round(Inline())
    assert stats.games == {f"dmc:path={path}": 4, exploiter: 4}


def task(weights: Any, first: int, opponents: tuple[str, ...]) -> ActorTask:
    """Eight episodes from ``first`` of seed 4 against ``opponents``, exploring 0.2."""
    return ActorTask(
        rules=SMALL,
        hidden=(16,),
        weights=weights,
        seed=4,
        first=first,
        count=8,
        epsilon=0.2,
        opponents=opponents,
    )


def test_an_opponent_that_watches_hears_its_own_games(tmp_path: Path) -> None:
    # The actors never called the hooks: an inferring searcher (an exploiter with
    # infer=TARGET) played without its record of the game.
    net = build_network(SMALL, (16,))
    w = {k: v.numpy() for k, v in net.state_dict().items()}
    got = collect(task(w, 0, ("hook-check", "self")))
    assert got.games == {"hook-check": 4}


def test_an_agent_is_built_once_per_process_not_once_per_episode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A saved model was read from its file for every episode (about 90 ms each).
    path = tmp_path / "m.pt"
    save_model(path, DmcTrainer(SMALL, ["self"], 2, TINY).model())
    built: list[str] = []

    def counting(spec: str, rules: Rules | None = None) -> Any:
        built.append(spec)
        return make_agent(spec, rules)

    monkeypatch.setattr(actor_module, "make_agent", counting)
    actor_module._built.cache_clear()
    net = build_network(SMALL, (16,))
    w = {k: v.numpy() for k, v in net.state_dict().items()}
    for first in (0, 8):
        got = collect(task(w, first, (f"dmc:path={path}",)))
        assert got.games == {f"dmc:path={path}": 8}
    assert built == [f"dmc:path={path}"]


def test_train_dmc_takes_past_and_resumes_to_the_uninterrupted_network(tmp_path: Path) -> None:
    spec = "dmc:round=8,chunk=4,hidden=16,layers=2,batch=64,past_every=1,past_keep=2"
    base = ["train", spec, "--vs", "self,past", "--lowest-rank", "10", "--seed", "5"]
    base += ["--interval", "8", "--eval-games", "2", "--no-plot", "--quiet", "-j", "1"]
    cut, whole = tmp_path / "cut.pt", tmp_path / "whole.pt"
    first = runner.invoke(app, [*base, "--games", "16", "--out", str(cut)])
    assert first.exit_code == 0, first.output
    assert "vs self,past" in first.stdout
    resumed = runner.invoke(app, [*base, "--games", "32", "--out", str(cut), "--resume"])
    assert resumed.exit_code == 0, resumed.output
    straight = runner.invoke(app, [*base, "--games", "32", "--out", str(whole)])
    assert straight.exit_code == 0, straight.output
    a, b = load_model(cut).net.state_dict(), load_model(whole).net.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
