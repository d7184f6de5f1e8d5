"""The checked writers and readers of :mod:`durak.files` (issue 47, item 1): targets that
are not regular files refused before anything is written, atomic writes that leave no
debris and the old file whole on any failure, and bounded reads of regular files only.

FIFOs and device nodes are made in the test's own folder (``os.mknod`` of a ``/dev/null``
clone needs root; the test is skipped without it), never on a system path.  A read that
would block on a FIFO runs in a subprocess with a time limit, so a fault cannot hang the
suite.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import IO

import pytest

from durak.files import (
    Existing,
    FileError,
    atomic_path,
    check_target,
    open_source,
    open_stream,
    read_source,
    write_atomic,
)
from tests.support.special_files import device, fifo

SRC = str(Path(__file__).resolve().parents[1] / "src")


def specials(folder: Path) -> list[Path]:
    """A FIFO, a character device and a folder in ``folder``."""
    sub = folder / "sub"
    sub.mkdir()
    return [fifo(folder), device(folder), sub]


def assert_untouched(folder: Path, before: dict[str, tuple[int, bytes | None]]) -> None:
    """Every entry of ``folder`` as :func:`snapshot` saw it, and nothing more."""
    assert snapshot(folder) == before


def snapshot(folder: Path) -> dict[str, tuple[int, bytes | None]]:
    """Each entry's kind and a regular file's bytes."""
    found: dict[str, tuple[int, bytes | None]] = {}
    for p in folder.iterdir():
        mode = p.lstat().st_mode
        found[p.name] = (stat.S_IFMT(mode), p.read_bytes() if stat.S_ISREG(mode) else None)
    return found


def test_a_target_that_is_not_a_regular_file_is_refused_unwritten(tmp_path: Path) -> None:
    for path in specials(tmp_path):
        before = snapshot(tmp_path)
        modes: tuple[Existing, ...] = ("refuse", "replace", "append")
        for existing in modes:
            with pytest.raises(FileError, match="not a regular file") as err:
                check_target(path, existing)
            assert str(err.value).startswith(f"{path}: ")
        with pytest.raises(FileError, match="not a regular file"):
            write_atomic(path, lambda f: f.write(b"data"), "replace")
        with pytest.raises(FileError, match="not a regular file"):
            open_stream(path, "append").close()
        assert_untouched(tmp_path, before)
    assert stat.S_ISFIFO((tmp_path / "pipe").stat().st_mode)
    assert stat.S_ISCHR((tmp_path / "null").stat().st_mode)


def test_a_symbolic_link_to_a_device_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(device(tmp_path))
    with pytest.raises(FileError, match="a character device"):
        write_atomic(link, lambda f: f.write(b"data"), "replace")
    assert link.is_symlink() and stat.S_ISCHR(link.stat().st_mode)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("", "not a file name"),
        ("missing/x.json", "no such directory"),
        ("file.txt/x.json", "is not a directory"),
        ("a" * 300, "too long"),
        ("sub/", "not a file name"),
        ("..", "not a file name"),
    ],
)
def test_bad_names_and_folders_are_refused_in_one_line(
    tmp_path: Path, name: str, words: str
) -> None:
    (tmp_path / "file.txt").write_text("keep")
    (tmp_path / "sub").mkdir()
    path = os.path.join(tmp_path, name) if name else ""
    before = snapshot(tmp_path)
    with pytest.raises(FileError) as err:
        write_atomic(path, lambda f: f.write(b"data"), "replace")
    message = str(err.value)
    assert words in message and "\n" not in message, message
    assert message.startswith(f"{path or repr('')}: "), message
    assert_untouched(tmp_path, before)


def test_an_existing_file_is_replaced_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "m.bin"
    path.write_bytes(b"old")
    path.chmod(0o640)
    with pytest.raises(FileError, match="exists; overwriting it needs --force"):
        write_atomic(path, lambda f: f.write(b"new"))
    assert path.read_bytes() == b"old"
    write_atomic(path, lambda f: f.write(b"new"), "replace")
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # the replaced file's permissions
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bin"]


def test_a_failing_writer_leaves_the_old_file_and_no_debris(tmp_path: Path) -> None:
    path = tmp_path / "m.bin"
    path.write_bytes(b"old")

    def full_disk(f: IO[bytes]) -> None:
        f.write(b"half")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(FileError) as err:
        write_atomic(path, full_disk, "replace")
    assert str(err.value) == f"{path}: cannot write: {os.strerror(errno.ENOSPC)}"

    def wrapped(f: IO[bytes]) -> None:  # as torch reports a full disk
        try:
            f.write(b"half")
            raise OSError(errno.EFBIG, os.strerror(errno.EFBIG))
        except OSError:
            raise RuntimeError("[enforce fail at inline_container.cc] unexpected pos")  # noqa: B904

    with pytest.raises(FileError) as err:
        write_atomic(path, wrapped, "replace")
    assert str(err.value) == f"{path}: cannot write: {os.strerror(errno.EFBIG)}"

    def own_error(f: IO[bytes]) -> None:
        f.write(b"half")
        raise ValueError("a bad value")

    with pytest.raises(ValueError, match=r"^a bad value$"):
        write_atomic(path, own_error, "replace")
    with pytest.raises(KeyboardInterrupt), atomic_path(path, "replace") as temp:
        temp.write_bytes(b"half")
        raise KeyboardInterrupt
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bin"]


def run_limited(code: str, limit: int, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a Python process whose files may not grow past ``limit`` bytes
    (``ulimit -f``: a write past it fails with ``EFBIG``, as on a full disk)."""
    prologue = f"import resource; resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-c", prologue + textwrap.dedent(code)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_full_disk_leaves_the_old_file_and_names_the_target(tmp_path: Path) -> None:
    path = tmp_path / "big.bin"
    path.write_bytes(b"old")
    code = """
        import sys
        from durak.files import FileError, write_atomic
        try:
            write_atomic("big.bin", lambda f: f.write(b"x" * 100_000), "replace")
        except FileError as e:
            print(e, file=sys.stderr)
            sys.exit(2)
    """
    result = run_limited(code, 10_000, tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == f"big.bin: cannot write: {os.strerror(errno.EFBIG)}"
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.bin"]


def write_as_nobody(folder: str, cwd: Path, ids: str) -> subprocess.CompletedProcess[str]:
    """Write ``folder/x`` atomically in a Python process that runs as the user ``nobody``
    (root ignores permission bits, so a root process gives up its ``ids``: all of them, or
    only the effective ones, as in a set-user-ID program; any other user writes as itself).
    A root process imports durak first and makes ``cwd`` its root directory, so neither the
    sources nor the folders above ``cwd`` (pytest's are private) need be open to
    ``nobody``: the writer makes its temporary file by an absolute path."""
    code = f"""
        import os, pwd, sys
        from durak.files import FileError, write_atomic
        if os.geteuid() == 0:
            try:
                user = pwd.getpwnam("nobody")
                uid, gid = user.pw_uid, user.pw_gid
            except KeyError:  # any id but root's will do
                uid = gid = 65534
            os.chroot(".")
            os.chdir("/")
            os.setgroups([])
            if {ids!r} == "effective":
                os.setegid(gid)
                os.seteuid(uid)
            else:
                os.setgid(gid)
                os.setuid(uid)
            assert os.geteuid() == uid and os.getegid() == gid
        try:
            write_atomic({folder!r} + "/x", lambda f: f.write(b"data"), "replace")
        except FileError as e:
            print(e, file=sys.stderr)
            sys.exit(2)
    """
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("ids", ["all", "effective"])
def test_a_read_only_folder_is_refused_before_writing(tmp_path: Path, ids: str) -> None:
    tmp_path.chmod(0o755)  # nobody may look up the folders below (tmp_path is its cwd)
    (tmp_path / "ro").mkdir(mode=0o555)
    (tmp_path / "ro").chmod(0o555)  # whatever the umask
    (tmp_path / "rw").mkdir()
    (tmp_path / "rw").chmod(0o777)
    try:
        refused = write_as_nobody("ro", tmp_path, ids)
        assert refused.returncode == 2, refused.stderr
        assert refused.stderr.strip() == "ro/x: the directory 'ro' is not writable"
        assert not list((tmp_path / "ro").iterdir())
        written = write_as_nobody("rw", tmp_path, ids)  # the same user, a folder it may write
        assert written.returncode == 0, written.stderr
        assert [p.name for p in (tmp_path / "rw").iterdir()] == ["x"]
        assert (tmp_path / "rw" / "x").read_bytes() == b"data"
    finally:
        (tmp_path / "ro").chmod(0o755)


def test_a_stream_appends_or_replaces_a_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "log"
    with open_stream(path, "append") as f:
        f.write(b"a\n")
    with open_stream(path, "append") as f:
        f.write(b"b\n")
    assert path.read_bytes() == b"a\nb\n"
    with pytest.raises(FileError, match="exists"):
        open_stream(path, "refuse")
    with open_stream(path, "replace") as f:
        f.write(b"c\n")
    assert path.read_bytes() == b"c\n"


def test_a_source_must_be_a_regular_file_within_its_bound(tmp_path: Path) -> None:
    for path in specials(tmp_path):
        with pytest.raises(FileError, match="not a regular file; refused unread"):
            open_source(path, 100)
    small = tmp_path / "small"
    small.write_bytes(b"x" * 10)
    assert read_source(small, 10) == b"x" * 10
    with pytest.raises(FileError, match="10 bytes, more than the 9"):
        read_source(small, 9)
    with pytest.raises(FileError, match="cannot read: No such file"):
        read_source(tmp_path / "absent", 9)


def test_reading_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    path = fifo(tmp_path)
    code = f"""
        import sys
        from durak.files import FileError, read_source
        try:
            read_source({str(path)!r}, 100)
        except FileError as e:
            print(e, file=sys.stderr)
            sys.exit(2)
    """
    result = run_limited(code, 1 << 20, tmp_path)  # waiting would end in the time limit
    assert result.returncode == 2 and "a FIFO (named pipe)" in result.stderr, result.stderr
