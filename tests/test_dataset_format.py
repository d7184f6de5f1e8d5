"""A dataset's files read as hostile input, in this process (issue 65's second pass over
``durak.dataset``): every way a manifest, an entry of it or a shard's files can fail to be
what the run wrote is refused with the line that names it, and nothing else is."""

from __future__ import annotations

import errno
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

import durak.dataset.format as fmt
from durak.dataset.format import (
    FORMAT,
    MANIFEST,
    Shard,
    read_manifest,
    read_shard,
    shard_paths,
    table_description,
)
from durak.dataset.run import DatasetPlan
from durak.files import FileError
from durak.rules import Rules
from tests.support.dataset_files import Written, copy_of, refusal, write_small

PLAN = DatasetPlan(Rules(), ("random", "greedy"), seed=3, games=5, shard_games=2)
SUMS = ["a" * 64, "b" * 64]
ENTRY = {"index": 0, "games": 2, "decisions": 30, "sha256": SUMS}


def test_a_whole_entry_is_read_as_listed() -> None:
    assert Shard.from_json(ENTRY) == Shard(0, 2, 30, (SUMS[0], SUMS[1]))
    assert Shard.from_json(ENTRY).to_json() == ENTRY


@pytest.mark.parametrize(
    "entry",
    [
        [ENTRY],
        {k: v for k, v in ENTRY.items() if k != "index"},
        {**ENTRY, "games": True},
        {**ENTRY, "decisions": "30"},
        {**ENTRY, "sha256": "ab"},
        {**ENTRY, "sha256": SUMS[:1]},
        {**ENTRY, "sha256": [*SUMS, "c" * 64]},
        {**ENTRY, "sha256": [SUMS[0], 7]},
        {**ENTRY, "sha256": [*SUMS, 7]},
    ],
)
def test_an_entry_that_is_not_whole_is_refused_as_listed(entry: object) -> None:
    with pytest.raises(ValueError) as caught:
        Shard.from_json(entry)
    assert str(caught.value) == f"a bad shard entry: {entry!r}"


def manifest_file(folder: Path, content: bytes | object) -> Path:
    """``folder``'s manifest holding ``content`` (bytes as they are, else as JSON)."""
    folder.mkdir(exist_ok=True)
    raw = content if isinstance(content, bytes) else json.dumps(content).encode()
    (folder / MANIFEST).write_bytes(raw)
    return folder / MANIFEST


RUN = {"games": 5, "shard_games": 2}


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"{not json", "not a dataset manifest (not JSON)"),
        (b"\xff\xfe", "not a dataset manifest (not JSON)"),
        (b"[" * 100_000, "not a dataset manifest (not JSON)"),
        ([], f"not a {FORMAT} manifest"),
        ({"format": "other", "run": RUN}, f"not a {FORMAT} manifest"),
        ({"run": RUN}, f"not a {FORMAT} manifest"),
        ({"format": FORMAT}, "the manifest records no run"),
        ({"format": FORMAT, "run": [RUN]}, "the manifest records no run"),
        ({"format": FORMAT, "run": RUN, "shards": {"0": ENTRY}}, "the manifest lists no shards"),
        ({"format": FORMAT, "run": RUN, "shards": [ENTRY, 3]}, "a bad shard entry: 3"),
    ],
)
def test_a_manifest_that_is_not_a_datasets_is_refused_naming_it(
    content: bytes | object, reason: str, tmp_path: Path
) -> None:
    path = manifest_file(tmp_path / "d", content)
    with pytest.raises(FileError) as caught:
        read_manifest(tmp_path / "d")
    assert str(caught.value) == f"{path}: {reason}"


def test_a_manifest_without_shards_lists_none_and_no_manifest_is_none(tmp_path: Path) -> None:
    manifest_file(tmp_path / "d", {"format": FORMAT, "run": RUN})
    found = read_manifest(tmp_path / "d")
    assert found is not None and found.run == RUN and found.shards == ()
    assert read_manifest(tmp_path / "none") is None


def test_the_run_described_in_a_table_drops_the_layout_and_the_games_drop_the_policy() -> None:
    run = {"games": 5, "shard_games": 2, "seed": 3, "policy": "x", "agents": ("a", "b")}
    assert table_description(run, "decisions") == {
        "seed": 3,
        "policy": "x",
        "agents": ["a", "b"],
        "table": "decisions",
    }
    assert table_description(run, "games") == {"seed": 3, "agents": ["a", "b"], "table": "games"}


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Written:
    return write_small(tmp_path_factory)


def test_every_entry_of_a_dataset_as_written_is_borne_out(
    written: Written,
) -> None:
    folder, run, shards = written
    for shard in shards:
        files = read_shard(folder, run, shard)
        assert (files.decisions, files.games) == tuple(p.read_bytes() for p in shard_paths(
            folder, shard.index
        ))  # fmt: skip


def test_an_entry_outside_the_layout_is_refused_before_any_file_is_read(
    written: Written,
) -> None:
    folder, run, shards = written
    past = Shard(3, 1, 0, shards[2].sha256)
    assert refusal(folder, run, past) == (
        f"{shard_paths(folder, 3)[0]}: is not a file of this run (its index is past the last)"
    )
    before = Shard(-1, 2, 0, shards[0].sha256)
    assert refusal(folder, run, before).endswith(
        "is not a file of this run (its index is past the last)"
    )
    short = Shard(2, 2, shards[2].decisions, shards[2].sha256)
    assert refusal(folder, run, short) == (
        f"{shard_paths(folder, 2)[0]}: holds 1 games, not the 2 listed"
    )


def test_a_missing_or_unreadable_file_is_named(written: Written, tmp_path: Path) -> None:
    _, run, shards = written
    copy = copy_of(written, tmp_path)
    games = shard_paths(copy, 0)[1]
    games.unlink()
    assert refusal(copy, run, shards[0]) == f"{games}: is missing"
    games.mkdir()
    assert (
        refusal(copy, run, shards[0])
        == f"{games}: is a directory, not a regular file; refused unread"
    )
    games.rmdir()
    games.symlink_to(tmp_path / "nowhere")
    assert refusal(copy, run, shards[0]).startswith(f"{games}: cannot read: ")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"12345", "grew past the 4 bytes a shard may hold"),
        (b"1234", "does not match the SHA-256 the manifest lists"),  # read whole, then checked
    ],
)
def test_a_file_past_a_shards_size_while_read_is_refused_one_of_it_is_read(
    data: bytes, reason: str, written: Written, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, run, shards = written
    monkeypatch.setattr(fmt, "MAX_SHARD_BYTES", 4)
    read: Callable[[Path, int], io.BytesIO] = lambda path, limit: io.BytesIO(data)  # noqa: E731
    monkeypatch.setattr(fmt, "open_source", read)
    assert refusal(folder, run, shards[0]) == f"{shard_paths(folder, 0)[0]}: {reason}"


class _Failing(io.BytesIO):
    """A file whose read fails as a disk's can."""

    def __init__(self, error: OSError) -> None:
        super().__init__()
        self.error = error

    def read(self, size: int | None = -1) -> bytes:
        raise self.error


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (OSError(errno.EIO, "Input/output error"), "Input/output error"),
        (OSError("the device went away"), "the device went away"),
    ],
)
def test_a_read_that_fails_is_named_with_the_system_s_reason(
    error: OSError, reason: str, written: Written, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, run, shards = written
    monkeypatch.setattr(fmt, "open_source", lambda path, limit: _Failing(error))
    assert refusal(folder, run, shards[0]) == (
        f"{shard_paths(folder, 0)[0]}: cannot read: {reason}"
    )


def test_a_file_of_another_digest_is_named(
    written: Written,
) -> None:
    folder, run, shards = written
    for k, path in enumerate(shard_paths(folder, 0)):
        sums = list(shards[0].sha256)
        sums[k] = "0" * 64
        other = Shard(0, shards[0].games, shards[0].decisions, (sums[0], sums[1]))
        assert refusal(folder, run, other) == (
            f"{path}: does not match the SHA-256 the manifest lists"
        )


def test_files_that_disagree_with_their_entry_or_their_run_are_named(
    written: Written,
) -> None:
    folder, run, shards = written
    decisions = shard_paths(folder, 0)[0]
    more = Shard(0, shards[0].games, shards[0].decisions + 1, shards[0].sha256)
    assert refusal(folder, run, more) == (
        f"{decisions}: holds {shards[0].decisions} rows, not the {shards[0].decisions + 1} listed"
    )
    other = {**run, "seed": run["seed"] + 1}
    assert refusal(folder, other, shards[0]) == (
        f"{decisions}: was written by another run (its description differs)"
    )


def test_a_file_that_is_not_parquet_is_named(written: Written, tmp_path: Path) -> None:
    _, run, shards = written
    copy = copy_of(written, tmp_path)
    games = shard_paths(copy, 0)[1]
    games.write_bytes(b"not parquet")
    sums = (shards[0].sha256[0], fmt.digest(b"not parquet"))
    entry = Shard(0, shards[0].games, shards[0].decisions, sums)
    assert refusal(copy, run, entry) == f"{games}: is not a Parquet file of a dataset"
