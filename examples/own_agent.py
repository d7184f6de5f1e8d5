"""Write your own agent and rate it against ``greedy``, with a 98% Wilson interval.

An agent is any object with a ``name`` and ``act(observation, rng)``; ``register`` gives
it a spec name, so every tool of the library (matches, tournaments, the environments)
can build it.  Run: ``python examples/own_agent.py``.
"""

from __future__ import annotations

import random

from durak.agents import register
from durak.arena import run_match
from durak.rules import Action, Attack, Card, Defend, Observation, Rules, Take, Transfer


class SaveTrumps:
    """Plays its cheapest card, keeping trumps for last; takes rather than spend a trump
    on the first cards of a bout."""

    name = "save-trumps"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        trump = observation.trump_suit

        def cost(card: Card) -> tuple[bool, int]:
            return (card.suit == trump, card.rank)

        plays = [a for a in observation.legal_actions if isinstance(a, Attack | Defend | Transfer)]
        if not plays:
            return observation.legal_actions[0]  # Take or Pass: the only moves left
        best = min(plays, key=lambda a: cost(a.card))
        keep_trump = isinstance(best, Defend) and best.card.suit == trump
        if keep_trump and observation.talon_size > 6 and Take() in observation.legal_actions:
            return Take()
        return best


register("save-trumps", SaveTrumps, "cheapest card first, trumps last")

if __name__ == "__main__":
    # Duplicate deals: each deal is played twice, with the seats swapped.
    result = run_match(Rules(), ["save-trumps", "greedy"], games=300, seed=1)
    low, high = result.win_interval(0)
    print(f"save-trumps vs greedy: {result.games} games, {result.draws} draws")
    print(f"win rate {result.win_rate(0):.1%}, 98% Wilson interval [{low:.1%}, {high:.1%}]")
