"""The option groups of the commands that play a run of games (``match``, ``tournament``,
``grid``): :class:`RunSettings` (how the games are played) and :class:`ReportFiles` (the
``--csv``/``--json`` reports), each declared once and expanded into every command by
:func:`~durak.cli.option_groups.expand`.  The options themselves are declared in
:mod:`durak.cli.options`."""

from __future__ import annotations

import os

import attrs
from rich.console import Console

from durak.agents.seats import UNATTENDED
from durak.arena.gamelog.files import logged_seed
from durak.arena.play.match import MatchPlan
from durak.arena.play.referee import Referee
from durak.arena.runs.backends import open_backend
from durak.arena.runs.interface import Backend
from durak.arena.runs.run import Run
from durak.cli.console import Outputs, seed_line
from durak.cli.driver import Driven, drive_run
from durak.cli.option_groups import option_group
from durak.cli.options import (
    Address,
    BackendName,
    BackendOption,
    Confidence,
    CsvFile,
    Force,
    FullInformation,
    Games,
    Jobs,
    JsonFile,
    Log,
    MoveTimeout,
    OpenWorld,
    Quiet,
    Resume,
    Seed,
    UsageError,
    Verbose,
    check_confidence,
    check_timeout,
    choose_seed,
)
from durak.files import Existing, FilePlan, Output
from durak.rules import Visibility


@option_group
@attrs.frozen
class RunOptions:
    """Where a run plays its games, or runs its actors: the one declaration and check of
    ``--jobs``, ``--backend`` and ``--address``, for every command that takes them.

    Attributes:
      jobs: ``--jobs``, worker processes or local Ray CPUs; ``None``: the cores.
      backend: ``--backend``, ``local`` or ``ray``.
      address: ``--address``, the Ray cluster to join.

    :meth:`check` holds them together, before any work: ``--address`` comes only with
    ``--backend ray`` and without ``--jobs``.  The groups that hold this one call it when
    they are built; ``durak train`` calls it once it knows the learner takes it.
    """

    jobs: Jobs = None
    backend: BackendOption = BackendName.local
    address: Address = None

    def check(self) -> None:
        """:class:`~durak.cli.options.UsageError` unless the options fit together."""
        if self.address is not None and self.backend is not BackendName.ray:
            raise UsageError("--address is for --backend ray (the cluster to join)")
        if self.address is not None and self.jobs is not None:
            raise UsageError(
                "--jobs sets the CPUs of a local Ray instance; a cluster at --address "
                "plays on all of its CPUs"
            )

    def workers(self) -> int:
        """``--jobs``, by default the number of cores."""
        return self.jobs or os.cpu_count() or 1

    def open_backend(self) -> Backend:
        """The backend of ``--backend``, ``--jobs`` and ``--address``, started or joined;
        :class:`~durak.arena.runs.interface.BackendError` (a ``ValueError``) names a problem."""
        return open_backend(self.backend.value, jobs=self.workers(), address=self.address)


@option_group
@attrs.frozen
class Sight:
    """What the players see: ``--open-world`` (every hand) or ``--full-information``
    (every hand and the talon's order); one declaration and check for every command that
    plays.  Invariant (a :class:`~durak.cli.options.UsageError` otherwise): not both."""

    open_world: OpenWorld = False
    full_information: FullInformation = False

    def __attrs_post_init__(self) -> None:
        if self.open_world and self.full_information:
            raise UsageError("--full-information shows every hand already; drop --open-world")

    @property
    def visibility(self) -> Visibility:
        """What the players see: ``--open-world``, ``--full-information`` or neither."""
        return "full" if self.full_information else self.open_world


@option_group
@attrs.frozen
class RunSettings:
    """The run options of ``match``, ``tournament`` and ``grid``.

    Attributes:
      games: ``--games``, per pairing or setting.
      seed: ``--seed``; ``None``: the log's when resuming, else a random one.
      where: ``--jobs``, ``--backend``, ``--address`` (:class:`RunOptions`).
      sight: ``--open-world``, ``--full-information`` (:class:`Sight`).
      move_timeout: ``--move-timeout``, seconds per move; ``None``: no limit.
      log: ``--log``, the JSON Lines log of the run.
      resume: ``--resume``: continue the run in ``log``.
      confidence: ``--confidence`` of the Wilson intervals.
      verbose: ``--verbose``, counted: a line per game, then its moves too.
      quiet: ``--quiet``: no progress bar.

    Invariants (a :class:`~durak.cli.options.UsageError` otherwise): 0 < confidence < 1;
    the move timeout is positive and within the referee's bound; ``--resume`` has a
    ``--log``.
    """

    games: Games = 100
    seed: Seed = None
    where: RunOptions = attrs.field(factory=RunOptions)
    sight: Sight = attrs.field(factory=Sight)
    move_timeout: MoveTimeout = None
    log: Log = None
    resume: Resume = False
    confidence: Confidence = 0.98
    verbose: Verbose = 0
    quiet: Quiet = False

    def __attrs_post_init__(self) -> None:
        self.where.check()
        check_confidence(self.confidence)
        check_timeout(self.move_timeout)
        if self.resume and self.log is None:
            raise UsageError("--resume needs --log FILE, the log of the run to continue")

    def the_seed(self) -> int:
        """``--seed``; when resuming without it, the log's; else a random seed."""
        logged = self._logged_seed()
        return choose_seed(self.seed) if logged is None else logged

    def _logged_seed(self) -> int | None:
        if self.seed is None and self.resume and self.log is not None:
            return logged_seed(self.log)
        return None

    def seed_line(self, seed: int) -> str:
        """How to repeat the run of :meth:`the_seed` ``seed``: given, from the log, or
        random."""
        source = None if self._logged_seed() is None or self.log is None else str(self.log)
        return seed_line(seed, self.seed, source)

    @property
    def visibility(self) -> Visibility:
        """What the players see (:attr:`Sight.visibility`)."""
        return self.sight.visibility

    def referee(self) -> Referee:
        """Every fault forfeits, with ``--move-timeout`` as the move limit."""
        return Referee(self.move_timeout)

    def files(self) -> FilePlan:
        """The run's game log (``--log``), appended to."""
        if self.log is None:
            return FilePlan()
        return FilePlan((Output(self.log, "--log", "append"),))

    def outputs(self, reports: ReportFiles) -> Outputs:
        """The report files of ``reports``, once every file of the run (the log too) is
        checked together (:meth:`~durak.files.FilePlan.check`)."""
        (self.files() + reports.files(self.resume)).check()
        return reports.open(self.resume)

    def drive(
        self, run: Run, header: tuple[str, ...], out: Console, pairing: bool = False
    ) -> Driven:
        """Play ``run`` with these settings' backend, bar and lines
        (:func:`~durak.cli.driver.drive_run`)."""
        return drive_run(
            run,
            header,
            out,
            quiet=self.quiet,
            verbose=self.verbose,
            backend=self.where.open_backend,
            pairing=pairing,
        )

    def run(self, plans: list[MatchPlan]) -> Run:
        """The run of ``plans`` with these settings (reads the log when resuming), once
        every seat passes the policy of unattended play
        (:data:`~durak.agents.seats.UNATTENDED`: no ``human`` at any depth)."""
        UNATTENDED.check_all(spec for plan in plans for spec in plan.specs)
        return Run(plans, log=self.log, resume=self.resume)


@option_group
@attrs.frozen
class ReportFiles:
    """The ``--csv``, ``--json`` and ``--force`` options of the commands that report a run.

    Attributes:
      csv_file: ``--csv FILE``, ``-`` for standard output, or ``None``.
      json_file: ``--json FILE``, ``-`` for standard output, or ``None``.
      force: ``--force``: replace a regular file already there.

    The files are checked with the run's other files (:meth:`files`, :class:`FilePlan`).
    """

    csv_file: CsvFile = None
    json_file: JsonFile = None
    force: Force = False

    def existing(self, resume: bool = False) -> Existing:
        """What to do with a report file already there: replace it with ``--force`` or when
        the run continues (``resume``), else refuse it."""
        return "replace" if self.force or resume else "refuse"

    def files(self, resume: bool = False) -> FilePlan:
        """The report files, as outputs of the run."""
        existing = self.existing(resume)
        return FilePlan(
            tuple(
                Output(path, option, existing)
                for path, option in ((self.csv_file, "--csv"), (self.json_file, "--json"))
                if path is not None
            )
        )

    def open(self, resume: bool = False) -> Outputs:
        """The outputs, to write at the end (checked by :meth:`files` with the rest)."""
        return Outputs(self.csv_file, self.json_file, self.existing(resume))
