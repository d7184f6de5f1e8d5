"""A fixed-length numpy vector of one player's :class:`~durak.rules.Observation`.

Neural agents (the DQN of Crampton's Durak study, Durham) and the Gymnasium / PettingZoo
adapters need an observation of fixed shape.  :func:`encode_observation` reads nothing but
the :class:`~durak.rules.Observation` (what the player may know, ``docs/rules.md``,
"Knowledge"), so it can never include hidden information: opponents' unknown cards and the
talon order are not in its input.

Layout, in order (``D`` = deck size, ``N`` = ``rules.players``; card blocks have one 0/1
entry per deck card in card order, as :class:`~durak.encoding.ActionSpace`; *seat blocks*
have one entry per seat relative to the observer: 0 = the observer, 1 = the next player
clockwise, ...).  The size depends on the deck and on the number of players; there is no
padding to six seats.

=========================  ========  =====================================================
block                      length    values
=========================  ========  =====================================================
own hand                   D         0/1
table attack cards         D         0/1, every attack card on the table
table undefended cards     D         0/1, the attack cards not yet beaten
table defence cards        D         0/1
discard pile               D         0/1
face-up trump card         D         0/1, the trump card while it lies under the talon
known opponent cards       (N-1)·D   0/1 per opponent, seats 1 .. N-1 (``known_cards``)
hand sizes                 N         ``hand_sizes[seat] / D``, in [0, 1]
talon fraction             1         ``talon_size / D``, in [0, 1]
trump suit                 5         one-hot S, H, D, C, then "no trump suit"
role                       4         one-hot: leading attacker, defender, may throw in
                                     (neither, still in), out (or game over)
to act                     1         1 if it is the observer's turn
taking                     1         1 if the defender has taken this bout
attacker seat              N         one-hot seat of the main attacker (zeros when over)
defender seat              N         one-hot seat of the defender (zeros when over)
players out                N         0/1 per seat
bout cap                   1         ``cap / max(bout_cap, first_bout_cap)``, in [0, 1]
                                     (0 when over)
=========================  ========  =====================================================

So ``observation_size(rules) = (N + 5)·D + 4N + 13``: 273 for 2 players and 36 cards,
433 for 6 players and 36 cards, 385 for 2 players and 52 cards.  An open-world observation
(``observe(..., open_world=True)``) encodes every opponent's whole hand in the known-cards
blocks, since ``known_cards`` then returns it.
"""

from __future__ import annotations

import functools

from durak.extras import needs

with needs("durak.encoding", "rl"):
    import numpy as np
    from numpy.typing import NDArray

from durak.rules import Observation, Rules
from durak.rules.cards import deck_cards

__all__ = ["card_bits", "encode_observation", "observation_size"]

_TRUMP_WIDTH = 5
_ROLE_WIDTH = 4
_ROLE_ATTACKER, _ROLE_DEFENDER, _ROLE_THROWER, _ROLE_OUT = range(_ROLE_WIDTH)


def observation_size(rules: Rules) -> int:
    """The length of every :func:`encode_observation` vector for ``rules``:
    ``(N + 5) * D + 4 * N + 13`` for N players and a D-card deck."""
    d, n = rules.deck_size, rules.players
    return (n + 5) * d + 4 * n + 13


@functools.cache
def _deck_indices(lowest_rank: int, suits: int) -> NDArray[np.intp]:
    return np.array([c.index for c in deck_cards(lowest_rank, suits)], dtype=np.intp)


def card_bits(mask: int, rules: Rules) -> NDArray[np.float32]:
    """The bits of a card mask (``CardSet.mask``) for the cards of ``rules``' deck, as a 0/1
    float vector of length ``rules.deck_size`` in deck order (a card block of the layout);
    cards outside the deck are dropped."""
    raw = np.frombuffer(mask.to_bytes(7, "little"), dtype=np.uint8)
    bits = np.unpackbits(raw, bitorder="little")[_deck_indices(rules.lowest_rank, rules.suits)]
    return bits.astype(np.float32)


def encode_observation(observation: Observation) -> NDArray[np.float32]:
    """The float32 vector of ``observation`` (layout in the module doc).

    Promises: the length is ``observation_size(observation.rules)``; every entry is in
    [0, 1]; the result depends only on ``observation`` (never on hidden cards), and a
    change of the observer's own hand changes it.
    """
    o = observation
    rules = o.rules
    d, n = rules.deck_size, rules.players
    me = o.player
    attacks = defences = undefended = 0
    for a, b in o.table:
        attacks |= 1 << a.index
        if b is None:
            undefended |= 1 << a.index
        else:
            defences |= 1 << b.index
    face_up = 0 if o.face_up_trump is None else 1 << o.face_up_trump.index
    masks = [o.hand.mask, attacks, undefended, defences, o.discard.mask, face_up]
    masks += [o.known_cards((me + s) % n).mask for s in range(1, n)]
    # Every card block at once: one unpacking of all the masks' bytes (card_bits for each).
    raw = np.frombuffer(b"".join(m.to_bytes(7, "little") for m in masks), dtype=np.uint8)
    bits = np.unpackbits(raw, bitorder="little").reshape(len(masks), 56)
    cards = bits[:, _deck_indices(rules.lowest_rank, rules.suits)].reshape(-1)
    return np.concatenate([cards.astype(np.float32), _tail(o, d, n)])


def _tail(o: Observation, d: int, n: int) -> NDArray[np.float32]:
    """The blocks after the card blocks, from hand sizes to the bout cap (the layout)."""
    me, rules, over = o.player, o.rules, o.is_terminal
    by_seat = [(me + s) % n for s in range(n)]  # seat s relative to the observer
    trump = [0.0] * _TRUMP_WIDTH
    trump[4 if o.trump_suit is None else int(o.trump_suit)] = 1.0
    role = [0.0] * _ROLE_WIDTH
    if over or me in o.players_out:
        role[_ROLE_OUT] = 1.0
    elif me == o.attacker:
        role[_ROLE_ATTACKER] = 1.0
    elif me == o.defender:
        role[_ROLE_DEFENDER] = 1.0
    else:
        role[_ROLE_THROWER] = 1.0
    attacker = [float(not over and p == o.attacker) for p in by_seat]
    defender = [float(not over and p == o.defender) for p in by_seat]
    cap_scale = max(rules.bout_cap, rules.first_bout_cap or 1)
    tail = [o.hand_sizes[p] / d for p in by_seat]
    tail += [o.talon_size / d, *trump, *role, float(o.turn == me), float(o.taking)]
    tail += [*attacker, *defender, *(float(p in o.players_out) for p in by_seat)]
    tail.append(o.cap / cap_scale)  # 0 once the game is over
    return np.array(tail, dtype=np.float32)
