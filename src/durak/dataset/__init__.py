"""Datasets of played games for imitation learning and offline RL (``durak dataset``; needs
numpy and pyarrow: ``pip install 'durak-lab[dataset]'``).

Agents play games as ``durak match`` does (:mod:`durak.arena`) and every decision becomes a
row of Parquet: the game, its deal seed, the step, the player, the agent's spec, what the
player saw as :func:`~durak.encoding.encode_observation`'s vector (``observation``), the
legal actions as an :class:`~durak.encoding.ActionSpace` mask (``legal_mask``), the action's
index (``action``) and the player's return at the end (``return``); a second table holds
each game's public record.  Files of a fixed number of games, written atomically and listed
in a manifest, so a stopped run resumes to the same bytes as one that was never stopped.

* :mod:`~durak.dataset.rows`: the rows of one game;
* :mod:`~durak.dataset.shards`: the schemas, and one shard's two files built as bytes;
* :mod:`~durak.dataset.store`: the folder, its manifest, resuming;
* :mod:`~durak.dataset.run`: :class:`DatasetPlan` and the writing loop.
"""

from durak.dataset.run import DatasetPlan, write_dataset, write_shards
from durak.dataset.shards import decision_schema, game_schema
from durak.dataset.store import DatasetDir, Shard, manifest_seed

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
