"""Pasts for ``resample_from_infostate``: a deal, or a start, that a player's information
state allows, drawn with the odds of the knowledge model, from which the same public
actions lead to the resampled world.

OpenSpiel's ``resample_from_infostate`` returns a history of the player's information set
(Lanctot et al., arXiv:1908.09453; Cowling, Powley & Whitehouse, "Information Set Monte
Carlo Tree Search", IEEE TCIAIG 2012).  A state's history must then be a past of its own
world, not of the true one: the world is drawn by :func:`~durak.rules.sample_world` (the
exact odds of :func:`~durak.rules.odds`), and its past, which of the opponents' cards they
held at the start and drew at each refill, by the inference package's
:meth:`~durak.agents.inference.record.PublicRecord.past` (uniform among the pasts the public
record allows).  The game replays the deal and the actions through the engine; the
functions here only choose the cards.
"""

from __future__ import annotations

import functools
import random
from typing import Any

from durak.extras import needs

with needs("durak.interop.openspiel", "openspiel"):
    import numpy as np

from durak.agents.inference.record import GameLog, PublicRecord
from durak.interop.openspiel.line import Line
from durak.rules import Card, GameState, Rules, RulesError, deck_cards, observe, sample_world

__all__ = ["past_deal", "past_start", "player_of", "redealt", "seed_of"]


@functools.cache
def _positions(rules: Rules) -> tuple[tuple[Card, ...], dict[Card, int]]:
    """The deck in card order, and each card's position in it (its chance outcome)."""
    cards = deck_cards(rules.lowest_rank, rules.suits)
    return cards, {c: i for i, c in enumerate(cards)}


def redealt(line: Line, player: int, rng: random.Random) -> list[int]:
    """During the deal: the deck positions of a deal in ``player``'s information state,
    uniform among them.  The cards dealt to the others and the cards left are shuffled; the
    player's own cards and the face-up trump card (the last position, once dealt) stay.  At
    the leader's chance node nobody holds a trump, so the hidden trumps stay in the talon.
    """
    rules = line.rules
    n, size, dealt = rules.players, rules.deck_size, rules.players * rules.hand_size
    deck = list(line.deck)
    slots = [i for i in range(min(len(deck), size - 1)) if i >= dealt or i % n != player]
    pool = [i for i in range(size) if not line.dealt >> i & 1] + [deck[i] for i in slots]
    rng.shuffle(pool)
    if len(deck) == size and rules.trumps:
        cards = _positions(rules)[0]
        suit = cards[deck[-1]].suit
        trumps = [c for c in pool if cards[c].suit == suit]
        pool = [c for c in pool if cards[c].suit != suit]
        talon = rng.sample([i for i in slots if i >= dealt], len(trumps))
        for i, c in zip(talon, trumps, strict=True):
            deck[i] = c
        slots = [i for i in slots if i not in talon]
    for i, c in zip(slots, pool, strict=False):  # the pool's rest is still to be dealt
        deck[i] = c
    return deck


def past_start(line: Line, player: int, rng: random.Random) -> tuple[GameState, GameState]:
    """After the deal: a world of ``player``'s observation now, and the state at the start
    of ``line`` (``line.states[0]``) from which ``line``'s actions lead to it, drawn
    together uniformly among those the player's record allows (module docstring)."""
    states = line.states
    log = GameLog(
        observe(states[0], player),
        [(p, a, observe(s, player)) for (p, a), s in zip(line.moves, states[1:], strict=True)],
    )
    world = sample_world(log.latest, rng)
    return PublicRecord.of(log).past(world, rng), world


def past_deal(line: Line, player: int, rng: random.Random) -> tuple[list[int], GameState]:
    """After the deal, for a ``line`` that starts at it: the deck positions of a deal
    drawn as :func:`past_start` draws the start (each opponent's start hand dealt to it in
    a uniform order; the player's own cards where they were), and the world ``line``'s
    actions lead to from it."""
    start, world = past_start(line, player, rng)
    rules = line.rules
    n, size, dealt = rules.players, rules.deck_size, rules.players * rules.hand_size
    positions = _positions(rules)[1]
    deck = list(line.deck)
    for q, hand in enumerate(start.hands):
        if q == player:
            continue
        slots = list(range(q, dealt, n))
        cards = list(hand)
        trump = start.trump_card
        if trump is not None and dealt == size and slots[-1] == size - 1:
            # Every card dealt: the face-up trump card is the last one, to this player.
            slots.pop()
            cards.remove(trump)
            deck[size - 1] = positions[trump]
        rng.shuffle(cards)
        for i, c in zip(slots, cards, strict=True):
            deck[i] = positions[c]
    for i, c in enumerate(start.talon, start=dealt):
        deck[i] = positions[c]
    return deck, world


def player_of(player: object, rules: Rules) -> int:
    """``player`` if it is one of the game's players: ``TypeError`` or :class:`RulesError`."""
    if isinstance(player, bool) or not isinstance(player, int | np.integer):
        raise TypeError(f"player must be an int, got {type(player).__name__}")
    if not 0 <= player < rules.players:
        raise RulesError(f"player must be 0..{rules.players - 1}, got {player}")
    return int(player)


def seed_of(sampler: Any) -> int:
    """A 53-bit seed from one call of ``sampler``, which must return a number in [0, 1]."""
    value = sampler()
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"the sampler must return a float in [0, 1), got {value!r:.60}")
    if not 0 <= value <= 1:  # also refuses NaN
        raise RulesError(f"the sampler must return a float in [0, 1), got {value!r}")
    return int(value * 2**53)
