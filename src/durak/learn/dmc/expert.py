"""Expert iteration for the Deep Monte-Carlo network: a search's move choices distilled
into the network's Q (``durak train "dmc:expert=DIR"``).

After Anthony, Tian & Barber, "Thinking Fast and Slow with Deep Learning and Tree Search"
(NeurIPS 2017): the apprentice (here the Q network) learns the expert's (the guided
search's) visit distribution at the decisions the expert played.  The network scores each
legal action of a decision, one row each (:func:`~durak.learn.dmc.features.decision_rows`);
its policy there is ``softmax(Q / temperature)`` over those rows, and the term added to
each learner step is ``weight`` times the cross-entropy from the search's distribution to
that policy, averaged over a minibatch of decisions (:func:`decision_cross_entropy`).  The
mean squared error to the returns stays the value target.

The decisions come from a folder written by ``durak dataset --policy`` (pyarrow, the
``dataset`` extra), read through :mod:`durak.dataset.format`: its manifest gives the rules
and the files (each read bounded and checked against its entry,
:func:`~durak.dataset.format.read_shard`), and its decisions, in game and step order, are
stepped again through the engine from each game's deal (the row's ``seed``), so that every
decision with a policy and more than one legal action yields its rows (float16), and each
row the search's share of its action (:func:`load_expert`).  The rows depend only on the
observation of the player to act, as at play time.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from durak.extras import needs

with needs("dmc", "dmc"):
    import numpy as np
    from numpy.typing import NDArray

from durak.agents.base import SpecError
from durak.dataset.format import (
    MANIFEST,
    Layout,
    Manifest,
    ShardError,
    read_manifest,
    read_shard,
)
from durak.encoding import ActionSpace
from durak.files import FileError
from durak.learn.dmc.features import decision_rows, row_size
from durak.learn.dmc.settings import DmcSettings
from durak.learn.torch_support import require_torch
from durak.rules import (
    GameState,
    IllegalActionError,
    Rules,
    legal_actions,
    new_game,
    observe,
    step,
)
from durak.seeding import derive_seed

__all__ = ["ExpertData", "ExpertTerm", "decision_cross_entropy", "expert_term", "load_expert"]

#: The columns read from the decisions.
COLUMNS = ["game", "seed", "step", "player", "action", "policy"]


@attrs.frozen(eq=False)
class ExpertData:
    """The decisions of an expert dataset: ``rows`` (float16, one per legal action),
    ``starts[d]:starts[d + 1]`` the rows of decision ``d``, ``targets`` (float32) the
    search's probability of each row's action (summing to 1 over a decision), and
    ``digest``, the SHA-256 of the dataset's manifest."""

    rows: NDArray[np.float16]
    starts: NDArray[np.int64]
    targets: NDArray[np.float32]
    digest: str

    @property
    def decisions(self) -> int:
        """How many decisions."""
        return len(self.starts) - 1

    def batch(self, pick: NDArray[np.int64]) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
        """The rows of decisions ``pick`` (float32), each row's position in ``pick``, and
        each row's target."""
        lengths = self.starts[pick + 1] - self.starts[pick]
        segment = np.repeat(np.arange(len(pick)), lengths)
        first = np.repeat(self.starts[pick] - (np.cumsum(lengths) - lengths), lengths)
        index = first + np.arange(int(lengths.sum()))
        return self.rows[index].astype(np.float32), segment, self.targets[index]


def _fail(path: Path, problem: str) -> SpecError:
    return SpecError(f"dmc: expert={path}: {problem}")


def _manifest(path: Path) -> Manifest:
    """The manifest of the dataset in ``path``."""
    try:
        found = read_manifest(path)
    except FileError as e:
        raise _fail(path, f"{MANIFEST}: {e.reason}") from None
    if found is None:
        raise _fail(path, f"no dataset there (no {MANIFEST}); write one with durak dataset")
    return found


def _check_run(path: Path, run: object, rules: Rules) -> None:
    """:class:`SpecError` unless ``run`` is a closed-world run of ``rules`` with policies."""
    if not isinstance(run, dict):
        raise _fail(path, "its manifest records no run")
    try:
        theirs = Rules(**run["rules"])
    except (KeyError, TypeError, ValueError):
        raise _fail(path, "its manifest records no valid rules") from None
    if theirs != rules:
        changed = ", ".join(
            f"{k} {v!r} (this run: {getattr(rules, k)!r})"
            for k, v in attrs.asdict(theirs).items()
            if getattr(rules, k) != v
        )
        raise _fail(path, f"the dataset was played under other rules: {changed}")
    if run.get("policy") is not True:
        raise _fail(path, "the dataset has no policy column; write it with durak dataset --policy")
    if run.get("open_world") is not False:
        raise _fail(path, "the dataset's players saw hidden cards (--open-world); use a closed one")


def _shards(path: Path, found: Manifest) -> Iterator[bytes]:
    """The decisions of the files the manifest lists, in order, each checked against its
    entry (:func:`~durak.dataset.format.read_shard`), as Parquet bytes."""
    try:
        Layout.of_run(found.run)
    except ValueError as e:
        raise _fail(path, f"{MANIFEST}: {e}") from None
    if not found.shards:
        raise _fail(path, "the dataset has no finished file")
    for shard in sorted(found.shards, key=lambda s: s.index):
        try:
            yield read_shard(path, found.run, shard).decisions
        except ShardError as e:
            raise _fail(path, f"{Path(e.path).relative_to(path)}: {e.reason}") from None


def _batches(path: Path, found: Manifest) -> Iterator[dict[str, Any]]:
    """The decisions of the dataset, a record batch at a time, as numpy columns (the
    policies as flat values, offsets and validity)."""
    with needs("dmc expert=DIR", "dataset"):
        import pyarrow as pa  # noqa: PLC0415 - only expert runs need pyarrow
        import pyarrow.parquet as pq  # noqa: PLC0415
    for data in _shards(path, found):
        file = pq.ParquetFile(pa.BufferReader(data))
        for batch in file.iter_batches(batch_size=2048, columns=COLUMNS):
            policy = batch.column("policy")
            yield {
                **{c: batch.column(c).to_numpy() for c in COLUMNS[:-1]},
                "valid": policy.is_valid().to_numpy(zero_copy_only=False),
                "offsets": policy.offsets.to_numpy(),
                "values": policy.values.to_numpy(),
            }


def load_expert(path: Path | str, rules: Rules) -> ExpertData:
    """The decisions of the ``durak dataset --policy`` folder ``path`` for a run under
    ``rules`` (see the module doc); :class:`SpecError` in one line for a folder that is not
    such a dataset, of other rules, without policies, whose files do not match its
    manifest or do not replay, or with no decision to learn from."""
    path = Path(path)
    found = _manifest(path)
    _check_run(path, found.run, rules)
    space = ActionSpace(rules)
    rows: list[NDArray[np.float16]] = []
    targets: list[NDArray[np.float32]] = []
    state: GameState | None = None
    for b in _batches(path, found):
        for i in range(len(b["game"])):
            if b["step"][i] == 0:
                state = new_game(rules, int(b["seed"][i]))
            if state is None or state.turn != b["player"][i]:
                raise _fail(path, f"game {b['game'][i]} does not replay (step {b['step'][i]})")
            legal = legal_actions(state)
            if b["valid"][i] and len(legal) > 1:
                policy = b["values"][b["offsets"][i] : b["offsets"][i + 1]]
                share = policy[space.encode_all(legal)].astype(np.float32)
                if share.sum() > 0:
                    seen = observe(state, state.turn)
                    rows.append(decision_rows(seen, legal).astype(np.float16))
                    targets.append(share / share.sum())
            try:
                state = step(state, space.decode(int(b["action"][i])))
            except (IllegalActionError, ValueError, IndexError):
                where = f"game {b['game'][i]}, step {b['step'][i]}"
                raise _fail(path, f"{where} is not a legal action") from None
    if not rows:
        raise _fail(path, "the dataset holds no decision with a policy and a choice")
    starts = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    return ExpertData(np.concatenate(rows), starts, np.concatenate(targets), found.sha256)


def decision_cross_entropy(
    scores: Any, segment: Any, targets: Any, decisions: int, temperature: float
) -> Any:
    """The mean over ``decisions`` decisions of the cross-entropy from ``targets`` to the
    softmax of ``scores / temperature`` within each decision (torch tensors: one score,
    decision index and target per row); a segment softmax, so decisions may have any
    number of rows."""
    torch = require_torch()
    z = scores / temperature
    top = torch.full((decisions,), -math.inf, dtype=z.dtype)
    top = top.scatter_reduce(0, segment, z.detach(), "amax")
    shifted = z - top[segment]
    sums = torch.zeros(decisions, dtype=z.dtype).index_add_(0, segment, torch.exp(shifted))
    log_policy = shifted - torch.log(sums)[segment]
    return -(targets * log_policy).sum() / decisions


class ExpertTerm:
    """The distillation term of a run with ``expert`` (its settings): the data, and each
    round's minibatches of decisions, drawn from ``derive_seed(seed, round, 5)`` (so a
    resumed run draws what one run draws), about ``batch`` rows each."""

    def __init__(self, data: ExpertData, settings: DmcSettings) -> None:
        self.data = data
        self.settings = settings
        mean_rows = len(data.targets) / data.decisions
        self.per_batch = max(1, round(settings.batch / mean_rows))
        self._rng = np.random.default_rng(0)
        self._total, self._steps = 0.0, 0

    def identity(self) -> dict[str, Any]:
        """What a checkpoint of the run records of the data: its manifest's SHA-256."""
        return {"expert_sha256": self.data.digest}

    def begin(self, seed: int, round: int) -> None:
        """Start round ``round`` of the run of master ``seed``: its generator, its mean."""
        self._rng = np.random.default_rng(derive_seed(seed, round, 5))
        self._total, self._steps = 0.0, 0

    def loss(self, net: Any) -> Any:
        """``expert_weight`` times the cross-entropy of the next minibatch (a tensor for
        ``backward``); the cross-entropy joins the round's :attr:`mean_loss`."""
        torch, s = require_torch(), self.settings
        pick = self._rng.integers(0, self.data.decisions, size=self.per_batch)
        rows, segment, targets = self.data.batch(pick)
        scores = net(torch.from_numpy(rows))[:, 0]
        ce = decision_cross_entropy(
            scores,
            torch.from_numpy(segment),
            torch.from_numpy(targets),
            len(pick),
            s.expert_temperature,
        )
        self._total += ce.item()
        self._steps += 1
        return s.expert_weight * ce

    @property
    def mean_loss(self) -> float:
        """The mean cross-entropy of this round's steps (``nan`` before any)."""
        return self._total / self._steps if self._steps else math.nan


def expert_term(settings: DmcSettings, rules: Rules) -> ExpertTerm | None:
    """The term of ``settings.expert`` for a run under ``rules`` (``None`` when off),
    its dataset loaded and checked (:func:`load_expert`; the rows must be the network's)."""
    if not settings.expert:
        return None
    data = load_expert(settings.expert, rules)
    assert data.rows.shape[1] == row_size(rules)
    return ExpertTerm(data, settings)
