"""The budget of a search: its limits, its clock, and the error of a search it cut short.

* :class:`Budget`: iterations, nodes and seconds, each a positive number or ``None`` (no
  limit); every algorithm stops at the first limit reached and reports what it did in
  :class:`~durak.search.result.SearchStats`.  Iteration and node budgets are deterministic;
  a time budget is not (the same seed may then search more or less), so reproducible
  experiments use iterations or nodes.
* :data:`NO_LIMIT`: the budget of the searches that end by themselves.
* :func:`now`: the clock every time budget reads.
* :class:`BudgetExhausted`: a search that could give no answer within its budget.
"""

from __future__ import annotations

import math
import time

import attrs

from durak.search.arguments import SearchError


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


def now() -> float:
    """The clock every budget uses (``time.perf_counter``)."""
    return time.perf_counter()
