"""The Ray backend: games played as Ray tasks, on a local Ray instance or on a cluster.

Ray (Moritz et al., "Ray: A Distributed Framework for Emerging AI Applications", OSDI 2018)
is imported only when this backend is opened; ``pip install 'durak-lab[ray]'`` provides it.

* **Batches.**  Each task plays a batch of games, so that Ray's per-task cost (about a
  millisecond) stays small beside cheap games; :class:`~durak.arena.runs.interface.BatchSizer`
  sizes them from the seconds per game measured so far.
* **Streaming.**  ``ray.wait`` hands back each batch as it finishes; its games are yielded
  (and so logged) at once, while two batches per CPU are in flight.
* **Seeds.**  A game depends only on its plan and index, never on the worker, the batch or
  the attempt, so any schedule gives the same games.
* **Faults.**  Ray plays a task again, up to :data:`MAX_RETRIES` times, when its worker
  process or node dies; the batch's result arrives once, whichever attempt made it, and the
  run skips a game it already has.  A game that raises (no referee) raises its own error
  in the driver, as on the local backend.
* **Stopping.**  Closing the generator (Ctrl-C, SIGTERM, an error) keeps the finished
  games and abandons the batches in flight, without ``ray.cancel``: cancelling a task
  whose reply is on its way can abort the driver inside Ray 2.60 (a failed check, "Tried
  to complete task that was not pending", the race of a cancel with a task's reply that
  ray-project/ray#54798 fixed for retries; 9 of 40 interrupted runs on this machine,
  ``benchmarks/ray_interrupts.py``).
  The workers stop when the driver disconnects (the local instance is shut down, and a
  cluster ends the tasks of a finished job); a process that stays connected lets each
  abandoned batch finish, about :data:`~durak.arena.runs.interface.TASK_SECONDS` of play, and
  drops its games.
* **Agents** are built once per plan in each worker and kept for the rest of the run; a
  token names the run, so a long-lived cluster worker never reuses another run's agents
  (a model file may have changed in between).  Each task carries the modules the driver
  imported for their agents (``--agent-module``), and a worker imports them, from the
  driver's directory, before it builds an agent (on a cluster, every node must have them
  at that path).
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Sequence
from itertools import islice
from types import ModuleType
from typing import Any

import attrs

from durak.agents.base import Agent, AgentModule, agent_modules, import_agent_modules
from durak.arena.play.match import MatchPlan
from durak.arena.runs.interface import (
    A,
    BackendError,
    Batch,
    BatchSizer,
    Closing,
    R,
    Task,
    play_batch,
)
from durak.extras import MissingExtraError, install_hint, require

#: How often Ray plays a batch again after its worker or node died.
MAX_RETRIES = 3
#: Seconds to wait for a cluster's address to answer before giving up.
CONNECT_SECONDS = 5.0

#: What ``ray.init`` is told besides the address: no dashboard, no log chatter.
_QUIET: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False}

INSTALL_HINT = install_hint("ray")


class RayMissingError(BackendError, MissingExtraError):
    """Ray is not installed: a backend that cannot start, whose message names the extra."""


def import_ray() -> ModuleType:
    """The ``ray`` module, or :class:`RayMissingError` saying which extra installs it."""
    (ray,) = require("--backend ray", "ray", "ray", error=RayMissingError)
    return ray


def check_address(address: str) -> None:
    """Raise :class:`BackendError` unless ``address`` (``HOST:PORT``, ``ray://HOST:PORT``
    or ``auto``) is well formed and, but for ``auto``, a server there answers as Ray's do
    (gRPC, over HTTP/2) within :data:`CONNECT_SECONDS` in all: Ray itself would keep
    retrying for minutes at an address where nothing, or something else, answers."""
    if address == "auto":
        return
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BackendError(
            f"--address {address!r}: expected HOST:PORT (as 'ray start --head' prints), "
            "ray://HOST:PORT or auto"
        )
    deadline = time.monotonic() + CONNECT_SECONDS
    try:
        with socket.create_connection((host.strip("[]"), int(port)), CONNECT_SECONDS) as sock:
            problem = _not_grpc(sock, deadline)
    except OSError as e:
        problem = f"no Ray cluster answers there ({e.strerror or str(e) or type(e).__name__})"
    if problem:
        raise BackendError(f"--address {address}: {problem}")


#: An HTTP/2 client's first bytes: the connection preface and an empty SETTINGS frame.
_HTTP2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
_SETTINGS = 4


def _not_grpc(sock: socket.socket, deadline: float) -> str:
    """Why the server on ``sock`` is not Ray's ("" if it is): a gRPC server (Ray's GCS
    and client server) answers the HTTP/2 preface with a SETTINGS frame (RFC 9113, 3.4);
    anything else, or nothing before ``deadline``, is not Ray."""
    sock.settimeout(max(deadline - time.monotonic(), 0.001))
    sock.sendall(_HTTP2_HELLO)
    head = b""
    try:
        while len(head) < 9:
            sock.settimeout(max(deadline - time.monotonic(), 0.001))
            chunk = sock.recv(9 - len(head))
            if not chunk:
                break
            head += chunk
    except TimeoutError:
        return f"the server there did not answer within {CONNECT_SECONDS:g} s (not Ray?)"
    if len(head) == 9 and head[3] == _SETTINGS:
        return ""
    return "the server there is not Ray (it does not answer as a gRPC server)"


@attrs.frozen
class BatchResult:
    """A finished batch: the worker's ``node`` id, the ``seconds`` it took, its games."""

    node: str
    seconds: float
    games: Batch


# A worker's run token and the agents of that run's plans.
_token: list[str] = [""]
_agents: dict[int, tuple[Agent, ...]] = {}


def _play_batch(
    token: str, modules: tuple[AgentModule, ...], plans: tuple[MatchPlan, ...], batch: list[Task]
) -> BatchResult:
    """The task: play ``batch`` of ``plans`` in this worker, once it has imported the
    driver's agent ``modules``."""
    import ray  # noqa: PLC0415 - present wherever this task runs

    import_agent_modules(modules)
    if token != _token[0]:
        _agents.clear()
        _token[0] = token
    seconds, games = play_batch(plans, batch, _agents)
    return BatchResult(ray.get_runtime_context().get_node_id(), seconds, games)


class RayCluster(Closing):
    """Ray tasks on the Ray instance this process is connected to.

    Open it with :meth:`open`.  ``games_by_node`` counts the games each node has played.
    """

    def __init__(self, ray: ModuleType, *, started: bool, owned: bool) -> None:
        self._ray = ray
        self._started = started
        self._owned = owned
        self._remote = ray.remote(_play_batch).options(max_retries=MAX_RETRIES)
        self._remotes: dict[Callable[..., Any], Any] = {}
        self.games_by_node: Counter[str] = Counter()

    @classmethod
    def open(cls, *, address: str | None = None, cpus: int = 1) -> RayCluster:
        """Join the cluster at ``address`` (or ``$RAY_ADDRESS``), or start a local Ray
        instance with ``cpus`` CPUs; in a process already connected to Ray, use that
        connection (and leave it open on :meth:`close`).  :class:`BackendError` if Ray is
        not installed or nothing answers at the address."""
        ray = import_ray()
        address = address or os.environ.get("RAY_ADDRESS") or None
        if address is not None:
            check_address(address)
        if ray.is_initialized():
            current = ray.get_runtime_context().gcs_address
            if address not in (None, "auto", current):
                raise BackendError(
                    f"--address {address}: this process is already connected to the Ray "
                    f"cluster at {current}"
                )
            return cls(ray, started=False, owned=False)
        if address is None:
            # "local": a new instance of our own, even while another runs on this machine
            # (`ray start`); without it Ray would join that one and refuse num_cpus.
            ray.init(address="local", num_cpus=cpus, include_dashboard=False, **_QUIET)
            return cls(ray, started=True, owned=True)
        try:
            ray.init(address=address, **_QUIET)
        except ConnectionError as e:
            raise BackendError(f"--address {address}: {e}") from None
        return cls(ray, started=False, owned=True)

    def where_for(self, count: int) -> str:
        """Where every count of games runs: :attr:`where` (tasks go to the cluster's CPUs)."""
        return self.where

    @property
    def where(self) -> str:
        """``local Ray, N CPUs`` or ``Ray cluster at ADDRESS, N CPUs on K nodes``."""
        cpus = self.capacity()
        if self._started:
            return f"local Ray, {cpus} CPU{'s' * (cpus != 1)}"
        nodes = sum(1 for n in self._ray.nodes() if n.get("Alive"))
        address = self._ray.get_runtime_context().gcs_address
        return (
            f"Ray cluster at {address}, {cpus} CPU{'s' * (cpus != 1)} on {nodes} "
            f"node{'s' * (nodes != 1)}"
        )

    def capacity(self) -> int:
        """The cluster's CPUs now (at least one)."""
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def play(
        self, plans: Sequence[MatchPlan], tasks: Iterable[Task], count: int
    ) -> Generator[Batch, None, None]:
        """Play ``tasks`` in batches of Ray tasks; yield each batch's games as it finishes."""
        ray = self._ray
        plans_ref = ray.put(tuple(plans))
        token = uuid.uuid4().hex  # names this run in the workers; never affects a game
        modules = agent_modules()
        batches = BatchSizer(count, self.capacity())
        source = iter(tasks)
        pending: dict[Any, list[Task]] = {}

        def fill() -> None:
            while len(pending) < batches.in_flight:
                batch = list(islice(source, batches.next_size()))
                if not batch:
                    return
                pending[self._remote.remote(token, modules, plans_ref, batch)] = batch

        fill()
        while pending:  # stopped early, the batches left in flight are abandoned
            [ref], _ = ray.wait(list(pending), num_returns=1)
            batch = pending.pop(ref)
            result = self._result(ref, batch)
            batches.record(len(batch), result.seconds)
            self.games_by_node[result.node] += len(result.games)
            fill()
            yield result.games

    def start(self, fn: Callable[[A], R], args: Sequence[A]) -> Callable[[], list[R]]:
        """See :meth:`~durak.arena.runs.interface.Backend.start`: one Ray task per argument,
        played again (up to :data:`MAX_RETRIES` times) if its worker dies."""
        if fn not in self._remotes:
            self._remotes[fn] = self._ray.remote(fn).options(max_retries=MAX_RETRIES)
        refs = [self._remotes[fn].remote(a) for a in args]

        def wait() -> list[R]:
            n = len(refs)
            return [self._get(ref, f"run task {i + 1} of {n}") for i, ref in enumerate(refs)]

        return wait

    def _result(self, ref: Any, batch: list[Task]) -> BatchResult:
        """The batch's result; a game's own error is raised as it was raised in the game."""
        result: BatchResult = self._get(ref, _describe(batch))
        return result

    def _get(self, ref: Any, what: str) -> Any:
        """``ray.get(ref)``; the task's own error is raised as itself, and a task Ray
        could not run is a :class:`BackendError` naming ``what``."""
        exceptions = self._ray.exceptions
        try:
            return self._ray.get(ref)
        except exceptions.RayTaskError as e:
            cause = getattr(e, "cause", None)
            if isinstance(cause, BaseException):
                raise cause from None
            raise
        except exceptions.RayError as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise BackendError(
                f"Ray could not {what} after {MAX_RETRIES} retries: {first}"
            ) from None

    def close(self) -> None:
        """Disconnect from Ray (stopping the local instance it started), if it connected."""
        if self._owned and self._ray.is_initialized():
            self._ray.shutdown()
        self._owned = False


def _describe(batch: list[Task]) -> str:
    """The games of a batch for an error: ``play 3 games from game 12 of match 1``."""
    p, g = batch[0]
    return f"play {len(batch)} game{'s' * (len(batch) != 1)} from game {g} of match {p + 1}"
