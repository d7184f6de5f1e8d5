"""How often ``respond=N`` answers a candidate: the posterior's verdict
(:meth:`durak.agents.inference.inferring.Inferring.sure_opponent`) at every decision of the
responding agent, over seeded games (``derive_seed(SEED, game)``, seats alternating) against
an opponent, counted by the candidate it was sure of (``None``: not sure, its own search
plays):

    .venv/bin/python benchmarks/respond_fires.py --games 6 --seed 9001 \\
        "ismcts:prior=dmc,value=dmc,limit=200,batch=8,opponent=auto,carry=true"
"""

from __future__ import annotations

import argparse
import collections
import random

from durak.agents import make_agent
from durak.agents.inference.inferring import Inferring
from durak.arena.play.game import play_game
from durak.rules import Observation, Rules
from durak.seeding import derive_seed

PRESET = "ismcts:prior=dmc,value=dmc,limit=200,batch=8,opponent=auto,carry=true"


def verdicts(opponent: str, respond: int, games: int, seed: int) -> collections.Counter[str]:
    """The posterior's verdict at each decision of ``PRESET,respond=N`` against
    ``opponent``, counted by candidate (``"none"`` where it was not sure)."""
    seen: collections.Counter[str] = collections.Counter()
    real = Inferring.sure_opponent

    def spy(self: Inferring, observation: Observation, rng: random.Random) -> str | None:
        got = real(self, observation, rng)
        seen[got or "none"] += 1
        return got

    Inferring.sure_opponent = spy  # type: ignore[method-assign]
    try:
        me, other = make_agent(f"{PRESET},respond={respond}"), make_agent(opponent)
        for g in range(games):
            seats = [me, other] if g % 2 == 0 else [other, me]
            play_game(Rules(), seats, derive_seed(seed, g), False)
    finally:
        Inferring.sure_opponent = real  # type: ignore[method-assign]
    return seen


def main() -> None:
    """Print the counts."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("opponent")
    parser.add_argument("--respond", type=int, default=90)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=9001)
    args = parser.parse_args()
    seen = verdicts(args.opponent, args.respond, args.games, args.seed)
    total = sum(seen.values())
    print(f"{PRESET},respond={args.respond} vs {args.opponent}: {args.games} games, seed "
          f"{args.seed}, {total} decisions")  # fmt: skip
    for name, count in seen.most_common():
        print(f"  {name}: {count} ({count / total:.1%})")


if __name__ == "__main__":
    main()
