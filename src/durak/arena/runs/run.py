"""A run: the games of one or more match plans, logged as they finish and resumable.

The run says what to play and records what finishes; a backend (:mod:`durak.arena.runs.interface`:
this process, a local process pool, or Ray) plays the games, and the run does not know
which.

A :class:`Run` with a log appends one entry per finished game (:mod:`durak.arena.gamelog.files`),
and holds the log's lock from construction to the end of :meth:`Run.play`, so a second run
on the same log fails at once.  Resuming reads that log first: it must hold only games of
this run's plans (same rules, specs, seed, open world and move time limit; checked line by
line), and every game it holds is replayed through the engine as ``durak replay`` does
(:mod:`durak.arena.gamelog.replay`) before it is counted as played.  Ctrl-C and SIGTERM
(``KeyboardInterrupt``, :mod:`durak.arena.runs.signals`) stop a run with every finished game
kept in the log and in :meth:`Run.results`.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterator, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from durak.agents.base import SpecError
from durak.agents.interface.protocol import resolutions
from durak.agents.naming import canonical_spec
from durak.arena.gamelog.entry import LogEntry, LogError, entry_for
from durak.arena.gamelog.files import LogWriter, read_log
from durak.arena.gamelog.replay import check_unique, replay_entry
from durak.arena.play.match import GameOutcome, MatchPlan, PlayedGame, build_agents
from durak.arena.play.referee import Referee
from durak.arena.runs.backends import DEFAULT, open_backend
from durak.arena.runs.interface import Backend, Task, refuse_in_starting_worker
from durak.arena.runs.signals import hold_interrupts
from durak.arena.scores.result import MatchResult
from durak.rules import Rules, Visibility


class Run:
    """The games of ``plans``, logged to ``log`` if given; :meth:`play` plays them.

    Construction checks every spec against its plan's rules
    (:class:`~durak.agents.SpecError`), takes the log's lock (:class:`LogError` if another
    run holds it) and, with ``resume``, reads the log (:class:`LogError` for a corrupt line,
    a game that does not replay, or a game of another run; a cut-off last line is dropped
    and reported in :attr:`notes`).  Without ``resume`` a log that already holds games is
    refused, so two runs never mix.  The lock is released when :meth:`play` ends, or by
    :meth:`close`.
    """

    def __init__(
        self,
        plans: Sequence[MatchPlan],
        *,
        log: Path | str | None = None,
        resume: bool = False,
    ) -> None:
        refuse_in_starting_worker()
        self.plans = tuple(plans)
        keys = [repr(p.identity()) for p in self.plans]
        if len(set(keys)) != len(keys):
            raise ValueError("the same match is planned twice")
        #: What the agents that play what the rules choose play (``dmc``'s model,
        #: ``strongest``'s spec), one line each: ``SPEC plays WHAT``.
        found: list[str] = []
        for specs, rules in dict.fromkeys((p.specs, p.rules) for p in self.plans):
            found += resolutions(specs, build_agents(specs, rules), rules)
        self.resolutions = list(dict.fromkeys(found))
        self.log = None if log is None else Path(log)
        #: Things the user should know about the log (a dropped line, ignored games).
        self.notes: list[str] = []
        self._done: list[dict[int, GameOutcome]] = [{} for _ in self.plans]
        self.wall_seconds = 0.0
        #: Games played at once by the last :meth:`play` (1: one after another).
        self.workers_used = 1
        # Opened (and locked) now: an unwritable or busy log fails before any game.
        self._writer = None if self.log is None else LogWriter(self.log)
        try:
            if self.log is not None and resume:
                self._load(self.log, [_key(p.identity()) for p in self.plans])
            elif self.log is not None and self.log.stat().st_size > 0:
                raise LogError(
                    self.log,
                    None,
                    "already holds games; resume that run (--resume) or choose another log file",
                )
        except BaseException:
            self.close()
            raise
        #: Games found in the log when the run was resumed.
        self.resumed = sum(len(d) for d in self._done)

    def _load(self, path: Path, keys: list[str]) -> None:
        read = read_log(path, allow_truncated=True)
        if read.truncated is not None:
            self.notes.append(
                f"{path} line {read.truncated.line} was cut off mid-write; "
                "dropped it, and its game will be played again"
            )
        check_unique(read.entries, path)
        beyond = 0
        for entry in read.entries:
            key = _key(entry.identity())
            if key not in keys or entry.kind != "match":
                raise LogError(
                    path,
                    entry.line,
                    _mismatch(entry, self.plans) + "; refusing to resume a different run",
                )
            p = keys.index(key)
            replay_entry(entry, path)  # a game the engine rejects is never counted
            if entry.game < self.plans[p].games:
                self._done[p][entry.game] = entry.outcome()
            else:
                beyond += 1
        if beyond:
            self.notes.append(f"{beyond} logged games beyond the planned number are not counted")
        read.repair()

    def pending(self) -> Iterator[Task]:
        """The games still to play, as (plan index, game index), in order, generated
        lazily (a run of any size takes no memory for them)."""
        for p, plan in enumerate(self.plans):
            done = self._done[p]
            for g in range(plan.games):
                if g not in done:
                    yield p, g

    @property
    def remaining(self) -> int:
        """How many games are still to play."""
        return self.total - sum(len(d) for d in self._done)

    def close(self) -> None:
        """Release the log (and its lock); :meth:`play` does it when it ends."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    @property
    def total(self) -> int:
        """Every planned game, played or not."""
        return sum(p.games for p in self.plans)

    def play(self, backend: Backend | None = None) -> Generator[tuple[int, PlayedGame], None, None]:
        """Play the pending games on ``backend`` (by default this process); yields (plan
        index, game) as each finishes and is logged.

        The order is the finishing order; the outcomes do not depend on it or on the
        backend.  A game the backend hands back twice is logged and yielded once.
        """
        backend = open_backend(DEFAULT) if backend is None else backend
        count = self.remaining
        self.workers_used = max(1, min(backend.capacity(), count))
        if self.log is not None and self._writer is None:  # a second play: lock again
            self._writer = LogWriter(self.log)
        writer = self._writer
        started = time.perf_counter()
        try:
            with closing(backend.play(self.plans, self.pending(), count)) as batches:
                for batch in batches:
                    fresh = []
                    with hold_interrupts():  # a batch is logged and counted whole, or not at all
                        for p, played in batch:
                            if played.outcome.game in self._done[p]:
                                continue
                            if writer is not None:
                                writer.write(entry_for(self.plans[p], played))
                            self._done[p][played.outcome.game] = played.outcome
                            fresh.append((p, played))
                    yield from fresh
        finally:
            self.wall_seconds += time.perf_counter() - started
            self.close()

    def results(self) -> list[MatchResult]:
        """One result per plan with the games finished so far, in game order."""
        return [
            MatchResult(plan, tuple(done[g] for g in sorted(done)), self.wall_seconds)
            for plan, done in zip(self.plans, self._done, strict=True)
        ]


def _key(identity: dict[str, Any]) -> str:
    """A run's ``identity`` as a key, its specs read through their canonical form
    (:func:`~durak.agents.naming.canonical_spec`): a log written before it may spell an
    agent otherwise, and its games are this run's all the same (a game's deal does not
    depend on how its agents are spelt).  A spec no longer known is kept as written."""
    specs = []
    for spec in identity["specs"]:
        try:
            specs.append(canonical_spec(spec))
        except SpecError:
            specs.append(spec)
    return repr({**identity, "specs": specs})


def _mismatch(entry: LogEntry, plans: Sequence[MatchPlan]) -> str:
    """Why ``entry`` is not a game of ``plans``, in a few words."""
    if entry.kind != "match":
        return f"this is a {entry.kind} log, not a match log"
    same = [p for p in plans if p.specs == entry.specs] or list(plans[:1])
    if len(plans) > 1 and not any(p.specs == entry.specs for p in plans):
        return f"the logged match {' vs '.join(entry.specs)} is not part of this run"
    mine, theirs = same[0].identity(), entry.identity()
    for key in ("specs", "seed", "open_world", "move_timeout", "replaced"):
        if mine.get(key) != theirs.get(key):  # "replaced": only where an agent was
            return f"the log has {key} {theirs.get(key)!r}, the command {mine.get(key)!r}"
    rules = [
        f"{k}={theirs['rules'][k]!r} (command: {v!r})"
        for k, v in mine["rules"].items()
        if theirs["rules"][k] != v
    ]
    return f"the log's rules differ: {', '.join(rules)}"


def run_match(
    rules: Rules,
    specs: Sequence[str],
    *,
    games: int,
    seed: int,
    backend: Backend | None = None,
    open_world: Visibility = False,
    referee: Referee | None = None,
    log: Path | str | None = None,
    resume: bool = False,
) -> MatchResult:
    """Play ``games`` games of ``specs`` (one per seat) on ``backend`` (by default this
    process); see :class:`MatchPlan` for the seating and :class:`Run` for ``log`` and
    ``resume``.

    Specs are checked before any game starts (:class:`~durak.agents.SpecError`).  The
    outcomes are the same on any backend; only the timing differs.  Without a
    ``referee`` an agent's error stops the match.
    """
    if games < 1:
        raise ValueError(f"games must be positive, got {games}")
    plan = MatchPlan(rules, tuple(specs), seed, games, open_world, referee)
    run = Run([plan], log=log, resume=resume)
    for _ in run.play(backend):
        pass
    return run.results()[0]
