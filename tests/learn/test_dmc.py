"""Deep Monte-Carlo (durak.learn.dmc): features, actors, the learner, model files, the
bundled model and ``durak train dmc``."""

from __future__ import annotations

import copy
import hashlib
import os
import random
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pytest
from typer.testing import CliRunner

from durak.testing.games import random_game_observations
from tests.support.cli_checks import one_error
from tests.support.extras import require_extra

torch = require_extra("torch")

from durak.agents import SpecError, make_agent  # noqa: E402
from durak.agents.guides import Guidance, make_guide  # noqa: E402
from durak.arena.play.game import play_game  # noqa: E402
from durak.arena.runs.pool import LocalPool, WorkerLostError  # noqa: E402
from durak.cli.app import app  # noqa: E402
from durak.learn.dmc import BUNDLED  # noqa: E402
from durak.learn.dmc.actor import ActorTask, collect  # noqa: E402
from durak.learn.dmc.agent import DmcAgent  # noqa: E402
from durak.learn.dmc.features import action_size, decision_rows, row_size  # noqa: E402
from durak.learn.dmc.learner import DmcTrainer  # noqa: E402
from durak.learn.dmc.net import (  # noqa: E402
    DmcModelError,
    build_network,
    load_model,
    save_model,
)
from durak.learn.dmc.settings import DmcSettings  # noqa: E402
from durak.learn.model_file import write_model_file  # noqa: E402
from durak.rules import (  # noqa: E402
    Observation,
    Rules,
    Suit,
    is_terminal,
    new_game,
    observe,
    sample_world,
    step,
)
from durak.seeding import derive_seed  # noqa: E402

torch.set_num_threads(1)
runner = CliRunner()
SMALL = Rules(lowest_rank=10)  # 20 cards: short games
TINY = DmcSettings(round=8, chunk=4, hidden=16, layers=2, batch=64, epsilon=0.2)


def weights(net: Any) -> dict[str, Any]:
    return {k: v.detach().clone() for k, v in net.state_dict().items()}


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_rows_have_the_documented_shape_and_one_action_block_each() -> None:
    for o in random_game_observations(Rules(), 2, 1)[:60]:
        rows = decision_rows(o, o.legal_actions)
        assert rows.shape == (len(o.legal_actions), row_size(Rules()))
        assert rows.min() >= 0 and rows.max() <= 1
        state = rows[:, : row_size(Rules()) - action_size(Rules())]
        assert (state == state[0]).all()  # one state, many actions
        kinds = rows[:, state.shape[1] : state.shape[1] + 5]
        assert (kinds.sum(axis=1) == 1).all()
        assert len({r.tobytes() for r in rows}) == len(rows)  # actions are told apart


def test_rows_ignore_hidden_cards() -> None:
    checked = 0
    for o in random_game_observations(Rules(), 3, 2)[::7]:
        rng = random.Random(0)
        worlds = [sample_world(o, rng) for _ in range(4)]
        hidden = {w.hands[1 - o.player].mask for w in worlds}
        rows = [decision_rows(observe(w, o.player), o.legal_actions) for w in worlds]
        assert all(np.array_equal(rows[0], r) for r in rows)
        checked += len(hidden) > 1  # the hidden cards really differed
    assert checked > 5


def test_the_trump_suit_is_always_in_the_first_slot() -> None:
    # The same position with suits renamed gives the same rows: four games become one.
    o = random_game_observations(Rules(), 1, 3)[5]
    rows = decision_rows(o, o.legal_actions)
    hand_block = rows[0, : Rules().deck_size]
    trumps = [c for c in o.hand if c.suit == o.trump_suit]
    first_slots = hand_block.reshape(-1, 4)[:, 0]
    assert first_slots.sum() == len(trumps)
    assert o.trump_suit is not None and isinstance(o.trump_suit, Suit)


def test_actors_play_legal_actions_and_are_deterministic() -> None:
    net = build_network(SMALL, (16,))
    w = {k: v.numpy() for k, v in net.state_dict().items()}
    task = ActorTask(
        rules=SMALL,
        hidden=(16,),
        weights=w,
        seed=3,
        first=0,
        count=6,
        epsilon=0.3,
        opponents=("self", "greedy"),
    )
    with pytest.raises(TypeError):  # thirteen fields: named, never by position
        ActorTask(SMALL, (16,), w, 3, 0, 6, 0.3, ("self", "greedy"))  # type: ignore[call-arg]
    first, second = collect(task), collect(task)
    assert np.array_equal(first.rows, second.rows)
    assert np.array_equal(first.targets, second.targets)
    assert len(first.rows) == len(first.targets) > 0
    assert set(np.unique(first.targets)) <= {-1.0, 0.0, 1.0}
    assert first.games == {"greedy": 3}
    # Every row's action block encodes one action (kind one-hot).
    kinds = first.rows[:, row_size(SMALL) - action_size(SMALL) :][:, :5]
    assert (kinds.astype(np.float32).sum(axis=1) == 1).all()


def test_a_short_training_run_changes_the_network_and_is_reproducible() -> None:
    def train(rounds: int) -> DmcTrainer:
        trainer = DmcTrainer(SMALL, ["self", "lowest"], 11, TINY)
        with LocalPool(1) as pool:
            for _ in range(rounds):
                trainer.round(pool)
        return trainer

    before = weights(DmcTrainer(SMALL, ["self", "lowest"], 11, TINY).net)
    one, two = train(3), train(3)
    assert not same(before, weights(one.net))  # it learned something
    assert same(weights(one.net), weights(two.net))  # same seed, same network
    assert one.episodes == 24 and one.samples > 0


def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path: Path) -> None:
    straight = DmcTrainer(SMALL, ["self"], 4, TINY)
    resumed = DmcTrainer(SMALL, ["self"], 4, TINY)
    with LocalPool(2) as pool:
        for _ in range(3):
            straight.round(pool)
        for _ in range(2):
            resumed.round(pool)
        resumed.save_checkpoint(tmp_path / "c.ckpt")
        again = DmcTrainer(SMALL, ["self"], 4, TINY)
        again.load_checkpoint(tmp_path / "c.ckpt")
        again.round(pool)
    assert same(weights(straight.net), weights(again.net))
    other = DmcTrainer(SMALL, ["self"], 5, TINY)
    with pytest.raises(DmcModelError, match="a checkpoint of another run"):
        other.load_checkpoint(tmp_path / "c.ckpt")


def test_save_then_load_plays_the_same_decisions(tmp_path: Path) -> None:
    trainer = DmcTrainer(SMALL, ["self"], 2, TINY)
    path = tmp_path / "m.pt"
    save_model(path, trainer.model({"note": "test"}))
    loaded = load_model(path)
    assert loaded.meta["note"] == "test" and loaded.rules == SMALL
    a, b = DmcAgent(trainer.model()), DmcAgent(loaded)
    for o in random_game_observations(SMALL, 3, 5):
        assert a.act(o, random.Random(0)) == b.act(o, random.Random(0))


def test_bad_model_files_are_one_line(tmp_path: Path) -> None:
    good = tmp_path / "good.pt"
    save_model(good, DmcTrainer(SMALL, ["self"], 2, TINY).model())
    truncated = tmp_path / "cut.pt"
    truncated.write_bytes(good.read_bytes()[:500])
    corrupt = tmp_path / "junk.pt"
    corrupt.write_bytes(b"not a model at all")
    for path, words in (
        (truncated, ["not a model file, or a truncated one"]),
        (corrupt, ["not a model file"]),
        (tmp_path / "missing.pt", ["cannot read the model file"]),
    ):
        one_error(runner.invoke(app, ["match", f"dmc:path={path}", "greedy", "-n", "2"]), *words)
    # A model of the 20-card game is refused for the 36-card one before any game.
    one_error(
        runner.invoke(app, ["match", f"dmc:path={good}", "greedy", "-n", "2"]),
        "trained for",
        "lowest_rank=10",
    )
    with pytest.raises(SpecError, match="trained for"):
        make_agent(f"dmc:path={good}", Rules())


def test_the_bundled_model_plays_a_legal_action_everywhere() -> None:
    assert BUNDLED.exists(), f"the bundled model {BUNDLED} is missing"
    agent = make_agent("dmc", Rules())
    rng = random.Random(0)
    for o in random_game_observations(Rules(), 4, 9):
        assert agent.act(o, rng) in o.legal_actions


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["dmc", "--vs", "self"], ["--games N or --hours H"]),
        (["dmc", "--vs", "self", "--games", "8", "--resume"], ["no checkpoint"]),
        (["dmc", "--vs", "self,nobody", "--games", "8"], ["unknown agent 'nobody'"]),
        (["dmc:round=10,chunk=4", "--vs", "self", "--games", "8"], ["multiple of chunk"]),
        (["qlearn", "--vs", "lowest", "--games", "8", "--hours", "1"], ["only for"]),
        (["dmc", "--vs", "faulty", "--games", "8"], ["--vs faulty", "breaks on purpose"]),
        (["dmc", "--vs", "self,faulty:fault=timeout", "--games", "8"], ["breaks on purpose"]),
        (["dmc", "--vs", "human", "--games", "8"], ["--vs human", "a person"]),
        (["dmc", "--vs", "solver:fallback=human", "--games", "8"], ["a person"]),
        (["qlearn", "--vs", "faulty", "--games", "8"], ["breaks on purpose"]),
        # Issue 61: a model option's agent was not looked into (checked on names, not built).
        (["dmc", "--vs", "ismcts:opponent=faulty", "--games", "8"], ["opponent: faulty breaks"]),
        (["qlearn", "--vs", "mcts:infer=faulty", "--games", "8"], ["infer: faulty breaks"]),
        (["dmc", "--vs", "samples=1,self", "--games", "8"], ["parameter of no agent"]),
        (["dmc", "--vs", "mcts:limit=5,nosuch=1", "--games", "8"], ["unknown parameter"]),
    ],
)
def test_train_dmc_refuses_bad_options(tmp_path: Path, args: list[str], words: list[str]) -> None:
    out = str(tmp_path / "m.pt")
    one_error(runner.invoke(app, ["train", *args, "--out", out], input=""), *words)
    assert not list(tmp_path.iterdir())


def test_train_dmc_takes_opponents_with_parameters(tmp_path: Path) -> None:
    out = tmp_path / "m.pt"
    args = ["train", "dmc:round=8,chunk=4,hidden=16,layers=2,batch=64", "--lowest-rank", "10"]
    args += ["--vs", "mcts:limit=5,samples=1,self", "--vs", "solver:nodes=50,fallback=lowest"]
    args += ["--games", "8", "--interval", "8", "--eval-games", "2", "--no-plot"]
    result = runner.invoke(app, [*args, "--seed", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    opponents = ["mcts:limit=5,samples=1", "self", "solver:nodes=50,fallback=lowest"]
    assert load_model(out).meta["opponents"] == opponents


def test_train_dmc_prints_an_evaluation_that_runs_for_its_players(tmp_path: Path) -> None:
    out = tmp_path / "m.pt"
    args = ["train", "dmc:round=8,chunk=4,hidden=16,layers=2,batch=64", "--vs", "greedy"]
    args += ["--players", "3", "--lowest-rank", "10", "--games", "8", "--interval", "8"]
    args += ["--eval-games", "2", "--no-plot", "--seed", "2", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    line = next(x for x in result.stdout.splitlines() if x.startswith("evaluate: "))
    words = shlex.split(line.removeprefix("evaluate: "))
    assert words[:2] == ["durak", "match"] and words[words.index("--games") + 1] == "1000"
    words[words.index("--games") + 1] = "2"
    evaluation = runner.invoke(app, words[1:])
    assert evaluation.exit_code == 0, evaluation.output
    assert f"dmc:path={out} vs greedy vs greedy" in evaluation.stdout
    recorded = shlex.split(str(load_model(out).meta["command"]))
    assert recorded[recorded.index("--players") + 1] == "3"


def test_train_dmc_writes_model_checkpoint_csv_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "m.pt"
    base = ["train", "dmc:round=8,chunk=4,hidden=16,layers=2,batch=64", "--vs", "self,lowest"]
    base += ["--lowest-rank", "10", "--seed", "3", "--out", str(out), "--interval", "8"]
    base += ["--eval-games", "4", "--no-plot"]
    first = runner.invoke(app, [*base, "--games", "16"])
    assert first.exit_code == 0, first.output
    assert out.exists() and out.with_name("m.pt.ckpt").exists()
    assert len(out.with_suffix(".csv").read_text().splitlines()) == 3  # header + 2 evaluations
    again = runner.invoke(app, [*base, "--games", "24", "--resume"])
    assert again.exit_code == 0, again.output
    assert "resuming: 16 episodes" in again.stderr  # a note on standard error
    assert load_model(out).meta["episodes"] == 24
    assert len(out.with_suffix(".csv").read_text().splitlines()) == 4


def _stopped_training(
    tmp_path: Path, base: list[str], stop: Callable[[subprocess.Popen[str]], None]
) -> tuple[int, str]:
    """Train in a process of its own session (a process group only the test signals) and
    ``stop`` it after two evaluations: its exit code and standard error.  A run still going
    60 s later is killed, a hang guard."""
    durak = [sys.executable, "-c", "from durak.cli.app import main; main()"]
    out = tmp_path / "cut.pt"
    proc = subprocess.Popen(
        [*durak, *base, "--games", "100000", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        csv_path = out.with_suffix(".csv")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and (
            not csv_path.exists() or len(csv_path.read_text().splitlines()) < 3
        ):
            time.sleep(0.05)  # polling for two evaluations; the outcome does not depend on it
        stop(proc)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    return proc.returncode, err


def _resumes_to_the_uninterrupted_network(tmp_path: Path, base: list[str]) -> None:
    """The model of a stopped run is at a round's end, and resumed it ends with the network
    of a run never stopped."""
    out = tmp_path / "cut.pt"
    stopped_at = int(load_model(out).meta["episodes"])
    assert 16 <= stopped_at < 100000 and stopped_at % 8 == 0  # at a round's end
    goal = str(stopped_at + 16)
    resumed = runner.invoke(app, [*base, "--games", goal, "--out", str(out), "--resume"])
    assert resumed.exit_code == 0, resumed.output
    whole = tmp_path / "whole.pt"
    straight = runner.invoke(app, [*base, "--games", goal, "--out", str(whole)])
    assert straight.exit_code == 0, straight.output
    a, b = load_model(out).net.state_dict(), load_model(whole).net.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_an_interrupted_training_resumes_to_the_uninterrupted_network(tmp_path: Path) -> None:
    base = ["train", "dmc:round=8,chunk=4,hidden=16,layers=2,batch=64", "--vs", "self,lowest"]
    base += ["--lowest-rank", "10", "--seed", "6", "--interval", "8", "--eval-games", "2"]
    base += ["--no-plot", "--quiet"]
    code, err = _stopped_training(tmp_path, base, lambda p: p.send_signal(signal.SIGINT))
    assert code == 130, err
    assert "--resume" in err and "Traceback" not in err
    _resumes_to_the_uninterrupted_network(tmp_path, base)


def test_a_sigterm_to_the_process_group_stops_training_at_a_rounds_end(tmp_path: Path) -> None:
    # `kill -- -PGID` (job control, systemd, docker) signals the actors too: one died
    # holding its task while the learner held the signal until the round's end, and the
    # learner then waited on the lost task forever.
    base = ["train", "dmc:round=8,chunk=4,hidden=16,layers=2,batch=64", "--vs", "self,lowest"]
    base += ["--lowest-rank", "10", "--seed", "8", "--interval", "8", "--eval-games", "2"]
    base += ["--no-plot", "--quiet", "--jobs", "1"]
    code, err = _stopped_training(tmp_path, base, lambda p: os.killpg(p.pid, signal.SIGTERM))
    assert code == 143, err
    assert "terminated (SIGTERM): saved after" in err and "--resume" in err, err
    assert "Traceback" not in err, err
    _resumes_to_the_uninterrupted_network(tmp_path, base)


class _LostRound:
    """Workers whose round is lost: the tasks start, and waiting for them raises."""

    def start(self, fn: Any, args: Any) -> Any:
        def wait() -> list[Any]:
            raise WorkerLostError("a worker process was killed by SIGTERM")

        return wait


def test_a_round_whose_actors_are_lost_leaves_the_learner_as_it_found_it() -> None:
    trainer = DmcTrainer(SMALL, ["self"], 4, TINY)
    with LocalPool(1) as pool:
        for _ in range(2):
            trainer.round(pool)
    net, adam = weights(trainer.net), copy.deepcopy(trainer.optimizer.state_dict())
    counters = (trainer.rounds, trainer.episodes, trainer.samples)
    with pytest.raises(WorkerLostError):
        trainer.round(_LostRound())
    assert same(net, weights(trainer.net)) and not trainer.net.training
    after = trainer.optimizer.state_dict()
    assert after["state"].keys() == adam["state"].keys() and after["state"]
    for k, state in adam["state"].items():
        assert all(torch.equal(state[n], after["state"][k][n]) for n in state)
    assert (trainer.rounds, trainer.episodes, trainer.samples) == counters


def test_a_warm_start_plays_the_warm_agents_moves_and_learns_their_values() -> None:
    net = build_network(SMALL, (16,))
    w = {k: v.numpy() for k, v in net.state_dict().items()}
    task = ActorTask(
        rules=SMALL,
        hidden=(16,),
        weights=w,
        seed=8,
        first=0,
        count=3,
        epsilon=0.0,
        opponents=("self",),
        warm="greedy",
        warm_episodes=3,
    )
    got = collect(task)
    greedy = make_agent("greedy")
    expected = []
    for e in range(3):
        state = new_game(SMALL, derive_seed(8, e))
        while not is_terminal(state):
            o = observe(state, state.turn)
            action = greedy.act(o, random.Random(0))
            if len(o.legal_actions) > 1:
                expected.append(decision_rows(o, o.legal_actions)[o.legal_actions.index(action)])
            state = step(state, action)
    # The same decisions (a chunk lists its games' rows as the games end).
    rows = np.array(expected, dtype=np.float16)
    assert sorted(r.tobytes() for r in got.rows) == sorted(r.tobytes() for r in rows)


def test_a_checkpoint_from_before_a_new_setting_still_resumes(tmp_path: Path) -> None:
    trainer = DmcTrainer(SMALL, ["self"], 4, TINY)
    path = tmp_path / "old.ckpt"
    trainer.save_checkpoint(path)
    data = torch.load(path, weights_only=True)
    del data["identity"]["settings"]["warm"], data["identity"]["settings"]["warm_episodes"]
    write_model_file(path, data)  # as written before warm starts existed
    DmcTrainer(SMALL, ["self"], 4, TINY).load_checkpoint(path)
    warm = attrs.evolve(TINY, warm_episodes=8)
    with pytest.raises(DmcModelError, match="a checkpoint of another run"):
        DmcTrainer(SMALL, ["self"], 4, warm).load_checkpoint(path)


def test_a_checkpoint_from_before_a_new_rule_still_resumes(tmp_path: Path) -> None:
    # Issue 41's long run was checkpointed before Rules.suits existed; --resume refused it.
    trainer = DmcTrainer(SMALL, ["self"], 4, TINY)
    with LocalPool(1) as pool:
        trainer.round(pool)
    path = tmp_path / "old.ckpt"
    trainer.save_checkpoint(path)
    data = torch.load(path, weights_only=True)
    assert data["identity"]["rules"]["suits"] == SMALL.suits
    del data["identity"]["rules"]["suits"], data["rules"]["suits"]
    write_model_file(path, data)  # as written before the rule existed
    resumed = DmcTrainer(SMALL, ["self"], 4, TINY)
    resumed.load_checkpoint(path)
    assert resumed.episodes == trainer.episodes
    assert same(weights(resumed.net), weights(trainer.net))
    # A rule the checkpoint does record is still compared.
    data["identity"]["rules"]["suits"] = 3
    write_model_file(path, data)
    with pytest.raises(DmcModelError, match="a checkpoint of another run"):
        DmcTrainer(SMALL, ["self"], 4, TINY).load_checkpoint(path)


def test_a_run_can_start_from_a_model_files_weights(tmp_path: Path) -> None:
    first = DmcTrainer(SMALL, ["self"], 4, TINY)
    with LocalPool(1) as pool:
        first.round(pool)
        first.round(pool)
    path = tmp_path / "first.pt"
    save_model(path, first.model())
    fresh = DmcTrainer(SMALL, ["self"], 5, TINY)
    assert not same(weights(fresh.net), weights(first.net))
    started = DmcTrainer(SMALL, ["self"], 5, attrs.evolve(TINY, init=str(path)))
    assert same(weights(started.net), weights(first.net))
    assert started.episodes == 0  # a new run: counters, Adam and buffer start afresh
    record = started.model().meta
    assert record["init_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert record["settings"]["init"] == str(path)
    assert "init_sha256" not in fresh.model().meta


def test_a_start_model_for_other_rules_or_widths_is_refused_with_one_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.pt"
    save_model(path, DmcTrainer(SMALL, ["self"], 4, TINY).model())
    for rules, settings in ((Rules(), TINY), (SMALL, attrs.evolve(TINY, hidden=32))):
        with pytest.raises(DmcModelError, match=r"init=.*m\.pt was trained for") as e:
            DmcTrainer(rules, ["self"], 4, attrs.evolve(settings, init=str(path)))
        assert "\n" not in str(e.value)
    with pytest.raises(DmcModelError, match="missing"):
        DmcTrainer(SMALL, ["self"], 4, attrs.evolve(TINY, init=str(tmp_path / "missing")))


# --------------------------------------------------------------------------------------
# The dmc guide of the search agents (PUCT prior and leaf values)


def test_guidance_derives_a_prior_and_a_zero_sum_value_from_one_scoring() -> None:
    guide = make_guide("dmc")
    calls = 0

    class Counting:
        def action_values(self, observation: Observation) -> list[float]:
            nonlocal calls
            calls += 1
            return list(guide.action_values(observation))

    for rules, players in ((Rules(), 2),):  # the bundled model's game
        for o in random_game_observations(rules, 3, 5):
            if len(o.legal_actions) < 2:
                continue
            world = sample_world(o, random.Random(1))
            guidance = Guidance(Counting(), temperature=0.1)
            before = calls
            q = guide.action_values(o)
            prior = guidance.prior(world, o.legal_actions)
            value = guidance.value(world)
            assert calls == before + 1, "the prior and the value share one scoring"
            assert abs(sum(prior) - 1) < 1e-9 and all(p >= 0 for p in prior)
            assert int(np.argmax(prior)) == int(np.argmax(q))
            assert value[o.player] == pytest.approx(max(q))
            assert sum(value) == pytest.approx(0) and len(value) == players


def test_guided_ismcts_plays_legal_reproducible_moves_that_ignore_hidden_cards() -> None:
    agent = make_agent("ismcts:prior=dmc,value=dmc,limit=12")
    rng = random.Random(0)
    for o in random_game_observations(Rules(), 2, 11):
        if len(o.legal_actions) < 2:
            continue
        action = agent.act(o, random.Random(4))
        assert action in o.legal_actions
        assert agent.act(o, random.Random(4)) == action
        # The observation is all it reads: any world behind it gives the same decision.
        twin = observe(sample_world(o, rng), o.player)
        assert twin == o and agent.act(twin, random.Random(4)) == action


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("ismcts:prior=nosuch", ["no guide named 'nosuch'", "dmc"]),
        ("ismcts:prior=dmc,bias=5", ["bias or a prior"]),
    ],
)
def test_bad_guide_options_are_one_line(spec: str, words: list[str]) -> None:
    with pytest.raises(SpecError) as e:
        make_agent(spec)
    assert all(w in str(e.value) for w in words), str(e.value)


# Tables no shipped network fits, and none is planned for (3 and 4 players, and the
# 2-player Perevodnoy game, may get one).
OTHER_RULES = [Rules(players=5), Rules(lowest_rank=9), Rules(transfer=True, lowest_rank=10)]
GUIDED = ["ismcts:prior=dmc,limit=20", "ismcts:value=dmc,limit=20", "solver:fallback=dmc"]


@pytest.mark.parametrize("spec", GUIDED)
def test_guided_specs_are_refused_under_rules_the_network_does_not_fit(spec: str) -> None:
    assert make_agent(spec, Rules()) is not None  # the bundled model's own game
    for rules in OTHER_RULES:
        with pytest.raises(SpecError, match="dmc: no shipped model for") as e:
            make_agent(spec, rules)
        assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    "args",
    [
        ["match", "ismcts:prior=dmc,limit=20", "greedy", "greedy", "greedy", "greedy", "-n", "3"],
        ["match", "ismcts:value=dmc,limit=20", "greedy", "-n", "2", "--lowest-rank", "9"],
        [
            "match",
            "ismcts:prior=dmc,limit=20",
            "greedy",
            "-n",
            "2",
            "--variant",
            "perevodnoy",
            "--lowest-rank",
            "10",
        ],
        [
            "match",
            "solver:fallback=ismcts:value=dmc;limit=5",
            "greedy",
            "-n",
            "2",
            "--lowest-rank",
            "9",
        ],
        ["play", "ismcts:prior=dmc,limit=20", "greedy", "--lowest-rank", "9"],
        ["train", "dmc", "--vs", "ismcts:prior=dmc", "--players", "5", "--games", "8"],
        ["train", "qlearn", "--vs", "ismcts:value=dmc", "--players", "5", "--games", "8"],
    ],
)
def test_guided_specs_under_other_rules_are_one_error_line(tmp_path: Path, args: list[str]) -> None:
    if args[0] == "train":
        args = [*args, "--out", str(tmp_path / "out.pt")]
    one_error(runner.invoke(app, args, input=""), "dmc: no shipped model for", "ismcts")
    assert not list(tmp_path.iterdir())


def test_a_network_match_on_two_processes_finishes(tmp_path: Path) -> None:
    """Regression: with two jobs the match's workers were forked from the parent, whose
    torch had started its threads while loading the model to check the spec, and hung
    at their first decision."""
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "durak"),
            "match",
            "dmc",
            "greedy",
            "--games",
            "4",
            "--seed",
            "3",
            "--jobs",
            "2",
            "--json",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard, far above the seconds this takes
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert '"games": 4' in done.stdout


def test_a_dmc_opponent_model_equal_to_the_searchers_prior_changes_no_decision() -> None:
    """``opponent=dmc`` at the prior's temperature is the searcher's own prior at the other
    player's nodes; at another temperature it is not, and some decision changes."""
    own = "ismcts:prior=dmc,value=dmc,limit=30"
    plain = make_agent(own)
    same = make_agent(f"{own},opponent=dmc,model_temperature=0.1")
    other = make_agent(f"{own},opponent=dmc,model_temperature=3")
    seen = [o for o in random_game_observations(Rules(), 1, 17) if len(o.legal_actions) > 1]
    changed = 0
    for k, o in enumerate(seen[::2]):
        decision = plain.act(o, random.Random(k))
        assert same.act(o, random.Random(k)) == decision
        changed += other.act(o, random.Random(k)) != decision
    assert changed


@pytest.mark.parametrize(
    "spec",
    [
        "ismcts:prior=dmc,value=dmc,limit=8,infer=dmc,candidates=4",
        "ismcts:limit=8,infer=mix,candidates=4,opponent=mix",
    ],
)
def test_dmc_inference_plays_legal_reproducible_games(spec: str) -> None:
    """The agent hears the game through its hooks and infers from the network's policy."""
    records = [play_game(Rules(), [make_agent(spec), make_agent("greedy")], 3) for _ in range(2)]
    assert records[0].actions == records[1].actions and records[0].forfeit is None


def test_a_batch_of_observations_scores_as_each_one_alone() -> None:
    """``action_values_many`` (one network pass, used by inference) agrees with
    ``action_values``, and priming a guidance caches those scores by observation."""
    guide = make_guide("dmc")
    seen = random_game_observations(Rules(), 1, 23)[:12]
    batch = guide.action_values_many(seen)  # type: ignore[attr-defined]
    for o, values in zip(seen, batch, strict=True):
        assert values == pytest.approx(guide.action_values(o), abs=1e-5)
    guidance = Guidance(guide, temperature=1.0)
    worlds = [sample_world(o, random.Random(2)) for o in seen]
    guidance.prime(worlds)
    assert len(guidance.cache) == len(set(seen))
    for o, values in zip(seen, batch, strict=True):
        assert guidance.cache[o] == pytest.approx(values, abs=1e-5)
