"""Scaffolding shared by the depth-first searches (alpha-beta and max^n).

Node and time budgets, counters, the depth-limit checks and the iterative-deepening driver
(Slate & Atkin, "CHESS 4.5", 1977): depths 1, 2, ... until a search meets no depth limit,
the maximum depth is done, or the budget runs out (then the last completed depth stands).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from durak.search.arguments import SearchError
from durak.search.budget import Budget, BudgetExhausted, now
from durak.search.protocol import A, Evaluator, Game, MoveOrder, S

R = TypeVar("R")

#: The remaining depth of a search to terminal states.
UNLIMITED = 1 << 62
#: Nodes between two looks at the clock.
CLOCK_EVERY = 1024


class OutOfBudget(Exception):  # noqa: N818 (control flow, never leaves durak.search)
    """Raised inside a search when its node or time budget is spent."""


class DepthFirst(Generic[S, A]):
    """One depth-first search: the game, the searching player and the counters.

    ``nodes`` counts visited states; ``frontier`` counts uses of the depth limit (directly
    or through stored results); ``lowest`` is the least remaining depth reached.  The last
    two are reset by :func:`deepen` before each depth.
    """

    frontier: int
    lowest: int

    def __init__(
        self,
        game: Game[S, A],
        player: int,
        evaluate: Evaluator[S] | None,
        order: MoveOrder[S, A] | None,
        budget: Budget,
        start: float,
    ) -> None:
        self.game = game
        self.player = player
        self.evaluate = evaluate
        self.order = order
        self.max_nodes = budget.nodes if budget.nodes is not None else UNLIMITED
        self.max_iterations = budget.iterations if budget.iterations is not None else UNLIMITED
        self.deadline = budget.deadline(start)
        self.nodes = 0

    def spent(self) -> bool:
        """Count a node; whether the budget is now spent (time is read every 1024 nodes)."""
        self.nodes += 1
        return self.nodes >= self.max_nodes or (
            not self.nodes % CLOCK_EVERY and now() > self.deadline
        )

    def ordered(self, s: S, first: object = None) -> Sequence[A]:
        """The legal actions of ``s`` in search order: ``first`` (the best action a stored
        result of ``s`` names, so legal), then ``order``'s."""
        actions = self.game.legal_actions(s)
        if self.order is not None:
            actions = self.order(s, actions)
        if first is not None:
            actions = [first, *(a for a in actions if a != first)]  # type: ignore[list-item]
        return actions

    def in_legal_order(self, s: S, pairs: list[tuple[A, R]]) -> list[tuple[A, R]]:
        """``pairs`` (one per action of ``s``, in search order) in legal-action order."""
        found = dict(pairs)
        return [(a, found[a]) for a in self.game.legal_actions(s) if a in found]


def check_root(game: Game[S, A], state: S, depth: int | None, evaluate: Evaluator[S] | None) -> int:
    """The player to move at a searchable root; :class:`SearchError` for bad settings."""
    if game.is_terminal(state):
        raise SearchError("cannot search from a terminal state: it has no legal actions")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise SearchError(f"depth must be a positive int or None, got {depth!r}")
    if depth is not None and evaluate is None:
        raise SearchError("a depth limit needs an evaluate function for the frontier")
    return game.current_player(state)


def deepen(
    ctx: DepthFirst[S, A], run: Callable[[int], R], *, depth: int | None, iterative: bool
) -> tuple[R, int, int, bool]:
    """Run ``run(d)`` for growing ``d`` (or once at ``depth``) within the budget.

    The budget's ``iterations`` caps the number of depths.  Returns the last completed
    result, the number of completed depths, the deepest ply it reached, and whether it was
    exact (met no depth limit).  Raises :class:`BudgetExhausted` when not even the first
    depth completes.
    """
    limit = UNLIMITED if depth is None else depth
    d = 1 if iterative and ctx.evaluate is not None else limit
    found: tuple[R, int, bool] | None = None
    completed = 0
    while True:
        ctx.frontier = 0
        ctx.lowest = d
        try:
            result = run(d)
        except OutOfBudget:
            if found is None:
                shown = "to terminals" if d >= UNLIMITED else f"to depth {d}"
                raise BudgetExhausted(f"the budget ran out before a search {shown} ended") from None
            break
        completed += 1
        found = (result, d - ctx.lowest, ctx.frontier == 0)
        if found[2] or d >= limit or completed >= ctx.max_iterations:
            break
        d += 1
    return found[0], completed, found[1], found[2]
