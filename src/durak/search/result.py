"""What a search returns: the decision, its values and statistics.

Shared by every algorithm in :mod:`durak.search`, so agents and experiments can treat the
searches alike (OpenSpiel's bots return a policy and an action in the same spirit).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Generic

import attrs

from durak.search.protocol import A


@attrs.frozen
class SearchStats:
    """What one search did.

    * ``iterations``: simulations (MCTS, ISMCTS), completed depths (iterative deepening),
      worlds (PIMC).
    * ``nodes``: states visited (by alpha-beta and max^n; along tree paths and rollouts by
      MCTS and ISMCTS).
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
