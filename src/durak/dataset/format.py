"""The format of a dataset's folder, written and read here only: the names of its files,
the layout of games into shards, the manifest, and the check of a shard against it.

Layout of ``DIR``: the decisions, one file per shard, ``part-00000.parquet``,
``part-00001.parquet``, ... (names sort in game order); the games' public records in
``DIR/_games/`` under the same names; and ``DIR/_manifest.json``: ``format``, the ``run``
(what :func:`~durak.dataset.shards.describe` records, plus the :class:`Layout`: ``games``
and ``shard_games``) and ``shards``, every finished shard with its counts and the SHA-256
of its two files.

A manifest is a claim, not a fact: :func:`read_shard` believes an entry only if the entry
is in the run's layout (its index and its number of games), and the files, read bounded and
never blocking (:func:`durak.files.open_source`: a FIFO or a device is refused unread), have
the entry's SHA-256, its counts of games and decisions, the games of its range and the
run's description in their metadata.

This module imports no pyarrow at import time (only :func:`read_shard` needs it), so that
``durak.learn`` (``dmc:expert=DIR``) may import it without the rest of
:mod:`durak.dataset`; tests/project/test_layers.py holds that rule.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from durak.extras import needs
from durak.files import FileError, open_source, read_source, write_atomic

__all__ = [
    "FORMAT",
    "GAMES",
    "MANIFEST",
    "MAX_MANIFEST_BYTES",
    "MAX_SHARD_BYTES",
    "VERSION",
    "Layout",
    "Manifest",
    "Shard",
    "ShardBytes",
    "ShardError",
    "digest",
    "part_name",
    "read_manifest",
    "read_shard",
    "shard_paths",
    "table_description",
    "write_manifest",
]

#: The ``format`` and ``version`` of every file's ``durak`` metadata and of the manifest.
FORMAT = "durak-dataset"
VERSION = 1
#: The manifest's name, and the folder of the games table, inside the dataset's folder.
MANIFEST = "_manifest.json"
GAMES = "_games"
#: The largest manifest read back.
MAX_MANIFEST_BYTES = 64 << 20
#: The largest shard file written or read back (a shard is built in memory: a bigger one
#: needs a smaller ``--shards``).
MAX_SHARD_BYTES = 4 << 30
#: The keys of a run's record that are its :class:`Layout`, not its files' description.
_LAYOUT_KEYS = ("games", "shard_games")


def part_name(index: int) -> str:
    """The file name of shard ``index``: ``part-00007.parquet`` (more digits past 99999)."""
    return f"part-{index:05d}.parquet"


def shard_paths(folder: Path, index: int) -> tuple[Path, Path]:
    """The two files of shard ``index`` in ``folder``: its decisions, its games."""
    name = part_name(index)
    return folder / name, folder / GAMES / name


def digest(data: bytes) -> str:
    """The SHA-256 of ``data`` as the manifest records it (hex)."""
    return hashlib.sha256(data).hexdigest()


@attrs.frozen
class Layout:
    """``games`` games, ``shard_games`` to a shard: shard ``k`` holds games
    ``k * shard_games`` to ``(k + 1) * shard_games - 1`` (the last one the rest)."""

    games: int
    shard_games: int

    @classmethod
    def of_run(cls, run: Mapping[str, Any]) -> Layout:
        """The layout a run's record states; ``ValueError`` if it states none."""
        values = [run.get(k) for k in _LAYOUT_KEYS]
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in values):
            raise ValueError("the run records no games and games per file")
        games, shard_games = (v for v in values if isinstance(v, int))
        return cls(games, shard_games)

    def to_json(self) -> dict[str, int]:
        """The layout's part of a run's record."""
        return {"games": self.games, "shard_games": self.shard_games}

    @property
    def shard_count(self) -> int:
        """How many shards: ``games / shard_games``, rounded up."""
        return -(-self.games // self.shard_games)

    def games_of(self, index: int) -> range:
        """The games of shard ``index`` (empty outside the layout)."""
        if not 0 <= index < self.shard_count:
            return range(0)
        first = index * self.shard_games
        return range(first, min(first + self.shard_games, self.games))


@attrs.frozen
class Shard:
    """A manifest's entry: shard ``index``, ``games`` games, ``decisions`` rows, the
    SHA-256 of its files (decisions, games)."""

    index: int
    games: int
    decisions: int
    sha256: tuple[str, str]

    def to_json(self) -> dict[str, Any]:
        """The shard as the manifest lists it."""
        return {
            "index": self.index,
            "games": self.games,
            "decisions": self.decisions,
            "sha256": list(self.sha256),
        }

    @classmethod
    def from_json(cls, item: object) -> Shard:
        """The entry ``item`` of a manifest; ``ValueError`` if it is not one."""
        bad = ValueError(f"a bad shard entry: {item!r}")
        if not isinstance(item, dict):
            raise bad
        numbers = [item.get(k) for k in ("index", "games", "decisions")]
        sums = item.get("sha256")
        ints = [n for n in numbers if isinstance(n, int) and not isinstance(n, bool)]
        sums = sums if isinstance(sums, list) else []
        texts = [t for t in sums if isinstance(t, str)]
        if len(ints) != 3 or len(texts) != 2 or len(sums) != 2:
            raise bad
        return cls(ints[0], ints[1], ints[2], (texts[0], texts[1]))


@attrs.frozen
class Manifest:
    """A dataset's manifest as read: the ``run`` it records, its ``shards`` (as listed,
    not yet checked against the files: see :func:`read_shard`) and ``sha256``, the
    SHA-256 of its bytes."""

    run: dict[str, Any]
    shards: tuple[Shard, ...]
    sha256: str


def read_manifest(folder: Path) -> Manifest | None:
    """The manifest of ``folder``, ``None`` if there is none; :class:`FileError` (naming
    the manifest) if it cannot be read or is not a dataset's manifest."""
    path = folder / MANIFEST
    if not path.exists():
        return None
    raw = read_source(path, MAX_MANIFEST_BYTES)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise FileError(path, "not a dataset manifest (not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise FileError(path, f"not a {FORMAT} manifest")
    run, shards = data.get("run"), data.get("shards", [])
    if not isinstance(run, dict):
        raise FileError(path, "the manifest records no run")
    if not isinstance(shards, list):
        raise FileError(path, "the manifest lists no shards")
    try:
        listed = tuple(Shard.from_json(item) for item in shards)
    except ValueError as e:
        raise FileError(path, str(e)) from None
    return Manifest(run, listed, digest(raw))


def write_manifest(folder: Path, run: Mapping[str, Any], shards: list[Shard]) -> None:
    """Write the manifest of ``run`` listing ``shards`` into ``folder``, atomically."""
    manifest = {"format": FORMAT, "run": dict(run), "shards": [s.to_json() for s in shards]}
    text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    write_atomic(folder / MANIFEST, lambda f: f.write(text.encode("utf-8")), "replace")


class ShardError(FileError):
    """A manifest's entry the files do not bear out: ``str(e)`` is ``"PATH: reason"``."""


@attrs.frozen(eq=False)
class ShardBytes:
    """The two files of a checked shard: its decisions, its games (Parquet bytes)."""

    decisions: bytes
    games: bytes


def _read(path: Path) -> bytes:
    """The bytes of ``path``: bounded, never blocking; :class:`ShardError` otherwise."""
    if not os.path.lexists(path):
        raise ShardError(path, "is missing")
    try:
        with open_source(path, MAX_SHARD_BYTES) as f:
            data = f.read(MAX_SHARD_BYTES + 1)
    except FileError as e:
        raise ShardError(path, e.reason) from None
    except OSError as e:
        raise ShardError(path, f"cannot read: {e.strerror or e}") from None
    if len(data) > MAX_SHARD_BYTES:
        raise ShardError(path, f"grew past the {MAX_SHARD_BYTES:,} bytes a shard may hold")
    return data


def read_shard(folder: Path, run: Mapping[str, Any], shard: Shard) -> ShardBytes:
    """The files of the manifest's entry ``shard`` of ``run`` in ``folder``, once they bear
    it out (see the module doc); :class:`ShardError` naming the file and the first thing
    that disagrees: an index or a number of games outside the run's layout, a file that is
    missing, not a regular file, too big, of another SHA-256, or whose rows, games or
    description are not the entry's and the run's."""
    paths = shard_paths(folder, shard.index)
    games = Layout.of_run(run).games_of(shard.index)
    if not games:
        raise ShardError(paths[0], "is not a file of this run (its index is past the last)")
    if shard.games != len(games):
        raise ShardError(paths[0], f"holds {len(games)} games, not the {shard.games} listed")
    files = ShardBytes(*(_read(p) for p in paths))
    for path, data, expected in zip(
        paths, (files.decisions, files.games), shard.sha256, strict=True
    ):
        if digest(data) != expected:
            raise ShardError(path, "does not match the SHA-256 the manifest lists")
    _check_tables(paths, files, run, shard, games)
    return files


def table_description(run: Mapping[str, Any], table: str) -> dict[str, Any]:
    """What a file of ``table`` (``decisions`` or ``games``) of ``run`` records under its
    ``durak`` metadata key: the run's description without its layout, ``policy`` for the
    decisions only (the games table has no such column), and the table's name."""
    plain = json.loads(json.dumps(dict(run)))  # tuples as JSON reads them back: lists
    dropped = (*_LAYOUT_KEYS, *(("policy",) if table == "games" else ()))
    return {**{k: v for k, v in plain.items() if k not in dropped}, "table": table}


def _check_tables(
    paths: tuple[Path, Path], files: ShardBytes, run: Mapping[str, Any], shard: Shard, games: range
) -> None:
    """:class:`ShardError` unless the files are Parquet of ``run`` holding ``games`` and
    ``shard.decisions`` decisions."""
    with needs("reading a durak dataset", "dataset"):
        import pyarrow as pa  # noqa: PLC0415 - only a shard's check needs pyarrow
        import pyarrow.compute as pc  # noqa: PLC0415
        import pyarrow.parquet as pq  # noqa: PLC0415

    tables = [
        (paths[0], files.decisions, "decisions", shard.decisions),
        (paths[1], files.games, "games", len(games)),
    ]
    for path, data, table, rows in tables:
        try:
            meta = pq.read_metadata(pa.BufferReader(data))
            described = json.loads((meta.metadata or {}).get(b"durak", b"null"))
            column = pq.read_table(pa.BufferReader(data), columns=["game"]).column("game")
            if not pa.types.is_integer(column.type):  # a game is a number, or no game
                raise ValueError(column.type)
            bounds = pc.min_max(column).as_py()
        except (pa.ArrowException, ValueError, KeyError):
            raise ShardError(path, "is not a Parquet file of a dataset") from None
        if described != table_description(run, table):
            raise ShardError(path, "was written by another run (its description differs)")
        if meta.num_rows != rows:
            raise ShardError(path, f"holds {meta.num_rows} rows, not the {rows} listed")
        # the games table lists each game of the range once, in order; the decisions are
        # of those games only (a game forfeited at its first move has none)
        if table == "games":
            right = column.to_pylist() == list(games)
        else:
            right = rows == 0 or (bounds["min"] >= games.start and bounds["max"] < games.stop)
        if not right:
            raise ShardError(path, f"does not hold games {games.start} to {games.stop - 1}")
