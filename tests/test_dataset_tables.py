"""A shard's Parquet tables read as hostile input, in this process (issue 65's second pass
over ``durak.dataset``): a table of other games, of games out of order or of the wrong
type, or without the run's description, is refused with the line that names it, and the
shards a run can write (none of its games' decisions included) are read."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

import durak.dataset.format as fmt
from durak.dataset.format import Shard, read_shard, shard_paths, table_description
from tests.support.dataset_files import Written, copy_of, refusal, write_small


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Written:
    return write_small(tmp_path_factory)


def planted(
    written: Written, tmp_path: Path, slot: int, games: Sequence[object], *, described: bool = True
) -> tuple[Path, Path, Shard]:
    """A copy whose shard 0 has, as its file ``slot`` (0: the decisions, 1: the games), a
    table of one ``game`` column holding ``games`` with the run's description (or no
    metadata at all), and the entry that lists it: its digest, and its rows."""
    import pyarrow as pa  # noqa: PLC0415 - the fixture requires the extra
    import pyarrow.parquet as pq  # noqa: PLC0415

    _, run, shards = written
    copy = copy_of(written, tmp_path)
    path = shard_paths(copy, 0)[slot]
    column = list(games) if games else pa.array([], pa.int64())  # typed when empty
    table = pa.table({"game": column})
    if described:
        text = json.dumps(table_description(run, ("decisions", "games")[slot])).encode()
        table = table.replace_schema_metadata({b"durak": text})
    sink = io.BytesIO()
    pq.write_table(table, sink, store_schema=described)
    path.write_bytes(sink.getvalue())
    sums = list(shards[0].sha256)
    sums[slot] = fmt.digest(sink.getvalue())
    rows = len(games) if slot == 0 else shards[0].decisions
    return copy, path, Shard(0, 2, rows, (sums[0], sums[1]))


def test_files_of_other_games_are_named(written: Written, tmp_path: Path) -> None:
    # Shard 1's files listed as shard 0's (same games count, same run): the games table
    # holds games 2 and 3, and the decisions are of those games, not of 0 and 1.
    _, run, shards = written
    copy = copy_of(written, tmp_path)
    for mine, theirs in zip(shard_paths(copy, 0), shard_paths(copy, 1), strict=True):
        os.replace(theirs, mine)
    entry = Shard(0, shards[1].games, shards[1].decisions, shards[1].sha256)
    assert refusal(copy, run, entry) == f"{shard_paths(copy, 0)[0]}: does not hold games 0 to 1"


def swapped(written: Written, tmp_path: Path, table: int, into: int) -> tuple[Path, Shard]:
    """A copy whose shard ``into`` has shard ``1 - into``'s file of ``table`` (0: the
    decisions, 1: the games), and the entry that lists it (its digest and rows)."""
    _, _, shards = written
    copy = copy_of(written, tmp_path)
    other = 1 - into
    os.replace(shard_paths(copy, other)[table], shard_paths(copy, into)[table])
    sums = list(shards[into].sha256)
    sums[table] = shards[other].sha256[table]
    decisions = shards[other if table == 0 else into].decisions
    return copy, Shard(into, shards[into].games, decisions, (sums[0], sums[1]))


def test_a_games_table_of_other_games_is_named(written: Written, tmp_path: Path) -> None:
    copy, entry = swapped(written, tmp_path, 1, 0)
    games = shard_paths(copy, 0)[1]
    assert refusal(copy, written[1], entry) == f"{games}: does not hold games 0 to 1"


def test_decisions_of_earlier_games_are_named(written: Written, tmp_path: Path) -> None:
    copy, entry = swapped(written, tmp_path, 0, 1)
    decisions = shard_paths(copy, 1)[0]
    assert refusal(copy, written[1], entry) == f"{decisions}: does not hold games 2 to 3"


@pytest.mark.parametrize("games", [[[0], [1]], [b"0", b"1"], ["0", "1"]], ids=str)
@pytest.mark.parametrize("slot", [0, 1], ids=["decisions", "games"])
def test_a_table_whose_games_are_not_numbers_is_no_datasets(
    games: list[object], slot: int, written: Written, tmp_path: Path
) -> None:
    # Its description and rows as the entry lists them: only its game column is wrong
    # (bytes or text once compared with the games' range raised a TypeError).
    copy, path, entry = planted(written, tmp_path, slot, games)
    assert refusal(copy, written[1], entry) == f"{path}: is not a Parquet file of a dataset"


@pytest.mark.parametrize(
    ("games", "why"),
    [([1, 0], "out of order"), ([0, 0], "one twice, one missing")],
)
def test_a_games_table_of_the_shard_s_games_but_not_each_once_in_order_is_named(
    games: list[int], why: str, written: Written, tmp_path: Path
) -> None:
    copy, path, entry = planted(written, tmp_path, 1, games)
    assert refusal(copy, written[1], entry) == f"{path}: does not hold games 0 to 1", why


def test_decisions_of_the_game_after_the_shard_s_last_are_named(
    written: Written, tmp_path: Path
) -> None:
    copy, path, entry = planted(written, tmp_path, 0, [0, 1, 2])
    assert refusal(copy, written[1], entry) == f"{path}: does not hold games 0 to 1"


def test_decisions_of_the_shard_s_first_and_last_games_are_read(
    written: Written, tmp_path: Path
) -> None:
    copy, path, entry = planted(written, tmp_path, 0, [0, 1, 1])
    assert read_shard(copy, written[1], entry).decisions == path.read_bytes()


def test_a_shard_without_decisions_is_read(written: Written, tmp_path: Path) -> None:
    # Both its games forfeited at their first move: no row, so no least or greatest game.
    copy, path, entry = planted(written, tmp_path, 0, [])
    assert entry.decisions == 0
    assert read_shard(copy, written[1], entry).decisions == path.read_bytes()


def test_a_parquet_file_without_metadata_was_written_by_another_run(
    written: Written, tmp_path: Path
) -> None:
    copy, path, entry = planted(written, tmp_path, 1, [0, 1], described=False)
    assert refusal(copy, written[1], entry) == (
        f"{path}: was written by another run (its description differs)"
    )


def test_an_arrow_error_of_any_kind_is_a_file_that_is_no_datasets(
    written: Written, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As a codec this build of pyarrow lacks would fail: not a ValueError.
    import pyarrow as pa  # noqa: PLC0415 - the fixture requires the extra
    import pyarrow.parquet as pq  # noqa: PLC0415

    def unsupported(*args: object, **kwargs: object) -> None:
        raise pa.ArrowNotImplementedError("Support for codec 'lzo' not built")

    folder, run, shards = written
    monkeypatch.setattr(pq, "read_metadata", unsupported)
    assert refusal(folder, run, shards[0]) == (
        f"{shard_paths(folder, 0)[0]}: is not a Parquet file of a dataset"
    )
