"""The dataset folder's small readers and its writer, in this process (issue 65's mutation
run of ``durak.dataset``): the seed a resume takes from the manifest, the layout a run's
record states, the line naming how two runs differ, and ``write_dataset``'s modes, shards
and backend."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from durak.dataset.format import Layout, read_manifest, write_manifest
from durak.dataset.run import DatasetPlan, write_dataset
from durak.dataset.store import _mismatch, manifest_seed
from durak.files import FileError
from durak.rules import Rules


@pytest.mark.parametrize(
    ("recorded", "seed"), [(7, 7), (0, 0), ("7", None), (True, None), (7.0, None), (None, None)]
)
def test_the_seed_to_resume_with_is_a_recorded_integer_only(
    recorded: object, seed: int | None, tmp_path: Path
) -> None:
    write_manifest(tmp_path, {"seed": recorded}, [])
    assert manifest_seed(tmp_path) == seed


def test_a_runs_layout_is_two_whole_numbers_of_at_least_one() -> None:
    assert Layout.of_run({"games": 10, "shard_games": 3, "seed": 1}) == Layout(10, 3)
    assert Layout.of_run({"games": 1, "shard_games": 1}) == Layout(1, 1)


@pytest.mark.parametrize(
    "run",
    [
        {},
        {"games": 10},
        {"shard_games": 3},
        {"games": 0, "shard_games": 3},
        {"games": 10, "shard_games": 0},
        {"games": True, "shard_games": 3},
        {"games": 10, "shard_games": True},
        {"games": "10", "shard_games": 3},
        {"games": 10.0, "shard_games": 3},
    ],
)
def test_a_run_that_states_no_whole_layout_is_refused(run: dict[str, object]) -> None:
    with pytest.raises(ValueError) as caught:
        Layout.of_run(run)
    assert str(caught.value) == "the run records no games and games per file"


def test_the_games_of_a_shard_are_its_slice_and_none_outside() -> None:
    layout = Layout(10, 3)
    assert layout.shard_count == 4
    assert [layout.games_of(k) for k in range(4)] == [
        range(0, 3), range(3, 6), range(6, 9), range(9, 10)
    ]  # fmt: skip
    assert layout.games_of(-1) == layout.games_of(4) == range(0)
    assert Layout(9, 3).shard_count == 3 and Layout(9, 3).games_of(2) == range(6, 9)


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


class _Recording:
    """A backend that builds the shards it is handed here, and records their indices."""

    def __init__(self) -> None:
        self.handed: list[int] = []

    def capacity(self) -> int:
        return 2

    def start(self, fn: Callable[[Any], Any], args: Sequence[Any]) -> Callable[[], list[Any]]:
        self.handed += [task.index for task in args]
        results = [fn(task) for task in args]
        return lambda: results


PLAN = DatasetPlan(Rules(), ("random", "greedy"), seed=3, games=5, shard_games=2)


def _bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.*")}


def test_write_dataset_returns_the_manifest_s_shards_in_order(tmp_path: Path) -> None:
    shards = write_dataset(PLAN, tmp_path / "d")
    found = read_manifest(tmp_path / "d")
    assert found is not None and found.run == PLAN.description()
    assert shards == list(found.shards)
    assert [s.index for s in shards] == [0, 1, 2]
    assert sum(s.games for s in shards) == 5


def test_write_dataset_refuses_an_existing_dataset_unless_told(tmp_path: Path) -> None:
    write_dataset(PLAN, tmp_path / "d")
    with pytest.raises(FileError, match="holds a dataset already"):
        write_dataset(PLAN, tmp_path / "d")
    assert write_dataset(PLAN, tmp_path / "d", "force") == list(
        read_manifest(tmp_path / "d").shards  # type: ignore[union-attr]
    )


def test_write_dataset_builds_on_the_backend_it_is_given_the_same_bytes(
    tmp_path: Path,
) -> None:
    here = write_dataset(PLAN, tmp_path / "here")
    backend = _Recording()
    there = write_dataset(PLAN, tmp_path / "there", backend=backend)  # type: ignore[arg-type]
    assert sorted(backend.handed) == [0, 1, 2]
    assert there == here
    assert _bytes(tmp_path / "there") == _bytes(tmp_path / "here")
    again = write_dataset(PLAN, tmp_path / "there", "resume", backend)  # type: ignore[arg-type]
    assert again == here and sorted(backend.handed) == [0, 1, 2]  # nothing left to build
