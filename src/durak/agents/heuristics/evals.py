"""Evaluation functions for depth-limited search on full (determinized) Durak states.

``basic`` is our reading of Zarlykov (2023, section 4.3): a player is better off with
strong cards, with few cards (hand size weighs 15 times more once the talon is empty), and
with few *weaknesses*: cards the player it attacks next could beat.  Van Khan's (2024)
max^n evaluation scores each player by minus its card count with trumps counted double,
plus the same weakness term.

Both return a payoff vector shaped like ``returns``: it sums to 0 and every entry lies in
(-1, 1), so max^n may prune with ``DurakGame.payoff_bounds``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from durak.agents.heuristics.simple import greedy_choice
from durak.agents.heuristics.tactics import action_card, play_key, weak_mask
from durak.rules import (
    CARDS,
    NUM_CARDS,
    Action,
    DurakGame,
    GameState,
    beaters,
    bit_indices,
    legal_actions,
    next_active,
    returns,
    step_unchecked,
    suit_mask,
)
from durak.rules.actions import ATTACKS, DEFENDS, PASS, TAKE

#: A value function over full states (``durak.search.Evaluator``).
StateEval = Callable[[GameState], tuple[float, ...]]

#: Weight of each card in hand once the talon is empty (Zarlykov: 15 times the usual 1).
ENDGAME_SIZE_WEIGHT = 15.0
#: Weight of each weakness.
WEAKNESS_WEIGHT = 0.5
#: Keeps the scaled scores strictly inside (-1, 1): |v| <= x / (x + SOFTNESS).
SOFTNESS = 4.0


@lru_cache(maxsize=64)
def card_values(trump: int | None, lowest_rank: int) -> tuple[float, ...]:
    """Per card index, its value in [0, 1]: rank within the deck (half), plus 0.5 for a trump."""
    span = max(1, 14 - lowest_rank)
    return tuple(
        (max(0, c.rank - lowest_rank) / span) / 2 + (0.5 if c.suit == trump else 0.0) for c in CARDS
    )


def _spread(scores: Sequence[float]) -> tuple[float, ...]:
    """Scores centred to sum 0 and squashed into (-1, 1), keeping their order and ratios."""
    mean = sum(scores) / len(scores)
    centred = [x - mean for x in scores]
    scale = SOFTNESS + max(abs(x) for x in centred)
    return tuple(x / scale for x in centred)


def _targets(state: GameState) -> list[int]:
    """Per player, the next player still in the game (whom it would attack), or itself."""
    n, out = state.rules.players, state.players_out
    return [next_active(p, n, out) if p not in out else p for p in range(n)]


def basic(state: GameState) -> tuple[float, ...]:
    """Zarlykov-style value: card strength, minus hand size (x15 when the talon is empty),
    minus weaknesses against the next player; a player with no cards scores best."""
    trump = state.trump_suit
    values = card_values(trump, state.rules.lowest_rank)
    size_weight = 1.0 if state.talon else ENDGAME_SIZE_WEIGHT
    masks = state.hand_masks
    targets = _targets(state)
    scores = []
    for p, hand in enumerate(masks):
        strength = sum(values[i] for i in bit_indices(hand))
        weak = weak_mask(hand, masks[targets[p]], trump).bit_count() if targets[p] != p else 0
        scores.append(strength - size_weight * hand.bit_count() - WEAKNESS_WEIGHT * weak)
    return _spread(scores)


def card_count(state: GameState) -> tuple[float, ...]:
    """Van Khan's max^n value: minus the card count with trumps counted double, minus the
    weakness term."""
    trump = state.trump_suit
    trumps = 0 if trump is None else suit_mask(trump)
    masks = state.hand_masks
    targets = _targets(state)
    scores = []
    for p, hand in enumerate(masks):
        weak = weak_mask(hand, masks[targets[p]], trump).bit_count() if targets[p] != p else 0
        count = hand.bit_count() + (hand & trumps).bit_count()
        scores.append(-count - WEAKNESS_WEIGHT * weak)
    return _spread(scores)


def greedy_rollout(state: GameState, _: object = None) -> Action:
    """The greedy agent's move in a full state: the MCTS ``simulation=greedy`` policy.

    The same action as ``greedy_choice(legal_actions(state), ...)``, found on the hand's
    bitmask without building the legal actions (a rollout's every step): the lowest-power
    card that leads, beats (on the strongest target it beats) or throws in.  A defence
    under transfer rules takes the general path.
    """
    p = state.turn
    hand = state.hand_masks[p]
    trump = state.trump_suit
    trumps = 0 if trump is None else suit_mask(trump)
    table = state.table
    if not table:  # leading
        return ATTACKS[_weakest(hand, trumps)]
    if p == state.defender and not state.taking:
        if state.rules.transfer:
            return greedy_choice(legal_actions(state), trump, len(state.talon))
        beating = beaters(trump)
        best: Action = TAKE
        best_key = 1 << 20
        for a, d in table:
            options = hand & beating[a.index] if d is None else 0
            if options:
                card = _weakest(options, trumps)
                # play_key order: the weaker card, then the stronger target
                key = (card | 64 if trumps >> card & 1 else card) * 128 - (
                    a.index | 64 if trumps >> a.index & 1 else a.index
                )
                if key < best_key:
                    best, best_key = DEFENDS[a.index * NUM_CARDS + card], key
        return best
    ranks = 0  # throwing in: the ranks on the table
    for a, d in table:
        ranks |= 0xF << (a.index & ~3)
        if d is not None:
            ranks |= 0xF << (d.index & ~3)
    plays = hand & ranks
    if state.talon:
        plays &= ~trumps  # trumps are saved while the talon lasts
    return ATTACKS[_weakest(plays, trumps)] if plays else PASS


def _weakest(mask: int, trumps: int) -> int:
    """The index of the lowest-power card of the non-empty ``mask``: its lowest non-trump,
    or else its lowest trump (the card index orders power within each group)."""
    low = mask & ~trumps or mask
    return (low & -low).bit_length() - 1


def greedy_heuristic(state: GameState, legal: Sequence[Action]) -> Action:
    """The greedy agent's choice among ``legal`` (the actions of ``state``): the preferred
    action of the ``mcts`` and ``ismcts`` agents' progressive bias."""
    return greedy_choice(legal, state.trump_suit, len(state.talon))


def cheap_first(state: GameState, legal: Sequence[Action]) -> list[Action]:
    """``legal`` in alpha-beta search order: card plays by :func:`play_key` (the weakest
    card first), then Take or Pass.  It solved about a third more talon-out endgames within a
    100,000-node budget than the canonical order did (26 against 20 of 40)."""
    trump = state.trump_suit
    plays = sorted(
        (a for a in legal if action_card(a) is not None), key=lambda a: play_key(a, trump)
    )
    return [*plays, *(a for a in legal if action_card(a) is None)]


def playout(state: GameState) -> tuple[float, ...]:
    """Zarlykov's ``eval=playout``: the returns of one greedy-versus-greedy playout (on the
    simulation state, which plays out the same without the talon's origins record)."""
    s = DurakGame.simulation_state(state)
    while s.turn >= 0:
        s = step_unchecked(s, greedy_rollout(s))
    return returns(s)
