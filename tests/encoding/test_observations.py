"""The observation encoding (:func:`durak.encoding.encode_observation`): fixed length and
documented ranges over random games, the documented blocks, and no hidden information:
worlds consistent with one observation, or with the hidden cards permuted, encode alike,
while a change of the observer's own hand changes the vector."""

from __future__ import annotations

import random

import attrs
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from durak.encoding import encode_observation, observation_size
from durak.rules import (
    Card,
    CardSet,
    Rules,
    new_game,
    observe,
    parse_action,
    position,
    sample_world,
    step,
)
from durak.rules.cards import deck_cards
from durak.testing.games import play_random_game
from durak.testing.strategies import rules as rules_strategy
from durak.testing.strategies import seeds
from durak.testing.worlds import fill, hidden_slots


@pytest.mark.parametrize(
    ("players", "lowest_rank", "size"),
    [(2, 6, 273), (6, 6, 433), (2, 2, 385), (6, 2, 609)],
)
def test_documented_sizes(players: int, lowest_rank: int, size: int) -> None:
    rules = Rules(players=players, lowest_rank=lowest_rank)
    assert observation_size(rules) == size
    vec = encode_observation(observe(new_game(rules, 0), 0))
    assert vec.shape == (size,)
    assert vec.dtype == np.float32


@given(rules_strategy(), seeds())
def test_length_constant_and_values_in_range(rules: Rules, seed: int) -> None:
    states, _ = play_random_game(rules, seed)
    size = observation_size(rules)
    d, n = rules.deck_size, rules.players
    for state in states:
        for p in range(n):
            vec = encode_observation(observe(state, p))
            assert vec.shape == (size,)
            assert vec.dtype == np.float32
            assert np.all((vec >= 0.0) & (vec <= 1.0)), f"out of [0, 1] at {np.argmax(vec > 1)}"
            cards = vec[: (n + 5) * d]
            assert set(np.unique(cards).tolist()) <= {0.0, 1.0}
            # Own hand block equals the hand; one trump entry; one role entry.
            assert cards[:d].sum() == len(state.hands[p])
            rest = vec[(n + 5) * d + n + 1 :]
            assert rest[:5].sum() == 1.0
            assert rest[5:9].sum() == 1.0


def test_blocks_of_a_known_position() -> None:
    # Three players, 36 cards; player 1 observes: it is the defender, one card on the table.
    rules = Rules(players=3, hand_size=2)
    start = position(
        rules,
        hands=[["6S", "7S"], ["8S", "9H"], ["10D", "JC"]],
        trump=Card.parse("6H"),
        talon=["QS", "KS", "6H"],
        attacker=0,
    )
    state = step(start, parse_action("Attack(7S)"))
    d, n = 36, 3
    vec = encode_observation(observe(state, 1))
    deck = deck_cards(rules.lowest_rank, rules.suits)

    def block(i: int) -> list[str]:
        return [str(c) for c, bit in zip(deck, vec[i * d : (i + 1) * d], strict=True) if bit]

    assert block(0) == ["8♠", "9♥"]  # own hand
    assert block(1) == ["7♠"]  # attack cards
    assert block(2) == ["7♠"]  # undefended
    assert block(3) == []  # defence cards
    assert block(4) == [str(c) for c in state.discard]  # discard: every card not dealt
    assert len(block(4)) == d - 9
    assert block(6) == block(7) == []  # nothing known of seats 1 and 2
    assert block(5) == ["6♥"]  # face-up trump
    s = (n + 5) * d
    np.testing.assert_allclose(vec[s : s + n], [2 / d, 2 / d, 1 / d])  # seats 1, 2, 0
    assert vec[s + n] == pytest.approx(3 / d)  # talon
    assert vec[s + n + 1 : s + n + 6].tolist() == [0, 1, 0, 0, 0]  # trump hearts
    assert vec[s + n + 6 : s + n + 10].tolist() == [0, 1, 0, 0]  # defender
    assert vec[s + n + 10 : s + n + 12].tolist() == [1, 0]  # to act, not taking
    seats = vec[s + n + 12 : s + 4 * n + 12].tolist()
    assert seats == [0, 0, 1, 1, 0, 0, 0, 0, 0]  # attacker seat 2, defender seat 0, none out


@settings(max_examples=60)
@given(rules_strategy(), seeds(), st.data())
def test_no_hidden_information(rules: Rules, seed: int, data: st.DataObject) -> None:
    states, _ = play_random_game(rules, seed)
    state = states[data.draw(st.integers(0, len(states) - 1))]
    rng = random.Random(seed)
    for p in range(rules.players):
        obs = observe(state, p)
        vec = encode_observation(obs)
        for _ in range(3):
            world = sample_world(obs, rng)
            np.testing.assert_array_equal(encode_observation(observe(world, p)), vec)
        owners, cards = hidden_slots(state, p)
        rng.shuffle(cards)
        other = fill(state, p, owners, cards)
        np.testing.assert_array_equal(encode_observation(observe(other, p)), vec)


@settings(max_examples=60)
@given(rules_strategy(), seeds(), st.data())
def test_own_hand_changes_the_vector(rules: Rules, seed: int, data: st.DataObject) -> None:
    states, _ = play_random_game(rules, seed)
    state = states[data.draw(st.integers(0, len(states) - 1))]
    p = data.draw(st.integers(0, rules.players - 1))
    obs = observe(state, p)
    hidden = list(obs.hidden_cards())
    assume(obs.hand and hidden)  # something to swap
    swap_out = data.draw(st.sampled_from(list(obs.hand)))
    swap_in = data.draw(st.sampled_from(hidden))
    changed = attrs.evolve(obs, hand=obs.hand.remove(swap_out).add(swap_in))
    assert not np.array_equal(encode_observation(changed), encode_observation(obs))


def test_own_hand_changes_the_vector_fixed_deal() -> None:
    obs = observe(new_game(Rules(), 3), 0)
    card = next(iter(obs.hidden_cards()))
    own = next(iter(obs.hand))
    changed_hand = CardSet(obs.hand.mask).remove(own).add(card)
    changed = attrs.evolve(obs, hand=changed_hand)
    a, b = encode_observation(obs), encode_observation(changed)
    assert not np.array_equal(a, b)
    assert np.flatnonzero(a != b).tolist() == sorted(
        i for i, c in enumerate(deck_cards(6)) if c in (card, own)
    )
