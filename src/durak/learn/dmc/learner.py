"""The Deep Monte-Carlo learner (DouZero, Zha et al., ICML 2021), on CPU torch.

Training runs in **rounds**.  In round ``r`` the actors (:mod:`durak.learn.dmc.actor`)
play ``round`` episodes, in chunks of ``chunk`` episodes per task, with the weights the
learner had when the round began; meanwhile the learner takes gradient steps on the
samples of the rounds before.  Then the new samples join the buffer, which keeps the last
``buffer_rounds`` rounds.  The target of a sample is the return its player got at the end
of the episode, ±1 (``returns``), with no bootstrapping; the loss is the mean squared
error (plus, with ``expert``, :mod:`durak.learn.dmc.expert`'s term); the optimizer is Adam.

Each round takes ``ceil(reuse · samples of the last round / batch)`` steps, and the
minibatches are drawn from ``derive_seed(seed, r)``: so a run is a function of its seed
and settings, whatever the number of actors or the backend (actors never decide the
schedule, only how fast it runs), up to the floating-point reproducibility of torch.  The
learner uses one thread, the actors one each.

A **checkpoint** (:mod:`durak.learn.dmc.checkpoint`) holds the network, Adam's state, the
buffer, the counters and the pool of earlier copies (:mod:`durak.learn.dmc.league`), so a
resumed run continues exactly as an uninterrupted one.  A privileged run
(:mod:`durak.learn.dmc.privileged`) trains and checkpoints the wider network, and its
model (:meth:`DmcTrainer.model`) is the ordinary network that plays.
"""

from __future__ import annotations

import copy
import hashlib
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

import attrs

from durak.extras import needs

with needs("dmc", "dmc"):
    import numpy as np

from durak.agents.base import SpecError
from durak.files import open_source
from durak.learn.dmc.actor import SELF, ActorTask, Samples, collect
from durak.learn.dmc.checkpoint import (
    CHECKPOINT_FORMAT,
    checkpoint_seed,
    load_checkpoint,
    save_checkpoint,
)
from durak.learn.dmc.expert import expert_term
from durak.learn.dmc.league import PAST, PastPool, Weights
from durak.learn.dmc.net import DmcModel, DmcModelError, build_network, load_model
from durak.learn.dmc.privileged import network_format, playing_weights, widened_weights
from durak.learn.dmc.settings import DmcSettings
from durak.learn.model_file import MAX_FILE_BYTES
from durak.learn.torch_support import require_torch
from durak.rules import Rules
from durak.seeding import derive_seed

# CHECKPOINT_FORMAT and checkpoint_seed: re-exported for the callers that import them here
__all__ = [
    "CHECKPOINT_FORMAT",
    "SELF",
    "DmcSettings",
    "DmcTrainer",
    "RoundStats",
    "checkpoint_seed",
]

A = TypeVar("A")
R = TypeVar("R")


@attrs.frozen
class RoundStats:
    """One round: ``episodes`` and ``samples`` so far, this round's ``decisions``, the
    ``loss`` of its steps (``nan`` before the first), ``steps``, and the learner's wins and
    games against each fixed opponent in this round's episodes."""

    round: int
    episodes: int
    samples: int
    decisions: int
    loss: float
    steps: int
    wins: dict[str, int]
    games: dict[str, int]


class Workers(Protocol):
    """Where actor tasks run: anything with the ``start`` of
    :class:`durak.arena.runs.interface.Backend` (the local pool or Ray; structural, so that
    ``durak.learn`` need not import the arena)."""

    def start(self, fn: Callable[[A], R], args: Sequence[A]) -> Callable[[], list[R]]:
        """Begin ``fn(a)`` for each ``a`` on worker processes; the returned function waits
        for the results, in order."""
        ...


class DmcTrainer:
    """A DMC training run for ``rules`` against ``opponents`` (specs, ``"self"``), from
    master ``seed``; see the module doc.  :meth:`round` plays and learns one round."""

    def __init__(
        self,
        rules: Rules,
        opponents: Sequence[str],
        seed: int,
        settings: DmcSettings | None = None,
    ) -> None:
        self.torch = torch = require_torch()
        torch.set_num_threads(1)
        self.settings = settings = settings or DmcSettings()
        settings.check()
        if not opponents:
            raise SpecError("dmc: give at least one opponent (self, or an agent spec)")
        self.rules = rules
        self.opponents = tuple(opponents)
        self.seed = seed
        torch.manual_seed(derive_seed(seed, 0, 3))
        self.net = network_format(settings.privileged > 0).build(rules, settings.widths)
        self.init_sha256 = self._start_from(settings.init) if settings.init else None
        self.expert = expert_term(settings, rules)  # None when off
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=settings.lr)
        self.rounds = self.episodes = self.samples = 0
        self.seconds = 0.0  # training wall time across resumes (the schedule adds evaluations)
        #: The buffer: the rows and targets of the last rounds, one array per round.
        self.buffer_rows: list[np.ndarray[Any, Any]] = []
        self.buffer_targets: list[np.ndarray[Any, Any]] = []
        #: The earlier copies of the ``past`` opponent (kept only when it is one).
        self.pool = PastPool(settings.past_every, settings.past_keep)

    def _start_from(self, path: str) -> str:
        """Load the weights of the model in ``path`` (same rules and widths, else
        :class:`DmcModelError`); its SHA-256."""
        model = load_model(path)
        if model.rules != self.rules or tuple(model.hidden) != self.settings.widths:
            raise DmcModelError(
                f"dmc: init={path} was trained for {model.rules} with widths "
                f"{tuple(model.hidden)}, not for this run's {self.rules} with widths "
                f"{self.settings.widths}"
            )
        state = model.net.state_dict()
        if self.settings.privileged:
            state = widened_weights(state, self.rules)  # the hidden cards start unweighted
        self.net.load_state_dict(state)
        self.net.eval()
        with open_source(path, MAX_FILE_BYTES) as f:  # load_model read it: a regular file
            return hashlib.file_digest(f, "sha256").hexdigest()

    def weights(self) -> dict[str, np.ndarray[Any, Any]]:
        """The network's state dict as numpy arrays (what actors are sent)."""
        return {k: v.detach().numpy().copy() for k, v in self.net.state_dict().items()}

    def copy_for_play(self) -> Weights:
        """The state dict of the network as it plays (:meth:`model`'s), as numpy arrays."""
        return {k: v.numpy() for k, v in playing_weights(self.net.state_dict(), self.rules).items()}

    def tasks(self) -> list[ActorTask]:
        """The actor tasks of the next round."""
        s = self.settings
        weights = self.weights()
        if PAST in self.opponents:
            self.pool.offer(self.rounds, self.copy_for_play)
        tasks = []
        for k in range(s.round // s.chunk):
            first = self.episodes + k * s.chunk
            against = [e for e in range(first, first + s.chunk) if self._opponent(e) == PAST]
            past = self.pool.for_episodes(self.seed, against) if against else {}
            tasks.append(
                ActorTask(
                    rules=self.rules,
                    hidden=s.widths,
                    weights=weights,
                    seed=self.seed,
                    first=first,
                    count=s.chunk,
                    epsilon=s.epsilon,
                    opponents=self.opponents,
                    warm=s.warm,
                    warm_episodes=s.warm_episodes,
                    privileged=s.privileged,
                    past=past,
                    past_size=len(self.pool.weights),
                )
            )
        return tasks

    def _opponent(self, episode: int) -> str:
        return self.opponents[episode % len(self.opponents)]

    def round(self, workers: Workers) -> RoundStats:
        """Play one round on ``workers`` while learning from the buffer.  All or nothing:
        if the actors' results are lost (a worker killed, say), the network and Adam are
        put back as the round found them, so a checkpoint saved then is the last round's
        end and a resumed run continues exactly as an uninterrupted one."""
        started = time.perf_counter()
        wait = workers.start(collect, self.tasks())
        before = copy.deepcopy((self.net.state_dict(), self.optimizer.state_dict()))
        try:
            loss, steps = self._learn()
            chunks: list[Samples] = wait()
        except BaseException:
            self.net.load_state_dict(before[0])
            self.optimizer.load_state_dict(before[1])
            self.net.eval()
            raise
        self.buffer_rows.append(np.concatenate([c.rows for c in chunks]))
        self.buffer_targets.append(np.concatenate([c.targets for c in chunks]))
        keep = self.settings.buffer_rounds
        del self.buffer_rows[:-keep], self.buffer_targets[:-keep]
        wins: dict[str, int] = {}
        games: dict[str, int] = {}
        for c in chunks:
            for k, v in c.wins.items():
                wins[k] = wins.get(k, 0) + v
            for k, v in c.games.items():
                games[k] = games.get(k, 0) + v
        new = len(self.buffer_targets[-1])
        self.rounds += 1
        self.episodes += self.settings.round
        self.samples += new
        self.seconds += time.perf_counter() - started
        decisions = sum(c.decisions for c in chunks)
        return RoundStats(
            self.rounds, self.episodes, self.samples, decisions, loss, steps, wins, games
        )

    def _learn(self) -> tuple[float, int]:
        """The steps of this round on the buffer; the mean loss (``nan`` if none)."""
        if not self.buffer_targets:
            return math.nan, 0
        torch, s = self.torch, self.settings
        rows = np.concatenate(self.buffer_rows)
        targets = np.concatenate(self.buffer_targets)
        steps = math.ceil(s.reuse * len(self.buffer_targets[-1]) / s.batch)
        rng = np.random.default_rng(derive_seed(self.seed, self.rounds, 4))
        if self.expert is not None:
            self.expert.begin(self.seed, self.rounds)
        total = 0.0
        self.net.train()
        for _ in range(steps):
            pick = rng.integers(0, len(targets), size=min(s.batch, len(targets)))
            x = torch.from_numpy(rows[pick].astype(np.float32))
            y = torch.from_numpy(targets[pick])
            loss = torch.nn.functional.mse_loss(self.net(x)[:, 0], y)
            extra = 0.0 if self.expert is None else self.expert.loss(self.net)
            self.optimizer.zero_grad()
            (loss + extra).backward()
            self.optimizer.step()
            total += loss.item()
        self.net.eval()
        return total / steps, steps

    def model(self, meta: dict[str, Any] | None = None) -> DmcModel:
        """The network as it plays, a :class:`~durak.learn.dmc.net.DmcModel` (for saving
        or play): an ordinary ``dmc`` network, a privileged one's hidden-card inputs
        dropped (:mod:`durak.learn.dmc.privileged`), whose ``meta`` then records the fade's
        coefficient where the run stands (``privileged_coefficient``; 0 once it is over)."""
        net = build_network(self.rules, self.settings.widths)
        net.load_state_dict(playing_weights(self.net.state_dict(), self.rules))
        net.eval()
        faded = (
            {"privileged_coefficient": self.settings.fade(self.episodes)}
            if self.settings.privileged
            else {}
        )
        record = {
            "opponents": list(self.opponents),
            "seed": self.seed,
            "settings": attrs.asdict(self.settings),
            "episodes": self.episodes,
            "rounds": self.rounds,
            "train_seconds": round(self.seconds, 1),
            **({"init_sha256": self.init_sha256} if self.init_sha256 else {}),
            **faded,
            **(meta or {}),
        }
        return DmcModel(net, self.rules, self.settings.widths, record)

    def identity(self) -> dict[str, Any]:
        """What a checkpoint must match to be resumed by this run."""
        return {
            "rules": attrs.asdict(self.rules),
            "opponents": list(self.opponents),
            "seed": self.seed,
            "settings": attrs.asdict(self.settings),
            **(self.expert.identity() if self.expert else {}),
        }

    def save_checkpoint(self, path: Path) -> None:
        """Everything needed to resume, written atomically to ``path``
        (:func:`~durak.learn.dmc.checkpoint.save_checkpoint`)."""
        save_checkpoint(self, path)

    def load_checkpoint(self, path: Path) -> None:
        """Continue from the checkpoint in ``path``
        (:func:`~durak.learn.dmc.checkpoint.load_checkpoint`: :class:`DmcModelError` if it
        cannot be read or belongs to another run)."""
        load_checkpoint(self, path)
