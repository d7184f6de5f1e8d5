"""Max^n search for n players, with Korf's shallow pruning and the paranoid option.

Max^n after Luckhardt & Irani, "An algorithmic solution of n-person games" (AAAI 1986):
each state is worth a payoff vector; the player to move picks the child whose vector is
best for itself (the first such child in search order among equals).  Shallow pruning after
Korf, "Multi-player alpha-beta pruning" (Artificial Intelligence 48, 1991): if every payoff
is at least ``min_value`` and the payoffs sum to at most ``max_sum``, a child where player
``k`` already secures ``v_k`` leaves its parent's player ``j`` at most
``max_sum - v_k - (n - 2) * min_value``; once that cannot beat ``j``'s best, the child's
other moves cannot matter.  The pruned search returns exactly the unpruned vector.

``paranoid=True`` searches instead with the paranoid reduction (Sturtevant & Korf, AAAI
2000): :func:`durak.search.depthfirst.minimax.alphabeta` with the others minimising the root
player's payoff.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from durak.search.arguments import SearchError
from durak.search.budget import NO_LIMIT, Budget, now
from durak.search.depthfirst.base import DepthFirst, OutOfBudget, check_root, deepen
from durak.search.depthfirst.minimax import alphabeta
from durak.search.protocol import A, Evaluator, Game, MoveOrder, S
from durak.search.result import SearchResult, SearchStats

_Vector = tuple[float, ...]
_TOLERANCE = 1e-9


class _MaxN(DepthFirst[S, A]):
    """One max^n search.  With pruning (``prune``), every payoff is at least ``min_value``
    and sums to at most ``max_sum``, and ``slack`` is ``(n - 2) * min_value``; without it,
    the three are not set."""

    min_value: float
    max_sum: float
    slack: float

    def __init__(
        self,
        game: Game[S, A],
        player: int,
        evaluate: Evaluator[S] | None,
        order: MoveOrder[S, A] | None,
        bounds: tuple[float, float] | None,
        budget: Budget,
        start: float,
    ) -> None:
        super().__init__(game, player, evaluate, order, budget, start)
        self.prune = bounds is not None
        if bounds is not None:  # read only when pruning
            self.min_value, self.max_sum = bounds
            self.slack = (game.num_players - 2) * self.min_value

    def payoff(self, s: S, vector: Sequence[float], source: str) -> _Vector:
        """``vector`` as a tuple, checked against the pruning bounds when pruning."""
        v = tuple(vector)
        if self.prune and (
            min(v) < self.min_value - _TOLERANCE or sum(v) > self.max_sum + _TOLERANCE
        ):
            raise SearchError(
                f"{source} gave {v} at {s!r}, outside the pruning bounds "
                f"(every payoff >= {self.min_value}, sum <= {self.max_sum})"
            )
        return v

    def vector(self, s: S, depth: int, parent: int, parent_best: float) -> _Vector:
        """The max^n vector of ``s``; ``parent`` moved into it and has ``parent_best`` so far."""
        if self.spent():
            raise OutOfBudget
        if depth < self.lowest:  # noqa: PLR1730 (a call to min() is slower here)
            self.lowest = depth
        game = self.game
        if game.is_terminal(s):
            return self.payoff(s, game.returns(s), "returns")
        if depth == 0:
            self.frontier += 1
            return self.payoff(s, self.evaluate(s), "evaluate")  # type: ignore[misc]
        j = game.current_player(s)
        # Once j secures `cutoff`, the parent's player cannot beat its best through s.
        cutoff = self.max_sum - self.slack - parent_best if self.prune and parent != j else math.inf
        best: _Vector | None = None
        best_j = -math.inf
        step = game.step
        for a in self.ordered(s):
            v = self.vector(step(s, a), depth - 1, j, best_j)
            if v[j] > best_j:
                best, best_j = v, v[j]
                if best_j >= cutoff:
                    break
        return best  # type: ignore[return-value]

    def root(
        self, s: S, depth: int, all_values: bool
    ) -> tuple[A, _Vector, list[tuple[A, _Vector]]]:
        """The best root action, its vector, and the vectors found per action."""
        self.nodes += 1
        j = self.player
        best_action: A | None = None
        best: _Vector = ()
        best_j = -math.inf
        found: list[tuple[A, _Vector]] = []
        for a in self.ordered(s):
            v = self.vector(self.game.step(s, a), depth - 1, j, -math.inf if all_values else best_j)
            found.append((a, v))
            if v[j] > best_j:
                best_action, best, best_j = a, v, v[j]
        assert best_action is not None
        listed = self.in_legal_order(s, found) if all_values else [(best_action, best)]
        return best_action, best, listed


def maxn(
    game: Game[S, A],
    state: S,
    *,
    depth: int | None = None,
    evaluate: Evaluator[S] | None = None,
    iterative: bool = True,
    order: MoveOrder[S, A] | None = None,
    bounds: tuple[float, float] | None = None,
    paranoid: bool = False,
    budget: Budget = NO_LIMIT,
    root_values: bool = False,
) -> SearchResult[A]:
    """The max^n decision at ``state`` for the player to move.

    Settings:

    * ``depth`` / ``evaluate``: plies to search and the vector value function at the depth
      limit (``None``: search to terminals).
    * ``iterative``: deepen 1, 2, ... up to ``depth`` so a budget that runs out still gives
      the last completed depth (as :func:`~durak.search.depthfirst.minimax.alphabeta`).
    * ``order``: a move-ordering hook; ties go to the first action in this order.
    * ``bounds``: ``(min_value, max_sum)`` enables shallow pruning.  Every payoff (returns
      and ``evaluate``) must be at least ``min_value`` and sum to at most ``max_sum``;
      a value outside them raises :class:`SearchError` rather than prune wrongly.
    * ``paranoid``: search the paranoid reduction instead (alpha-beta on the root player's
      payoff with a transposition table); ``bounds`` is then unused.
    * ``budget``: ``nodes``, ``seconds``, and ``iterations`` (the most depths to deepen).
    * ``root_values``: list the exact vector's value of every root action.

    Returns the action, ``vector`` (the max^n payoff vector; ``None`` when paranoid),
    ``value`` (the mover's entry), and statistics.  With pruning the vector and action are
    exactly those of unpruned max^n.
    """
    if paranoid:
        return alphabeta(
            game,
            state,
            depth=depth,
            evaluate=evaluate,
            iterative=iterative,
            order=order,
            budget=budget,
            root_values=root_values,
        )
    player = check_root(game, state, depth, evaluate)
    if bounds is not None and (len(bounds) != 2 or not all(map(math.isfinite, bounds))):
        raise SearchError(
            f"bounds must be (min_value, max_sum), two finite numbers; got {bounds!r}"
        )
    start = now()
    ctx = _MaxN(game, player, evaluate, order, bounds, budget, start)
    (action, vector, found), completed, reached, exact = deepen(
        ctx, lambda d: ctx.root(state, d, root_values), depth=depth, iterative=iterative
    )
    stats = SearchStats(iterations=completed, nodes=ctx.nodes, depth=reached, seconds=now() - start)
    values = tuple((a, v[player]) for a, v in found)
    return SearchResult(
        action, vector[player], player, values, vector=vector, exact=exact, stats=stats
    )
