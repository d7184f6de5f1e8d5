"""Datasets of played games for imitation learning and offline RL (``durak dataset``; needs
numpy and pyarrow: ``pip install 'durak-lab[dataset]'``).

Agents play games as ``durak match`` does (:mod:`durak.arena`) and every decision becomes a
row of Parquet: the game, its deal seed, the step, the player, the agent's spec, what the
player saw as :func:`~durak.encoding.encode_observation`'s vector (``observation``), the
legal actions as an :class:`~durak.encoding.ActionSpace` mask (``legal_mask``), the action's
index (``action``) and the player's return at the end (``return``); a second table holds
each game's public record.  Files of a fixed number of games, written atomically and listed
in a manifest, so a stopped run resumes to the same bytes as one that was never stopped.

* :mod:`~durak.dataset.format`: the folder's names, its manifest, and the check of a shard
  against it (pyarrow only when a shard is checked: ``durak.learn`` reads datasets with it);
* :mod:`~durak.dataset.rows`: the rows of one game;
* :mod:`~durak.dataset.shards`: the schemas, and one shard's two files built as bytes;
* :mod:`~durak.dataset.store`: the folder opened for writing, resuming;
* :mod:`~durak.dataset.run`: :class:`DatasetPlan` and the writing loop.

The names below are imported when first used, so that importing
:mod:`durak.dataset.format` imports neither pyarrow nor the arena.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from durak.dataset.run import DatasetPlan, write_dataset, write_shards
    from durak.dataset.shards import decision_schema, game_schema
    from durak.dataset.store import DatasetDir, Shard, manifest_seed

#: Each public name and the module that defines it.
_HOMES = {
    "DatasetDir": "store",
    "DatasetPlan": "run",
    "Shard": "store",
    "decision_schema": "shards",
    "game_schema": "shards",
    "manifest_seed": "store",
    "write_dataset": "run",
    "write_shards": "run",
}

__all__ = [
    "DatasetDir",
    "DatasetPlan",
    "Shard",
    "decision_schema",
    "game_schema",
    "manifest_seed",
    "write_dataset",
    "write_shards",
]


def __getattr__(name: str) -> Any:
    """The public name ``name``, from its module (imported now)."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"durak.dataset.{_HOMES[name]}"), name)
