"""Writing a dataset: the plan of its games and shards, and the loop that builds the
shards (on a backend's workers, or in this process) and commits them in order.

Game ``g`` of a :class:`DatasetPlan` is game ``g`` of the ``durak match`` of the same
rules, specs and seed (:class:`~durak.arena.play.match.MatchPlan`), refereed without a move
limit, so that its rows depend on nothing but the plan (a time limit would make them
depend on the machine); shard ``k`` holds the games of
:class:`~durak.dataset.format.Layout`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator
from itertools import islice
from pathlib import Path
from typing import Any

import attrs

from durak.agents.naming import canonical_spec
from durak.arena.play.match import MatchPlan
from durak.arena.play.referee import Referee
from durak.arena.runs.interface import Backend
from durak.arena.runs.signals import hold_interrupts
from durak.dataset.format import Layout
from durak.dataset.shards import ShardFiles, ShardTask, build_shard, describe
from durak.dataset.store import DatasetDir, Mode, Shard
from durak.rules import Rules, Visibility

__all__ = ["DatasetPlan", "write_dataset", "write_shards"]


def _specs(specs: Any) -> tuple[str, ...]:
    return tuple(canonical_spec(s) for s in specs)  # the agent column names them so


@attrs.frozen
class DatasetPlan:
    """``games`` games of ``specs`` (one per seat) under ``rules`` from master ``seed``,
    seen as ``open_world`` says, written ``shard_games`` games to a file; with ``policy``,
    each decision also holds the acting agent's policy (:mod:`durak.dataset.recorder`).

    The agents are named by their canonical specs
    (:func:`~durak.agents.naming.canonical_spec`): :attr:`specs`, the ``agent`` column and
    the manifest hold those, so two spellings of one run are one dataset.  Raises
    ``ValueError`` if ``games`` or ``shard_games`` is below 1, a spec is bad
    (:class:`~durak.agents.SpecError`), or the specs do not fill the seats.
    """

    rules: Rules
    specs: tuple[str, ...] = attrs.field(converter=_specs)
    seed: int
    games: int
    shard_games: int
    open_world: Visibility = False
    policy: bool = False

    def __attrs_post_init__(self) -> None:
        if self.games < 1:
            raise ValueError(f"a dataset needs at least one game, got {self.games}")
        if self.shard_games < 1:
            raise ValueError(f"a shard holds at least one game, got {self.shard_games}")
        self.match  # noqa: B018  (checks the specs against the seats)

    @property
    def match(self) -> MatchPlan:
        """The match whose games these are."""
        return MatchPlan(
            self.rules, self.specs, self.seed, self.games, self.open_world, Referee(None)
        )

    @property
    def layout(self) -> Layout:
        """Which games each file holds."""
        return Layout(self.games, self.shard_games)

    @property
    def shard_count(self) -> int:
        """How many files: ``games / shard_games``, rounded up."""
        return self.layout.shard_count

    def task(self, index: int) -> ShardTask:
        """The games of shard ``index``."""
        games = self.layout.games_of(index)
        return ShardTask(self.match, index, games.start, games.stop, self.policy)

    def description(self) -> dict[str, Any]:
        """The run, as the manifest records it: two datasets with the same description
        hold the same bytes."""
        return {**describe(self.match, self.policy), **self.layout.to_json()}


def write_shards(
    plan: DatasetPlan, store: DatasetDir, backend: Backend | None = None
) -> Generator[Shard, None, None]:
    """Build the shards ``store`` has not got and commit them in order, yielding each.

    With a ``backend`` its workers build the shards (as many at once as it has workers, the
    next ones already started while these are written); without one, this process does.
    A stop (Ctrl-C, SIGTERM, closing the generator) loses only shards not yet committed; a
    shard is committed whole or not at all.
    """
    pending = iter([k for k in range(plan.shard_count) if k not in store.done])
    if backend is None:
        for k in pending:
            yield _commit(store, build_shard(plan.task(k)))
        return
    wave = max(1, backend.capacity())
    waiting: deque[Callable[[], list[ShardFiles]]] = deque()

    def submit() -> None:
        tasks = [plan.task(k) for k in islice(pending, wave)]
        if tasks:
            waiting.append(backend.start(build_shard, tasks))

    submit()
    submit()
    while waiting:
        built = waiting.popleft()()
        submit()
        for files in built:
            yield _commit(store, files)


def _commit(store: DatasetDir, files: ShardFiles) -> Shard:
    with hold_interrupts():  # a shard's files and the manifest that lists them, together
        return store.commit(files)


def write_dataset(
    plan: DatasetPlan, out: Path | str, mode: Mode = "new", backend: Backend | None = None
) -> list[Shard]:
    """Write the dataset of ``plan`` into the folder ``out`` (see
    :class:`~durak.dataset.store.DatasetDir` for ``mode`` and the checks) and return its
    shards; with ``mode="resume"`` only the shards not yet written are built."""
    with DatasetDir(out, plan.description(), mode) as store:
        for _ in write_shards(plan, store, backend):
            pass
        return [store.done[k] for k in sorted(store.done)]
