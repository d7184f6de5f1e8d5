"""A ladder of several agents: every pair plays a duplicate match, the games give
Bradley-Terry ratings on the Elo scale with bootstrap intervals, and a plot shows them.

This is what ``durak ladder`` does, in the library: ``run_match`` plays each pair on the
same deals with the seats swapped, and ``elo_ratings`` fits the ratings (Bradley and Terry,
Biometrika 1952) and resamples whole deals for the 98% intervals (Efron 1979).
Needs ``durak-lab[ladder]``.  Run: ``python examples/ladder_plot.py`` (writes
``ladder.png`` in the current folder).
"""

from __future__ import annotations

from itertools import combinations

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt

from durak.arena import MatchResult, run_match
from durak.arena.scores.ratings import Matchup, elo_ratings
from durak.rules import Rules

AGENTS = ["random", "lowest", "greedy", "smart"]


def matchup(result: MatchResult) -> Matchup:
    """The games of a two-agent match as the first agent's scores (a draw is half)."""
    first, second = result.specs
    scores = [0.5 if g.durak is None else float(g.durak == 1) for g in result.outcomes]
    return Matchup(first, second, scores, deal=2)  # a deal is played twice, seats swapped


if __name__ == "__main__":
    rules = Rules()
    matchups = [
        matchup(run_match(rules, [a, b], games=100, seed=1)) for a, b in combinations(AGENTS, 2)
    ]
    ratings = elo_ratings(AGENTS, matchups, anchor="random", resamples=500, seed=1)
    ratings.sort(key=lambda r: r.rating)
    for r in reversed(ratings):
        interval = f"98% [{r.low:+.0f}, {r.high:+.0f}]"
        print(f"{r.agent:>7}: {r.rating:+6.0f} Elo  {interval}  {r.games} games")

    fig, ax = plt.subplots(figsize=(6, 3))
    ys = range(len(ratings))
    errors = [[r.rating - r.low for r in ratings], [r.high - r.rating for r in ratings]]
    ax.errorbar([r.rating for r in ratings], ys, xerr=errors, fmt="o", capsize=4)
    ax.set_yticks(list(ys), [r.agent for r in ratings])
    ax.set_xlabel("Elo (random = 0), 98% bootstrap intervals")
    ax.set_title(f"{len(AGENTS)} agents, {matchups[0].games} games per pair")
    fig.tight_layout()
    fig.savefig("ladder.png", dpi=100)
    print("wrote ladder.png")
