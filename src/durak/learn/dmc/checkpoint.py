"""The checkpoint of a Deep Monte-Carlo training run: everything a resumed run needs to
continue exactly as an uninterrupted one.

A checkpoint is a model file (:mod:`durak.learn.model_file`: a header, a checksum) of
format :data:`CHECKPOINT_FORMAT` holding the network, Adam's state, the buffer, the
counters, the pool of earlier copies (:mod:`durak.learn.dmc.league`, when ``past`` is an
opponent) and the run's identity (rules, opponents, seed, settings, the expert data's
SHA-256).  A run resumes a checkpoint only of its own identity; a rule or a setting added
since the checkpoint was written takes its default (:func:`load_checkpoint`).  A
privileged run (:mod:`durak.learn.dmc.privileged`) checkpoints its wider network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import attrs

from durak.extras import needs

with needs("dmc", "dmc"):
    import numpy as np

from durak.learn.dmc.league import PAST, PastPool
from durak.learn.dmc.net import NETWORK, DmcModelError
from durak.learn.dmc.privileged import network_format
from durak.learn.dmc.settings import DmcSettings
from durak.learn.model_file import NetworkFormat, read_model_file, write_model_file
from durak.learn.torch_support import require_torch
from durak.rules import Rules

__all__ = [
    "CHECKPOINT",
    "CHECKPOINT_FORMAT",
    "CHECKPOINT_VERSION",
    "Resumable",
    "checkpoint_format",
    "checkpoint_seed",
    "load_checkpoint",
    "save_checkpoint",
]

CHECKPOINT_FORMAT = "durak-dmc-checkpoint"
#: 2 since files carry a checksum (:mod:`durak.learn.model_file`).
CHECKPOINT_VERSION = 2
#: A checkpoint holds the network as a model file does, and more.
CHECKPOINT = attrs.evolve(NETWORK, name=CHECKPOINT_FORMAT, version=CHECKPOINT_VERSION)


def checkpoint_format(privileged: bool) -> NetworkFormat:
    """The checkpoint of a run: :data:`CHECKPOINT`, or its privileged network's."""
    network = network_format(privileged)
    return attrs.evolve(network, name=CHECKPOINT_FORMAT, version=CHECKPOINT_VERSION)


class Resumable(Protocol):
    """The state of a training run that a checkpoint holds
    (:class:`~durak.learn.dmc.learner.DmcTrainer`'s)."""

    rules: Rules
    settings: DmcSettings
    opponents: tuple[str, ...]
    net: Any
    optimizer: Any
    pool: PastPool
    rounds: int
    episodes: int
    samples: int
    seconds: float
    buffer_rows: list[np.ndarray[Any, Any]]
    buffer_targets: list[np.ndarray[Any, Any]]

    def identity(self) -> dict[str, Any]:
        """What a checkpoint must match to be resumed by this run."""
        ...


def save_checkpoint(run: Resumable, path: Path) -> None:
    """Everything needed to resume ``run``, written atomically to ``path``
    (:class:`~durak.files.FileError` naming it and the reason if it cannot be)."""
    torch = require_torch()
    fmt = checkpoint_format(run.settings.privileged > 0)
    write_model_file(
        path,
        {
            **fmt.header(run.rules, run.settings.widths),
            "identity": _plain(run.identity()),
            "state_dict": run.net.state_dict(),
            "optimizer": run.optimizer.state_dict(),
            "counters": [run.rounds, run.episodes, run.samples, run.seconds],
            "rows": [torch.from_numpy(r) for r in run.buffer_rows],
            "targets": [torch.from_numpy(t) for t in run.buffer_targets],
            **({"past": run.pool.to_file(torch)} if PAST in run.opponents else {}),
        },
    )


def _migrated(stored: object) -> object:
    """The identity ``stored`` in a checkpoint, with each rule or setting added since it
    was written at its default."""
    if isinstance(stored, dict):
        for key, default in (("rules", Rules()), ("settings", DmcSettings())):
            if isinstance(stored.get(key), dict):
                stored = {**stored, key: {**_plain(attrs.asdict(default)), **stored[key]}}
    return stored


def load_checkpoint(run: Resumable, path: Path) -> None:
    """Continue ``run`` from the checkpoint in ``path``; :class:`DmcModelError` if it
    cannot be read or belongs to another run (other rules, opponents, seed or settings)."""
    data, rules = read_model_file(path, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, DmcModelError)
    stored = _migrated(data.get("identity"))
    mine = _plain(run.identity())
    if stored != mine:
        raise DmcModelError(
            f"{path}: a checkpoint of another run: {_difference(stored, mine)}; "
            "refusing to resume it"
        )
    fmt = checkpoint_format(run.settings.privileged > 0)
    fmt.check(path, data, rules, DmcModelError)
    try:
        run.net.load_state_dict(data["state_dict"])
        run.optimizer.load_state_dict(data["optimizer"])
        rounds, episodes, samples, seconds = data["counters"]
        rows = [r.numpy() for r in data["rows"]]
        targets = [t.numpy() for t in data["targets"]]
        if PAST in run.opponents:
            run.pool.load(data["past"])
            _check_copies(run.pool, NETWORK.shapes(run.rules, run.settings.widths))
    except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as e:
        raise DmcModelError(f"{path}: a damaged checkpoint ({e})") from None
    run.rounds, run.episodes, run.samples = int(rounds), int(episodes), int(samples)
    run.seconds = float(seconds)
    run.buffer_rows, run.buffer_targets = rows, targets
    run.net.eval()


def _check_copies(pool: PastPool, shapes: dict[str, tuple[int, ...]]) -> None:
    """``ValueError`` unless every copy of ``pool`` has the playing network's ``shapes``."""
    for w in pool.weights:
        if {k: tuple(v.shape) for k, v in w.items()} != shapes:
            raise ValueError("a copy of the past opponent does not fit the network")


def checkpoint_seed(path: Path) -> int | None:
    """The master seed recorded in the checkpoint in ``path`` (``None`` if it has none), so
    a resumed run needs no seed; :class:`DmcModelError` if it cannot be read."""
    data, _ = read_model_file(path, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, DmcModelError)
    identity = data.get("identity")
    seed = identity.get("seed") if isinstance(identity, dict) else None
    return seed if isinstance(seed, int) else None


def _difference(stored: object, mine: dict[str, Any]) -> str:
    """Which setting of the checkpoint's run (``stored``) differs from this command's, in
    a few words (as ``durak match --resume`` names a log's)."""
    if not isinstance(stored, dict):
        return "it holds no record of its run's settings"
    for key in ("seed", "opponents", "expert_sha256"):
        if stored.get(key) != mine.get(key):
            return f"the checkpoint has {key} {stored.get(key)!r}, the command {mine.get(key)!r}"
    for key in ("rules", "settings"):
        theirs = stored.get(key)
        if not isinstance(theirs, dict):
            return f"the checkpoint has no {key}"
        changed = [
            f"{k}={theirs.get(k)!r} (command: {v!r})"
            for k, v in mine[key].items()
            if theirs.get(k) != v
        ]
        changed += [f"{k}={theirs[k]!r} (unknown here)" for k in theirs if k not in mine[key]]
        if changed:
            return f"the checkpoint's {key} differ: {', '.join(changed)}"
    return "its record of the run differs from the command's"


def _plain(value: Any) -> Any:
    """``value`` with tuples as lists, as it reads back from a file."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
