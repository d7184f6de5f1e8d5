"""Budgets, statistics and results shared by every search in :mod:`durak.search`.

Every algorithm stops at the first limit of its :class:`Budget` that is reached, and
reports what it did in :class:`SearchStats`.  Iteration and node budgets are
deterministic; a time budget is not (the same seed may then search more or less), so
reproducible experiments should use iterations or nodes.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Generic, TypeVar

import attrs

A = TypeVar("A")


class SearchError(ValueError):
    """Bad input to a search: a terminal root, a missing evaluator, a bad setting."""


class BudgetExhausted(RuntimeError):  # noqa: N818 (a condition, not a bug)
    """A search could not produce any answer within its budget."""


@attrs.frozen
class Budget:
    """Limits on one search; ``None`` means no limit of that kind.

    * ``iterations``: simulations (MCTS, ISMCTS), worlds are counted by PIMC itself.
    * ``nodes``: states visited (alpha-beta, max^n) or created (MCTS trees).
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


@attrs.frozen
class SearchStats:
    """What one search did.

    * ``iterations``: simulations (MCTS, ISMCTS), completed depths (iterative deepening),
      worlds (PIMC).
    * ``nodes``: states visited (alpha-beta, max^n) or tree nodes created (MCTS, ISMCTS).
    * ``depth``: the deepest completed search depth, or the deepest tree node reached.
    * ``seconds``: wall-clock time.
    * ``tree_size``: entries kept: transposition-table entries or tree nodes.
    """

    iterations: int = 0
    nodes: int = 0
    depth: int = 0
    seconds: float = 0.0
    tree_size: int = 0

    def without_time(self) -> SearchStats:
        """The same statistics with ``seconds`` zeroed, for comparing runs."""
        return attrs.evolve(self, seconds=0.0)


@attrs.frozen
class SearchResult(Generic[A]):
    """The decision of one search at a root state.

    * ``action``: the chosen action, always one of the root's legal actions.
    * ``value``: its estimated value for ``player``.
    * ``player``: the player the values are for (the player to move at the root).
    * ``action_values``: ``(action, value for player)`` pairs in legal-action order.  Only
      actions whose value the algorithm knows are listed (alpha-beta lists only the chosen
      action unless asked for every root value).
    * ``visits``: ``(action, count)`` pairs: simulations through each root action (MCTS,
      ISMCTS) or votes (PIMC); empty for the minimax family.
    * ``vector``: the estimated payoff of every player, when the algorithm knows it.
    * ``exact``: the value is the game-theoretic value (the search reached only terminal
      states).
    * ``stats``: :class:`SearchStats`.
    """

    action: A
    value: float
    player: int
    action_values: tuple[tuple[A, float], ...] = ()
    visits: tuple[tuple[A, int], ...] = ()
    vector: tuple[float, ...] | None = None
    exact: bool = False
    stats: SearchStats = SearchStats()

    def value_of(self, action: A) -> float:
        """The value listed for ``action``; ``KeyError`` if the search did not value it."""
        for a, v in self.action_values:
            if a == action:
                return v
        raise KeyError(f"no value for action {action!r}")


def most_visited(visits: Sequence[tuple[A, int]], values: dict[A, float]) -> A:
    """The action with the most visits; ties go to the higher value, then the earlier one."""
    best = visits[0][0]
    best_key = (visits[0][1], values.get(best, -math.inf))
    for a, n in visits[1:]:
        key = (n, values.get(a, -math.inf))
        if key > best_key:
            best, best_key = a, key
    return best
