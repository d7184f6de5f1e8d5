"""The simulation loop and the final decision shared by MCTS and ISMCTS.

Both run simulations until the first limit of the budget (Browne et al., "A survey of
Monte Carlo tree search methods", IEEE TCIAIG 4, 2012) and then play the most visited root
action, the "robust child" of that survey.  With ``stop_early`` and an iteration budget they
stop as soon as the simulations left could not change that action, which saves time and
never changes the decision.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Mapping, Sequence

from durak.search.arguments import SearchError
from durak.search.budget import Budget, now
from durak.search.protocol import A, Prior, S
from durak.search.result import SearchResult, SearchStats, most_visited

#: One simulation: its returns, the states it visited and the tree depth it reached.
Simulation = Callable[[], tuple[Sequence[float], int, int]]
#: ``k`` simulations run together (a leaf batch), each as :data:`Simulation` reports it.
Simulations = Callable[[int], Sequence[tuple[Sequence[float], int, int]]]
#: The visit counts of every legal root action (0 for one not yet tried).
RootVisits = Callable[[], Iterable[int]]
#: How many simulations pass between two checks of ``stop_early``.
CHECK_EVERY = 8


def settled(visits: Iterable[int], remaining: float) -> bool:
    """Whether the most visited action is fixed: its lead over every other action exceeds
    the ``remaining`` simulations (a tie could still go either way, so it must exceed); a
    lone action leads by its own visits.  ``visits`` holds at least one count.

    >>> settled([40, 10, 5], 29), settled([40, 10, 5], 30), settled([3], 2)
    (True, False, True)
    """
    first, *second = heapq.nlargest(2, visits)
    return first - sum(second) > remaining


def prior_of(prior: Prior[S, A], state: S, actions: Sequence[A]) -> list[float]:
    """``prior(state, actions)`` checked: one probability in [0, 1] per action."""
    p = list(prior(state, actions))
    if len(p) != len(actions) or not all(0 <= x <= 1 for x in p):
        raise SearchError(
            f"a prior must give one probability in [0, 1] per action: {len(actions)} actions, "
            f"got {p[:8]!r}"
        )
    return p


def puct(mean: float, p: float, sqrt_n: float, visits: int, c: float) -> float:
    """The PUCT score of Silver et al. (AlphaZero, Science 2018): the mean payoff plus
    ``c * p * sqrt(N) / (1 + visits)``.

    >>> puct(0.5, 0.25, 4.0, 1, 2.0)
    1.5
    """
    return mean + c * p * sqrt_n / (1 + visits)


class Tally:
    """What the simulations of one search add up to: returns per player and counters."""

    def __init__(self, num_players: int, start: float) -> None:
        self.start = start
        self.totals = [0.0] * num_players
        self.iterations = self.nodes = self.deepest = 0

    def run(self, simulate: Simulation, budget: Budget, stop_early: RootVisits | None) -> Tally:
        """Call ``simulate`` until ``budget`` is spent (at least once); return ``self``.

        With ``stop_early`` (the root visit counts) and an iteration budget, it also stops
        once the most visited root action is :func:`settled` (never without one: infinitely
        many simulations remain).
        """
        max_iterations = budget.iterations or math.inf
        max_nodes = budget.nodes or math.inf
        deadline = budget.deadline(self.start)
        totals = self.totals
        while self.iterations < max_iterations and self.nodes < max_nodes:
            payoff, visited, depth = simulate()
            for p in range(len(totals)):
                totals[p] += payoff[p]
            self.iterations += 1
            self.nodes += visited
            self.deepest = max(self.deepest, depth)
            if now() > deadline:
                break
            if (
                stop_early is not None
                and self.iterations % CHECK_EVERY == 0
                and settled(stop_early(), max_iterations - self.iterations)
            ):
                break
        return self

    def run_batches(
        self, simulate: Simulations, size: int, budget: Budget, stop_early: RootVisits | None
    ) -> Tally:
        """:meth:`run` with ``simulate(k)`` running ``k <= size`` simulations at a time, each
        counted as one iteration; never more simulations than an iteration budget allows.

        The node and time limits, and ``stop_early`` (after every batch), are checked
        between batches, so a node or time budget may be passed by up to a batch.
        """
        max_iterations = budget.iterations or math.inf
        max_nodes = budget.nodes or math.inf
        deadline = budget.deadline(self.start)
        totals = self.totals
        while self.iterations < max_iterations and self.nodes < max_nodes:
            for payoff, visited, depth in simulate(
                int(min(size, max_iterations - self.iterations))
            ):
                for p in range(len(totals)):
                    totals[p] += payoff[p]
                self.iterations += 1
                self.nodes += visited
                self.deepest = max(self.deepest, depth)
            if now() > deadline:
                break
            if stop_early is not None and settled(stop_early(), max_iterations - self.iterations):
                break
        return self

    def decide(
        self,
        legal: Sequence[A],
        visits: Mapping[A, int],
        sums: Mapping[A, float],
        player: int,
        tree_size: int,
    ) -> SearchResult[A]:
        """The most visited of the ``legal`` root actions, from root ``visits`` and payoff
        ``sums`` for ``player``."""
        counts = tuple((a, visits.get(a, 0)) for a in legal)
        values = {a: sums[a] / n for a, n in counts if n}
        action = most_visited(counts, values)
        stats = SearchStats(
            iterations=self.iterations,
            nodes=self.nodes,
            depth=self.deepest,
            seconds=now() - self.start,
            tree_size=tree_size,
        )
        return SearchResult(
            action,
            values[action],
            player,
            tuple((a, values[a]) for a in legal if a in values),
            counts,
            vector=tuple(t / self.iterations for t in self.totals),
            stats=stats,
        )
