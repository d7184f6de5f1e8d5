"""The ladder file: a ladder's setup and every game of every pair, as one JSON object.

::

    {"format": "durak ladder", "version": 1, "seed": 7, "rules": {...},
     "move_timeout": null,
     "pairs": [{"agents": ["greedy", "random"], "games": 20, "wins": [17, 2],
                "draws": 1, "forfeits": [0, 0], "results": "WWLW..."}, ...],
     "sha256": "..."}

``results`` holds one letter per game from the first agent's side (``W`` a win, ``L`` a
loss, ``D`` a draw, ``w``/``l`` a win or loss by forfeit: ``ladder.CODES``);
``games``, ``wins``, ``draws`` and ``forfeits`` repeat its counts for a reader, and
``sha256`` is the SHA-256 of the rest of the object in canonical JSON (sorted keys, no
spaces).  A file is written whole and atomically (:func:`durak.files.write_atomic`), so
a stopped run leaves the last saved ladder, never half of one.  Reading it back
(:func:`read_ladder`) refuses, with one :class:`LadderError` naming the file and the
problem, anything that is not exactly such an object: an unknown or missing field, counts
that do not add up to the results, a pair given twice, a checksum that does not match
(the file was edited: the checksum catches edits, not forgery), and a ladder of another
setup than the command's (rules, seed or move limit).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, NoReturn

from durak.arena.experiments.ladder import Ladder, LadderSetup, PairRecord
from durak.files import FileError, read_source, write_atomic

__all__ = ["FORMAT", "MAX_LADDER_BYTES", "LadderError", "file_seed", "read_ladder", "write_ladder"]

FORMAT = "durak ladder"
VERSION = 1
#: The largest ladder file read back.
MAX_LADDER_BYTES = 256 << 20

_TOP = {"format", "version", "seed", "rules", "move_timeout", "pairs", "sha256"}
_PAIR = {"agents", "games", "wins", "draws", "forfeits", "results"}


class LadderError(ValueError):
    """A ladder file that cannot be used: ``str(e)`` is ``"PATH: reason"``."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(f"{os.fspath(path)}: {reason}")


def _checksum(body: dict[str, Any]) -> str:
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _pair_json(r: PairRecord) -> dict[str, Any]:
    return {
        "agents": list(r.agents),
        "games": r.games,
        "wins": list(r.wins()),
        "draws": r.draws,
        "forfeits": list(r.forfeits()),
        "results": r.results,
    }


def ladder_json(ladder: Ladder) -> dict[str, Any]:
    """The ladder as the JSON object of its file, checksum included."""
    body = {
        "format": FORMAT,
        "version": VERSION,
        **ladder.setup.identity(),
        "pairs": [_pair_json(ladder.records[k]) for k in sorted(ladder.records)],
    }
    return {**body, "sha256": _checksum(body)}


def write_ladder(path: Path, ladder: Ladder) -> None:
    """Write ``ladder`` to ``path`` atomically, replacing a regular file there;
    :class:`~durak.files.FileError` names a path that cannot be written."""
    text = json.dumps(ladder_json(ladder), indent=1, ensure_ascii=False) + "\n"
    write_atomic(path, lambda f: f.write(text.encode("utf-8")), "replace")


def _load(path: Path) -> dict[str, Any]:
    """The checked JSON object of the file at ``path`` (structure and checksum)."""
    try:
        obj = json.loads(read_source(path, MAX_LADDER_BYTES).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise LadderError(path, "not a ladder file (not JSON text)") from None
    except FileError as e:
        raise LadderError(path, e.reason) from None
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise LadderError(path, f'not a ladder file (no "format": "{FORMAT}")')
    if obj.get("version") != VERSION:
        raise LadderError(
            path, f"ladder version {obj.get('version')!r}; this durak reads {VERSION}"
        )
    unknown, missing = sorted(set(obj) - _TOP), sorted(_TOP - set(obj))
    if unknown or missing:
        what = f"unknown field {unknown[0]!r}" if unknown else f"no field {missing[0]!r}"
        raise LadderError(path, f"{what}: the file was edited or is damaged")
    body = {k: v for k, v in obj.items() if k != "sha256"}
    if obj["sha256"] != _checksum(body):
        raise LadderError(path, "the checksum does not match: the file was edited or is damaged")
    return obj


def _fail(path: Path, where: str, reason: str) -> NoReturn:
    raise LadderError(path, f"{where}: {reason}; the file was edited or is damaged")


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _record(path: Path, k: int, pair: object) -> PairRecord:
    """Pair ``k`` of the file, its counts checked against its results."""
    where = f"pair {k + 1}"
    if not isinstance(pair, dict) or set(pair) != _PAIR:
        _fail(path, where, f"not an object of exactly the fields {', '.join(sorted(_PAIR))}")
    agents, results = pair["agents"], pair["results"]
    if not (
        isinstance(agents, list) and len(agents) == 2 and all(isinstance(a, str) for a in agents)
    ):
        _fail(path, where, "agents is not two specs")
    if not isinstance(results, str):
        _fail(path, where, "results is not text")
    try:
        record = PairRecord(agents[0], agents[1], results)
    except ValueError as e:
        _fail(path, where, str(e))
    counts = {
        "games": record.games,
        "wins": list(record.wins()),
        "draws": record.draws,
        "forfeits": list(record.forfeits()),
    }
    for name, value in counts.items():
        if pair[name] != value:
            _fail(path, where, f"{name} {pair[name]!r} does not add up to its results ({value!r})")
    return record


def file_seed(path: Path) -> int | None:
    """The master seed of the ladder file at ``path``, or ``None`` if there is no file;
    :class:`LadderError` for a file that is not a sound ladder file."""
    if not os.path.lexists(path):
        return None
    seed = _load(path)["seed"]
    if not _int(seed):
        _fail(path, "seed", f"{seed!r} is not a seed")
    return int(seed)


def read_ladder(path: Path, setup: LadderSetup) -> Ladder:
    """The ladder of the file at ``path`` (a new, empty one if there is none), whose setup
    must be ``setup``; :class:`LadderError` naming the file and the first problem."""
    if not os.path.lexists(path):
        return Ladder(setup)
    obj = _load(path)
    mine = setup.identity()
    for key in ("seed", "move_timeout"):
        if obj[key] != mine[key]:
            raise LadderError(
                path, f"a ladder of {key} {obj[key]!r}, not {mine[key]!r}: use another --file"
            )
    theirs = obj["rules"]
    if theirs != mine["rules"]:
        if not isinstance(theirs, dict):
            _fail(path, "rules", "not an object")
        differ = [
            f"{k}={theirs.get(k)!r} (command: {v!r})"
            for k, v in mine["rules"].items()
            if theirs.get(k) != v
        ] or [f"unknown {sorted(set(theirs) - set(mine['rules']))[0]!r}"]
        raise LadderError(path, f"a ladder of other rules: {', '.join(differ)}; use another --file")
    if not isinstance(obj["pairs"], list):
        _fail(path, "pairs", "not a list")
    ladder = Ladder(setup)
    for k, pair in enumerate(obj["pairs"]):
        record = _record(path, k, pair)
        if record.agents in ladder.records:
            _fail(path, f"pair {k + 1}", f"{' vs '.join(record.agents)} is given twice")
        ladder.records[record.agents] = record
    return ladder
