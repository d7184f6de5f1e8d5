"""Which decisions carry an agent's strength: the ``docs/learning.md`` analysis.

A *mixed* agent plays ``base``'s move everywhere except in one kind of decision before the
endgame (while the talon holds at least two cards), where it plays ``strong``'s move.  The
kinds are ``lead`` (attacking an empty table), ``throw`` (attacking a table that has
cards: a throw-in, or a pass) and ``defend``.  Comparing the mixed agents' win rates with
``base``'s own shows how much each kind of decision is worth against ``opponent``: a
tabular learner can only gain where its state separates the situations that matter.

Each deal is played twice with the seats swapped (2 players, 36 cards, closed world); the
interval is the 98% Wilson interval of the win rate.

Usage: ``python benchmarks/decision_value.py KINDS [games] [seed] [base] [strong]
[opponent]``, where ``KINDS`` is a comma-separated subset of ``lead,throw,defend`` or
``none``; the defaults are 400 games, seed 1000, ``solver:nodes=2000,fallback=lowest``,
``ismcts:limit=300`` and ``lowest``.
"""

from __future__ import annotations

import random
import sys

from durak.agents import Agent, make_agent
from durak.agents.base import Relay, watchers_among
from durak.arena.play.game import play_game
from durak.arena.scores.wilson import wilson
from durak.rules import Action, Observation, Rules

KINDS = ("lead", "throw", "defend")


def kind(o: Observation) -> str:
    """The kind of decision ``o`` asks for: ``lead``, ``throw`` or ``defend``."""
    if o.player == o.defender:
        return "defend"
    return "throw" if o.table else "lead"


class Mixed(Relay):
    """``strong``'s move in the decisions of ``kinds`` before the endgame, else ``base``'s.

    Both agents hear every watcher hook, so each follows the whole game."""

    name = "mixed"

    def __init__(self, base: Agent, strong: Agent, kinds: frozenset[str]) -> None:
        self.base, self.strong, self.kinds = base, strong, kinds
        self.watchers = watchers_among(base, strong)

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """``strong``'s action for a chosen kind while the talon has 2+ cards, else ``base``'s."""
        if observation.talon_size > 1 and kind(observation) in self.kinds:
            return self.strong.act(observation, rng)
        return self.base.act(observation, rng)


def main(kinds: str, games: int, seed: int, base: str, strong: str, opponent: str) -> None:
    """Play ``games`` games of the mixed agent against ``opponent``; print its win rate."""
    chosen = frozenset() if kinds == "none" else frozenset(kinds.split(","))
    if not chosen <= set(KINDS):
        raise SystemExit(f"kinds must be 'none' or a subset of {','.join(KINDS)}, got {kinds!r}")
    mixed = Mixed(make_agent(base), make_agent(strong), chosen)
    other = make_agent(opponent)
    rules = Rules(players=2)
    wins = draws = 0
    for g in range(games):
        seat = g % 2
        agents: list[Agent] = [mixed, other] if seat == 0 else [other, mixed]
        lost = play_game(rules, agents, seed + g // 2).loser
        draws += lost is None
        wins += lost is not None and lost != seat
    lo, hi = wilson(wins, games)
    print(
        f"{kinds}: {wins / games:.1%} [{lo:.1%}, {hi:.1%}] of {games} games "
        f"against {opponent}, {draws} draws"
    )


if __name__ == "__main__":
    argv = sys.argv[1:]
    if not argv:
        raise SystemExit(__doc__)
    defaults = [
        "",
        "400",
        "1000",
        "solver:nodes=2000,fallback=lowest",
        "ismcts:limit=300",
        "lowest",
    ]
    a = argv + defaults[len(argv) :]
    main(a[0], int(a[1]), int(a[2]), a[3], a[4], a[5])
