"""The exact solver on complete 12-card deals, with and without the value range.

With ``Rules(lowest_rank=12)`` every card is dealt, so each deal is an endgame from its
first move.  It solves the deals of seeds 0..N-1 with :func:`durak.search.solve`, once
from an infinite window and once from ``DurakGame.value_range``, and prints the nodes, the
time and the values (which must agree): the ``docs/search.md`` figure.

Usage: ``python benchmarks/solver_deals.py [deals]`` (default 20).
"""

from __future__ import annotations

import sys
import time

from durak.rules import DurakGame, Rules, new_game
from durak.search import solve


def main(deals: int) -> None:
    """Print nodes, seconds and values per setting; exit non-zero if the values differ."""
    rules = Rules(lowest_rank=12)
    game = DurakGame(rules, True)
    found: list[list[float]] = []
    for name, value_range in (("infinite window", None), ("value_range", game.value_range)):
        start = time.perf_counter()
        nodes, values = 0, []
        for seed in range(deals):
            result = solve(game, new_game(rules, seed), value_range=value_range)
            nodes += result.stats.nodes
            values.append(result.value)
        took = time.perf_counter() - start
        print(f"{name}: {nodes:,} nodes, {took:.1f} s, {nodes / took:,.0f} nodes/s")
        found.append(values)
    if found[0] != found[1]:
        raise SystemExit(f"the values differ: {found}")
    print(f"values agree: {found[0]}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
