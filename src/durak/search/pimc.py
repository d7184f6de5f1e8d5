"""Perfect Information Monte Carlo: search sampled worlds, then combine their decisions.

After Ginsberg, "GIB: Imperfect information in a computationally challenging game" (JAIR
14, 2001) and Long, Sturtevant, Buro & Furtak, "Understanding the success of Perfect
Information Monte Carlo sampling in game tree search" (AAAI 2010); in Durak this is the
"closed world sampling" of Zarlykov's minimax and MCTS agents (``samples=``).  Each of
``worlds`` states is drawn with ``sample_world`` from the searching player's observation and
searched as a perfect-information game by any search of this package; the decisions are
combined by vote, by mean value, or (for tree searches) by the root visits summed over the
worlds, the "ensemble determinization" of Whitehouse, Powley & Cowling, "Determinization
and information set Monte Carlo tree search for the card game Dou Di Zhu" (IEEE CIG 2011).
It reads nothing but the observation, so it cannot leak hidden cards; it inherits PIMC's
known flaws (strategy fusion, non-locality).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Generic, Literal

import attrs

from durak.search.arguments import SearchError, as_rng
from durak.search.budget import now
from durak.search.protocol import A, ImperfectGame, O, S
from durak.search.result import SearchResult, SearchStats

#: How per-world results are combined: majority vote, best mean value, or most visits.
Combine = Literal["vote", "mean", "visits"]
#: A perfect-information search of one world, e.g. ``lambda s, rng: solve(game, s)``.
WorldSearch = Callable[[S, random.Random], SearchResult[A]]


def pimc(
    game: ImperfectGame[S, A, O],
    observation: O,
    *,
    worlds: int,
    search: WorldSearch[S, A],
    combine: Combine = "vote",
    rng: random.Random | int,
    sample: Callable[[O, random.Random], S] | None = None,
) -> SearchResult[A]:
    """The decision for the owner of ``observation`` from ``worlds`` sampled worlds.

    Settings:

    * ``worlds``: how many worlds to sample (each search gets its own generator, derived
      from ``rng``, so the result is reproducible from one seed).
    * ``search``: the perfect-information search of one world.
    * ``combine``: ``"vote"`` picks the action chosen in most worlds (ties: higher mean
      value, then legal order); ``"mean"`` picks the best mean value over the worlds (ties:
      more votes, then legal order) and needs a value for every legal action in every world
      (e.g. ``alphabeta(..., root_values=True)`` or MCTS), else :class:`SearchError`;
      ``"visits"`` picks the most root visits summed over the worlds (ties: higher mean
      value, then legal order) and needs a search that reports visits (MCTS), else
      :class:`SearchError`.
    * ``sample``: how a world is drawn, ``(observation, rng) -> state``; by default
      ``game.sample_world``.  Another sampler (for example one that infers from the
      opponents' moves) must still return worlds consistent with ``observation``.

    The result lists mean values (over the worlds that valued the action) and, per legal
    action, its votes (summed visits with ``"visits"``); ``value`` is NaN if no world's
    search valued the chosen action.  In ``stats``, ``iterations`` is ``worlds``, ``nodes``
    the sum over the per-world searches, and ``depth`` and ``tree_size`` their maxima.
    """
    _check_settings(worlds, combine)
    rng = as_rng(rng)
    start = now()
    draw = game.sample_world if sample is None else sample
    tally: _Tally[A] = _Tally(combine)
    for _ in range(worlds):
        world = draw(observation, rng)
        result = search(world, random.Random(rng.getrandbits(64)))
        tally.add(list(game.legal_actions(world)), result)
    return tally.decision(worlds, start)


def _check_settings(worlds: int, combine: Combine) -> None:
    """:class:`SearchError` unless ``worlds`` is a positive int and ``combine`` a
    :data:`Combine`."""
    if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 1:
        raise SearchError(f"worlds must be a positive int, got {worlds!r}")
    if combine not in ("vote", "mean", "visits"):
        raise SearchError(f"combine must be 'vote', 'mean' or 'visits', got {combine!r}")


@attrs.define
class _Tally(Generic[A]):
    """The per-world results of one :func:`pimc` call, summed as the worlds are searched.

    * ``combine``: how the worlds' results make the decision (:data:`Combine`).
    * ``legal``: the first world's legal actions, which every later world must repeat
      (``None`` before the first world).
    * ``votes``: per action, the worlds whose search chose it; with ``"visits"``, its root
      visits summed over the worlds.
    * ``sums``, ``counts``: per action, the sum and the number of the values the worlds'
      searches gave it.
    * ``nodes``: the sum of the searches' nodes; ``depth``, ``tree_size``: their maxima.
    * ``player``: the searching player, as the last search reported it.
    """

    combine: Combine
    legal: list[A] | None = None
    votes: dict[A, int] = attrs.Factory(dict)
    sums: dict[A, float] = attrs.Factory(dict)
    counts: dict[A, int] = attrs.Factory(dict)
    nodes: int = 0
    depth: int = 0
    tree_size: int = 0
    player: int = 0

    def add(self, actions: list[A], result: SearchResult[A]) -> None:
        """Count one world's search ``result``, ``actions`` being that world's legal actions;
        :class:`SearchError` if the world disagrees with the first on them, or if the search
        reports less than ``combine`` needs."""
        self._check(actions, result)
        if self.combine == "visits":
            for a, n in result.visits:
                self.votes[a] = self.votes.get(a, 0) + n
        else:
            self.votes[result.action] = self.votes.get(result.action, 0) + 1
        for a, v in result.action_values:
            self.sums[a] = self.sums.get(a, 0.0) + v
            self.counts[a] = self.counts.get(a, 0) + 1
        self.nodes += result.stats.nodes
        self.depth = max(self.depth, result.stats.depth)
        self.tree_size = max(self.tree_size, result.stats.tree_size)
        self.player = result.player

    def _check(self, actions: list[A], result: SearchResult[A]) -> None:
        """:class:`SearchError` if ``actions`` are not the first world's, or if ``result``
        lacks what ``combine`` reads (a value for every legal action, or root visits)."""
        if self.legal is None:
            self.legal = actions
        elif actions != self.legal:
            raise SearchError(
                "sampled worlds disagree on the legal actions: the observation must "
                "determine the searching player's options"
            )
        valued = {a for a, _ in result.action_values}
        if self.combine == "mean" and any(a not in valued for a in actions):
            raise SearchError(
                "combine='mean' needs a value for every legal action in every world; "
                "use a search that values them all (e.g. alphabeta(..., root_values=True))"
            )
        if self.combine == "visits" and not result.visits:
            raise SearchError(
                "combine='visits' needs a search that reports root visits (e.g. mcts)"
            )

    def decision(self, worlds: int, start: float) -> SearchResult[A]:
        """The combined decision over the ``worlds`` worlds counted, the search having
        started at ``start`` (:func:`~durak.search.budget.now`)."""
        legal = self.legal
        assert legal is not None  # worlds >= 1
        means = {a: self.sums[a] / self.counts[a] for a in self.sums}
        listed = [a for a in legal if a in means]

        def rank(a: A) -> tuple[float, float]:
            vote, mean = self.votes.get(a, 0), means.get(a, float("-inf"))
            return (mean, vote) if self.combine == "mean" else (vote, mean)

        action = max(legal, key=rank)  # max keeps the first of equals: legal order breaks ties
        stats = SearchStats(
            iterations=worlds,
            nodes=self.nodes,
            depth=self.depth,
            seconds=now() - start,
            tree_size=self.tree_size,
        )
        return SearchResult(
            action,
            means.get(action, float("nan")),
            self.player,
            tuple((a, means[a]) for a in listed),
            tuple((a, self.votes.get(a, 0)) for a in legal),
            stats=stats,
        )
