"""Game-tree sizes of small ``python_durak`` configurations (2 players, and 3-4 on 4 cards).

OpenSpiel's exact tools (CFR and CFR+, and ``exploitability``'s best response) walk every
history of the game tree, and tabular policies hold every information state.  This script
counts, through ``pyspiel``, the histories (chance, decision and terminal) and the distinct
information-state strings of each player's decisions, by a full depth-first walk when the
tree is small enough, and otherwise estimates the number of histories with Knuth's
unbiased random-probe estimator (Knuth, "Estimating the efficiency of backtrack programs",
Math. Comp. 29, 1975): the mean over random root-to-leaf paths of the sum, over depths, of
the product of the branching factors so far.

Decks hold four suits of each rank from ``lowest_rank`` up (``durak.rules.config``), so the
small decks are 4 (aces), 8 (kings up) and 12 (queens up) cards; 10 is not a Durak deck.

    .venv/bin/python benchmarks/openspiel_tree_size.py --probes 4000 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import pyspiel

import durak.interop.openspiel  # noqa: F401  # registers python_durak
from durak.interop.openspiel import game_string
from durak.rules import Rules

CONFIGS = [
    Rules(lowest_rank=14, hand_size=1),
    Rules(lowest_rank=14, hand_size=2),
    Rules(lowest_rank=14, hand_size=2, bout_cap=1),
    Rules(players=3, lowest_rank=14, hand_size=1),
    Rules(players=3, lowest_rank=14, hand_size=1, transfer=True),
    Rules(players=4, lowest_rank=14, hand_size=1, transfer=True),
    Rules(lowest_rank=13, hand_size=1, bout_cap=1),
    Rules(lowest_rank=13, hand_size=2),
    Rules(lowest_rank=13, hand_size=3),
    Rules(lowest_rank=12, hand_size=2),
    Rules(lowest_rank=12, hand_size=3),
]


def estimate(game: pyspiel.Game, probes: int, seed: int) -> tuple[float, float]:
    """Knuth's estimates of the number of histories and of decision histories."""
    rng = random.Random(seed)
    total = decisions = 0.0
    for _ in range(probes):
        state = game.new_initial_state()
        weight, nodes, choice = 1.0, 1.0, 0.0
        while not state.is_terminal():
            actions = state.legal_actions()
            if not state.is_chance_node():
                choice += weight
            weight *= len(actions)
            nodes += weight
            state.apply_action(rng.choice(actions))
        total += nodes
        decisions += choice
    return total / probes, decisions / probes


def walk(game: pyspiel.Game) -> tuple[int, int, list[int]]:
    """Exact counts: histories, decision histories, information states of each player."""
    histories = decisions = 0
    infostates: list[set[str]] = [set() for _ in range(game.num_players())]
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        histories += 1
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            decisions += 1
            infostates[state.current_player()].add(state.information_state_string())
        stack.extend(state.child(a) for a in state.legal_actions())
    return histories, decisions, [len(s) for s in infostates]


def label(rules: Rules) -> str:
    """A short name of a small configuration."""
    cap = f", bout_cap={rules.bout_cap}" if rules.bout_cap != Rules().bout_cap else ""
    extra = cap + (", transfer" if rules.transfer else "")
    return f"{rules.players} players, {rules.deck_size} cards, hand {rules.hand_size}{extra}"


def main() -> None:
    """Print one row per configuration: counts, how they were found, and the time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=4000, help="Knuth probes per config")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--exact-limit", type=float, default=2e5, help="walk the whole tree below this estimate"
    )
    args = parser.parse_args()
    print(
        "| configuration | histories | decision histories | information states (per player) "
        "| how | seconds |"
    )
    print("|---|---|---|---|---|---|")
    for rules in CONFIGS:
        game = pyspiel.load_game(game_string(rules))
        start = time.perf_counter()
        total, choices = estimate(game, args.probes, args.seed)
        if total <= args.exact_limit:
            histories, decisions, infostates = walk(game)
            counts = ", ".join(f"{k:,}" for k in infostates)
            row = f"{histories:,} | {decisions:,} | {counts} | exact"
        else:
            row = f"~{total:.2g} | ~{choices:.2g} | - | Knuth, {args.probes} probes"
        seconds = time.perf_counter() - start
        print(f"| {label(rules)} | {row} | {seconds:.1f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
