"""Inference from the current bout: which cards an opponent cannot hold if it plays a model.

After Richards & Amir, "Opponent modeling in Scrabble" (IJCAI 2007), who weight the
opponent's possible hidden racks by how likely its last move is under a model of its play.
Here the model is ``greedy``, the policy the search agents already assume of their
opponents in rollouts and in their progressive bias, and the weights are 0 or 1.

Every move of the current bout is on the table, in order (one attack card at a time, each
answered before the next unless the defender takes), so the hand a player held at each of
its moves is its hand now plus its own cards played since.  ``greedy`` always plays the
first card of a candidate set in :func:`~durak.agents.tactics.play_key` order, so a move
it made rules out exactly the hidden cards that it would have preferred.  A move the model
cannot explain whatever the hidden cards (a non-greedy opponent) teaches nothing and is
skipped.  Only moves with a known author are read: the defender's, the lead, and in a
two-player game every throw-in; the transfer variant is not read at all.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from durak.agents.simple import greedy_choice
from durak.rules import (
    Action,
    Attack,
    Card,
    CardSet,
    Defend,
    GameState,
    Observation,
    Rank,
    Suit,
    sample_world,
)
from durak.rules.actions import PASS, TAKE
from durak.rules.cards import beats


def bout_exclusions(observation: Observation) -> dict[int, CardSet]:
    """Per opponent, the hidden cards it cannot hold if it played this bout as ``greedy``.

    Empty for the transfer variant, for an open-world observation (nothing is hidden) and
    between bouts.  A move that ``greedy`` would not have made whatever the hidden cards is
    skipped, so a non-greedy opponent gives fewer exclusions, not wrong ones about greedy.
    """
    o = observation
    if o.rules.transfer or o.hands is not None or not o.table:
        return {}
    trump, talon = o.trump_suit, o.talon_size
    hidden = list(o.hidden_cards())
    two = o.rules.players - len(o.players_out) <= 2
    out: dict[int, CardSet] = {}

    def read(mover: int, seen: Action, legal: Callable[[CardSet], list[Action]],
             played: CardSet) -> None:
        """Bar the hidden cards that would have changed ``mover``'s greedy move."""
        if mover == o.player:
            return
        public = o.known_cards(mover) | played
        if greedy_choice(legal(public), trump, talon) != seen:
            return
        barred = [c for c in hidden if greedy_choice(legal(public.add(c)), trump, talon) != seen]
        if barred:
            out[mover] = out.get(mover, CardSet()) | CardSet.from_cards(barred)

    table = o.table
    for i, (attack, defence) in enumerate(table):
        if i == 0 or two:  # the lead is the main attacker's; other throw-ins only in 2 players
            ranks = {c.rank for pair in table[:i] for c in pair if c is not None}
            mine = CardSet.from_cards(a for a, _ in table[i:]) if two else CardSet.of(attack)
            read(o.attacker, Attack(attack), _attacks(ranks, lead=i == 0), mine)
        answers = CardSet.from_cards(d for _, d in table[i:] if d is not None)
        if defence is not None:
            read(o.defender, Defend(attack, defence), _answers(attack, trump), answers)
        elif o.taking and all(d is not None for _, d in table[:i]):
            read(o.defender, TAKE, _answers(attack, trump), answers)
    return out


def sample_fitting(
    observation: Observation, rng: random.Random, excluded: dict[int, CardSet], *, tries: int
) -> GameState:
    """A world drawn uniformly among those where no player holds a card ``excluded`` for it.

    Rejection sampling from :func:`~durak.rules.sample_world`: up to ``tries`` draws, the
    first that fits; if none fits (the exclusions may be impossible), the draw with the
    fewest excluded cards in hand.  Reads only ``observation`` and ``rng``.
    """
    if tries < 1:
        raise ValueError(f"tries must be at least 1, got {tries}")
    best: GameState | None = None
    best_misses = 1 << 30
    for _ in range(tries):
        world = sample_world(observation, rng)
        masks = world.hand_masks
        misses = sum((masks[p] & cards.mask).bit_count() for p, cards in excluded.items())
        if misses == 0:
            return world
        if misses < best_misses:
            best, best_misses = world, misses
    assert best is not None
    return best


def _attacks(ranks: set[Rank], *, lead: bool) -> Callable[[CardSet], list[Action]]:
    """The legal attacks from a hand: any card to lead, else a card of a rank on the table
    or Pass."""
    def legal(hand: CardSet) -> list[Action]:
        if lead:
            return [Attack(c) for c in hand]
        return [*(Attack(c) for c in hand if c.rank in ranks), PASS]
    return legal


def _answers(target: Card, trump: Suit | None) -> Callable[[CardSet], list[Action]]:
    """The defender's legal answers to the open card ``target``: beat it, or Take."""
    def legal(hand: CardSet) -> list[Action]:
        return [*(Defend(target, c) for c in hand if beats(c, target, trump)), TAKE]
    return legal
