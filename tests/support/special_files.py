"""Files that are not regular files, made in a test's own folder (never a system path):
the targets the checked writers and readers of :mod:`durak.files` must refuse."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest


def fifo(folder: Path, name: str = "pipe") -> Path:
    """A FIFO in ``folder``."""
    path = folder / name
    os.mkfifo(path)
    return path


def device(folder: Path, name: str = "null") -> Path:
    """A character device in ``folder``: a clone of ``/dev/null`` (1, 3); making one needs
    root, which CI has (the test is skipped elsewhere)."""
    path = folder / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root")
    return path
