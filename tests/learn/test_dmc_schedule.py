"""DMC's training schedule in the library (durak.learn.dmc.schedule): evaluations every
interval and at the goal on the evaluation seed stream, the CSV, the saved model and
checkpoint; and the checkpoint's format, which runs started before issue 38's move resume
from."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from tests.support.extras import require_extra

torch = require_extra("torch")

from durak.learn.dmc.learner import CHECKPOINT_FORMAT, DmcTrainer, checkpoint_seed  # noqa: E402
from durak.learn.dmc.net import load_model  # noqa: E402
from durak.learn.dmc.schedule import (  # noqa: E402
    CSV_COLUMNS,
    DmcPlan,
    DmcSchedule,
    EvaluationCsv,
    read_evaluations,
)
from durak.learn.dmc.settings import DmcSettings  # noqa: E402
from durak.rules import Rules  # noqa: E402
from durak.seeding import derive_seed  # noqa: E402

A = TypeVar("A")
R = TypeVar("R")

SMALL = Rules(lowest_rank=10)
TINY = DmcSettings(round=8, chunk=4, hidden=16, layers=2, batch=64, epsilon=0.2)


class Inline:
    """Actor tasks run in this process, when the round waits for them."""

    def start(self, fn: Callable[[A], R], args: Sequence[A]) -> Callable[[], list[R]]:
        return lambda: [fn(a) for a in args]


class Matches:
    """A :class:`~durak.learn.dmc.schedule.Match` that records its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], int, int]] = []

    def __call__(self, specs: list[str], games: int, seed: int) -> float:
        assert Path(specs[0].removeprefix("dmc:path=")).exists()  # the probe model is there
        self.calls.append((specs, games, seed))
        return 0.25 * len(self.calls)


def test_the_schedule_evaluates_every_interval_and_at_the_goal(tmp_path: Path) -> None:
    out = tmp_path / "m.pt"
    plan = DmcPlan(24, None, 16, 3, out, tmp_path / "m.csv")
    trainer = DmcTrainer(SMALL, ["self", "lowest"], 5, TINY)
    matches = Matches()
    schedule = DmcSchedule(trainer, plan, matches, {"command": "test"})
    log = EvaluationCsv(plan.csv_path, append=False)
    steps = list(schedule.rounds(Inline(), log))
    log.close()
    # Rounds of 8 episodes: 8, 16 (an interval), 24 (the goal).
    assert [s.stats.episodes for s in steps] == [8, 16, 24]
    assert [s.row is not None for s in steps] == [False, True, True]
    probe = f"dmc:path={out.with_name('m.pt.eval')}"
    evaluation = [
        ([probe, "greedy"], 3, derive_seed(5, -7)),
        ([probe, "lowest"], 3, derive_seed(5, -7)),
    ]
    assert matches.calls == evaluation * 2
    assert not out.with_name("m.pt.eval").exists()
    rows = read_evaluations(plan.csv_path)
    assert plan.csv_path.read_text().splitlines()[0] == ",".join(CSV_COLUMNS)
    assert [(r["episodes"], r["win_greedy"], r["win_lowest"]) for r in rows] == [
        (16, 0.25, 0.5),
        (24, 0.75, 1.0),
    ]
    assert schedule.done and not out.exists()  # the caller saves
    schedule.save()
    assert load_model(out).meta["command"] == "test" and load_model(out).meta["episodes"] == 24
    again = DmcTrainer(SMALL, ["self", "lowest"], 5, TINY)
    again.load_checkpoint(plan.checkpoint)
    assert (again.episodes, again.rounds, again.samples) == (24, 3, trainer.samples)
    assert checkpoint_seed(plan.checkpoint) == 5


def test_an_hours_goal_stops_the_schedule(tmp_path: Path) -> None:
    trainer = DmcTrainer(SMALL, ["self"], 6, TINY)
    plan = DmcPlan(None, 1e-9, 1000, 2, tmp_path / "m.pt", tmp_path / "m.csv")
    matches = Matches()
    log = EvaluationCsv(plan.csv_path, append=False)
    steps = list(DmcSchedule(trainer, plan, matches, {}).rounds(Inline(), log))
    log.close()
    assert len(steps) == 1 and steps[0].row is not None  # the goal evaluates too
    assert len(matches.calls) == 2


def test_a_checkpoint_keeps_the_format_runs_before_the_move_wrote(tmp_path: Path) -> None:
    # A run started before issue 38's move (a plain dict of tensors and plain data, under
    # this format, version and keys) must resume with this code: the format is not changed.
    trainer = DmcTrainer(SMALL, ["self"], 4, TINY)
    path = tmp_path / "c.ckpt"
    trainer.save_checkpoint(path)
    data: dict[str, Any] = torch.load(path, weights_only=True)  # plain data only
    assert (data["format"], data["version"]) == (CHECKPOINT_FORMAT, 2)
    assert set(data) == {
        "checksum", "counters", "encoding", "format", "hidden", "identity", "optimizer",
        "row_size", "rows", "rules", "state_dict", "targets", "version",
    }  # fmt: skip
    assert set(data["identity"]) == {"opponents", "rules", "seed", "settings"}
