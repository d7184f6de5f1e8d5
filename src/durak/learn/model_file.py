"""Model files of the neural learners: a versioned header, a checksum, and a ``state_dict``.

A file is ``torch.save`` of a plain dict (a zip archive) and is read back with
``torch.load(weights_only=True)``, which never unpickles arbitrary objects::

    {"format": "durak-dqn" | "durak-dmc" | ..., "version": 2, "rules": {...Rules fields...},
     ...the sizes and widths of the network..., "state_dict": {...tensors...},
     "meta": {...training settings, for the record...}, "checksum": "sha256:..."}

The checksum is a SHA-256 of everything else in the dict, tensors by dtype, shape and
bytes (:func:`checksum`): a file damaged after it was written (a flipped byte that the
archive does not notice, a hand-edited weight) is refused instead of playing with other
weights.  :func:`read_model_file` checks what every format shares (a regular file, a
readable archive of plain values and tensors, the format, the version, the checksum, the
rules); :class:`NetworkFormat` reads the file of one kind of MLP and checks its header
fields, its hidden widths and every weight (the shapes of the network the header
describes, float32, finite) before anything is built, so a file cannot make us allocate a
network of any size it likes.  Every problem is one ``error(f"{path}: ...")``.

Files are written atomically and read back only from a regular file of at most
:data:`MAX_FILE_BYTES` (:mod:`durak.files`).  Version 1 files had no checksum;
:mod:`durak.learn.model_upgrade` converts one.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import shlex
import warnings
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from durak.agents.base import SpecError
from durak.files import Existing, FileError, open_source, write_atomic
from durak.learn.torch_support import require_torch
from durak.rules import Rules

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_LAYERS",
    "MAX_WIDTH",
    "UPGRADE",
    "NetworkFormat",
    "checksum",
    "load_weights",
    "read_archive",
    "read_model_file",
    "write_model_file",
]

#: The bounds on a header's hidden layers: a file cannot make us build a bigger network.
MAX_WIDTH, MAX_LAYERS = 4096, 8
#: The largest model file or checkpoint read (a checkpoint holds its replay buffer).
MAX_FILE_BYTES = 8 << 30
#: How to convert a version 1 file (named in the error that refuses one).
UPGRADE = "python -m durak.learn.model_upgrade"
_CHECKSUM = "checksum"


def checksum(data: Mapping[str, Any]) -> str:
    """``"sha256:HEX"`` of ``data`` without its ``checksum`` entry: keys in sorted order,
    plain values by type and ``repr``, tensors by dtype, shape and bytes.  ``TypeError``
    for a value that is not a dict, list, tuple, str, int, float, bool, None or a dense
    tensor."""
    digest = hashlib.sha256()
    _feed(digest, {k: v for k, v in data.items() if k != _CHECKSUM})
    return f"sha256:{digest.hexdigest()}"


def _feed(digest: Any, value: Any) -> None:
    torch = require_torch()
    if isinstance(value, torch.Tensor):
        if value.layout != torch.strided or value.is_quantized:
            raise TypeError(f"a {value.layout} tensor")
        flat = value.detach().cpu().contiguous().reshape(-1)
        digest.update(f"T{value.dtype}{tuple(value.shape)}:".encode())
        digest.update(flat.view(torch.uint8).numpy().tobytes())
    elif isinstance(value, dict):
        digest.update(f"D{len(value)}:".encode())
        for key in sorted(value, key=lambda k: (type(k).__name__, repr(k))):
            _feed(digest, key)
            _feed(digest, value[key])
    elif isinstance(value, list | tuple):
        digest.update(f"L{len(value)}:".encode())
        for item in value:
            _feed(digest, item)
    elif value is None or isinstance(value, str | int | float | bool):
        digest.update(f"{type(value).__name__}{value!r};".encode())
    else:
        raise TypeError(f"a value of type {type(value).__name__}")


def write_model_file(
    path: str | os.PathLike[str], data: Mapping[str, Any], existing: Existing = "replace"
) -> None:
    """``torch.save`` ``data`` (a dict of plain values and tensors) to ``path``, with its
    :func:`checksum` added, atomically (:func:`durak.files.write_atomic`: a path that is
    not a regular file, or with ``existing`` ``"refuse"`` any file, is refused; a failed
    write leaves the old file); :class:`~durak.files.FileError` names the path and why."""
    payload = dict(data)
    payload[_CHECKSUM] = checksum(payload)
    torch = require_torch()
    write_atomic(path, lambda f: torch.save(payload, f), existing)


def read_archive(path: Path, bad: Callable[[str], Exception]) -> Any:
    """``torch.load(weights_only=True)`` of a regular file (:func:`durak.files.open_source`:
    never a FIFO or a device, at most :data:`MAX_FILE_BYTES`) holding a zip archive, without
    torch's warnings; ``bad(problem)`` for a file that does not load, never with torch's
    advice to load it without ``weights_only``."""
    try:
        f = open_source(path, MAX_FILE_BYTES)
    except FileError as e:
        cause = e.reason.removeprefix("cannot read: ")
        raise bad(
            e.reason if cause == e.reason else f"cannot read the model file ({cause})"
        ) from None
    with f:
        return _load(f, bad)


def _load(f: Any, bad: Callable[[str], Exception]) -> Any:
    """The archive in the open file ``f``, as :func:`read_archive` reads it."""
    try:
        if not zipfile.is_zipfile(f):
            raise bad("not a model file, or a truncated one (not a whole torch.save archive)")
        f.seek(0)
    except OSError as e:
        raise bad(f"cannot read the model file ({e.strerror or e})") from None
    torch = require_torch()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.load(f, map_location="cpu", weights_only=True)
    except OSError as e:
        raise bad(f"cannot read the model file ({e.strerror or e})") from None
    except Exception as e:  # torch reports a bad archive with many exception types
        if "weights only" in str(e).lower() or "weights_only" in str(e):
            raise bad(
                "holds Python objects other than tensors and plain values; refused unread"
            ) from None
        first = str(e).strip().split(". ")[0].splitlines()[0][:160] if str(e).strip() else ""
        raise bad(f"a corrupt model file ({first or type(e).__name__})") from None


def read_model_file(
    path: str | os.PathLike[str],
    fmt: str,
    version: int,
    error: Callable[[str], Exception],
) -> tuple[dict[str, Any], Rules]:
    """The dict in ``path`` and its rules, checked for ``fmt``, ``version`` and its
    checksum; raises ``error("PATH: problem")`` for a file that cannot be read, is corrupt
    or damaged, is of another format or version, or whose rules are not valid."""

    def bad(problem: str) -> Exception:
        return error(f"{path}: {problem}")

    data = read_archive(Path(path), bad)
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise bad(f"not a {fmt} model file")
    found = data.get("version")
    if isinstance(found, int) and 1 <= found < version and _CHECKSUM not in data:
        raise bad(
            f"a {fmt} file of version {found}, without a checksum of its weights; "
            f"convert a file you trust with: {UPGRADE} {shlex.quote(str(path))}"
        )
    if found != version:
        raise bad(f"unsupported {fmt} version {found!r} (expected {version})")
    try:
        matches = data.get(_CHECKSUM) == checksum(data)
    except TypeError as e:
        raise bad(f"holds {e}, not a tensor or a plain value") from None
    if not matches:
        raise bad("damaged: its contents do not match the checksum in its header")
    try:
        rules = Rules(**data["rules"])
    except (KeyError, TypeError, ValueError) as e:
        raise bad(f"bad or missing rules ({e})") from None
    return data, rules


@attrs.frozen(eq=False)
class NetworkModel:
    """A network with the ``rules`` and ``hidden`` widths it was built for, and the file's
    free-form ``meta`` record (training command, seed, episodes, wall time)."""

    net: Any
    rules: Rules
    hidden: tuple[int, ...]
    meta: Mapping[str, Any] = attrs.Factory(dict)

    def check_rules(self, rules: Rules, agent: str) -> None:
        """:class:`~durak.agents.SpecError`, naming the ``agent`` that plays this network,
        unless the network was trained for ``rules``."""
        if rules is not self.rules and rules != self.rules:
            raise SpecError(
                f"{agent}: this model was trained for {self.rules}, not for this game's {rules}"
            )


@attrs.frozen
class NetworkFormat:
    """The file format of one kind of MLP: its ``name`` and ``version``, the widths of its
    input and output layers under given rules, and the header ``fields`` the rules fix
    (sizes, the encoding's version) that a file must repeat."""

    name: str
    version: int
    inputs: Callable[[Rules], int]
    outputs: Callable[[Rules], int]
    fields: Callable[[Rules], Mapping[str, int]]

    def shapes(self, rules: Rules, hidden: Sequence[int]) -> dict[str, tuple[int, ...]]:
        """The parameter shapes of ``Sequential(Linear, ReLU, ..., Linear)`` by key."""
        widths = [self.inputs(rules), *hidden, self.outputs(rules)]
        shapes: dict[str, tuple[int, ...]] = {}
        for i, (a, b) in enumerate(itertools.pairwise(widths)):
            shapes[f"{2 * i}.weight"], shapes[f"{2 * i}.bias"] = (b, a), (b,)
        return shapes

    def build(self, rules: Rules, hidden: Sequence[int]) -> Any:
        """A fresh ``Sequential(Linear, ReLU, ..., Linear)`` of :meth:`shapes`, weights
        from torch's global generator (layer by layer, so a seeded build is reproducible)."""
        torch = require_torch()
        widths = [self.inputs(rules), *hidden, self.outputs(rules)]
        layers: list[Any] = []
        for a, b in itertools.pairwise(widths):
            layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
        return torch.nn.Sequential(*layers[:-1])

    def save(
        self, path: str | os.PathLike[str], model: NetworkModel, existing: Existing = "replace"
    ) -> None:
        """Write ``model`` to ``path`` as :func:`write_model_file` writes: the header, the
        state dict and the meta record."""
        write_model_file(
            path,
            {
                **self.header(model.rules, model.hidden),
                "state_dict": model.net.state_dict(),
                "meta": dict(model.meta),
            },
            existing,
        )

    def load(self, path: str | os.PathLike[str], error: Callable[[str], Exception]) -> NetworkModel:
        """The model in ``path``, checked as :meth:`read` checks it, in eval mode."""
        data, rules, hidden = self.read(path, error)
        net, meta = load_weights(self.build(rules, hidden), data)
        return NetworkModel(net, rules, hidden, meta)

    def header(self, rules: Rules, hidden: Sequence[int]) -> dict[str, Any]:
        """The header of a file of this network (the state dict and meta aside)."""
        return {
            "format": self.name,
            "version": self.version,
            "rules": attrs.asdict(rules),
            **self.fields(rules),
            "hidden": list(hidden),
        }

    def read(
        self, path: str | os.PathLike[str], error: Callable[[str], Exception]
    ) -> tuple[dict[str, Any], Rules, tuple[int, ...]]:
        """The dict in ``path``, its rules and hidden widths, every field and weight
        checked (see the module doc); ``error("PATH: problem")`` otherwise."""
        data, rules = read_model_file(path, self.name, self.version, error)
        return data, rules, self.check(path, data, rules, error)

    def check(
        self,
        path: str | os.PathLike[str],
        data: Mapping[str, Any],
        rules: Rules,
        error: Callable[[str], Exception],
    ) -> tuple[int, ...]:
        """The hidden widths of ``data`` (the dict :func:`read_model_file` read from
        ``path``, with its ``rules``), after checking its header fields and every weight
        as :meth:`read` does; ``error("PATH: problem")`` otherwise."""

        def bad(problem: str) -> Exception:
            return error(f"{path}: {problem}")

        for key, expected in self.fields(rules).items():
            if data.get(key) != expected:
                raise bad(f"{key} {data.get(key)!r} does not fit the rules (expected {expected})")
        try:
            hidden = tuple(int(h) for h in data["hidden"])
        except (KeyError, TypeError, ValueError) as e:
            raise bad(f"bad or missing field ({e})") from None
        if not hidden or min(hidden) < 1 or max(hidden) > MAX_WIDTH or len(hidden) > MAX_LAYERS:
            raise bad(f"implausible hidden widths {list(hidden)}")
        _check_weights(data.get("state_dict"), self.shapes(rules, hidden), hidden, bad)
        return hidden


def _check_weights(
    state: object,
    expected: Mapping[str, tuple[int, ...]],
    hidden: Sequence[int],
    bad: Callable[[str], Exception],
) -> None:
    """``bad`` unless ``state`` maps exactly the keys of ``expected`` to finite float32
    tensors of those shapes."""
    torch = require_torch()
    entries = state.items() if isinstance(state, dict) else ()
    shapes = {k: tuple(v.shape) for k, v in entries if isinstance(v, torch.Tensor)}
    if shapes != dict(expected) or len(shapes) != len(entries):
        raise bad(f"weights do not match the network of hidden widths {list(hidden)}")
    assert isinstance(state, dict)
    for key, tensor in state.items():
        if tensor.dtype != torch.float32:
            raise bad(f"weight {key} is {str(tensor.dtype).removeprefix('torch.')}, not float32")
        if not bool(torch.isfinite(tensor).all()):
            raise bad(f"weight {key} holds a value that is not finite (NaN or infinity)")


def load_weights(net: Any, data: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """``net`` (built to the shapes :meth:`NetworkFormat.read` checked) with
    ``data["state_dict"]`` loaded, in eval mode, and the file's ``meta`` dict (empty if
    absent)."""
    net.load_state_dict(data["state_dict"])
    meta = data.get("meta")
    return net.eval(), meta if isinstance(meta, dict) else {}
