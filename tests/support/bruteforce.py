"""Plain reference solvers for the search tests: no pruning, no move ordering tricks.

Written from the specification of :mod:`durak.search` alone, to be as obviously right as
possible:

* :func:`minimax_value`: the paranoid minimax value for ``player`` (MAX where ``player``
  moves, MIN everywhere else), to the terminals or to a ply depth with an evaluator.
* :func:`maxn_value`: max^n (Luckhardt & Irani), the first child (in order) with the
  strictly greatest component of the mover wins.
* :func:`reachable_states`, :func:`height`: the state space.

:class:`BruteForce` memoizes by state (and remaining depth), so one instance can value many
positions of one game cheaply.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

from durak.search.protocol import Game

S = TypeVar("S", bound=Hashable)
A = TypeVar("A")

sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))


class BruteForce(Generic[S, A]):
    """Memoized plain minimax and max^n over one game.

    ``evaluate`` values a non-terminal state where the depth runs out; ``order`` (max^n
    only) is the move-ordering hook whose order breaks max^n ties.
    """

    def __init__(
        self,
        game: Game[S, A],
        evaluate: Callable[[S], Sequence[float]] | None = None,
        order: Callable[[S, Sequence[A]], Sequence[A]] | None = None,
    ) -> None:
        self.game = game
        self.evaluate = evaluate
        self.order = order
        self._minimax: dict[tuple[S, int, int | None], float] = {}
        self._maxn: dict[tuple[S, int | None], tuple[tuple[float, ...], A | None]] = {}

    def _frontier(self, state: S) -> Sequence[float]:
        if self.evaluate is None:
            raise ValueError("a depth needs an evaluator")
        return self.evaluate(state)

    def minimax(self, state: S, player: int, depth: int | None = None) -> float:
        """The value for ``player``: MAX at its nodes, MIN at everyone else's; a terminal is
        ``returns[player]``, a non-terminal state at remaining depth 0 ``evaluate[player]``."""
        key = (state, player, depth)
        if key in self._minimax:
            return self._minimax[key]
        game = self.game
        if game.is_terminal(state):
            value = float(game.returns(state)[player])
        elif depth == 0:
            value = float(self._frontier(state)[player])
        else:
            below = None if depth is None else depth - 1
            values = [
                self.minimax(game.step(state, a), player, below) for a in game.legal_actions(state)
            ]
            value = max(values) if game.current_player(state) == player else min(values)
        self._minimax[key] = value
        return value

    def action_values(self, state: S, depth: int | None = None) -> list[tuple[A, float]]:
        """Every legal action at ``state`` with the minimax value (for the player to move
        there) of its child, searched ``depth - 1`` more plies."""
        player = self.game.current_player(state)
        below = None if depth is None else depth - 1
        return [
            (a, self.minimax(self.game.step(state, a), player, below))
            for a in self.game.legal_actions(state)
        ]

    def best_actions(self, state: S, depth: int | None = None) -> list[A]:
        """The root actions whose child value equals the root's minimax value."""
        values = self.action_values(state, depth)
        best = max(v for _, v in values)
        return [a for a, v in values if v == best]

    def _ordered(self, state: S) -> Sequence[A]:
        actions = self.game.legal_actions(state)
        return actions if self.order is None else self.order(state, actions)

    def maxn(self, state: S, depth: int | None = None) -> tuple[tuple[float, ...], A | None]:
        """The max^n vector of ``state`` and the action chosen there (``None`` at a terminal
        or frontier state): the first child in order with the strictly greatest component
        of the mover."""
        key = (state, depth)
        if key in self._maxn:
            return self._maxn[key]
        game = self.game
        result: tuple[tuple[float, ...], A | None]
        if game.is_terminal(state):
            result = (tuple(float(x) for x in game.returns(state)), None)
        elif depth == 0:
            result = (tuple(float(x) for x in self._frontier(state)), None)
        else:
            below = None if depth is None else depth - 1
            mover = game.current_player(state)
            best: tuple[float, ...] | None = None
            chosen: A | None = None
            for a in self._ordered(state):
                vector, _ = self.maxn(game.step(state, a), below)
                if best is None or vector[mover] > best[mover]:
                    best, chosen = vector, a
            assert best is not None, "a non-terminal state without legal actions"
            result = (best, chosen)
        self._maxn[key] = result
        return result


def minimax_value(
    game: Game[S, A],
    state: S,
    player: int,
    depth: int | None = None,
    evaluate: Callable[[S], Sequence[float]] | None = None,
) -> float:
    """The (paranoid) minimax value of ``state`` for ``player`` (see :class:`BruteForce`)."""
    return BruteForce(game, evaluate).minimax(state, player, depth)


def maxn_value(
    game: Game[S, A],
    state: S,
    depth: int | None = None,
    evaluate: Callable[[S], Sequence[float]] | None = None,
    order: Callable[[S, Sequence[A]], Sequence[A]] | None = None,
) -> tuple[float, ...]:
    """The max^n vector of ``state`` with first-strictly-best tie-breaking."""
    return BruteForce(game, evaluate, order).maxn(state, depth)[0]


def reachable_states(game: Game[S, A], root: S) -> list[S]:
    """Every state reachable from ``root`` (``root`` included), in depth-first discovery
    order."""
    seen = {root}
    out = [root]
    stack = [root]
    while stack:
        state = stack.pop()
        for a in game.legal_actions(state):
            child = game.step(state, a)
            if child not in seen:
                seen.add(child)
                out.append(child)
                stack.append(child)
    return out


def height(game: Game[S, A], root: S) -> int:
    """The number of plies of the longest play from ``root`` to a terminal state."""
    memo: dict[S, int] = {}

    def h(state: S) -> int:
        if state not in memo:
            children = [game.step(state, a) for a in game.legal_actions(state)]
            memo[state] = 1 + max(map(h, children)) if children else 0
        return memo[state]

    return h(root)
