"""Where an agent wins and loses: before the talon runs out, or in the exact endgame.

It reads a two-player ``durak match --log`` file, replays each game to the first position
with an empty talon, solves it as the ``solver`` agent does
(:func:`durak.agents.solver.solve_endgame`) and counts the games by that position's
value for the agent (won, drawn or lost against perfect play, or not solved within the
budget) and by the result.
A game lost from a won endgame was lost in the endgame; a game won from a lost one was
saved by an opponent's mistake.  The ``docs/learning.md`` breakdown of the hybrid agent.

Usage: ``python benchmarks/endgame_outcomes.py LOG [agent index] [node budget]`` (default
agent 0, 200000 nodes).
"""

from __future__ import annotations

import sys
from collections import Counter

from durak.agents.solver import solve_endgame
from durak.arena.gamelog.files import read_log
from durak.arena.gamelog.replay import replay_entry
from durak.rules import DurakGame
from durak.search import BudgetExhausted

_VALUE = {1.0: "won", 0.0: "drawn", -1.0: "lost"}


def main(path: str, agent: int, nodes: int) -> None:
    """Print a table of endgame value against result for ``agent``'s games."""
    counts: Counter[tuple[str, str]] = Counter()
    for entry in read_log(path).entries:
        if entry.rules.players != 2:
            raise SystemExit(f"{path}: line {entry.line}: not a two-player game")
        game = DurakGame(entry.rules, True)
        seat = entry.seats.index(agent)
        replay = replay_entry(entry, path)
        start = next((s for s in replay.states if not s.talon and s.turn >= 0), None)
        if start is None:
            value = "no endgame"
        else:
            try:
                result = solve_endgame(game, start, nodes=nodes)
            except BudgetExhausted:
                value = "unsolved"
            else:
                mine = result.value if result.player == seat else -result.value
                value = _VALUE[mine]
        outcome = "draw" if entry.durak is None else "loss" if entry.durak == agent else "win"
        counts[value, outcome] += 1
    print(f"{'talon-out position':20} {'win':>6} {'draw':>6} {'loss':>6}")
    for value in ("won", "drawn", "lost", "unsolved", "no endgame"):
        row = [counts[value, o] for o in ("win", "draw", "loss")]
        if any(row):
            print(f"{value:20} {row[0]:>6} {row[1]:>6} {row[2]:>6}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    extra = [int(a) for a in sys.argv[2:]]
    agent, nodes = (extra + [0, 200_000][len(extra) :])[:2]
    main(sys.argv[1], agent, nodes)
