"""Game-tree sizes of small ``python_durak`` configurations (2 players, and 3-4 on 4 cards).

OpenSpiel's exact tools (CFR and CFR+, and ``exploitability``'s best response) walk every
history of the game tree, and tabular policies hold every information state.  This script
counts, through ``pyspiel``, the histories (chance, decision and terminal) and the distinct
information-state strings of each player's decisions, by a full depth-first walk when the
tree is small enough, and otherwise estimates the number of histories with Knuth's
unbiased random-probe estimator (Knuth, "Estimating the efficiency of backtrack programs",
Math. Comp. 29, 1975): the mean over random root-to-leaf paths of the sum, over depths, of
the product of the branching factors so far.

A deck holds the first ``suits`` suits of each rank from ``lowest_rank`` up
(``durak.rules.config``): with four suits the small decks are 4 (aces), 8 (kings up) and
12 (queens up) cards; with fewer, 4 (2 suits of K, A), 5 (one suit of 10 to A), 6 (2 suits
of Q to A, or 3 of K, A), 8 and 9 cards.

    .venv/bin/python benchmarks/openspiel_tree_size.py --probes 4000 --seed 1
    .venv/bin/python benchmarks/openspiel_tree_size.py --suits 1 2 3 --probes 2000 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import pyspiel

import durak.interop.openspiel.game  # noqa: F401  # registers python_durak
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
    *(
        Rules(lowest_rank=low, suits=suits, hand_size=hand)
        for suits, low, hands in (
            (2, 13, (1, 2)),
            (1, 11, (1, 2)),
            (1, 10, (1, 2)),
            (3, 13, (1, 2, 3)),
            (2, 12, (1, 2, 3)),
            (2, 11, (1, 2, 3)),
            (3, 12, (1, 2, 3)),
        )
        for hand in hands
    ),
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
    deck = f"{rules.deck_size} cards"
    if rules.suits != Rules().suits:
        deck += f" ({rules.suits} × {15 - rules.lowest_rank})"
    return f"{rules.players} players, {deck}, hand {rules.hand_size}{extra}"


def main() -> None:
    """Print one row per configuration: counts, how they were found, and the time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=4000, help="Knuth probes per config")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--exact-limit", type=float, default=2e5, help="walk the whole tree below this estimate"
    )
    parser.add_argument(
        "--suits", type=int, nargs="*", default=[4], help="only the decks of these suit counts"
    )
    args = parser.parse_args()
    print(
        "| configuration | histories | decision histories | information states (per player) "
        "| how | seconds |"
    )
    print("|---|---|---|---|---|---|")
    for rules in (r for r in CONFIGS if r.suits in args.suits):
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
