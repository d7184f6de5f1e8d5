"""One shard of a dataset: the decisions and the public records of a fixed range of games,
as two Parquet files built in memory (in whichever worker plays them) and handed back as
bytes, so that any backend can build shards and only this process writes files.

The bytes depend only on the plan and the range: the writer's options are fixed here
(Zstandard, dictionary pages, statistics, format 2.6), rows are grouped by whole games into
row groups of about :data:`ROWS_PER_GROUP` decisions, and Parquet stores no timestamp (its
``created_by`` names the pyarrow version, the same for the same install).  The schemas,
with the run's description in their metadata under ``durak``, are :func:`decision_schema`
and :func:`game_schema`; docs/cli.md ("durak dataset") lists their columns.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import attrs

from durak.extras import needs

with needs("durak dataset", "dataset"):
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

from durak.agents.base import Agent
from durak.arena.play.match import MatchPlan, build_agents
from durak.dataset.format import FORMAT, VERSION, table_description
from durak.dataset.rows import GameRows, play_rows
from durak.encoding import action_space_size, observation_size

__all__ = [
    "ROWS_PER_GROUP",
    "ShardFiles",
    "ShardTask",
    "build_shard",
    "decision_schema",
    "describe",
    "game_schema",
]

#: A row group is closed after the game that brings it to this many decisions.
ROWS_PER_GROUP = 8192


def describe(plan: MatchPlan, policy: bool = False) -> dict[str, Any]:
    """The run a dataset holds, as plain data: the plan's identity (rules, specs, seed,
    visibility), the widths of the encodings, and the format; ``"policy": true`` when the
    decisions hold the agents' policies (the key is absent otherwise, so a dataset without
    them is described as before)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        **plan.identity(),
        "observation_size": observation_size(plan.rules),
        "action_space_size": action_space_size(plan.rules),
        **({"policy": True} if policy else {}),
    }


def _with_description(
    schema: pa.Schema, plan: MatchPlan, table: str, policy: bool = False
) -> pa.Schema:
    text = json.dumps(table_description(describe(plan, policy), table), sort_keys=True)
    return schema.with_metadata({b"durak": text.encode("utf-8")})


def decision_schema(plan: MatchPlan, policy: bool = False) -> pa.Schema:
    """The columns of the decisions table (one row per decision), with ``plan``'s
    description as metadata; with ``policy``, a last column ``policy`` (the acting
    agent's distribution over the action space, null where it cannot analyse)."""
    extra = [("policy", pa.list_(pa.float32()))] if policy else []
    schema = pa.schema(
        [
            ("game", pa.int64()),
            ("seed", pa.uint64()),
            ("step", pa.int32()),
            ("player", pa.int32()),
            ("agent", pa.string()),
            ("observation", pa.list_(pa.float32())),
            ("legal_mask", pa.list_(pa.bool_())),
            ("action", pa.int32()),
            ("return", pa.float32()),
            *extra,
        ]
    )
    return _with_description(schema, plan, "decisions", policy)


def game_schema(plan: MatchPlan) -> pa.Schema:
    """The columns of the games table (one row per game: its public record), with
    ``plan``'s description as metadata."""
    schema = pa.schema(
        [
            ("game", pa.int64()),
            ("seed", pa.uint64()),
            ("seats", pa.list_(pa.int32())),
            ("agents", pa.list_(pa.string())),
            ("actions", pa.list_(pa.string())),
            ("end", pa.string()),
            ("durak", pa.int32()),
            ("returns", pa.list_(pa.float32())),
            ("bouts", pa.int32()),
            ("forfeit", pa.string()),
            ("rules", pa.string()),
            ("open_world", pa.string()),
        ]
    )
    return _with_description(schema, plan, "games")


@attrs.frozen
class ShardTask:
    """Games ``first`` to ``stop - 1`` of ``plan``, shard number ``index``; ``policy``:
    record the agents' policies."""

    plan: MatchPlan
    index: int
    first: int
    stop: int
    policy: bool = False


@attrs.frozen
class ShardFiles:
    """A built shard: its Parquet files' bytes, and how many games and decisions they
    hold."""

    index: int
    games: int
    decisions: int
    decision_bytes: bytes
    game_bytes: bytes


# A worker's agents, kept from one shard of a run to the next (the last plan's only).
_agents: dict[tuple[tuple[str, ...], Any], tuple[Agent, ...]] = {}


def _agents_of(plan: MatchPlan) -> tuple[Agent, ...]:
    key = (plan.specs, plan.rules)
    if key not in _agents:
        _agents.clear()
        _agents[key] = build_agents(plan.specs, plan.rules)
    return _agents[key]


def _writer(sink: pa.BufferOutputStream, schema: pa.Schema) -> pq.ParquetWriter:
    """A Parquet writer with every option that shapes the bytes fixed."""
    return pq.ParquetWriter(
        sink,
        schema,
        version="2.6",
        compression="zstd",
        compression_level=3,
        use_dictionary=True,
        write_statistics=True,
        data_page_version="1.0",
    )


def _lists(values: np.ndarray[Any, Any], width: int) -> pa.ListArray:
    """The rows of the 2-D ``values`` as a list column (``width`` items each)."""
    offsets = np.arange(0, values.shape[0] * width + 1, width, dtype=np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values.reshape(-1)))


def _policies(games: Sequence[GameRows], width: int) -> pa.ListArray:
    """The games' policies as a list column, null where a decision has none."""
    found = [p for g in games for p in g.policies or ()]
    valid = np.array([p is not None for p in found], dtype=np.bool_)
    offsets = np.concatenate([[0], np.cumsum(valid * width)]).astype(np.int32)
    values = [p for p in found if p is not None]
    flat = np.concatenate(values) if values else np.zeros(0, np.float32)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat), mask=pa.array(~valid))


def _decision_table(games: Sequence[GameRows], plan: MatchPlan, schema: pa.Schema) -> pa.Table:
    """The decisions of ``games`` as one table of ``schema`` (its ``policy`` column, if it
    has one, from the games' policies)."""
    specs = np.array(plan.specs, dtype=object)
    counts = [len(g.actions) for g in games]
    players = np.concatenate([g.players for g in games])
    agents = np.concatenate([specs[np.array(g.seats)][g.players] for g in games])
    returns = np.concatenate([np.array(g.returns, np.float32)[g.players] for g in games])
    columns = [
        pa.array(np.repeat(np.array([g.game for g in games], np.int64), counts)),
        # uint64 before repeating: a deal seed above 2**63 must not pass through float64
        pa.array(np.repeat(np.array([g.record.seed for g in games], np.uint64), counts)),
        pa.array(np.concatenate([np.arange(c, dtype=np.int32) for c in counts])),
        pa.array(players),
        pa.array(agents.tolist(), pa.string()),
        _lists(np.concatenate([g.observations for g in games]), observation_size(plan.rules)),
        _lists(np.concatenate([g.masks for g in games]), action_space_size(plan.rules)),
        pa.array(np.concatenate([g.actions for g in games])),
        pa.array(returns),
    ]
    if "policy" in schema.names:
        columns.append(_policies(games, action_space_size(plan.rules)))
    return pa.Table.from_arrays(columns, schema=schema)


def _game_row(g: GameRows, plan: MatchPlan) -> dict[str, Any]:
    """The public record of one game, a row of the games table."""
    r, f = g.record, g.record.forfeit
    forfeit: dict[str, Any] | None = None
    if f is not None:  # the action only for an illegal one, as the Forfeit holds it
        forfeit = {"seat": f.seat, "fault": f.fault, "message": f.message}
        if f.action is not None:
            forfeit["action"] = f.action
    return {
        "game": g.game,
        "seed": r.seed,
        "seats": list(g.seats),
        "agents": [plan.specs[a] for a in g.seats],
        "actions": [str(a) for a in r.actions],
        "end": "finished" if f is None else "forfeit",
        "durak": r.loser,
        "returns": list(g.returns),
        "bouts": r.bouts,
        "forfeit": None if forfeit is None else json.dumps(forfeit, sort_keys=True),
        "rules": json.dumps(attrs.asdict(plan.rules), sort_keys=True),
        "open_world": json.dumps(plan.open_world),
    }


def build_shard(task: ShardTask) -> ShardFiles:
    """Play the games of ``task`` and build its two files (run by a backend's workers, or
    in this process); the same task gives the same bytes."""
    plan = task.plan
    agents = _agents_of(plan)
    schema = decision_schema(plan, task.policy)
    decisions = pa.BufferOutputStream()
    records: list[dict[str, Any]] = []
    group: list[GameRows] = []
    rows = total = 0
    with _writer(decisions, schema) as writer:
        for game in range(task.first, task.stop):
            played = play_rows(plan, game, agents, task.policy)
            records.append(_game_row(played, plan))
            group.append(played)
            rows += len(played.actions)
            if rows >= ROWS_PER_GROUP or game == task.stop - 1:
                writer.write_table(_decision_table(group, plan, schema))
                total += rows
                group, rows = [], 0
    games = pa.BufferOutputStream()
    with _writer(games, game_schema(plan)) as writer:
        writer.write_table(pa.Table.from_pylist(records, schema=game_schema(plan)))
    return ShardFiles(
        task.index,
        task.stop - task.first,
        total,
        decisions.getvalue().to_pybytes(),
        games.getvalue().to_pybytes(),
    )
