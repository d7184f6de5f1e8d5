"""The folder of a dataset: its shards, its manifest, and resuming it.

Layout of ``DIR``: the decisions, one file per shard, ``part-00000.parquet``,
``part-00001.parquet``, ... (names sort in game order), so ``pandas.read_parquet(DIR)``
reads them all; the games' public records in ``DIR/_games/`` under the same names; and
``DIR/_manifest.json``: the run (:func:`~durak.dataset.shards.describe`, the number of
games and of games per shard) and every finished shard with its counts and the SHA-256 of
its two files.  Readers of Parquet folders skip names that start with ``_`` or ``.``, so
they see the decisions only.

Every file is written atomically (:mod:`durak.files`), a shard's two files before the
manifest that lists it, so a shard is finished exactly when the manifest lists it and its
files still match; resuming keeps those and writes every other shard again, which gives the
bytes one uninterrupted run writes.  The folder is locked (``flock``) while a run writes it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import attrs

from durak.dataset.shards import FORMAT, ShardFiles
from durak.files import FileError, check_target, read_source, write_atomic

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # not POSIX: no lock
    fcntl = None

__all__ = ["GAMES", "MANIFEST", "DatasetDir", "Mode", "Shard", "manifest_seed", "part_name"]

#: The manifest's name, and the folder of the games table, inside the dataset's folder.
MANIFEST = "_manifest.json"
GAMES = "_games"
#: The largest manifest read back.
MAX_MANIFEST_BYTES = 64 << 20
#: ``new``: a folder that is missing or empty; ``force``: also replace a dataset there;
#: ``resume``: continue the dataset there (or start one).
Mode = Literal["new", "force", "resume"]


def part_name(index: int) -> str:
    """The file name of shard ``index``: ``part-00007.parquet`` (more digits past 99999)."""
    return f"part-{index:05d}.parquet"


@attrs.frozen
class Shard:
    """A finished shard: ``games`` games, ``decisions`` rows, its files' SHA-256."""

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


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_manifest(folder: Path) -> dict[str, Any] | None:
    """The manifest of ``folder`` as JSON, ``None`` if there is none;
    :class:`~durak.files.FileError` if it cannot be read or is not a dataset's."""
    path = folder / MANIFEST
    if not path.exists():
        return None
    try:
        data = json.loads(read_source(path, MAX_MANIFEST_BYTES).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise FileError(path, "not a dataset manifest (not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise FileError(path, f"not a {FORMAT} manifest")
    return data


def manifest_seed(folder: Path | str) -> int | None:
    """The master seed of the dataset in ``folder``, ``None`` if it holds none (to resume
    without ``--seed``); never raises."""
    try:
        data = _read_manifest(Path(folder))
    except (FileError, OSError):
        return None
    seed = None if data is None else data.get("run", {}).get("seed")
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def _write_bytes(path: Path, data: bytes) -> None:
    """``data`` written atomically to ``path``, replacing what is there."""
    write_atomic(path, lambda f: f.write(data), "replace")


#: A field a run does not record (its key absent), which no recorded value equals.
_ABSENT = object()


def _mismatch(theirs: dict[str, Any], mine: dict[str, Any]) -> str:
    """The first field where the manifest's run differs from the command's; a field
    one side lacks is named as absent there, not shown as ``None``."""
    for key in sorted(set(theirs) | set(mine)):
        if theirs.get(key, _ABSENT) != mine.get(key, _ABSENT):
            if key in theirs and key in mine:
                return f"the dataset has {key} {theirs[key]!r}, the command {mine[key]!r}"
            if key in theirs:
                return f"the dataset has {key} {theirs[key]!r}, the command has no {key}"
            return f"the dataset has no {key}, the command has {key} {mine[key]!r}"
    return "the runs differ"


class DatasetDir:
    """The folder ``path`` of the dataset of ``run`` (plain data: what the manifest
    records), opened for writing as ``mode`` says.

    Opening checks the folder (:class:`~durak.files.FileError` for a path that is not a
    folder, a missing or unwritable parent, a folder that holds anything but a dataset;
    without ``force`` or ``resume`` one that holds a dataset; with ``resume`` a dataset of
    another run), creates it if missing, locks it, and writes the manifest.  :attr:`done`
    holds the finished shards found when resuming; :attr:`notes`, shards found changed.
    """

    def __init__(self, path: Path | str, run: dict[str, Any], mode: Mode) -> None:
        self.path = Path(path)
        self.run = run
        self.notes: list[str] = []
        self.done: dict[int, Shard] = {}
        self._lock: int | None = None
        self._create()
        try:
            self._lock_folder()
            found = _read_manifest(self.path)
            self._check_contents(found, mode)
            resuming = mode == "resume" and found is not None
            if mode == "resume" and found is not None:
                self._load(found)
            self._clear(temporary_only=resuming)
            self._write_manifest()  # first: a folder with anything of ours has a manifest
            (self.path / GAMES).mkdir(exist_ok=True)
        except BaseException:
            self.close()
            raise

    def _create(self) -> None:
        path = self.path
        if path.exists() and not path.is_dir():
            raise FileError(path, "is not a directory; --out names the dataset's folder")
        if not path.exists():
            check_target(path)  # its parent: present, a folder, writable
            try:
                path.mkdir()
            except OSError as e:
                raise FileError(path, f"cannot create it: {e.strerror or e}") from None
        if not os.access(path, os.W_OK | os.X_OK):
            raise FileError(path, "the directory is not writable")

    def _lock_folder(self) -> None:
        if fcntl is None:
            return
        self._lock = os.open(self.path, os.O_RDONLY)
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FileError(self.path, "is in use by another durak dataset run") from None

    def _check_contents(self, found: dict[str, Any] | None, mode: Mode) -> None:
        if found is None:
            if any(self.path.iterdir()):
                raise FileError(
                    self.path,
                    "holds files but no dataset (no _manifest.json); choose another --out",
                )
            return
        if mode == "new":
            raise FileError(
                self.path,
                "holds a dataset already; --resume continues it, --force replaces it",
            )
        theirs = found.get("run")
        if mode == "resume" and theirs != self.run:
            why = _mismatch(theirs if isinstance(theirs, dict) else {}, self.run)
            raise FileError(self.path, f"{why}; refusing to resume a different run")

    def _load(self, found: dict[str, Any]) -> None:
        """The shards of the manifest whose files still match it."""
        for item in found.get("shards", []):
            try:
                shard = Shard(
                    int(item["index"]),
                    int(item["games"]),
                    int(item["decisions"]),
                    (str(item["sha256"][0]), str(item["sha256"][1])),
                )
            except (TypeError, KeyError, IndexError, ValueError):
                raise FileError(self.path / MANIFEST, f"a bad shard entry: {item!r}") from None
            if self._matches(shard):
                self.done[shard.index] = shard
            else:
                self.notes.append(
                    f"{part_name(shard.index)} is missing or changed; writing it again"
                )

    def _matches(self, shard: Shard) -> bool:
        name = part_name(shard.index)
        for path, digest in zip(
            (self.path / name, self.path / GAMES / name), shard.sha256, strict=True
        ):
            try:
                if _digest(path.read_bytes()) != digest:
                    return False
            except OSError:
                return False
        return True

    def _clear(self, temporary_only: bool) -> None:
        """Remove the temporary files of writes that were cut off and, unless
        ``temporary_only``, a previous dataset's shards (only files a dataset writes)."""
        prefixes = (".part-", f".{MANIFEST}.") + (() if temporary_only else ("part-",))
        for folder in (self.path, self.path / GAMES):
            if folder.is_dir():
                for f in folder.iterdir():
                    if f.name.startswith(prefixes) and f.is_file():
                        f.unlink()

    def _write_manifest(self) -> None:
        shards = [self.done[k].to_json() for k in sorted(self.done)]
        manifest = {"format": FORMAT, "run": self.run, "shards": shards}
        text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
        write_atomic(self.path / MANIFEST, lambda f: f.write(text.encode("utf-8")), "replace")

    def commit(self, files: ShardFiles) -> Shard:
        """Write the shard's two files, then the manifest that lists it (each atomically);
        a stop in between leaves a shard that resuming writes again."""
        name = part_name(files.index)
        for path, data in (
            (self.path / name, files.decision_bytes),
            (self.path / GAMES / name, files.game_bytes),
        ):
            _write_bytes(path, data)
        digests = (_digest(files.decision_bytes), _digest(files.game_bytes))
        shard = Shard(files.index, files.games, files.decisions, digests)
        self.done[files.index] = shard
        self._write_manifest()
        return shard

    def close(self) -> None:
        """Release the folder's lock."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def __enter__(self) -> DatasetDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
