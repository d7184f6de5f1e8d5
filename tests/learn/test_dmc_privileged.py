"""Privileged information in DMC training (durak.learn.dmc.privileged, ``dmc:privileged=H``):
the hidden block, the fade, the network that plays (no input that depends on a hidden card),
resuming, starting from a model, and ``durak train dmc`` with it."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import attrs
import numpy as np
import pytest
from typer.testing import CliRunner

from durak.testing.games import random_game_observations
from tests.support.extras import require_extra

torch = require_extra("torch")

from durak.agents import make_agent  # noqa: E402
from durak.arena.play.game import play_game  # noqa: E402
from durak.cli.app import app  # noqa: E402
from durak.learn.dmc.actor import ActorTask, collect  # noqa: E402
from durak.learn.dmc.features import decision_rows, row_size  # noqa: E402
from durak.learn.dmc.learner import DmcTrainer  # noqa: E402
from durak.learn.dmc.net import DmcModelError, load_model, save_model, scores  # noqa: E402
from durak.learn.dmc.privileged import (  # noqa: E402
    PRIVILEGED,
    hidden_block,
    hidden_size,
    privileged_rows,
)
from durak.learn.dmc.settings import DmcSettings, fade  # noqa: E402
from durak.rules import (  # noqa: E402
    Rules,
    is_terminal,
    new_game,
    observe,
    sample_world,
    step,
)
from durak.seeding import derive_seed  # noqa: E402

torch.set_num_threads(1)
runner = CliRunner()
A = TypeVar("A")
R = TypeVar("R")
SMALL = Rules(lowest_rank=10)  # 20 cards: short games
TINY = DmcSettings(round=8, chunk=4, hidden=16, layers=2, batch=64, epsilon=0.2)
SPEC = "dmc:round=8,chunk=4,hidden=16,layers=2,batch=64"


class Inline:
    """Actor tasks run in this process, when the round waits for them."""

    def start(self, fn: Callable[[A], R], args: Sequence[A]) -> Callable[[], list[R]]:
        return lambda: [fn(a) for a in args]


def weights(net: Any) -> dict[str, Any]:
    return {k: v.detach().clone() for k, v in net.state_dict().items()}


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_the_fade_is_linear_from_one_to_zero_over_the_horizon() -> None:
    h = 400
    assert [fade(e, h) for e in (0, 100, 200, 300, 400, 401, 10**6)] == [
        1.0,
        0.75,
        0.5,
        0.25,
        0.0,
        0.0,
        0.0,
    ]
    assert all(fade(e, h) >= fade(e + 1, h) for e in range(h + 5))
    assert fade(0, 0) == fade(5, 0) == 0.0  # off
    assert DmcSettings(privileged=h).fade(100) == 0.75 and DmcSettings().fade(0) == 0.0


def test_the_hidden_block_is_every_unseen_card_in_the_rows_card_order() -> None:
    rules, d = Rules(), Rules().deck_size
    checked = 0
    for seed in range(4):
        state = new_game(rules, seed)
        while not is_terminal(state):
            p = state.turn
            o = observe(state, p)
            block = hidden_block(state, p)
            assert block.shape == (hidden_size(rules),) == (2 * d,)
            # The other hand in the canonical order of the rows: the opponent's own block.
            theirs = decision_rows(observe(state, 1 - p), o.legal_actions[:1])  # any action
            assert np.array_equal(block[:d], theirs[0, :d])
            unseen_talon = len(state.talon) - (1 if state.talon else 0)  # the face-up trump
            assert block[d:].sum() == unseen_talon
            # With the player's own view (hand, table, discard, face-up trump) every card
            # of the deck is in exactly one block.
            cards = decision_rows(o, o.legal_actions)[0, : 6 * d].reshape(6, d)
            seen = cards[0] + cards[1] + cards[3] + cards[4] + cards[5]  # not "undefended"
            assert np.array_equal(seen + block[:d] + block[d:], np.ones(d, np.float32))
            checked += 1
            state = step(state, random.Random(seed).choice(o.legal_actions))
    assert checked > 100


def test_actors_append_the_hidden_block_times_the_episodes_coefficient() -> None:
    # Warm episodes play greedy's moves: the rows can be rebuilt from replayed games.
    horizon = 4
    net = PRIVILEGED.build(SMALL, (16,))
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
        privileged=horizon,
    )
    got = collect(task)
    assert got.rows.shape[1] == row_size(SMALL) + hidden_size(SMALL)
    greedy = make_agent("greedy")
    expected = []
    for e in range(3):
        state = new_game(SMALL, derive_seed(8, e))
        while not is_terminal(state):
            o = observe(state, state.turn)
            action = greedy.act(o, random.Random(0))
            if len(o.legal_actions) > 1:
                rows = privileged_rows(
                    decision_rows(o, o.legal_actions), state, o.player, 1 - e / horizon
                )
                expected.append(rows[o.legal_actions.index(action)])
            state = step(state, action)
    rows = np.array(expected, dtype=np.float16)
    assert sorted(r.tobytes() for r in got.rows) == sorted(r.tobytes() for r in rows)
    assert {float(x) for x in np.unique(got.rows[:, row_size(SMALL) :])} == {0.0, 0.5, 0.75, 1.0}


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[DmcTrainer, Path]:
    """A privileged run stopped mid-fade (its hidden-card weights in use), its model saved."""
    trainer = DmcTrainer(SMALL, ["self", "greedy"], 12, attrs.evolve(TINY, privileged=400))
    for _ in range(6):
        trainer.round(Inline())
    path = tmp_path_factory.mktemp("privileged") / "m.pt"
    save_model(path, trainer.model())
    return trainer, path


def test_the_network_that_plays_has_no_input_that_depends_on_a_hidden_card(
    trained: tuple[DmcTrainer, Path],
) -> None:
    trainer, path = trained
    model = load_model(path)  # an ordinary dmc model file
    assert tuple(model.net[0].weight.shape) == (16, row_size(SMALL))
    assert model.meta["privileged_coefficient"] == pytest.approx(1 - 48 / 400)
    agent = make_agent(f"dmc:path={path}", SMALL)
    differed = compared = 0
    for o in random_game_observations(SMALL, 4, 3)[::3]:
        if len(o.legal_actions) < 2:
            continue
        rng = random.Random(0)
        worlds = [sample_world(o, rng) for _ in range(6)]
        if len({hidden_block(w, o.player).tobytes() for w in worlds}) < 2:
            continue  # no other hidden cards here
        played = [
            scores(model.net, decision_rows(observe(w, o.player), o.legal_actions)) for w in worlds
        ]
        assert all(np.array_equal(played[0], v) for v in played)
        assert len({agent.act(observe(w, o.player), random.Random(1)) for w in worlds}) == 1
        # The training network, with the hidden cards at the run's coefficient, does read
        # them; with the coefficient 0 it is the network that plays.
        train = [
            scores(
                trainer.net, privileged_rows(decision_rows(o, o.legal_actions), w, o.player, 0.9)
            )
            for w in worlds
        ]
        differed += any(not np.array_equal(train[0], v) for v in train)
        blind = privileged_rows(decision_rows(o, o.legal_actions), worlds[0], o.player, 0.0)
        assert np.allclose(scores(trainer.net, blind), played[0], atol=1e-6)
        compared += 1
    assert compared > 5 and differed >= compared * 3 // 4


def test_the_saved_model_loads_as_a_dmc_spec_and_plays(trained: tuple[DmcTrainer, Path]) -> None:
    _, path = trained
    agents = [make_agent(f"dmc:path={path}", SMALL), make_agent("greedy", SMALL)]
    for seed in range(3):
        record = play_game(SMALL, agents, seed)
        assert record.actions and record.loser in (0, 1, None)


def test_a_resumed_privileged_run_equals_an_uninterrupted_one(tmp_path: Path) -> None:
    settings = attrs.evolve(TINY, privileged=24)  # fades out during the run
    straight = DmcTrainer(SMALL, ["self", "lowest"], 4, settings)
    for _ in range(4):
        straight.round(Inline())
    cut = DmcTrainer(SMALL, ["self", "lowest"], 4, settings)
    for _ in range(2):
        cut.round(Inline())
    cut.save_checkpoint(tmp_path / "c.ckpt")
    again = DmcTrainer(SMALL, ["self", "lowest"], 4, settings)
    again.load_checkpoint(tmp_path / "c.ckpt")
    assert tuple(again.net[0].weight.shape) == (16, row_size(SMALL) + hidden_size(SMALL))
    for _ in range(2):
        again.round(Inline())
    assert same(weights(straight.net), weights(again.net))
    assert straight.model().meta["privileged_coefficient"] == 0.0
    # The same checkpoint is not a plain run's, and says so in one line.
    with pytest.raises(DmcModelError, match=r"a checkpoint of another run.*privileged=24"):
        DmcTrainer(SMALL, ["self", "lowest"], 4, TINY).load_checkpoint(tmp_path / "c.ckpt")


def test_a_privileged_run_started_from_a_model_first_plays_as_that_model(tmp_path: Path) -> None:
    plain = DmcTrainer(SMALL, ["self"], 4, TINY)
    plain.round(Inline())
    plain.round(Inline())
    path = tmp_path / "start.pt"
    save_model(path, plain.model())
    started = DmcTrainer(SMALL, ["self"], 5, attrs.evolve(TINY, init=str(path), privileged=80))
    assert same(weights(started.model().net), weights(load_model(path).net))
    o = random_game_observations(SMALL, 1, 2)[4]
    world = sample_world(o, random.Random(0))
    rows = decision_rows(o, o.legal_actions)
    with_cards = privileged_rows(rows, world, o.player, 1.0)
    assert np.array_equal(scores(started.net, with_cards), scores(load_model(path).net, rows))


def test_train_dmc_warns_when_it_saves_before_the_fade_is_over(tmp_path: Path) -> None:
    out = tmp_path / "m.pt"
    base = ["train", f"{SPEC},privileged=32", "--vs", "self,greedy", "--lowest-rank", "10"]
    base += ["--seed", "3", "--out", str(out), "--interval", "8", "--eval-games", "2", "--no-plot"]
    early = runner.invoke(app, [*base, "--games", "16"])
    assert early.exit_code == 0, early.output
    assert "warning: saved before the privileged inputs faded out (coefficient 0.5000" in (
        early.stderr
    )
    assert load_model(out).meta["privileged_coefficient"] == 0.5
    done = runner.invoke(app, [*base, "--games", "40", "--resume"])
    assert done.exit_code == 0, done.output
    assert "warning" not in done.stderr
    model = load_model(out)
    assert model.meta["privileged_coefficient"] == 0.0 and model.meta["episodes"] == 40
    played = runner.invoke(
        app, ["match", f"dmc:path={out}", "greedy", "-n", "2", "--lowest-rank", "10", "-j", "1"]
    )
    assert played.exit_code == 0, played.output
