"""Random 2-player games per second: durak's public API against ``durakgame`` 1.0.4.

``durakgame`` (PyPI) is the fastest public pure-Python Durak engine we know of.  It is not a
dependency: install it apart, for example ``python3 -m venv /tmp/dg && /tmp/dg/bin/pip
install durakgame==1.0.4``, and put its site-packages on the path:

    PYTHONPATH=/tmp/dg/lib/python3.11/site-packages .venv/bin/python \\
        benchmarks/durakgame_compare.py --games 2000

Both engines play uniformly random 36-card games in this process, interleaved in slices so
that both see the same machine load.  durak runs the README's loop through the checked
public API (``legal_actions`` + ``step``), or with ``--unchecked`` through
``step_unchecked``, search's path.  ``durakgame`` 1.0.4 has a card-duplication
bug: after a take, the cards an attacker adds with ``FinishingMove`` go to the defender but
are never taken out of the attacker's hand, so cards multiply.  It is patched here (the
cards are removed first), because a game with duplicated cards runs longer and would make
``durakgame`` look slower than it is.

Times are this thread's CPU time by default (``--clock cpu``): on a machine shared with
other jobs the wall clock (``--clock wall``) also counts the time this process waits.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from durak.rules import Action, GameState, Rules, legal_actions, new_game, step, step_unchecked

Step = Callable[[GameState, Action], GameState]

#: The clock both engines are timed with (``--clock``).
CLOCKS = {"cpu": time.thread_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]


def durak_games(games: int, seed: int, advance: Step = step) -> float:
    """Seconds for ``games`` random games through the checked public API (or ``advance``)."""
    rng = random.Random(seed)
    start = clock()
    for g in range(seed, seed + games):
        state = new_game(Rules(), g)
        while state.turn >= 0:
            state = advance(state, rng.choice(legal_actions(state)))
    return clock() - start


def patched_durakgame() -> Any:
    """The ``durakgame`` package with its card-duplication bug patched, or exit with a
    message naming how to install it."""
    try:
        package = importlib.import_module("durakgame")
        game_module = importlib.import_module("durakgame.game")
    except ImportError:
        sys.exit("durakgame is not installed: see this script's docstring")
    game_class = game_module.Game
    original = game_class.process

    def process(self: Any, move: Any) -> None:
        if isinstance(move, game_module.FinishingMove):
            for card in move.cards:
                self.currentPlayer.hand.remove(card)
        original(self, move)

    game_class.process = process
    return package


def durakgame_games(package: Any, games: int, seed: int) -> float:
    """Seconds for ``games`` random games of ``durakgame`` (its ``MrRandom`` players)."""
    random.seed(seed)  # durakgame draws from the global generator
    start = clock()
    for _ in range(games):
        package.play(package.MrRandom(), package.MrRandom())
    return clock() - start


def main() -> None:
    """Print both engines' games per second and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--slices", type=int, default=4)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    parser.add_argument(
        "--unchecked", action="store_true", help="durak through step_unchecked (search's path)"
    )
    args = parser.parse_args()
    global clock  # noqa: PLW0603 - one setting for the whole run
    clock = CLOCKS[args.clock]
    package = patched_durakgame()
    ours = theirs = 0.0
    per_slice = max(1, args.games // args.slices)
    for k in range(args.slices):
        seed = args.seed + k * per_slice
        ours += durak_games(per_slice, seed, step_unchecked if args.unchecked else step)
        theirs += durakgame_games(package, per_slice, seed)
    played = per_slice * args.slices
    loop = "legal_actions + step_unchecked" if args.unchecked else "legal_actions + step"
    print(f"durak ({loop}): {played / ours:,.0f} games/s")
    print(f"durakgame 1.0.4 (patched):    {played / theirs:,.0f} games/s")
    print(f"ratio: {theirs / ours:.2f}x")


if __name__ == "__main__":
    main()
