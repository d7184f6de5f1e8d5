"""Game logs: one JSON object per game and line (JSON Lines), appended as games finish.

Each line is self-contained: the rules, the specs, the master seed and the game index, the
deal seed and the seating, the actions as ``str(action)`` texts, the outcome, the timings
and the forfeit if there was one, so any line can be replayed on its own
(:mod:`durak.arena.gamelog.replay`) and an interrupted run resumed from its log
(:mod:`durak.arena.runs.run`).  Each line goes to the file in one unbuffered write.  A last line
cut off by a crash or a full disk is never taken for a game: :func:`read_log` reports it as
:class:`Truncated`.  A :class:`LogWriter` holds an exclusive lock on its file (``flock``)
for as long as it is open, so two runs never write one log.  A log is only ever a regular
file: a FIFO, a device or a folder is refused before it is opened for writing, and a log is
read back only if it is a regular file of at most :data:`MAX_LOG_BYTES` (:mod:`durak.files`).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs

from durak.arena.gamelog.entry import LogEntry, LogError, parse_entry
from durak.files import FileError, open_source, open_stream, read_source

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # not POSIX: no lock
    fcntl = None

__all__ = ["MAX_LOG_BYTES", "LogEntry", "LogError", "LogRead", "LogWriter", "Truncated", "read_log"]

#: The largest log read back (by ``durak replay`` or a resumed run).
MAX_LOG_BYTES = 4 << 30


@attrs.frozen
class Truncated:
    """A last line without its newline that is not valid JSON: the writer was stopped in
    the middle of it.  ``offset`` is where that line starts in the file."""

    line: int
    offset: int


@attrs.frozen
class LogRead:
    """The games of a log, in file order, and its cut-off last line if it has one.

    ``needs_newline``: the file ends with a complete entry but no newline.
    """

    path: Path
    entries: tuple[LogEntry, ...]
    truncated: Truncated | None = None
    needs_newline: bool = False

    def repair(self) -> None:
        """Make the file safe to append to: drop a cut-off last line, end with a newline."""
        if self.truncated is not None:
            with self.path.open("r+b") as f:
                f.truncate(self.truncated.offset)
        elif self.needs_newline:
            with self.path.open("ab") as f:
                f.write(b"\n")


def read_log(path: Path | str, *, allow_truncated: bool = False) -> LogRead:
    """Every game of the log at ``path``; blank lines are skipped.

    Raises :class:`LogError` naming the line and the reason for the first line that is
    not a valid entry, including a cut-off last line unless ``allow_truncated``, and
    :class:`~durak.files.FileError` if the file cannot be read, is not a regular file or
    is over :data:`MAX_LOG_BYTES`.
    """
    path = Path(path)
    data = read_source(path, MAX_LOG_BYTES)
    entries: list[LogEntry] = []
    offset = 0
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, 1):
        start, offset = offset, offset + len(raw) + 1
        last = number == len(lines)
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
            if last:  # no newline after it: the writer was stopped mid-line
                if allow_truncated:
                    return LogRead(path, tuple(entries), Truncated(number, start))
                raise LogError(
                    path,
                    number,
                    "cut off: the file ends inside this entry "
                    "(the run was stopped while writing it)",
                ) from None
            raise LogError(path, number, f"not valid JSON ({_reason(e)})") from None
        entries.append(parse_entry(obj, path, number))
    needs_newline = bool(data) and not data.endswith(b"\n") and bool(lines[-1].strip())
    return LogRead(path, tuple(entries), None, needs_newline)


def _reason(e: Exception) -> str:
    if isinstance(e, json.JSONDecodeError):
        return f"{e.msg} at column {e.colno}"
    if isinstance(e, RecursionError):
        return "nested too deeply"
    return "not UTF-8 text"


def encode(entry: LogEntry) -> str:
    """The entry as one line of compact JSON, without the newline."""
    return json.dumps(entry.to_json(), ensure_ascii=False, separators=(",", ":"))


class LogWriter:
    """Appends entries to a log, one unbuffered line each, so a crash loses no finished game.

    Opening checks the path (:class:`~durak.files.FileError` for a FIFO, a device, a
    folder, a missing folder) and takes an exclusive lock on the file, held until
    :meth:`close`; a log that another writer holds raises :class:`LogError` at once.
    ``OSError`` (a full disk, say) is raised by the write that fails; nothing is left
    buffered to fail again on close.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._file = open_stream(self.path, "append")
        if fcntl is not None:
            try:
                fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                self._file.close()
                why = "is in use by another run (it holds the lock); wait, or use another log"
                raise LogError(self.path, None, why) from None

    def write(self, entry: LogEntry) -> None:
        """Append ``entry`` as one line, written to the operating system at once."""
        data = memoryview((encode(entry) + "\n").encode("utf-8"))
        while data:
            written = self._file.write(data)
            data = data[written or 0 :]

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def logged_seed(path: Path | str) -> int | None:
    """The master seed of the first game in the log at ``path``, or ``None`` if the file is
    missing or holds no readable game yet (the whole log is checked when it is resumed)."""
    try:
        with open_source(path, MAX_LOG_BYTES) as f:
            for line in f:
                if line.strip():
                    seed = json.loads(line.decode("utf-8")).get("seed")
                    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None
    except (FileError, OSError, UnicodeDecodeError, ValueError, AttributeError, RecursionError):
        return None
    return None
