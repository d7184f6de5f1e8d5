"""Every file durak writes or reads back: checked targets, atomic writes, bounded reads.

A *target* is checked before anything is written (:func:`check_target`): a path that
exists and is not a regular file (a folder, a FIFO, a device, a socket) is refused, and so
are an empty or overlong name, a missing or unwritable folder and, unless the caller says
``"replace"``, a regular file that already exists.  A whole file is written atomically
(:func:`write_atomic`, :func:`atomic_path`): into a temporary file in the target's folder,
flushed to disk, then renamed over the target, so a reader sees the old file or the new
one, never half of one; on any failure (a full disk, ``EFBIG`` past ``ulimit -f``, an
exception of the writer) the temporary file is removed and the old target is untouched.
A file written as it goes (a game log, a CSV of intervals: a stopped run keeps what it
wrote) is opened by :func:`open_stream`, which never blocks on a FIFO and checks that what
it opened is a regular file.

A *source* is read by :func:`open_source` or :func:`read_source`: a regular file of at
most a stated number of bytes, never a FIFO, a device or a folder (checked before it is
opened, and again on the open descriptor, which is opened without blocking).

A *plan* (:class:`FilePlan`) is every file one run writes and reads, declared together
and checked together before any work (:meth:`FilePlan.check`): two outputs at one path, an
output at one of the run's inputs, a target that is not a regular file, or one that exists
without leave to replace it, is refused however the run was asked (``--force`` replaces a
file; it never lets one run write a file twice or over what it reads).

Every problem is one :class:`FileError` naming the path and the reason.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import tempfile
from collections.abc import Callable, Hashable, Iterable, Iterator
from pathlib import Path
from typing import IO, Literal

import attrs

__all__ = [
    "STDOUT",
    "Existing",
    "FileError",
    "FilePlan",
    "Input",
    "Output",
    "atomic_path",
    "check_target",
    "open_source",
    "open_stream",
    "read_source",
    "write_atomic",
]

#: What to do with a regular file already at a target: refuse it, replace it, append to it.
Existing = Literal["refuse", "replace", "append"]

#: Opens a FIFO without waiting for its other end (0 where the system has no such flag).
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
#: Whether :func:`os.access` can ask as the effective user and group, as the write itself
#: is done (the real ones differ in a set-user-ID process, and root's real id passes all).
_EFFECTIVE_IDS = os.access in os.supports_effective_ids
#: The byte length of a name when the folder does not say (POSIX's ``NAME_MAX``).
_NAME_MAX = 255
#: The byte length of a whole path when the folder does not say (Linux's ``PATH_MAX``).
_PATH_MAX = 4096


class FileError(ValueError):
    """A path that cannot be written or read as asked: ``str(e)`` is ``"PATH: reason"``."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(f"{os.fspath(path) or repr('')}: {reason}")
        self.path = os.fspath(path)
        self.reason = reason


def _kind(mode: int) -> str:
    """What a non-regular file is, in a few words."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _limit(folder: Path, name: str, default: int) -> int:
    try:
        return os.pathconf(folder, name)
    except (OSError, ValueError):
        return default


def check_target(path: str | os.PathLike[str], existing: Existing = "refuse") -> Path:
    """The path to write for ``path`` (a symbolic link's target), once it is safe to write:
    :class:`FileError` for an empty or overlong name, a folder that is missing, not a folder
    or not writable, a path that exists and is not a regular file, or (with ``existing``
    ``"refuse"``) a regular file that exists.  Nothing is written or opened."""
    raw = os.fspath(path)
    if not raw or raw.endswith(os.sep) or Path(raw).name in ("", ".", ".."):
        raise FileError(raw, "not a file name")
    target = Path(os.path.realpath(raw)) if os.path.islink(raw) else Path(raw)
    folder = target.parent
    if not folder.is_dir():
        reason = "is not a directory" if folder.exists() else "no such directory"
        raise FileError(raw, f"{reason} {str(folder)!r}")
    if len(os.fsencode(target.name)) > _limit(folder, "PC_NAME_MAX", _NAME_MAX):
        raise FileError(raw, "the file name is too long")
    if len(os.fsencode(os.path.abspath(target))) >= _limit(folder, "PC_PATH_MAX", _PATH_MAX):
        raise FileError(raw, "the path is too long")
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise FileError(raw, f"cannot check it ({e.strerror or e})") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise FileError(raw, f"is {_kind(mode)}, not a regular file; refused, nothing written")
    if mode is not None and existing == "refuse":
        raise FileError(raw, "exists; overwriting it needs --force")
    if not os.access(folder, os.W_OK | os.X_OK, effective_ids=_EFFECTIVE_IDS):
        raise FileError(raw, f"the directory {str(folder)!r} is not writable")
    return target


def _system_reason(e: BaseException) -> str | None:
    """The reason of a write the system refused: the ``OSError`` behind ``e`` (torch wraps
    a full disk in a ``RuntimeError``), or ``None`` if there is none."""
    seen: BaseException | None = e
    while seen is not None:
        if isinstance(seen, OSError):
            return seen.strerror or str(seen)
        seen = seen.__cause__ or (None if seen.__suppress_context__ else seen.__context__)
    return None


def _file_mode(target: Path) -> int:
    """The permissions of the new file: those of the file it replaces, else the usual ones
    of a new file under the process's umask."""
    with contextlib.suppress(OSError):
        return stat.S_IMODE(os.stat(target).st_mode)
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], existing: Existing = "refuse") -> Iterator[Path]:
    """A temporary file in the folder of ``path`` (checked by :func:`check_target`) for the
    body to write; when the body ends, it is flushed to disk and renamed over ``path``.  If
    the body raises, or the temporary file cannot be finished, it is removed and ``path``
    is untouched; a failure of the system (an ``OSError``, such as a full disk, behind the
    exception) becomes :class:`FileError` naming ``path`` and the reason, any other
    exception (the writer's own, Ctrl-C) is raised as it is."""
    if existing == "append":
        raise ValueError("an atomic write replaces its target; it cannot append")
    target = check_target(path, existing)
    raw = os.fspath(path)
    try:
        fd, name = tempfile.mkstemp(
            prefix=f".{target.name[:40]}.", suffix=".tmp", dir=target.parent
        )
    except OSError as e:
        raise FileError(raw, f"cannot write: {e.strerror or e}") from None
    temp = Path(name)
    try:
        os.close(fd)
        temp.chmod(_file_mode(target))
        yield temp
        _sync(temp)
        if existing == "refuse" and os.path.lexists(target):
            raise FileError(raw, "exists; overwriting it needs --force")
        os.replace(temp, target)
    except FileError as e:
        temp.unlink(missing_ok=True)
        if e.path == name:  # a writer of the temporary file: name the target instead
            raise FileError(raw, e.reason) from None
        raise
    except Exception as e:
        temp.unlink(missing_ok=True)
        reason = _system_reason(e)
        if reason is None:  # the writer's own error (a bad value, say): raised as it is
            raise
        raise FileError(raw, f"cannot write: {reason}") from None
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)


def _sync(path: Path) -> None:
    """Flush ``path`` to disk; ``FileError`` if it is no longer a regular file."""
    fd = os.open(path, os.O_RDONLY | _NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FileError(path, "the temporary file was replaced by something else")
        os.fsync(fd)
    finally:
        os.close(fd)


def _sync_folder(folder: Path) -> None:
    """Make the rename durable (best effort: not every system can open a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_atomic(
    path: str | os.PathLike[str],
    write: Callable[[IO[bytes]], object],
    existing: Existing = "refuse",
) -> None:
    """Write ``path`` atomically: ``write(f)`` fills a temporary binary file, which then
    replaces ``path``; see :func:`atomic_path` for the checks and the failures."""
    with atomic_path(path, existing) as temp, temp.open("wb") as f:
        write(f)


def _open_checked(raw: str, target: Path, flags: int) -> int:
    """A descriptor of ``target`` opened with ``flags`` without blocking, confirmed to be a
    regular file (the path may have changed since it was checked)."""
    try:
        fd = os.open(target, flags | _NONBLOCK, 0o666)
    except OSError as e:
        if e.errno == errno.ENXIO:  # a FIFO without a reader
            raise FileError(raw, "is a FIFO (named pipe), not a regular file") from None
        raise FileError(raw, f"cannot open: {e.strerror or e}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise FileError(raw, f"is {_kind(mode)}, not a regular file")
    os.set_blocking(fd, True)
    return fd


def open_stream(path: str | os.PathLike[str], existing: Existing = "refuse") -> io.FileIO:
    """``path`` opened for writing as it goes, unbuffered (a log, a CSV of rows): checked by
    :func:`check_target`; ``"append"`` keeps its contents, ``"replace"`` empties it.  The
    caller closes it.  :class:`FileError` names the path and the reason."""
    target = check_target(path, existing)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if existing == "append" else os.O_TRUNC)
    if existing == "refuse":
        flags |= os.O_EXCL
    fd = _open_checked(os.fspath(path), target, flags)
    return os.fdopen(fd, "ab" if existing == "append" else "wb", buffering=0)


def open_source(path: str | os.PathLike[str], limit: int) -> io.BufferedReader:
    """``path`` opened for reading, once it is known to be a regular file of at most
    ``limit`` bytes: a FIFO, a device or a folder is refused before it is opened (and
    again on the descriptor, opened without blocking).  The caller closes it.
    :class:`FileError` names the path and the reason."""
    raw = os.fspath(path)
    if not raw:
        raise FileError(raw, "not a file name")
    try:
        mode = os.stat(raw).st_mode
    except OSError as e:
        raise FileError(raw, f"cannot read: {e.strerror or e}") from None
    if not stat.S_ISREG(mode):
        raise FileError(raw, f"is {_kind(mode)}, not a regular file; refused unread")
    fd = _open_checked(raw, Path(raw), os.O_RDONLY)
    size = os.fstat(fd).st_size
    if size > limit:
        os.close(fd)
        raise FileError(raw, f"is {size:,} bytes, more than the {limit:,} this file may hold")
    return os.fdopen(fd, "rb")


def read_source(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of ``path``, read as :func:`open_source` opens it (at most ``limit``, even
    if the file grows while it is read)."""
    with open_source(path, limit) as f:
        try:
            data = f.read(limit + 1)
        except OSError as e:
            raise FileError(path, f"cannot read: {e.strerror or e}") from None
    if len(data) > limit:
        raise FileError(path, f"grew past the {limit:,} bytes this file may hold")
    return data


#: The name of standard output among a run's outputs (``--json -``).
STDOUT = "-"


@attrs.frozen
class Output:
    """One file a run writes.

    Attributes:
      path: the path, or :data:`STDOUT`.
      option: how the command line named it, for messages (``--plot``, ``OUT.ckpt``).
      existing: what to do with a regular file already there (:data:`Existing`).
      folder: a folder the run fills (a dataset): checked here against the other paths
        only, its place and contents by its writer.
    """

    path: str | os.PathLike[str]
    option: str
    existing: Existing = "refuse"
    folder: bool = False


@attrs.frozen
class Input:
    """One file (or folder) a run reads: ``path``, named on the command line by
    ``option``."""

    path: str | os.PathLike[str]
    option: str


def _identity(path: str | os.PathLike[str]) -> Hashable:
    """What makes two paths one file: the device and inode of one that exists (a hard
    link, a symbolic link or ``a/../b`` is the same file), else the resolved path."""
    raw = os.fspath(path)
    if raw == STDOUT:
        return STDOUT
    with contextlib.suppress(OSError):
        st = os.stat(raw)
        return (st.st_dev, st.st_ino)
    return os.path.realpath(raw)


def _where(path: str | os.PathLike[str]) -> str:
    return "standard output" if os.fspath(path) == STDOUT else os.fspath(path)


@attrs.frozen
class FilePlan:
    """Every file one run writes (``outputs``) and reads (``inputs``); see the module
    docstring.  Build it before any work and call :meth:`check`."""

    outputs: tuple[Output, ...] = ()
    inputs: tuple[Input, ...] = ()

    @classmethod
    def of(
        cls, outputs: Iterable[Output | None] = (), inputs: Iterable[Input | None] = ()
    ) -> FilePlan:
        """The plan of these files, the ``None`` of an option not given left out."""
        return cls(
            tuple(o for o in outputs if o is not None), tuple(i for i in inputs if i is not None)
        )

    def __add__(self, other: FilePlan) -> FilePlan:
        """Both plans' files: a command's own and those of a part it runs."""
        return FilePlan(self.outputs + other.outputs, self.inputs + other.inputs)

    def check(self) -> None:
        """Raise :class:`FileError` for the first problem, in this order: two outputs at
        one path, an output at an input, then each output's own target
        (:func:`check_target`; a folder is its writer's to check).  Nothing is written."""
        seen: dict[Hashable, Output] = {}
        for out in self.outputs:
            earlier = seen.setdefault(_identity(out.path), out)
            if earlier is not out:
                raise FileError(
                    _where(out.path),
                    f"{earlier.option} and {out.option} name the same file; a run writes "
                    "each file once (refused even with --force)",
                )
        for source in self.inputs:
            clash = seen.get(_identity(source.path))
            if clash is not None:
                raise FileError(
                    _where(clash.path),
                    f"{clash.option} names {source.option}, which this run reads; it would "
                    "be overwritten (refused even with --force)",
                )
        for out in self.outputs:
            if os.fspath(out.path) != STDOUT and not out.folder:
                check_target(out.path, out.existing)
