"""The dataset folder's small readers (issue 65's mutation run of ``durak.dataset``): the
seed a resume takes from the manifest, and the line naming how two runs differ."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from durak.dataset.format import write_manifest
from durak.dataset.store import _mismatch, manifest_seed


@pytest.mark.parametrize(
    ("recorded", "seed"), [(7, 7), (0, 0), ("7", None), (True, None), (7.0, None), (None, None)]
)
def test_the_seed_to_resume_with_is_a_recorded_integer_only(
    recorded: object, seed: int | None, tmp_path: Path
) -> None:
    write_manifest(tmp_path, {"seed": recorded}, [])
    assert manifest_seed(tmp_path) == seed


def test_no_manifest_is_no_seed(tmp_path: Path) -> None:
    assert manifest_seed(tmp_path) is None
    assert manifest_seed(tmp_path / "missing") is None


@pytest.mark.parametrize(
    ("theirs", "mine", "line"),
    [
        ({"a": 1, "b": 2}, {"a": 1, "b": 3}, "the dataset has b 2, the command 3"),
        ({"a": None}, {}, "the dataset has a None, the command has no a"),
        ({}, {"a": None}, "the dataset has no a, the command has a None"),
        ({"a": 1}, {"a": 1}, "the runs differ"),
    ],
)
def test_the_first_field_that_differs_is_named_an_absent_one_as_absent(
    theirs: dict[str, Any], mine: dict[str, Any], line: str
) -> None:
    assert _mismatch(theirs, mine) == line
