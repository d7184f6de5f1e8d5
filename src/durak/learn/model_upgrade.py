"""Convert a version 1 model file (no checksum) to the current format, its contents kept.

Version 1 files of ``durak-dmc``, ``durak-dqn`` and ``durak-dmc-checkpoint`` carried no
checksum of their weights (:mod:`durak.learn.model_file`), so they are refused; this
rewrites one the user trusts with the current version and a checksum, every tensor and
header field unchanged, then reads the result back with every check of the format (a
weight that is not finite float32, shapes that do not fit) before it replaces anything::

    python -m durak.learn.model_upgrade OLD.pt [NEW.pt] [--force]   # default: OLD.pt in place

A ``NEW.pt`` that exists is replaced only with ``--force``, and only if it is a regular
file (a FIFO, a device or a folder is refused before anything is written); the write is
atomic (:mod:`durak.files`), so a failure leaves the old file and no temporary file.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from durak.files import FileError, FilePlan, Input, Output, atomic_path
from durak.learn.dmc.checkpoint import CHECKPOINT
from durak.learn.dmc.net import NETWORK as DMC
from durak.learn.dqn.net import NETWORK as DQN
from durak.learn.model_file import NetworkFormat, read_archive, write_model_file

__all__ = ["ModelUpgradeError", "main", "upgrade"]

_FORMATS: dict[str, NetworkFormat] = {f.name: f for f in (DMC, DQN, CHECKPOINT)}


class ModelUpgradeError(ValueError):
    """A file that cannot be upgraded: unreadable, of an unknown format, already current,
    or failing a check of its format once upgraded."""


def upgrade(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str] | None = None,
    *,
    force: bool = False,
) -> str:
    """Write ``source`` (a version 1 file) to ``target`` (default: ``source``, which is
    then replaced) atomically in the current version of its format, with a checksum;
    returns the format's name.  A ``target`` that exists is replaced only with ``force``.
    :class:`ModelUpgradeError` naming the file and the problem (a
    :class:`~durak.files.FileError` for the target), ``target`` untouched."""

    def bad(problem: str) -> ModelUpgradeError:
        return ModelUpgradeError(f"{source}: {problem}")

    out = Path(target if target is not None else source)
    in_place = target is None or os.fspath(target) == os.fspath(source)
    replace = force or in_place
    reads = None if in_place else Input(source, "OLD.pt")
    try:  # before anything is read
        FilePlan.of([Output(out, "NEW.pt", "replace" if replace else "refuse")], [reads]).check()
    except FileError as e:
        raise ModelUpgradeError(str(e)) from None
    data = read_archive(Path(source), bad)
    network = _FORMATS.get(str(data.get("format"))) if isinstance(data, dict) else None
    if network is None:
        raise bad(f"not a model file of durak ({', '.join(sorted(_FORMATS))})")
    if data.get("version") != 1 or "checksum" in data:
        raise bad(f"not a version 1 {network.name} file (version {data.get('version')!r})")
    try:
        with atomic_path(out, "replace" if replace else "refuse") as partial:
            write_model_file(partial, {**data, "version": network.version})
            try:
                network.read(partial, ModelUpgradeError)
            except ModelUpgradeError as e:
                raise bad(str(e).removeprefix(f"{partial}: ")) from None
    except FileError as e:
        raise ModelUpgradeError(str(e)) from None
    return network.name


def main(argv: list[str] | None = None) -> int:
    """The command line of the module doc: 0 on success, 2 with one ``error:`` line."""
    parser = argparse.ArgumentParser(
        prog="python -m durak.learn.model_upgrade", description=__doc__.splitlines()[0]
    )
    parser.add_argument("source", help="a version 1 model file or checkpoint")
    parser.add_argument("target", nargs="?", help="where to write it (default: in place)")
    parser.add_argument("--force", action="store_true", help="replace a target that exists")
    args = parser.parse_args(argv)
    try:
        name = upgrade(args.source, args.target, force=args.force)
    except ModelUpgradeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{args.target or args.source}: {name} version {_FORMATS[name].version}, checksummed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
