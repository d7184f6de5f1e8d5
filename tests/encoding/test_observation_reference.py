"""The observation encoding against a reference written from its documented layout (the
table of :mod:`durak.encoding.observations`), block by block, over played games of 2 to 6
players, both variants, every seat, finished games and open worlds; and the vector changes
when any public fact changes."""

from __future__ import annotations

import random

import attrs
import numpy as np
import pytest

from durak.encoding import card_bits, encode_observation
from durak.rules import Observation, Rules, legal_actions, new_game, observe, step
from durak.rules.cards import NUM_CARDS, CardSet, deck_cards

#: The trump-suit block's entries, in the layout's order: S, H, D, C, none.
SUIT_ORDER = "SHDC"


def reference(o: Observation) -> list[float]:
    """The vector of ``o`` as the layout table describes it."""
    rules = o.rules
    deck = deck_cards(rules.lowest_rank, rules.suits)
    d, n, me = len(deck), rules.players, o.player
    over = o.turn < 0

    def cards(chosen: set[str]) -> list[float]:
        return [1.0 if str(c) in chosen else 0.0 for c in deck]

    seat = [(me + s) % n for s in range(n)]  # seat 0 the observer, then clockwise
    face_up = o.trump_card if (o.trump_card is not None and o.talon_size > 0) else None
    out = cards({str(c) for c in o.hand})
    out += cards({str(a) for a, _ in o.table})
    out += cards({str(a) for a, b in o.table if b is None})
    out += cards({str(b) for _, b in o.table if b is not None})
    out += cards({str(c) for c in o.discard})
    out += cards(set() if face_up is None else {str(face_up)})
    for p in seat[1:]:
        out += cards({str(c) for c in o.known_cards(p)})
    out += [o.hand_sizes[p] / d for p in seat]
    out.append(o.talon_size / d)
    trump = [0.0] * 5
    trump[4 if o.trump_suit is None else SUIT_ORDER.index(o.trump_suit.name)] = 1.0
    out += trump
    if over or me in o.players_out:
        role = 3
    elif me == o.attacker:
        role = 0
    elif me == o.defender:
        role = 1
    else:
        role = 2
    out += [float(k == role) for k in range(4)]
    out += [float(o.turn == me), float(o.taking)]
    out += [float(not over and p == o.attacker) for p in seat]
    out += [float(not over and p == o.defender) for p in seat]
    out += [float(p in o.players_out) for p in seat]
    out.append(0.0 if over else o.cap / max(rules.bout_cap, rules.first_bout_cap or 1))
    return out


def observations(rules: Rules, seed: int) -> list[Observation]:
    """Along a game of random moves: every seat's observation at every third state and
    at the end, and the open-world one of the player to act at the others."""
    rng, state = random.Random(seed), new_game(rules, seed)
    out = []
    for k in range(10_000):
        if state.turn < 0 or k % 3 == 0:
            out += [observe(state, p) for p in range(rules.players)]
        if state.turn < 0:
            break
        if k % 3 == 1:
            out.append(observe(state, state.turn, open_world=True))
        state = step(state, rng.choice(legal_actions(state)))
    return out


GAMES = [
    (Rules(players=2), 0),
    (Rules(players=2, transfer=True), 1),
    (Rules(players=3, transfer=True, lowest_rank=2), 2),
    (Rules(players=4, hand_size=4, first_bout_cap=5), 3),
    (Rules(players=5, transfer=True), 4),
    (Rules(players=6, hand_size=5), 5),
    # a first-bout cap above the cap, which hands of 8 reach: the scale is the larger
    (Rules(players=2, hand_size=8, first_bout_cap=8), 6),
]


@pytest.mark.parametrize(("rules", "seed"), GAMES)
def test_every_block_is_what_the_layout_says(rules: Rules, seed: int) -> None:
    for o in observations(rules, seed):
        want = np.array(reference(o), dtype=np.float32)
        np.testing.assert_array_equal(encode_observation(o), want, err_msg=str(o.history))


@pytest.mark.parametrize(
    "rules",
    [Rules(players=2, bout_cap=1), Rules(players=3, bout_cap=1, first_bout_cap=1)],
    ids=["cap-1", "cap-1-first-1"],
)
def test_a_bout_cap_of_one_is_its_own_scale(rules: Rules) -> None:
    # A cap of one fills the cap entry (1/1), where a scale of two would halve it.
    seen = observations(rules, 7)
    assert any(o.turn >= 0 and o.cap == 1 for o in seen)
    for o in seen:
        want = np.array(reference(o), dtype=np.float32)
        np.testing.assert_array_equal(encode_observation(o), want, err_msg=str(o.history))


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(lowest_rank=2),
        Rules(lowest_rank=12, suits=2, hand_size=2),
        Rules(lowest_rank=10, suits=3, hand_size=4),
    ],
    ids=["36", "52", "6", "15"],
)
def test_card_bits_are_the_deck_s_cards_of_a_mask_in_deck_order(rules: Rules) -> None:
    # A card block of the layout, for any mask: cards outside the deck are dropped.
    rng = random.Random(rules.deck_size)
    deck = deck_cards(rules.lowest_rank, rules.suits)
    for mask in [0, (1 << NUM_CARDS) - 1] + [rng.getrandbits(NUM_CARDS) for _ in range(50)]:
        held = set(CardSet(mask))
        bits = card_bits(mask, rules)
        assert bits.dtype == np.float32 and bits.shape == (rules.deck_size,)
        assert bits.tolist() == [1.0 if c in held else 0.0 for c in deck]


@pytest.mark.parametrize(("rules", "seed"), GAMES[::2])
def test_a_change_of_any_public_fact_changes_the_vector(rules: Rules, seed: int) -> None:
    played = [o for o in observations(rules, seed) if o.turn >= 0 and o.hand and o.table]
    o = played[len(played) // 2]
    hidden = next(iter(o.hidden_cards()))
    n = rules.players
    changes = {
        "discard": attrs.evolve(o, discard=o.discard.add(hidden)),
        "talon": attrs.evolve(o, talon_size=o.talon_size + 1),
        "sizes": attrs.evolve(o, hand_sizes=(*o.hand_sizes[:-1], o.hand_sizes[-1] + 1)),
        # the layout says only whether the observer is to act, not who else is
        "turn": attrs.evolve(o, turn=(o.player + 1) % n if o.turn == o.player else o.player),
        "taking": attrs.evolve(o, taking=not o.taking),
        "cap": attrs.evolve(o, cap=o.cap + 1),
        "out": attrs.evolve(o, players_out=o.players_out ^ {(o.player + 1) % n}),
        "attacker": attrs.evolve(o, attacker=(o.attacker + 1) % n),
        "defender": attrs.evolve(o, defender=(o.defender + 1) % n),
        "table": attrs.evolve(o, table=o.table[:-1]),
        "trump": attrs.evolve(o, trump_suit=None),
    }
    base = encode_observation(o)
    for name, changed in changes.items():
        assert not np.array_equal(encode_observation(changed), base), name
