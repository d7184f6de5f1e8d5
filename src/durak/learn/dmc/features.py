"""The inputs of the Deep Monte-Carlo network: one row per legal action of a decision.

DouZero (Zha et al., "DouZero: Mastering DouDizhu with Self-Play Deep Reinforcement
Learning", ICML 2021) scores each (state, action) pair with one network, the action given
by its own features rather than by an output index, so that what is learned about one
card carries over to similar actions.  A row here is the state block followed by the
action block:

* **state**: :func:`~durak.encoding.encode_observation` (own hand, table, discard pile,
  face-up trump, the cards each opponent is known to hold, hand sizes, talon size, roles,
  seats, bout cap).  That is the history the network needs: every Durak card that leaves a
  hand is played face up, so what has been played is the discard pile and the table, and
  what an opponent took is in its known cards.  No move list is added.
* **action** (``5 + 3·D``): its kind one-hot (attack, defend, transfer, take, pass), the
  card it plays, the attack card it beats (defences), and the hand it leaves.

**Suits are canonical.**  The trump suit is moved to the first slot of every rank and the
other suits of the deck follow in their usual order (spades, hearts, diamonds, clubs), in
every card block of the state and of the action.  The game does not change under a renaming
of suits, so this shows the network one game where there would be one per trump suit (four
in the usual decks), and its data goes that many times as far.  A no-trump game keeps the
usual order.

The rows depend only on the :class:`~durak.rules.Observation`, never on hidden cards.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from durak.extras import needs

with needs("dmc", "dmc"):
    import numpy as np
    from numpy.typing import NDArray

from durak.encoding import encode_observation, observation_size
from durak.rules import NUM_CARDS, Action, Defend, Observation, Rules, Suit, deck_cards

__all__ = ["action_size", "canonical_cards", "decision_rows", "row_size"]

#: Action kinds, in the order of the engine's ``Action.kind``.
KINDS = 5


def action_size(rules: Rules) -> int:
    """The width of an action block: ``5 + 3 * deck size``."""
    return KINDS + 3 * rules.deck_size


def row_size(rules: Rules) -> int:
    """The width of a row: ``observation_size(rules) + action_size(rules)``."""
    return observation_size(rules) + action_size(rules)


@functools.cache
def _card_order(lowest_rank: int, suits: int, trump: Suit | None) -> NDArray[np.intp]:
    """``order[j]``: the deck position of the card in canonical position ``j``."""
    ranks = 15 - lowest_rank
    others = [s for s in range(suits) if s != trump]
    slots = others if trump is None else [int(trump), *others]
    return np.array([r * suits + s for r in range(ranks) for s in slots], dtype=np.intp)


@functools.cache
def _canonical(lowest_rank: int, suits: int, trump: Suit | None) -> NDArray[np.intp]:
    """``position[card.index]``: where a deck card goes in canonical order."""
    position = np.zeros(NUM_CARDS, dtype=np.intp)
    deck = deck_cards(lowest_rank, suits)
    for j, at in enumerate(_card_order(lowest_rank, suits, trump)):
        position[deck[at].index] = j
    return position


@functools.cache
def canonical_cards(lowest_rank: int, suits: int, trump: Suit | None) -> NDArray[np.intp]:
    """``cards[j]``: the ``card.index`` of the card in canonical position ``j`` of a card
    block (the order of every card block of the rows, see the module doc)."""
    deck = deck_cards(lowest_rank, suits)
    return np.array([deck[at].index for at in _card_order(lowest_rank, suits, trump)], np.intp)


@functools.cache
def _state_order(rules: Rules, trump: Suit | None) -> NDArray[np.intp]:
    """A gather index over :func:`encode_observation` that makes its card blocks canonical."""
    d = rules.deck_size
    blocks = rules.players + 5  # the card blocks lead the vector
    order = np.arange(observation_size(rules), dtype=np.intp)
    cards = _card_order(rules.lowest_rank, rules.suits, trump)
    for b in range(blocks):
        order[b * d : (b + 1) * d] = b * d + cards
    return order


def decision_rows(observation: Observation, legal: Sequence[Action]) -> NDArray[np.float32]:
    """One float32 row per action of ``legal`` (``row_size(rules)`` wide), for the player
    of ``observation``: the canonical state block, then the action's block.

    Promises: rows depend only on ``observation`` and the actions; the state block is the
    same in every row; entries lie in [0, 1].
    """
    rules = observation.rules
    d = rules.deck_size
    trump = observation.trump_suit
    state = encode_observation(observation)[_state_order(rules, trump)]
    position = _canonical(rules.lowest_rank, rules.suits, trump)
    hand = np.zeros(d, dtype=np.float32)
    for held in observation.hand:
        hand[position[held.index]] = 1.0
    k = len(legal)
    width = state.shape[0]
    rows = np.zeros((k, width + KINDS + 3 * d), dtype=np.float32)
    rows[:, :width] = state
    rows[:, width + KINDS + 2 * d :] = hand
    played = width + KINDS
    for i, action in enumerate(legal):
        rows[i, width + action.kind] = 1.0
        card = getattr(action, "card", None)
        if card is not None:
            p = position[card.index]
            rows[i, played + p] = 1.0
            rows[i, played + 2 * d + p] = 0.0  # no longer in hand
        if type(action) is Defend:
            rows[i, played + d + position[action.target.index]] = 1.0
    return rows
