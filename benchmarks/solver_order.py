"""How move ordering and the value range change the exact solver's reach (``docs/agents.md``).

For each deal (seeds 0..N-1) it plays greedy against greedy to the position at which the
talon runs out and solves it with :func:`durak.search.solve`: in the canonical action
order, with :func:`durak.agents.heuristics.evals.cheap_first`, and with ``cheap_first`` and the
game's ``value_range`` (the ``solver`` agent's settings).  It prints, per setting, the
positions solved within the node budget, their median nodes and the seconds taken.

Usage: ``python benchmarks/solver_order.py [games] [node budget]`` (default 40, 100000).
"""

from __future__ import annotations

import sys
import time

from durak.agents.heuristics.evals import cheap_first, greedy_rollout
from durak.rules import Action, DurakGame, GameState, Rules, new_game, step
from durak.search import Budget, BudgetExhausted, MoveOrder, solve


def talon_out(rules: Rules, seed: int) -> GameState | None:
    """The first position of a greedy-versus-greedy game with an empty talon, if undecided."""
    state = new_game(rules, seed)
    while state.turn >= 0:
        if not state.talon:
            return state
        state = step(state, greedy_rollout(state))
    return None


def main(games: int, nodes: int) -> None:
    """Print the solved count and median node count for each move order."""
    rules = Rules(players=2)
    game = DurakGame(rules, True)
    positions = [p for p in (talon_out(rules, seed) for seed in range(games)) if p is not None]
    settings: dict[str, tuple[MoveOrder[GameState, Action] | None, tuple[float, float] | None]] = {
        "canonical": (None, None),
        "cheap_first": (cheap_first, None),
        "cheap_first + value_range": (cheap_first, game.value_range),
    }
    for name, (order, value_range) in settings.items():
        used: list[int] = []
        start = time.perf_counter()
        for position in positions:
            try:
                result = solve(
                    game, position, order=order, budget=Budget(nodes=nodes), value_range=value_range
                )
            except BudgetExhausted:
                continue
            used.append(result.stats.nodes)
        used.sort()
        median = used[len(used) // 2] if used else 0
        took = time.perf_counter() - start
        print(
            f"{name}: solved {len(used)} of {len(positions)}, nodes median {median}, {took:.1f} s"
        )


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    main(*(args + [40, 100_000][len(args) :]))
