"""How much exact endgame play could gain over greedy: the ``docs/agents.md`` analysis.

For each deal (seeds 0..N-1) it plays greedy against greedy, solves the position at which
the talon ran out with :func:`durak.search.solve`, and counts the games lost by a player
who, under perfect play from there, would not have lost.

Usage: ``python benchmarks/endgame_gain.py [games] [node budget]`` (default 100, 300000).
"""

from __future__ import annotations

import sys

from durak.agents.heuristics.evals import greedy_rollout
from durak.rules import DurakGame, GameState, Rules, loser, new_game, step
from durak.search import Budget, BudgetExhausted, solve


def main(games: int, nodes: int) -> None:
    """Print the solved and unsolved endgame counts, the avoidable losses, and node counts."""
    rules = Rules(players=2)
    game = DurakGame(rules, True)
    solved = unsolved = avoidable = 0
    used: list[int] = []
    for seed in range(games):
        state = new_game(rules, seed)
        endgame: GameState | None = None
        while state.turn >= 0:
            if endgame is None and not state.talon:
                endgame = state
            state = step(state, greedy_rollout(state))
        if endgame is None or endgame.turn < 0:
            continue
        try:
            result = solve(game, endgame, budget=Budget(nodes=nodes))
        except BudgetExhausted:
            unsolved += 1
            continue
        solved += 1
        used.append(result.stats.nodes)
        mover = endgame.turn
        safe = {p for p in range(2) if (result.value if p == mover else -result.value) >= 0}
        avoidable += loser(state) in safe
    used.sort()
    median = used[len(used) // 2] if used else 0
    print(
        f"solved {solved}, over the node budget {unsolved}, avoidable losses {avoidable}, "
        f"nodes median {median} max {max(used, default=0)}"
    )


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    main(*(args + [100, 300_000][len(args) :]))
