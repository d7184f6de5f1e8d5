"""Random games per second through ``pyspiel`` (``python_durak``) next to the README's loop.

Both play uniformly random 2-player 36-card games in this process, interleaved in slices
so that both see the same machine load:

* the README's loop: ``new_game`` then ``legal_actions`` + ``step`` until the end;
* OpenSpiel: ``pyspiel.load_game("python_durak")``, the deal's chance nodes (one card at a
  time, the outcome drawn from ``chance_outcomes``) and every decision through
  ``legal_actions`` + ``apply_action``, as OpenSpiel's own random-play loops do.

    .venv/bin/python benchmarks/openspiel_speed.py --games 1000 --seed 1
"""

from __future__ import annotations

import argparse
import random
import time

import pyspiel

import durak.interop.openspiel.game  # noqa: F401  # registers python_durak
from durak.rules import Rules, legal_actions, new_game, step


def readme_games(games: int, seed: int) -> float:
    """Seconds for ``games`` random games with the README's loop."""
    rng = random.Random(seed)
    start = time.perf_counter()
    for g in range(seed, seed + games):
        state = new_game(Rules(), g)
        while state.turn >= 0:
            state = step(state, rng.choice(legal_actions(state)))
    return time.perf_counter() - start


def pyspiel_games(game: pyspiel.Game, games: int, seed: int) -> float:
    """Seconds for ``games`` random games of ``game`` through the pyspiel API."""
    rng = random.Random(seed)
    start = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    return time.perf_counter() - start


def main() -> None:
    """Print games per second of both loops and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per loop")
    parser.add_argument("--slices", type=int, default=10, help="interleaved slices")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = pyspiel.load_game("python_durak")
    per = max(1, args.games // args.slices)
    readme = spiel = 0.0
    for s in range(args.slices):
        seed = args.seed + s * per
        readme += readme_games(per, seed)
        spiel += pyspiel_games(game, per, seed)
    played = per * args.slices
    print(f"README loop: {played / readme:,.0f} games/s")
    print(f"pyspiel python_durak: {played / spiel:,.0f} games/s")
    print(f"ratio: {readme / spiel:.2f}")


if __name__ == "__main__":
    main()
