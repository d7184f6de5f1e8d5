"""A game of your own on the ``durak.search`` protocol, solved by alpha-beta and by MCTS.

The searches never import the rules of Durak: any object with the protocol's six members
is a game.  Here, subtraction Nim: players in turn take 1, 2 or 3 stones from a heap,
and whoever takes the last stone wins.  Its theory is known (a heap that is a multiple of
4 loses for the player to move, Bouton 1901), so both searches can be checked against it.
``check_game`` tests a new game against the contract the searches rely on.
Run: ``python examples/custom_game_search.py``.
"""

from __future__ import annotations

import random

from durak.search import Budget, mcts, solve
from durak.search.testing import check_game

State = tuple[int, int]  # (stones left, player to move)


class Nim:
    """Two players; a state is (stones, player to move); an action is how many to take."""

    num_players = 2

    def legal_actions(self, state: State) -> tuple[int, ...]:
        return tuple(n for n in (1, 2, 3) if n <= state[0])

    def step(self, state: State, action: int) -> State:
        return (state[0] - action, 1 - state[1])

    def current_player(self, state: State) -> int:
        return state[1]

    def is_terminal(self, state: State) -> bool:
        return state[0] == 0

    def returns(self, state: State) -> tuple[float, float]:
        winner = 1 - state[1]  # the player who took the last stone
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


if __name__ == "__main__":
    game = Nim()
    print(check_game(game, [(10, 0), (7, 1)], random.Random(1), games=20))
    for stones in (9, 10, 12, 13):
        exact = solve(game, (stones, 0))
        sampled = mcts(game, (stones, 0), budget=Budget(iterations=3000), rng=7)
        theory = stones % 4  # the winning move, 0 if none wins
        print(
            f"{stones:2} stones: alpha-beta takes {exact.action}, value {exact.value:+.0f};"
            f" MCTS takes {sampled.action}, value {sampled.value:+.2f};"
            f" theory: {theory or 'every move loses'}"
        )
        assert (exact.value > 0) == (theory != 0)
        if theory:
            assert exact.action == theory and sampled.action == theory
