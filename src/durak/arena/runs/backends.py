"""The backends by name: the one list of them, and :func:`open_backend`.

This is the only module that imports the implementations of
:class:`~durak.arena.runs.interface.Backend`; the run and the command line name a backend
through :class:`BackendName`.  Adding a backend: a module beside
:mod:`~durak.arena.runs.pool` implementing the interface, a member of :class:`BackendName`,
and its case in :func:`open_backend` (mypy checks that every member has one).
"""

from __future__ import annotations

import enum
from typing import assert_never

from durak.arena.runs.interface import Backend, BackendError
from durak.arena.runs.pool import LocalPool
from durak.arena.runs.ray_cluster import RayCluster


class BackendName(enum.StrEnum):
    """Where the games run: ``local`` (this machine) or ``ray`` (Ray tasks)."""

    local = "local"
    ray = "ray"


#: The backend a run plays on when it is given none: this process.
DEFAULT = BackendName.local


def open_backend(name: str, *, jobs: int = 1, address: str | None = None) -> Backend:
    """The backend called ``name`` with ``jobs`` workers; ``address`` is a Ray cluster's.

    ``local`` plays in this process for one job and in a process pool for more.  ``ray``
    joins the cluster at ``address`` (or ``$RAY_ADDRESS``) if given, else starts a local Ray
    instance with ``jobs`` CPUs.  Raises :class:`BackendError` naming the problem: an
    unknown name, an address for the local backend, Ray not installed, or no cluster at the
    address.
    """
    try:
        chosen = BackendName(name)
    except ValueError:
        choices = ", ".join(BackendName)
        raise BackendError(f"unknown backend {name!r}; choose one of: {choices}") from None
    match chosen:
        case BackendName.local:
            if address is not None:
                raise BackendError("--address is for --backend ray; the local backend has none")
            return LocalPool(jobs)
        case BackendName.ray:
            return RayCluster.open(address=address, cpus=jobs)
        case _:  # pragma: no cover - mypy checks that every name has its case
            assert_never(chosen)
