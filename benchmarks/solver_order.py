"""How move ordering changes the exact solver's reach: the ``docs/agents.md`` figure.

For each deal (seeds 0..N-1) it plays greedy against greedy to the position at which the
talon runs out and solves it with :func:`durak.search.solve`, once in the canonical action
order and once with :func:`durak.agents.evals.cheap_first` (the ``solver`` agent's order).
It prints, per order, the positions solved within the node budget and their median nodes.

Usage: ``python benchmarks/solver_order.py [games] [node budget]`` (default 40, 100000).
"""

from __future__ import annotations

import sys

from durak.agents.evals import cheap_first, greedy_rollout
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
    orders: dict[str, MoveOrder[GameState, Action] | None] = {
        "canonical": None,
        "cheap_first": cheap_first,
    }
    for name, order in orders.items():
        used: list[int] = []
        for position in positions:
            try:
                result = solve(game, position, order=order, budget=Budget(nodes=nodes))
            except BudgetExhausted:
                continue
            used.append(result.stats.nodes)
        used.sort()
        median = used[len(used) // 2] if used else 0
        print(f"{name}: solved {len(used)} of {len(positions)}, nodes median {median}")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    main(*(args + [40, 100_000][len(args) :]))
