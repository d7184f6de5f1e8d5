"""The dataset folder's small readers and its writer, in this process (issue 65's mutation
run of ``durak.dataset``): the seed a resume takes from the manifest, the layout a run's
record states, the line naming how two runs differ, ``write_dataset``'s modes, shards and
backend, and the folder a run writes (:class:`~durak.dataset.store.DatasetDir`): the
shards it keeps or clears, the files it leaves alone, what it refuses, and its lock."""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

import durak.dataset.store as store_module
from durak.dataset.format import GAMES, Layout, Shard, read_manifest, write_manifest
from durak.dataset.run import DatasetPlan, write_dataset
from durak.dataset.shards import ShardFiles
from durak.dataset.store import DatasetDir, Mode, _mismatch, manifest_seed
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


# DatasetDir, opened in this process: what it keeps, clears and refuses.


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """PLAN's dataset, written once for the test."""
    write_dataset(PLAN, tmp_path / "d")
    return tmp_path / "d"


def _parts(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("part-*"))


def test_replacing_a_dataset_keeps_none_of_its_shards(dataset: Path) -> None:
    run = PLAN.description()
    with DatasetDir(dataset, run, "force") as store:
        assert store.done == {} and store.notes == []
        assert _parts(dataset) == []
        assert read_manifest(dataset).shards == ()  # type: ignore[union-attr]


def test_resuming_keeps_the_shards_the_manifest_lists_and_their_files(dataset: Path) -> None:
    listed = read_manifest(dataset).shards  # type: ignore[union-attr]
    before = _parts(dataset)
    with DatasetDir(dataset, PLAN.description(), "resume") as store:
        assert [store.done[k] for k in sorted(store.done)] == list(listed)
        assert _parts(dataset) == before and len(before) == 6


@pytest.mark.parametrize("mode", ["force", "resume"])
def test_opening_a_dataset_keeps_files_it_did_not_write(dataset: Path, mode: Mode) -> None:
    # A dataset card beside the shards, and folders named as a shard or a temporary one.
    (dataset / "README.md").write_text("a card")
    (dataset / "part-notes").mkdir()
    (dataset / GAMES / ".part-00000.parquet.keep").mkdir()
    with DatasetDir(dataset, PLAN.description(), mode):
        pass
    assert (dataset / "README.md").read_text() == "a card"
    assert (dataset / "part-notes").is_dir()
    assert (dataset / GAMES / ".part-00000.parquet.keep").is_dir()


def test_an_entry_listed_twice_and_once_wrong_is_written_again(dataset: Path) -> None:
    found = read_manifest(dataset)
    assert found is not None
    first = found.shards[0]
    wrong = Shard(0, first.games, first.decisions + 1, first.sha256)
    write_manifest(dataset, found.run, [first, wrong, *found.shards[1:]])
    with DatasetDir(dataset, found.run, "resume") as store:
        assert store.notes == [
            f"part-00000.parquet: holds {first.decisions} rows, not the "
            f"{first.decisions + 1} listed; writing part-00000.parquet again"
        ]
        assert sorted(store.done) == [1, 2]


def test_a_games_table_folder_that_is_a_file_is_refused(dataset: Path) -> None:
    shutil.rmtree(dataset / GAMES)
    (dataset / GAMES).write_text("")
    with pytest.raises(FileError) as caught:
        DatasetDir(dataset, PLAN.description(), "force")
    assert str(caught.value) == f"{dataset / GAMES}: is not a directory; the games table's folder"


@pytest.mark.parametrize(
    ("error", "reason"),
    [(OSError(errno.ENOSPC, "No space left on device"), "No space left on device"),
     (OSError("the disk went away"), "the disk went away")],
)  # fmt: skip
def test_a_folder_that_cannot_be_made_is_named_with_the_system_s_reason(
    error: OSError, reason: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fails(self: Path, *args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(Path, "mkdir", fails)
    with pytest.raises(FileError) as caught:
        DatasetDir(tmp_path / "d", PLAN.description(), "new")
    assert str(caught.value) == f"{tmp_path / 'd'}: cannot create it: {reason}"


def test_a_folder_it_may_not_write_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As root every folder is writable: what the system answers is what is checked.
    monkeypatch.setattr(os, "access", lambda path, mode, **kwargs: False)
    with pytest.raises(FileError) as caught:
        DatasetDir(tmp_path, PLAN.description(), "new")
    assert str(caught.value) == f"{tmp_path}: the directory is not writable"


def test_without_flock_the_folder_opens_unlocked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "fcntl", None)
    with DatasetDir(tmp_path / "d", PLAN.description(), "new") as store:
        assert store.done == {}
    assert read_manifest(tmp_path / "d") is not None


def test_closing_twice_closes_the_lock_once(tmp_path: Path) -> None:
    store = DatasetDir(tmp_path / "d", PLAN.description(), "new")
    store.close()
    store.close()  # as __exit__ after an explicit close
    with DatasetDir(tmp_path / "d", PLAN.description(), "resume"):
        pass  # the lock was let go


def _files(index: int, size: int) -> ShardFiles:
    return ShardFiles(index, 1, 1, b"d" * size, b"g" * size)


def test_a_shard_file_of_the_most_bytes_allowed_is_written_one_more_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "MAX_SHARD_BYTES", 8)
    with DatasetDir(tmp_path / "d", PLAN.description(), "new") as store:
        store.commit(_files(0, 8))
        assert (tmp_path / "d" / "part-00000.parquet").read_bytes() == b"d" * 8
        with pytest.raises(FileError) as caught:
            store.commit(_files(1, 9))
        path = tmp_path / "d" / "part-00001.parquet"
        assert str(caught.value) == (
            f"{path}: would hold 9 bytes, more than the 8 a file may; write fewer --shards games"
        )
        assert not path.exists() and sorted(store.done) == [0]
