"""Budgets, seeding and errors shared by every search in :mod:`durak.search`.

Every algorithm stops at the first limit of its :class:`Budget` that is reached, and
reports what it did in :class:`~durak.search.result.SearchStats`.  Iteration and node budgets are
deterministic; a time budget is not (the same seed may then search more or less), so
reproducible experiments should use iterations or nodes.
"""

from __future__ import annotations

import math
import random
import time

import attrs


class SearchError(ValueError):
    """Bad input to a search: a terminal root, a missing evaluator, a bad setting."""


class BudgetExhausted(RuntimeError):  # noqa: N818 (a condition, not a bug)
    """A search could not produce any answer within its budget."""


@attrs.frozen
class Budget:
    """Limits on one search; ``None`` means no limit of that kind.

    * ``iterations``: simulations (MCTS, ISMCTS), or depths of iterative deepening
      (alpha-beta, max^n).  PIMC counts its worlds itself.
    * ``nodes``: states visited: by alpha-beta and max^n, or along the tree path and the
      rollout of each simulation (MCTS, ISMCTS).
    * ``seconds``: wall-clock time (not reproducible; checked every few hundred nodes).
    """

    iterations: int | None = None
    nodes: int | None = None
    seconds: float | None = None

    def __attrs_post_init__(self) -> None:
        for name in ("iterations", "nodes", "seconds"):
            value = getattr(self, name)
            ok = value is None or (
                isinstance(value, int | float) and not isinstance(value, bool) and value > 0
            )
            if not ok or (name != "seconds" and value is not None and not isinstance(value, int)):
                raise SearchError(f"Budget.{name} must be a positive number, got {value!r}")

    @property
    def unlimited(self) -> bool:
        """Whether no limit is set at all."""
        return self.iterations is None and self.nodes is None and self.seconds is None

    def deadline(self, start: float) -> float:
        """The ``time.perf_counter()`` value at which time runs out (``inf`` if none)."""
        return math.inf if self.seconds is None else start + self.seconds

    def require_limit(self, algorithm: str) -> None:
        """Raise :class:`SearchError` if this budget would let ``algorithm`` run forever."""
        if self.unlimited:
            raise SearchError(f"{algorithm} needs a budget: set iterations, nodes or seconds")


#: The default budget of searches that end by themselves (alpha-beta, max^n).
NO_LIMIT = Budget()


def as_rng(rng: random.Random | int) -> random.Random:
    """``rng`` itself, or a new generator seeded with the int ``rng``; never global state."""
    if isinstance(rng, random.Random):
        return rng
    if isinstance(rng, int) and not isinstance(rng, bool):
        return random.Random(rng)
    raise SearchError(f"rng must be a random.Random or an int seed, got {rng!r}")


def now() -> float:
    """The clock every budget uses (``time.perf_counter``)."""
    return time.perf_counter()
