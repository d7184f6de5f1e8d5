"""``durak train LEARNER``: each learner's training declares its own option group, and an
option of another learner's group is one ``error:`` line with exit code 2 naming the option
and the learner, for every learner and every such option (generated from the groups, so a
new option is covered)."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from durak.cli.app import app
from durak.cli.commands.train.command import TRAININGS, training_of
from durak.cli.option_groups import option_names
from durak.learn.registry import learners

runner = CliRunner()


def _train_params() -> dict[str, Any]:
    group = typer.main.get_command(app)
    command = group.get_command(typer.Context(group), "train")  # type: ignore[attr-defined]
    return {p.name: p for p in command.params}


def _foreign() -> list[tuple[str, str, object]]:
    """(learner, option field, its default) for every option of another learner's group,
    and every shared option the learner's training refuses."""
    params = _train_params()
    cases = []
    for name, info in learners().items():
        own = training_of(info)
        names = [
            field
            for training in TRAININGS
            if training.options is not own.options
            for field in option_names(training.options)
        ]
        cases += [(name, field, params[field].default) for field in [*names, *own.refused]]
    return cases


def test_every_learner_has_options_another_learner_refuses() -> None:
    names = {name for name, _, _ in _foreign()}
    assert names == set(learners()), "a learner takes every option: no group of its own"


@pytest.mark.parametrize(("learner", "field", "default"), _foreign())
def test_an_option_of_another_learner_is_one_error_line(
    learner: str, field: str, default: object, tmp_path: Path
) -> None:
    param = _train_params()[field]
    flag = max(param.opts, key=len)
    # A value the option itself accepts: a choice not the default, or a number.
    if param.is_flag:
        value = []
    elif isinstance(default, enum.Enum):
        value = [str(list(type(default))[-1].value)]
    else:
        value = ["2"]
    # --out in a missing directory: should the option slip through, nothing is trained.
    out = tmp_path / "missing" / "model"
    args = ["train", learner, "--vs", "random", "--games", "4", "--out", str(out)]
    result = runner.invoke(app, [*args, flag, *value])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and result.stderr.count("\n") == 1, result.stderr
    assert errors[0].startswith(f"error: {flag}: not an option of durak train {learner} ")
    assert "Traceback" not in result.output and list(tmp_path.iterdir()) == []


def test_the_named_examples_are_refused() -> None:
    dmc = runner.invoke(app, ["train", "dmc", "--vs", "self", "-n", "8", "--out", "m.pt",
                              "--solve-endgame", "100"])  # fmt: skip
    assert dmc.exit_code == 2
    assert dmc.stderr == (
        "error: --solve-endgame: not an option of durak train dmc (only for dqn, qlearn)\n"
    )
    qlearn = runner.invoke(app, ["train", "qlearn", "--vs", "random", "-n", "8", "--out",
                                 "q.json", "--actors", "2"])  # fmt: skip
    assert qlearn.exit_code == 2
    assert qlearn.stderr.splitlines() == [
        "note: train --actors is deprecated and will be removed; use --jobs",
        "error: --jobs: not an option of durak train qlearn (only for dmc)",
    ]
