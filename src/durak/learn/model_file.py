"""Model files of the neural learners: a versioned header and a ``state_dict``.

A file is ``torch.save`` of a plain dict and is read back with
``torch.load(weights_only=True)``, which never unpickles arbitrary objects::

    {"format": "durak-dqn" | "durak-dmc", "version": 1, "rules": {...Rules fields...},
     ...the sizes and widths of the network..., "state_dict": {...tensors...},
     "meta": {...training settings, for the record...}}

:func:`read_model_file` checks what every format shares (readable, the format, the
version, the rules) and :func:`check_shapes` compares the tensors with the network the
header describes before anything is built, so a file cannot make us allocate a network of
any size it likes.  Every problem is one ``error(f"{path}: ...")``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from durak.learn.torch_support import require_torch
from durak.rules import Rules

__all__ = ["check_shapes", "load_weights", "read_model_file", "write_model_file"]


def write_model_file(path: str | os.PathLike[str], data: Mapping[str, Any]) -> None:
    """``torch.save`` ``data`` (a dict of plain values and tensors) to ``path``."""
    require_torch().save(dict(data), Path(path))


def read_model_file(
    path: str | os.PathLike[str],
    fmt: str,
    version: int,
    error: Callable[[str], Exception],
) -> tuple[dict[str, Any], Rules]:
    """The dict in ``path`` and its rules, checked for ``fmt`` and ``version``; raises
    ``error("PATH: problem")`` for a file that cannot be read, is corrupt, or is of another
    format or version, or whose rules are not valid."""

    def bad(problem: str) -> Exception:
        return error(f"{path}: {problem}")

    torch = require_torch()
    try:
        data = torch.load(Path(path), map_location="cpu", weights_only=True)
    except OSError as e:
        raise bad(f"cannot read the model file ({e.strerror or e})") from None
    except Exception as e:  # torch reports a corrupt file with many exception types
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise bad(f"not a readable {fmt} model file ({first})") from None
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise bad(f"not a {fmt} model file")
    if data.get("version") != version:
        raise bad(f"unsupported {fmt} version {data.get('version')!r} (expected {version})")
    try:
        rules = Rules(**data["rules"])
    except (KeyError, TypeError, ValueError) as e:
        raise bad(f"bad or missing rules ({e})") from None
    return data, rules


def check_shapes(
    state: object,
    expected: Mapping[str, tuple[int, ...]],
    describe: str,
    error: Callable[[str], Exception],
) -> None:
    """Raise ``error`` unless ``state`` maps exactly the keys of ``expected`` to tensors of
    those shapes (``describe`` names the network in the message)."""
    torch = require_torch()
    entries = state.items() if isinstance(state, dict) else ()
    shapes = {k: tuple(v.shape) for k, v in entries if isinstance(v, torch.Tensor)}
    if shapes != dict(expected) or len(shapes) != len(entries):
        raise error(f"weights do not match the network of {describe}")


def load_weights(
    net: Any, data: Mapping[str, Any], error: Callable[[str], Exception]
) -> tuple[Any, dict[str, Any]]:
    """``net`` (built to the header's shapes) with ``data["state_dict"]`` loaded, in eval
    mode, and the file's ``meta`` dict (empty if absent); ``error`` if the weights do not
    load."""
    try:
        net.load_state_dict(data["state_dict"])
    except (RuntimeError, TypeError, KeyError) as e:
        raise error(f"weights do not match the network ({str(e).splitlines()[0]})") from None
    meta = data.get("meta")
    return net.eval(), meta if isinstance(meta, dict) else {}
