"""The ``dmc`` models shipped with the package, by the rules each was trained for
(no PyTorch).

Every ``*.pt`` file in :data:`MODELS` is a shipped model; its header records its rules
(:mod:`durak.learn.dmc.net`).  :func:`shipped_models` reads each header once, without
PyTorch, and maps the rules to the file; :func:`shipped_model` picks the file of a game's
rules or refuses the game with one line naming the tables that have one
(:class:`~durak.agents.learned.NoModelError`).  Two files of the same rules are refused,
since which one plays would depend on the order of a directory listing.

The header is read from the ``data.pkl`` entry of the file's ``torch.save`` archive by an
unpickler that knows only what such a file holds (ordered dicts, tensors and their
storages, which stand for nothing here): no other class can be built and no tensor is
read.  The whole file, checksum and weights, is checked when the model is loaded
(:func:`durak.learn.dmc.net.load_model`).
"""

from __future__ import annotations

import collections
import functools
import io
import pickle
import zipfile
from pathlib import Path
from typing import Any

from durak.agents.base import SpecError
from durak.agents.learned import NoModelError, table_name
from durak.files import FileError, open_source
from durak.rules import Rules, RulesError

__all__ = ["FORMAT", "MODELS", "describe_shipped", "read_rules", "shipped_model", "shipped_models"]

#: The format name of a ``dmc`` model file.
FORMAT = "durak-dmc"
#: The shipped models' folder.
MODELS = Path(__file__).parent.parent / "models"
#: The largest header read (a header is a few kilobytes; the weights are elsewhere).
MAX_HEADER_BYTES = 1 << 20
#: The largest shipped model file opened.
MAX_FILE_BYTES = 1 << 30


class _Stand:
    """Stands for a tensor or a storage of the archive: the header does not need them."""

    def __init__(self, *args: object) -> None:
        del args


class _HeaderUnpickler(pickle.Unpickler):
    """Builds plain values, ordered dicts and stand-ins for tensors; nothing else."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2") or (
            module == "torch" and name.endswith("Storage")
        ):
            return _Stand
        raise pickle.UnpicklingError(f"{module}.{name} is not a part of a model file")

    def persistent_load(self, pid: Any) -> Any:
        return None  # a tensor's storage: left in the archive


def read_rules(path: Path) -> Rules:
    """The rules in the header of the ``dmc`` model file ``path``; :class:`SpecError`
    naming the file if it is not one (the weights and checksum are checked on loading)."""

    def bad(problem: str) -> SpecError:
        return SpecError(f"dmc: shipped model {path}: {problem}")

    try:
        with open_source(path, MAX_FILE_BYTES) as f, zipfile.ZipFile(f) as archive:
            entries = [i for i in archive.infolist() if i.filename.endswith("/data.pkl")]
            if len(entries) != 1 or entries[0].file_size > MAX_HEADER_BYTES:
                raise bad("not a torch.save archive with one header")
            raw = archive.read(entries[0])
        data = _HeaderUnpickler(io.BytesIO(raw)).load()
    except FileError as e:
        raise bad(e.reason) from None
    except (OSError, zipfile.BadZipFile) as e:
        raise bad(f"cannot read it ({e})") from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError) as e:
        raise bad(f"a corrupt header ({e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise bad(f"not a {FORMAT} model file")
    fields = data.get("rules")
    try:
        if not isinstance(fields, dict):
            raise TypeError("no rules")
        return Rules(**fields)
    except (TypeError, RulesError) as e:
        raise bad(f"bad or missing rules ({e})") from None


@functools.cache
def _read(directory: Path) -> dict[Rules, Path]:
    found: dict[Rules, Path] = {}
    for path in sorted(directory.glob("*.pt")):
        rules = read_rules(path)
        if rules in found:
            raise SpecError(
                f"dmc: two shipped models for {table_name(rules)}: {found[rules].name} and "
                f"{path.name} (in {directory}); keep one"
            )
        found[rules] = path
    return found


def shipped_models(directory: Path | None = None) -> dict[Rules, Path]:
    """Each shipped model's rules and file (of ``directory``, by default :data:`MODELS`),
    in file-name order; each folder's headers are read once.  :class:`SpecError` for a file
    that is not a ``dmc`` model, or two files of the same rules."""
    return dict(_read(MODELS if directory is None else directory))


def shipped_model(rules: Rules, directory: Path | None = None) -> Path:
    """The shipped model file trained for ``rules``; :class:`NoModelError` (one line
    naming the tables that have one) if there is none."""
    models = shipped_models(directory)
    if rules not in models:
        raise NoModelError("dmc", rules, tuple(models))
    return models[rules]


def describe_shipped(directory: Path | None = None) -> str:
    """The shipped tables and their files, for ``durak agents``: ``TABLE: FILE; ...``
    (or why they cannot be read: the listing never fails)."""
    try:
        models = shipped_models(directory)
    except SpecError as e:
        return f"unreadable ({e})"
    return "; ".join(f"{table_name(r)}: {p.name}" for r, p in models.items()) or "none"
