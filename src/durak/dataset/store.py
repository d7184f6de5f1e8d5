"""The folder of a dataset opened for writing: its checks, its lock, resuming it, and
committing its shards (the names, the manifest and the check of a shard against it are
:mod:`durak.dataset.format`'s).

Every file is written atomically (:mod:`durak.files`), a shard's two files before the
manifest that lists it, so a shard is finished exactly when the manifest lists it and its
files bear the entry out (:func:`~durak.dataset.format.read_shard`); resuming keeps those,
drops the entries and removes the files that are not in the run's layout, and writes every
other shard again, which gives the bytes one uninterrupted run writes.  The folder is
locked (``flock``) while a run writes it.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from durak.dataset.format import (
    GAMES,
    MANIFEST,
    MAX_SHARD_BYTES,
    Layout,
    Manifest,
    Shard,
    ShardError,
    digest,
    part_name,
    read_manifest,
    read_shard,
    shard_paths,
    write_manifest,
)
from durak.dataset.shards import ShardFiles
from durak.files import FileError, check_target, write_atomic

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # not POSIX: no lock
    fcntl = None

__all__ = ["DatasetDir", "Mode", "Shard", "manifest_seed"]

#: ``new``: a folder that is missing or empty; ``force``: also replace a dataset there;
#: ``resume``: continue the dataset there (or start one).
Mode = Literal["new", "force", "resume"]


def manifest_seed(folder: Path | str) -> int | None:
    """The master seed of the dataset in ``folder``, ``None`` if it holds none (to resume
    without ``--seed``); never raises."""
    try:
        found = read_manifest(Path(folder))
    except (FileError, OSError):
        return None
    seed = None if found is None else found.run.get("seed")
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
    records, its :class:`~durak.dataset.format.Layout` included), opened for writing as
    ``mode`` says.

    Opening checks the folder (:class:`~durak.files.FileError` for a path that is not a
    folder, a missing or unwritable parent, a folder that holds anything but a dataset, a
    file of the layout that is there and is not a regular file; without ``force`` or
    ``resume`` one that holds a dataset; with ``resume`` a dataset of another run), creates
    it if missing, locks it, and writes the manifest.  :attr:`done` holds the finished
    shards found when resuming; :attr:`notes`, the entries found wrong (written again or
    dropped).
    """

    def __init__(self, path: Path | str, run: dict[str, Any], mode: Mode) -> None:
        self.path = Path(path)
        self.run = run
        self.layout = Layout.of_run(run)
        self.notes: list[str] = []
        self.done: dict[int, Shard] = {}
        self._lock: int | None = None
        self._create()
        try:
            self._lock_folder()
            found = read_manifest(self.path)
            self._check_contents(found, mode)
            self._check_targets()
            resumed = found if mode == "resume" else None
            if resumed is not None:
                self._load(resumed)
            self._clear(resumed is not None)
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

    def _check_contents(self, found: Manifest | None, mode: Mode) -> None:
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
        if mode == "resume" and found.run != self.run:
            why = _mismatch(found.run, self.run)
            raise FileError(self.path, f"{why}; refusing to resume a different run")

    def _check_targets(self) -> None:
        """:class:`FileError` for a file the run would write that is there and is not a
        regular file (a FIFO, a folder): refused before any game, never read."""
        games = self.path / GAMES
        if os.path.lexists(games) and not games.is_dir():
            raise FileError(games, "is not a directory; the games table's folder")
        for index in range(self.layout.shard_count):
            for target in shard_paths(self.path, index):
                if os.path.lexists(target):
                    check_target(target, "replace")

    def _load(self, found: Manifest) -> None:
        """The manifest's entries whose files bear them out; a note for each other."""
        for shard in found.shards:
            name = part_name(shard.index)
            try:
                read_shard(self.path, self.run, shard)
            except ShardError as e:
                if shard.index in range(self.layout.shard_count):
                    where = Path(e.path).relative_to(self.path).as_posix()
                    self.notes.append(f"{where}: {e.reason}; writing {name} again")
                else:
                    self.notes.append(
                        f"the manifest lists {name}, not a file of this run; removing it"
                    )
                self.done.pop(shard.index, None)
                continue
            self.done[shard.index] = shard

    def _clear(self, resuming: bool) -> None:
        """Remove the temporary files of writes that were cut off and the shards of a
        previous dataset, or when ``resuming``, those outside the run's layout (only
        regular files a dataset writes)."""
        planned = {part_name(k) for k in range(self.layout.shard_count)} if resuming else set()
        temporary = (".part-", f".{MANIFEST}.")
        for folder in (self.path, self.path / GAMES):
            if folder.is_dir():
                for f in folder.iterdir():
                    ours = f.name.startswith("part-") and f.name not in planned
                    if (ours or f.name.startswith(temporary)) and f.is_file():
                        f.unlink()

    def _write_manifest(self) -> None:
        write_manifest(self.path, self.run, [self.done[k] for k in sorted(self.done)])

    def commit(self, files: ShardFiles) -> Shard:
        """Write the shard's two files, then the manifest that lists it (each atomically);
        a stop in between leaves a shard that resuming writes again."""
        paths = shard_paths(self.path, files.index)
        for path, data in zip(paths, (files.decision_bytes, files.game_bytes), strict=True):
            if len(data) > MAX_SHARD_BYTES:
                raise FileError(
                    path,
                    f"would hold {len(data):,} bytes, more than the "
                    f"{MAX_SHARD_BYTES:,} a file may; write fewer --shards games",
                )
        for path, data in zip(paths, (files.decision_bytes, files.game_bytes), strict=True):
            _write_bytes(path, data)
        digests = (digest(files.decision_bytes), digest(files.game_bytes))
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
