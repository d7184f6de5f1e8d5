"""Alpha-beta search with a transposition table, iterative deepening and an exact solver.

Alpha-beta pruning after Knuth & Moore, "An analysis of alpha-beta pruning" (Artificial
Intelligence 6, 1975), in its fail-soft form; the transposition table and iterative
deepening follow Marsland, "A review of game-tree pruning" (ICCA Journal 9, 1986) and
Slate & Atkin's CHESS 4.5 (1977).  With more than two players the same search is the
*paranoid* reduction of Sturtevant & Korf, "On pruning techniques for multi-player games"
(AAAI 2000): every other player is assumed to minimise the searching player's payoff.

The value of a state is for ``player``, the player to move at the root: the maximum over
actions where ``player`` moves, the minimum elsewhere.  A terminal is worth
``returns(s)[player]``, and a state at the depth limit ``evaluate(s)[player]``.

Given the ``value_range`` every value lies in (for Durak, -1 to 1), the search starts from
that window instead of an infinite one: an aspiration window that cannot fail, so a proven
win cuts off the rest of a node at once, which matters in a win/draw/loss game.

Transposition-table entries keep their remaining depth and whether their subtree met the
depth limit.  An entry is used at the same remaining depth, or at any greater one when its
subtree reached only terminals; so a depth-``d`` search returns exactly the depth-``d``
minimax value, whatever the table and the move order, and an exact entry is reused by later
iterations and by the solver.
"""

from __future__ import annotations

import math

from durak.search.arguments import SearchError
from durak.search.budget import NO_LIMIT, Budget, now
from durak.search.depthfirst.base import DepthFirst, OutOfBudget, check_root, deepen
from durak.search.protocol import A, Evaluator, Game, MoveOrder, S
from durak.search.result import SearchResult, SearchStats

_EXACT, _LOWER, _UPPER = 0, 1, 2

# One table entry: (remaining depth, subtree reached only terminals, flag, value, best action)
_Entry = tuple[int, bool, int, float, object]


class TranspositionTable:
    """A transposition table kept from one search to the next, e.g. through the decisions of
    one endgame, where each solve finds most of its subtree already solved.

    Entries are kept per searching player (values are from the root player's view).  Every
    entry is a true bound on its state's value, so reuse never changes a value; it can change
    which of several equally good moves is found first and whether a budget suffices, so for
    reproducible play :meth:`clear` it at the start of each game.  Searches that share a
    table must use the same game and (with a depth limit) the same ``evaluate``.
    """

    def __init__(self) -> None:
        self._tables: dict[int, dict[object, _Entry]] = {}

    def for_player(self, player: int) -> dict[object, _Entry]:
        """The entries of searches rooted at ``player``'s turn."""
        return self._tables.setdefault(player, {})

    def clear(self) -> None:
        """Forget every entry."""
        self._tables.clear()

    def __len__(self) -> int:
        return sum(map(len, self._tables.values()))


class _AlphaBeta(DepthFirst[S, A]):
    """One alpha-beta search: the game, the perspective, the table and the counters."""

    def __init__(
        self,
        game: Game[S, A],
        player: int,
        evaluate: Evaluator[S] | None,
        order: MoveOrder[S, A] | None,
        table: dict[S, _Entry] | None,
        value_range: tuple[float, float] | None,
        budget: Budget,
        start: float,
    ) -> None:
        super().__init__(game, player, evaluate, order, budget, start)
        self.table = table
        self.bounded = value_range is not None
        self.lo, self.hi = value_range if value_range is not None else (-math.inf, math.inf)

    def leaf(self, s: S, v: float, source: str) -> float:
        """``v``, checked against ``value_range``: a value outside it would prune wrongly."""
        if self.bounded and not self.lo <= v <= self.hi:
            raise SearchError(
                f"{source} gave {v} at {s!r}, outside value_range [{self.lo}, {self.hi}]"
            )
        return v

    def value(self, s: S, depth: int, alpha: float, beta: float) -> float:
        """The fail-soft alpha-beta value of ``s`` with ``depth`` plies left."""
        if self.spent():
            raise OutOfBudget
        if depth < self.lowest:  # noqa: PLR1730 (a call to min() is slower here)
            self.lowest = depth
        game = self.game
        if game.is_terminal(s):
            return self.leaf(s, game.returns(s)[self.player], "returns")
        if depth == 0:
            self.frontier += 1
            return self.leaf(s, self.evaluate(s)[self.player], "evaluate")  # type: ignore[misc]
        table = self.table
        best_move: object = None
        if table is not None and (entry := table.get(s)) is not None:
            e_depth, terminal_only, flag, v, best_move = entry
            if e_depth == depth or (terminal_only and e_depth <= depth):
                if not terminal_only:
                    self.frontier += 1
                if flag == _EXACT:
                    return v
                if flag == _LOWER:
                    alpha = max(alpha, v)
                else:
                    beta = min(beta, v)
                if alpha >= beta:
                    return v
        frontier_before = self.frontier
        alpha0, beta0 = alpha, beta
        maximizing = game.current_player(s) == self.player
        best = -math.inf if maximizing else math.inf
        step = game.step
        for a in self.ordered(s, best_move):
            v = self.value(step(s, a), depth - 1, alpha, beta)
            if maximizing:
                if v > best:
                    best, best_move = v, a
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            elif v < best:
                best, best_move = v, a
                if v < beta:
                    beta = v
                    if alpha >= beta:
                        break
        if table is not None:
            flag = _UPPER if best <= alpha0 else _LOWER if best >= beta0 else _EXACT
            table[s] = (depth, self.frontier == frontier_before, flag, best, best_move)
        return best

    def root(self, s: S, depth: int, all_values: bool) -> tuple[A, float, list[tuple[A, float]]]:
        """Search the root: the best action, its value and the values found per action.

        With ``all_values`` every action is searched with a full window, so every listed
        value is exact; otherwise only the best action's value is listed.
        """
        self.nodes += 1
        table = self.table
        entry = table.get(s) if table is not None else None
        actions = self.ordered(s, entry[4] if entry is not None else None)
        frontier_before = self.frontier
        lo, hi = self.lo, self.hi
        alpha = lo
        best_action, best = actions[0], -math.inf
        values: list[tuple[A, float]] = []
        for a in actions:
            window = lo if all_values else alpha
            v = self.value(self.game.step(s, a), depth - 1, window, hi)
            values.append((a, v))
            if v > best:
                best_action, best = a, v
                alpha = max(alpha, v)
                if best >= hi and not all_values:
                    break  # nothing beats the greatest value
        if table is not None:
            table[s] = (depth, self.frontier == frontier_before, _EXACT, best, best_action)
        listed = self.in_legal_order(s, values) if all_values else [(best_action, best)]
        return best_action, best, listed


def alphabeta(
    game: Game[S, A],
    state: S,
    *,
    depth: int | None = None,
    evaluate: Evaluator[S] | None = None,
    iterative: bool = True,
    order: MoveOrder[S, A] | None = None,
    transpositions: bool | TranspositionTable = True,
    budget: Budget = NO_LIMIT,
    root_values: bool = False,
    value_range: tuple[float, float] | None = None,
) -> SearchResult[A]:
    """The minimax (paranoid, with 3+ players) decision at ``state`` for its player to move.

    Settings:

    * ``depth``: plies to search; ``None`` searches to terminal states.  A finite depth
      needs ``evaluate``, the value function used at the depth limit.
    * ``iterative``: search depths 1, 2, ... up to ``depth`` (with ``depth=None``, until a
      search reaches only terminals), reusing the table to order moves.  A budget that runs
      out returns the last completed depth; without ``iterative`` it raises
      :class:`BudgetExhausted`.  Without ``evaluate`` there is no frontier, so the search
      is a single exact one.
    * ``order``: a move-ordering hook, tried after the table's best move.
    * ``transpositions``: use a transposition table keyed by the (hashable) state: a fresh
      one (``True``), none, or a :class:`TranspositionTable` kept between searches.
    * ``budget``: ``nodes``, ``seconds``, and ``iterations`` (the most depths to deepen).
    * ``root_values``: value every root action exactly (full window at the root), as
      PIMC's ``combine="mean"`` needs; otherwise only the chosen action is valued.
    * ``value_range``: ``(lo, hi)``, the least and greatest value any terminal or frontier
      state can have (``(-1, 1)`` for Durak).  The search starts from this window, which
      cuts as soon as a value is proven the best possible; the decision and value are the
      same.  A terminal or frontier value outside it raises :class:`SearchError`.

    Returns the best action (the first in search order among equals), its value for the
    player to move, ``exact`` when no depth-limit value entered the result, and statistics
    (``depth`` is the completed search depth, ``iterations`` the completed depths).
    Raises :class:`SearchError` for a terminal root, a bad depth, or a depth limit
    without ``evaluate``.
    """
    player = check_root(game, state, depth, evaluate)
    if value_range is not None and not (
        len(value_range) == 2
        and all(map(math.isfinite, value_range))
        and value_range[0] <= value_range[1]
    ):
        raise SearchError(
            f"value_range must be (lo, hi), finite with lo <= hi; got {value_range!r}"
        )
    start = now()
    table: dict[S, _Entry] | None
    if isinstance(transpositions, TranspositionTable):
        table = transpositions.for_player(player)  # type: ignore[assignment]
    else:
        table = {} if transpositions else None
    ctx = _AlphaBeta(game, player, evaluate, order, table, value_range, budget, start)
    found, completed, reached, exact = deepen(
        ctx, lambda d: ctx.root(state, d, root_values), depth=depth, iterative=iterative
    )
    action, value, listed = found
    stats = SearchStats(
        iterations=completed,
        nodes=ctx.nodes,
        depth=reached,
        seconds=now() - start,
        tree_size=len(table) if table is not None else 0,
    )
    return SearchResult(action, value, player, tuple(listed), exact=exact, stats=stats)


def solve(
    game: Game[S, A],
    state: S,
    *,
    order: MoveOrder[S, A] | None = None,
    transpositions: bool | TranspositionTable = True,
    budget: Budget = NO_LIMIT,
    root_values: bool = False,
    value_range: tuple[float, float] | None = None,
) -> SearchResult[A]:
    """The exact game-theoretic decision at ``state``: :func:`alphabeta` to terminal states.

    The result has ``exact=True``.  Raises :class:`BudgetExhausted` if the budget runs out
    first (a partial solve has no guaranteed value).
    """
    return alphabeta(
        game,
        state,
        order=order,
        transpositions=transpositions,
        budget=budget,
        root_values=root_values,
        value_range=value_range,
    )
