"""A small dataset written once per test module, and the helpers that copy it and read
its refusals (tests/test_dataset_format.py, tests/test_dataset_tables.py)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from durak.dataset.format import Shard, ShardError, read_manifest, read_shard
from durak.dataset.run import DatasetPlan, write_dataset
from durak.rules import Rules
from tests.support.extras import require_extra

#: The folder, its run and its entries.
Written = tuple[Path, dict[str, Any], list[Shard]]

PLAN = DatasetPlan(Rules(), ("random", "greedy"), seed=3, games=5, shard_games=2)


def write_small(factory: pytest.TempPathFactory) -> Written:
    """:data:`PLAN`'s dataset (3 shards of 2, 2 and 1 games), its run and its entries."""
    require_extra("pyarrow")
    folder = factory.mktemp("written") / "d"
    shards = write_dataset(PLAN, folder)
    found = read_manifest(folder)
    assert found is not None
    return folder, found.run, shards


def copy_of(written: Written, tmp_path: Path) -> Path:
    """A copy of the written dataset's folder, to spoil."""
    shutil.copytree(written[0], tmp_path / "d")
    return tmp_path / "d"


def refusal(folder: Path, run: dict[str, Any], shard: Shard) -> str:
    """The line :func:`read_shard` refuses ``shard`` with (it must refuse it)."""
    with pytest.raises(ShardError) as caught:
        read_shard(folder, run, shard)
    return str(caught.value)
