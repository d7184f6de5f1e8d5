"""Cards, suits, ranks, :class:`CardSet` and the ``beats`` relation."""

from __future__ import annotations

import pickle
import re

import pytest

from durak.rules import CARDS, Card, CardSet, Rank, RulesError, Suit
from durak.rules.cards import beats, bit_indices


def c(text: str) -> Card:
    return Card.parse(text)


# --- parsing and printing ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("10S", Rank.TEN, Suit.S),
        ("TS", Rank.TEN, Suit.S),
        ("10♠", Rank.TEN, Suit.S),
        ("as", Rank.ACE, Suit.S),
        ("A♠", Rank.ACE, Suit.S),
        ("qh", Rank.QUEEN, Suit.H),
        ("6d", Rank.SIX, Suit.D),
        (" 7C ", Rank.SEVEN, Suit.C),
        ("JC", Rank.JACK, Suit.C),
        ("K♦", Rank.KING, Suit.D),
        ("2♥", Rank.TWO, Suit.H),
    ],
)
def test_parse_accepts(text: str, rank: Rank, suit: Suit) -> None:
    card = Card.parse(text)
    assert card.rank is rank
    assert card.suit is suit
    assert card is Card(rank, suit)


@pytest.mark.parametrize(
    "text",
    [
        "1S",
        "11S",
        "14C",
        "XS",
        "",
        "10X",
        "S",
        "10",
        "AS6",
        "A♠♠",
        "02S",
        "1",
    ],
)
def test_parse_rejects_naming_the_text(text: str) -> None:
    with pytest.raises(RulesError, match=re.escape(repr(text))):
        Card.parse(text)


def test_rules_error_is_value_error() -> None:
    with pytest.raises(ValueError, match="not a card"):
        Card.parse("ZZ")


@pytest.mark.parametrize(("rank", "suit"), [(1, 0), (15, 0), (6, 4), (6, -1)])
def test_constructor_rejects_out_of_range(rank: int, suit: int) -> None:
    with pytest.raises(RulesError):
        Card(rank, suit)


@pytest.mark.parametrize(
    ("text", "shown"),
    [("10S", "10♠"), ("as", "A♠"), ("qh", "Q♥"), ("6d", "6♦"), ("JC", "J♣"), ("2H", "2♥")],
)
def test_str(text: str, shown: str) -> None:
    assert str(Card.parse(text)) == shown
    assert Card.parse(shown) is Card.parse(text)


def test_repr_round_trips() -> None:
    card = c("10H")
    assert repr(card) == "Card.parse('10♥')"
    assert Card.parse(repr(card)[len("Card.parse('") : -2]) is card


def test_suit_and_rank_labels() -> None:
    assert [str(s) for s in Suit] == ["♠", "♥", "♦", "♣"]
    assert [r.label for r in Rank][-5:] == ["10", "J", "Q", "K", "A"]
    assert int(Rank.ACE) == 14


# --- identity, order, hashing ----------------------------------------------------------


def test_interning() -> None:
    assert Card.parse("AS") is Card(Rank.ACE, Suit.S)
    assert Card(14, 0) is Card(Rank.ACE, Suit.S)
    assert Card.parse("10♠") is Card.parse("TS")


def test_card_is_immutable() -> None:
    card = c("6H")
    with pytest.raises(AttributeError):
        card.rank = Rank.SEVEN
    assert card.rank is Rank.SIX


def test_order_by_rank_then_suit() -> None:
    shuffled = [c(t) for t in ["7S", "6C", "AS", "6S", "6D", "KC", "6H", "7H"]]
    assert [str(x) for x in sorted(shuffled)] == ["6♠", "6♥", "6♦", "6♣", "7♠", "7♥", "K♣", "A♠"]
    assert c("6C") < c("7S")
    assert c("6S") < c("6H") < c("6D") < c("6C")
    assert c("AS") > c("KC")
    assert c("8D") <= c("8D")
    assert c("8D") >= c("8H")
    assert not c("8D") < c("8D")


def test_index_and_hash() -> None:
    assert c("2S").index == 0
    assert c("AC").index == 51
    assert c("6H").index == 17
    assert hash(c("6H")) == hash(Card(Rank.SIX, Suit.H)) == hash(Card.from_index(17))
    assert len({c("6H"), Card.from_index(17), c("6D")}) == 2
    assert Card.from_index(17) is c("6H")
    assert c("6H") != c("6D")
    text: object = "6H"
    assert c("6H") != text


def test_card_pickle_round_trip_preserves_identity() -> None:
    for text in ["6H", "10S", "AC", "2D"]:
        card = c(text)
        assert pickle.loads(pickle.dumps(card)) is card


# --- CardSet ----------------------------------------------------------------------------


def test_cardset_iterates_ascending() -> None:
    hand = CardSet.of("AS", "6C", "6H", "10D", c("7S"))
    assert [str(x) for x in hand] == ["6♥", "6♣", "7♠", "10♦", "A♠"]
    assert str(hand) == "6♥ 6♣ 7♠ 10♦ A♠"
    assert list(hand) == sorted(hand)


def test_cardset_len_contains_bool() -> None:
    hand = CardSet.of("6H", "AS", "6H")
    assert len(hand) == 2
    assert c("6H") in hand
    assert c("AS") in hand
    assert c("6D") not in hand
    assert "6H" not in hand
    assert bool(hand)
    assert not CardSet()
    assert len(CardSet()) == 0
    assert list(CardSet()) == []


def test_cardset_add_remove_are_pure() -> None:
    hand = CardSet.of("6H")
    bigger = hand.add(c("7H"))
    assert bigger == CardSet.of("6H", "7H")
    assert hand == CardSet.of("6H")
    assert bigger.add(c("7H")) == bigger
    smaller = bigger.remove(c("6H"))
    assert smaller == CardSet.of("7H")
    assert bigger == CardSet.of("6H", "7H")


def test_cardset_remove_absent_raises_key_error_naming_the_card() -> None:
    with pytest.raises(KeyError) as absent:
        CardSet.of("6H").remove(c("7H"))
    assert absent.value.args == (c("7H"),)
    with pytest.raises(KeyError) as empty:
        CardSet().remove(c("6H"))
    assert empty.value.args == (c("6H"),)


def test_cardset_immutable() -> None:
    hand = CardSet.of("6H")
    with pytest.raises(AttributeError):
        hand.mask = 0
    assert hand == CardSet.of("6H")


def test_cardset_equality_and_hash_by_value() -> None:
    a = CardSet.of("6H", "AS")
    b = CardSet.from_cards([c("AS"), c("6H")])
    assert a == b
    assert a is not b
    assert hash(a) == hash(b)
    assert len({a, b}) == 1
    assert a != CardSet.of("6H")
    assert a != {c("6H"), c("AS")}
    assert CardSet() == CardSet.of()


def test_cardset_algebra() -> None:
    a = CardSet.of("6H", "7H", "8H")
    b = CardSet.of("7H", "8H", "9H")
    assert a | b == CardSet.of("6H", "7H", "8H", "9H")
    assert a & b == CardSet.of("7H", "8H")
    assert a - b == CardSet.of("6H")
    assert b - a == CardSet.of("9H")
    assert a - a == CardSet()
    assert a == CardSet.of("6H", "7H", "8H")


def test_cardset_pickle_round_trip() -> None:
    for hand in [CardSet(), CardSet.of("6H"), CardSet.of("2S", "AC", "10D", "QH")]:
        copy = pickle.loads(pickle.dumps(hand))
        assert copy == hand
        assert list(copy) == list(hand)
        assert all(x is y for x, y in zip(copy, hand, strict=True))


def test_cardset_of_rejects_bad_text() -> None:
    with pytest.raises(RulesError, match="'1S'"):
        CardSet.of("6H", "1S")


# --- beats --------------------------------------------------------------------------------


def test_trump_beats_any_non_trump() -> None:
    assert beats(c("6S"), c("AH"), Suit.S)
    assert beats(c("6S"), c("AC"), Suit.S)
    assert beats(c("6S"), c("6D"), Suit.S)
    assert not beats(c("AH"), c("6S"), Suit.S)


def test_trump_loses_to_higher_trump() -> None:
    assert beats(c("7S"), c("6S"), Suit.S)
    assert beats(c("AS"), c("KS"), Suit.S)
    assert not beats(c("6S"), c("7S"), Suit.S)
    assert not beats(c("KS"), c("AS"), Suit.S)


def test_same_suit_higher_beats() -> None:
    assert beats(c("7H"), c("6H"), Suit.S)
    assert beats(c("AD"), c("10D"), Suit.S)
    assert not beats(c("6H"), c("7H"), Suit.S)
    assert not beats(c("6H"), c("6H"), Suit.S)


def test_off_suit_non_trump_never_beats() -> None:
    assert not beats(c("AH"), c("6D"), Suit.S)
    assert not beats(c("AC"), c("6H"), Suit.S)
    assert not beats(c("6D"), c("6H"), Suit.S)


def test_no_trump_only_same_suit_higher_beats() -> None:
    assert beats(c("7H"), c("6H"), None)
    assert beats(c("7S"), c("6S"), None)
    assert not beats(c("6S"), c("AH"), None)
    assert not beats(c("AS"), c("6H"), None)
    assert not beats(c("6H"), c("7H"), None)


def test_beats_agrees_with_rule_exhaustively() -> None:
    deck = [Card(r, s) for r in range(2, 15) for s in range(4)]
    for trump in [Suit.S, Suit.H, Suit.D, Suit.C, None]:
        for card in deck:
            for target in deck:
                expected = (card.suit is target.suit and card.rank > target.rank) or (
                    trump is not None and card.suit is trump and target.suit is not trump
                )
                assert beats(card, target, trump) is expected, (card, target, trump)


def test_distinct_card_sets_hash_apart() -> None:
    # Transposition tables key on states holding card sets: equal hashes for all would
    # keep them correct but make every lookup a linear scan.
    sets = [CardSet()] + [CardSet.of(str(card)) for card in CARDS]
    sets += [CardSet.of("6H", "7H"), CardSet.of("6H", "8H")]
    assert len({hash(s) for s in sets}) == len(sets)


@pytest.mark.parametrize("mask", [0, 1, 0b1011, (1 << 52) - 1])
def test_bit_indices_are_the_set_bits_in_ascending_order(mask: int) -> None:
    assert bit_indices(mask) == [i for i in range(mask.bit_length()) if mask >> i & 1]


@pytest.mark.parametrize("mask", [-1, -2, -(1 << 52)])
def test_bit_indices_of_a_negative_mask_is_a_rules_error_not_an_endless_loop(mask: int) -> None:
    with pytest.raises(RulesError, match=rf"^bit_indices needs a mask of at least 0, got {mask}$"):
        bit_indices(mask)
