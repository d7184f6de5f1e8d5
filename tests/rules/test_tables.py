"""The rules' import-time tables against first-principles definitions written from the
rules text (``docs/rules.md``): they are built once at import, so only such a check can
catch a wrong entry (a mutation tool cannot switch them on at run time)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from durak.rules import (
    CARDS,
    NUM_CARDS,
    Attack,
    Card,
    CardSet,
    Defend,
    Rank,
    Rules,
    Suit,
    Transfer,
    beaters,
    beats,
    deck_cards,
    deck_mask,
    rank_mask,
    suit_mask,
)
from durak.rules.actions import ATTACKS, DEFENDS, TRANSFERS, attacks_for

TRUMPS: list[Suit | None] = [None, *Suit]


def beats_by_the_rules(card: Card, target: Card, trump: Suit | None) -> bool:
    """ "A card is beaten by a higher card of its suit, or, if it is not a trump, by any
    trump" (docs/rules.md)."""
    if card.suit == target.suit:
        return card.rank > target.rank
    return trump is not None and card.suit == trump and target.suit != trump


def test_beats_and_beaters_follow_the_rules_for_every_pair_and_trump() -> None:
    for trump in TRUMPS:
        table = beaters(trump)
        assert len(table) == NUM_CARDS
        for target in CARDS:
            expected = 0
            for card in CARDS:
                rule = beats_by_the_rules(card, target, trump)
                assert beats(card, target, trump) is rule, (card, target, trump)
                expected |= rule << card.index
            assert table[target.index] == expected, (target, trump)


def test_rank_suit_and_deck_masks_follow_their_definitions() -> None:
    for rank in Rank:
        assert CardSet(rank_mask(rank)) == CardSet.from_cards(c for c in CARDS if c.rank == rank)
    for suit in Suit:
        assert CardSet(suit_mask(suit)) == CardSet.from_cards(c for c in CARDS if c.suit == suit)
    for lowest in range(2, 15):
        cards = tuple(c for c in CARDS if c.rank >= lowest)
        assert CardSet(deck_mask(lowest)) == CardSet.from_cards(cards)
        assert deck_cards(lowest) == cards
        for suits in range(1, 5):  # the first ``suits`` suits, in card order
            cards = tuple(c for c in CARDS if c.rank >= lowest and c.suit < suits)
            assert CardSet(deck_mask(lowest, suits)) == CardSet.from_cards(cards)
            assert deck_cards(lowest, suits) == cards
            if len(cards) >= 2:  # a deck two players can be dealt
                assert Rules(lowest_rank=lowest, suits=suits, hand_size=1).deck_size == len(cards)


def test_the_interned_actions_are_the_actions_they_stand_for() -> None:
    for card in CARDS:
        assert ATTACKS[card.index] == Attack(card)
        assert TRANSFERS[card.index] == Transfer(card)
        for target in CARDS:
            assert DEFENDS[target.index * NUM_CARDS + card.index] == Defend(target, card)


@given(st.integers(0, (1 << NUM_CARDS) - 1))
def test_attacks_for_a_hand_are_its_cards_in_order(mask: int) -> None:
    assert attacks_for(mask) == tuple(Attack(c) for c in CardSet(mask))
