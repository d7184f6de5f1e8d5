"""Named scenarios of the rules engine, built only through the public API.

Each test plays a hand-made position (:func:`position`) or deal (:func:`deal`) and checks the
exact legal actions, in canonical order, and the resulting state fields.
"""

from __future__ import annotations

import attrs
import pytest

from durak.rules import (
    Action,
    Attack,
    Card,
    CardSet,
    Defend,
    GameState,
    IllegalActionError,
    Pass,
    Rank,
    Rules,
    RulesError,
    Suit,
    Take,
    Transfer,
    deal,
    is_terminal,
    legal_actions,
    loser,
    position,
    returns,
    step,
)

TAKE: Action = Take()
PASS: Action = Pass()
EMPTY = CardSet()


def c(text: str) -> Card:
    return Card.parse(text)


def cs(*texts: str) -> CardSet:
    return CardSet.of(*texts)


def att(card: str) -> Action:
    return Attack(c(card))


def dfd(target: str, card: str) -> Action:
    return Defend(c(target), c(card))


def xfer(card: str) -> Action:
    return Transfer(c(card))


def play(state: GameState, *actions: Action) -> GameState:
    for action in actions:
        state = step(state, action)
    return state


def deck_of(lowest_rank: int) -> list[Card]:
    return [Card(r, s) for r in range(lowest_rank, 15) for s in Suit]


def build_deck(
    rules: Rules, hands: list[list[str]], talon_top: list[str], trump_card: str
) -> list[Card]:
    """A deck (top first) that ``deal`` turns into exactly ``hands``; the talon starts with
    ``talon_top``, ends with ``trump_card`` and holds the remaining cards in between."""
    n = rules.players
    assert len(hands) == n
    assert all(len(h) == rules.hand_size for h in hands)
    dealt = [c(hands[i % n][i // n]) for i in range(n * rules.hand_size)]
    top = [c(t) for t in talon_top]
    bottom = c(trump_card)
    used = {*dealt, *top, bottom}
    middle = [x for x in deck_of(rules.lowest_rank) if x not in used]
    deck = [*dealt, *top, *middle, bottom]
    assert len(deck) == rules.deck_size == len(set(deck))
    return deck


def subset(small: CardSet, big: CardSet) -> bool:
    return small - big == EMPTY


def at_bout_start(state: GameState, attacker: int, defender: int) -> None:
    assert not is_terminal(state)
    assert state.table == ()
    assert not state.taking
    assert state.attacker == attacker
    assert state.defender == defender
    assert state.turn == attacker


# --- the worked example -----------------------------------------------------------------


WORKED_HANDS = [["6H", "8C", "8D", "AC"], ["8H", "AH", "6S", "KC"]]


def worked_start() -> GameState:
    return position(Rules(), WORKED_HANDS, trump=Suit.S, talon=(), attacker=0)


def test_worked_example() -> None:
    s = worked_start()
    at_bout_start(s, attacker=0, defender=1)
    assert s.trump_suit is Suit.S
    assert s.cap == 4
    assert len(s.discard) == 36 - 8
    assert s.players_out == frozenset()
    assert legal_actions(s) == (att("6H"), att("8D"), att("8C"), att("AC"))

    s = step(s, att("6H"))
    assert s.turn == 1
    assert s.table == ((c("6H"), None),)
    assert legal_actions(s) == (dfd("6H", "6S"), dfd("6H", "8H"), dfd("6H", "AH"), TAKE)

    s = step(s, dfd("6H", "8H"))
    assert (s.attacker, s.defender, s.turn) == (0, 1, 0)  # a defence keeps the roles
    assert s.table == ((c("6H"), c("8H")),)
    assert legal_actions(s) == (att("8D"), att("8C"), PASS)

    s = step(s, att("8D"))
    assert s.turn == 1
    assert legal_actions(s) == (dfd("8D", "6S"), TAKE)

    s = step(s, TAKE)
    assert s.taking
    assert (s.attacker, s.defender, s.turn) == (0, 1, 0)  # so does a take
    assert legal_actions(s) == (att("8C"), PASS)

    s = step(s, att("8C"))
    assert s.turn == 0  # asked again from the top
    assert s.hands[0] == cs("AC")
    assert s.table == ((c("6H"), c("8H")), (c("8D"), None), (c("8C"), None))
    assert legal_actions(s) == (PASS,)

    s = step(s, PASS)
    at_bout_start(s, attacker=0, defender=1)
    picked = cs("6H", "8H", "8D", "8C")
    assert s.hands[0] == cs("AC")
    assert s.hands[1] == cs("AH", "6S", "KC") | picked
    assert s.known[1] == picked
    assert s.known[0] == EMPTY
    assert s.discard == worked_start().discard
    assert s.cap == 6
    assert legal_actions(s) == (att("AC"),)


# --- caps -------------------------------------------------------------------------------


def test_defender_with_one_card_gets_one_attack_card_then_take_ends_bout() -> None:
    s = position(Rules(players=3), [["6H", "6D"], ["9S"], ["6C", "10C"]], trump=Suit.S)
    assert s.cap == 1
    s = play(s, att("6H"))
    assert legal_actions(s) == (dfd("6H", "9S"), TAKE)
    s = step(s, TAKE)
    # The cap of one card is reached: nobody may throw in, the bout is over.
    at_bout_start(s, attacker=2, defender=0)
    assert s.hands == (cs("6D"), cs("6H", "9S"), cs("6C", "10C"))


def test_defender_with_one_card_beats_it_and_bout_ends() -> None:
    s = position(Rules(players=3), [["6H", "6D"], ["9S"], ["6C", "10C"]], trump=Suit.S)
    s = play(s, att("6H"), dfd("6H", "9S"))
    assert s.players_out == frozenset({1})
    assert subset(cs("6H", "9S"), s.discard)
    at_bout_start(s, attacker=2, defender=0)
    assert s.hands == (cs("6D"), EMPTY, cs("6C", "10C"))


def test_cap_is_defender_hand_at_bout_start_in_three_players() -> None:
    s = position(Rules(players=3), [["6H", "6D"], ["9S", "10S"], ["6C", "10C"]], trump=Suit.S)
    assert s.cap == 2
    s = play(s, att("6H"), TAKE)
    assert s.turn == 0
    assert legal_actions(s) == (att("6D"), PASS)
    s = step(s, att("6D"))
    # Two attack cards reached the cap: player 2's 6♣ is never asked for.  Player 0 has
    # left, so the defender's left (2) attacks the defender (1) again.
    at_bout_start(s, attacker=2, defender=1)
    assert s.hands == (EMPTY, cs("6H", "6D", "9S", "10S"), cs("6C", "10C"))
    assert s.players_out == frozenset({0})


BOUT_CAP_HANDS = [
    ["6H", "6D", "6C", "6S", "7D", "7C", "7S"],
    ["7H", "8D", "9C", "10H", "JH", "QH", "KH", "AH"],
]


def _six_attack_cards(rules: Rules) -> GameState:
    s = position(rules, BOUT_CAP_HANDS, trump=Suit.S)
    s = play(s, att("6H"), dfd("6H", "7H"), att("6D"), dfd("6D", "8D"), att("6C"))
    s = play(s, dfd("6C", "9C"), att("6S"))
    assert legal_actions(s) == (TAKE,)
    s = step(s, TAKE)
    assert legal_actions(s) == (att("7S"), att("7D"), att("7C"), PASS)
    s = step(s, att("7D"))
    assert s.turn == 0
    assert legal_actions(s) == (att("7S"), att("7C"), PASS)
    return step(s, att("7C"))


def test_bout_cap_six_stops_the_seventh_card() -> None:
    s = _six_attack_cards(Rules())
    # Six attack cards: the attacker may not throw in its 7♠; the bout is over.
    at_bout_start(s, attacker=0, defender=1)
    assert s.hands[0] == cs("7S")
    assert len(s.hands[1]) == 14
    assert subset(cs("6H", "7H", "6D", "8D", "6C", "9C", "6S", "7D", "7C"), s.hands[1])


def test_bout_cap_seven_allows_the_seventh_card() -> None:
    s = _six_attack_cards(Rules(bout_cap=7))
    assert s.taking
    assert s.turn == 0
    assert len(s.table) == 6
    assert legal_actions(s) == (att("7S"), PASS)


FIRST_CAP_HANDS = [
    ["JH", "JD", "JC", "JS", "QD", "QC", "KC", "AC"],
    ["QH", "KH", "AH", "KD", "AD", "QS", "KS", "AS"],
]


def _five_attack_cards(rules: Rules) -> GameState:
    s = position(rules, FIRST_CAP_HANDS, trump=Suit.S)
    assert s.discard == EMPTY
    s = play(s, att("JH"), dfd("JH", "QH"), att("JD"), dfd("JD", "KD"), att("JC"))
    s = play(s, dfd("JC", "QS"), att("JS"), dfd("JS", "KS"))
    assert legal_actions(s) == (att("QD"), att("QC"), att("KC"), PASS)
    s = step(s, att("QD"))
    assert legal_actions(s) == (dfd("QD", "AS"), dfd("QD", "AD"), TAKE)
    return step(s, TAKE)


def test_first_bout_cap_applies_while_discard_empty() -> None:
    rules = Rules(lowest_rank=11, first_bout_cap=5)
    assert position(rules, FIRST_CAP_HANDS, trump=Suit.S).cap == 5
    s = _five_attack_cards(rules)
    at_bout_start(s, attacker=0, defender=1)
    assert s.hands[0] == cs("QC", "KC", "AC")
    assert len(s.hands[1]) == 13
    assert s.discard == EMPTY
    assert s.cap == 5  # still no successful defence


def test_without_first_bout_cap_the_sixth_card_may_follow() -> None:
    s = _five_attack_cards(Rules(lowest_rank=11))
    assert s.taking
    assert s.turn == 0
    assert legal_actions(s) == (att("QC"), att("KC"), PASS)


def test_first_bout_cap_lapses_after_a_discard() -> None:
    rules = Rules(lowest_rank=11, first_bout_cap=5)
    hands = [
        ["JH", "JD", "JC", "QD", "QC", "KC", "AC", "KD"],
        ["QH", "JS", "QS", "KS", "AS", "KH", "AH", "AD"],
    ]
    s = position(rules, hands, trump=Suit.S)
    assert s.cap == 5
    s = play(s, att("JH"), dfd("JH", "QH"))
    assert legal_actions(s) == (att("JD"), att("JC"), att("QD"), att("QC"), PASS)
    s = step(s, PASS)
    at_bout_start(s, attacker=1, defender=0)
    assert s.discard == cs("JH", "QH")
    assert len(s.hands[0]) == 7
    assert s.cap == 6


# --- beating ---------------------------------------------------------------------------


BEAT_HANDS = [["10H", "8S", "AC"], ["JH", "9H", "6S", "AD", "10S", "KC"]]


@pytest.mark.parametrize(
    ("lead", "defences"),
    [
        ("10H", [dfd("10H", "6S"), dfd("10H", "10S"), dfd("10H", "JH")]),
        ("AC", [dfd("AC", "6S"), dfd("AC", "10S")]),
        ("8S", [dfd("8S", "10S")]),
    ],
)
def test_trump_beats_non_trump_and_loses_to_higher_trump(lead: str, defences: list[Action]) -> None:
    s = position(Rules(), BEAT_HANDS, trump=Suit.S)
    s = step(s, att(lead))
    assert legal_actions(s) == (*defences, TAKE)


def test_without_trumps_only_same_suit_higher_beats() -> None:
    s = position(Rules(trumps=False), BEAT_HANDS, trump=None)
    assert s.trump_suit is None
    assert legal_actions(step(s, att("10H"))) == (dfd("10H", "JH"), TAKE)
    assert legal_actions(step(s, att("8S"))) == (dfd("8S", "10S"), TAKE)
    assert legal_actions(step(s, att("AC"))) == (TAKE,)


# --- the deal and the first attacker ----------------------------------------------------


def test_lowest_trump_leads_two_players() -> None:
    rules = Rules()
    hands = [["9H", "6C", "7C", "8C", "9C", "10C"], ["7H", "QH", "6D", "7D", "8D", "9D"]]
    deck = build_deck(rules, hands, ["8H", "6H"], "10H")
    s = deal(rules, deck)
    assert s.hands == (cs(*hands[0]), cs(*hands[1]))
    assert s.trump_card is c("10H")
    assert s.trump_suit is Suit.H
    assert s.talon[:2] == (c("8H"), c("6H"))
    assert s.talon[-1] is c("10H")
    assert len(s.talon) == 24
    at_bout_start(s, attacker=1, defender=0)
    assert s.known == (EMPTY, cs("7H"))
    assert s.knowledge.from_talon == cs("6H")
    assert s.knowledge.origins == ((1,), (1,))  # nobody has drawn
    assert s.discard == EMPTY
    assert s.cap == 6
    # The shown trump is public only until it is played.
    s = step(s, att("7H"))
    assert s.known == (EMPTY, EMPTY)


def test_lowest_trump_leads_three_players() -> None:
    rules = Rules(players=3)
    hands = [
        ["9D", "6C", "7C", "8C", "9C", "10C"],
        ["JD", "6H", "7H", "8H", "9H", "10H"],
        ["8D", "6S", "7S", "8S", "9S", "QD"],
    ]
    deck = build_deck(rules, hands, ["7D"], "AD")
    s = deal(rules, deck)
    at_bout_start(s, attacker=2, defender=0)
    assert s.known == (EMPTY, EMPTY, cs("8D"))
    assert s.knowledge.from_talon == cs("6D", "7D")


def test_nobody_holds_a_trump_player_zero_leads() -> None:
    rules = Rules()
    hands = [["6C", "7C", "8C", "9C", "10C", "JC"], ["6D", "7D", "8D", "9D", "10D", "JD"]]
    deck = build_deck(rules, hands, [], "6H")
    s = deal(rules, deck)
    at_bout_start(s, attacker=0, defender=1)
    assert s.known == (EMPTY, EMPTY)
    assert s.knowledge.from_talon == cs("7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH")


def test_deal_without_trumps_player_zero_leads() -> None:
    rules = Rules(trumps=False)
    hands = [["6H", "7C", "8C", "9C", "10C", "JC"], ["7H", "7D", "8D", "9D", "10D", "JD"]]
    s = deal(rules, build_deck(rules, hands, [], "AH"))
    assert s.trump_suit is None
    assert s.trump_card is None
    at_bout_start(s, attacker=0, defender=1)
    assert s.known == (EMPTY, EMPTY)
    assert s.knowledge.from_talon == EMPTY
    assert len(s.talon) == 24


def test_deal_takes_the_leader_only_when_nobody_holds_a_trump() -> None:
    rules = Rules(players=3, trumps=False)
    deck = deck_of(6)
    at_bout_start(deal(rules, deck, leader=2), attacker=2, defender=0)
    # With trumps the lowest trump leads, whatever the leader given.
    held = deal(Rules(players=3), deck)
    assert deal(Rules(players=3), deck, leader=2) == held
    for bad in (3, -1, True, "1"):
        with pytest.raises(RulesError, match=r"leader must be a player 0\.\.2"):
            deal(rules, deck, leader=bad)  # type: ignore[arg-type]


def test_deal_of_whole_deck_shows_trump_card_in_last_hand() -> None:
    rules = Rules(players=6)
    deck = deck_of(6)
    s = deal(rules, deck)
    assert s.talon == ()
    assert s.trump_card is c("AC")
    # Round robin: player p gets deck[p], deck[p + 6], ...; the ace of clubs goes to player 5.
    assert s.hands[5] == CardSet.from_cards(deck[5::6])
    assert c("AC") in s.known[5]
    # Clubs are trumps; the lowest, 6♣, was dealt to player 3.
    at_bout_start(s, attacker=3, defender=4)
    assert s.known[3] == cs("6C")


def test_deal_rejects_wrong_deck() -> None:
    deck = deck_of(6)
    with pytest.raises(ValueError, match="duplicate"):
        deal(Rules(), [*deck[:-1], deck[0]])
    with pytest.raises(ValueError, match="missing"):
        deal(Rules(), deck[:-1])


# --- drawing --------------------------------------------------------------------------


def test_drawing_order_two_players_after_success() -> None:
    s = position(
        Rules(),
        [["6H", "6D", "10C", "JC", "QC", "AC"], ["7H", "10D", "6S", "7S", "8S", "9S"]],
        trump=c("KS"),
        talon=["7D", "8D", "KS"],
        attacker=0,
    )
    assert s.trump_suit is Suit.S
    s = play(s, att("6H"), dfd("6H", "7H"), att("6D"), dfd("6D", "10D"), PASS)
    at_bout_start(s, attacker=1, defender=0)
    assert s.talon == ()
    assert s.hands[0] == cs("10C", "JC", "QC", "AC", "7D", "8D")
    assert s.hands[1] == cs("6S", "7S", "8S", "9S", "KS")
    assert s.known == (EMPTY, cs("KS"))
    assert s.knowledge.origins == ()  # no trump is known to be in the talon
    assert subset(cs("6H", "7H", "6D", "10D"), s.discard)


def test_drawing_after_take_attacker_draws_taker_does_not() -> None:
    s = position(
        Rules(),
        [["6H", "6D", "10C", "JC", "QC", "AC"], ["7H", "10D", "6S", "7S", "8S", "9S"]],
        trump=c("KS"),
        talon=["7D", "8D", "9D", "KS"],
    )
    s = play(s, att("6H"), TAKE, att("6D"), PASS)
    at_bout_start(s, attacker=0, defender=1)
    assert s.talon == (c("9D"), c("KS"))
    assert s.hands[0] == cs("10C", "JC", "QC", "AC", "7D", "8D")
    assert len(s.hands[1]) == 8
    assert s.known == (EMPTY, cs("6H", "6D"))
    assert s.knowledge.origins == ()  # no trump is known to be in the talon


def test_drawing_order_four_players() -> None:
    hands = [
        ["6D", "8S", "9S", "10S", "JS", "AS"],
        ["7C", "6C", "8C", "10C", "JC", "KC"],
        ["6H", "AH", "KH", "QH", "JH", "10H"],
        ["7H", "8D", "9C", "AD", "AC", "10D"],
    ]
    s = position(Rules(players=4), hands, trump=c("QS"), talon=["JD", "QD", "KD", "QS"], attacker=2)
    assert (s.attacker, s.defender) == (2, 3)
    s = play(s, att("6H"), dfd("6H", "7H"))
    # Asking order: main attacker 2, then clockwise from the defender's left: 0, 1.
    assert s.turn == 2
    assert legal_actions(s) == (PASS,)
    s = step(s, PASS)
    assert s.turn == 0
    assert legal_actions(s) == (att("6D"), PASS)
    s = play(s, att("6D"), dfd("6D", "8D"))
    assert s.turn == 2
    s = step(s, PASS)
    assert s.turn == 0
    assert legal_actions(s) == (att("8S"), PASS)
    s = step(s, PASS)
    assert s.turn == 1
    assert legal_actions(s) == (att("6C"), att("7C"), att("8C"), PASS)
    s = play(s, att("7C"), dfd("7C", "9C"), PASS, PASS, PASS)
    # Drawing: main attacker 2, then 0 and 1 clockwise from it, the defender 3 last.
    at_bout_start(s, attacker=3, defender=0)
    assert s.talon == ()
    assert s.hands[2] == cs("AH", "KH", "QH", "JH", "10H", "JD")
    assert s.hands[0] == cs("8S", "9S", "10S", "JS", "AS", "QD")
    assert s.hands[1] == cs("6C", "8C", "10C", "JC", "KC", "KD")
    assert s.hands[3] == cs("AD", "AC", "10D", "QS")
    assert s.known == (EMPTY, EMPTY, EMPTY, cs("QS"))
    assert s.knowledge.origins == ()  # no trump is known to be in the talon


def test_trump_card_is_drawn_last_by_the_attacker() -> None:
    s = position(
        Rules(),
        [["6H", "10C", "JC", "QC", "KC", "AC"], ["7H", "6S", "7S", "8S", "9S", "10S"]],
        trump=c("KS"),
        talon=["KS"],
    )
    assert s.talon[-1] is s.trump_card
    s = play(s, att("6H"), dfd("6H", "7H"), PASS)
    at_bout_start(s, attacker=1, defender=0)
    assert s.talon == ()
    assert c("KS") in s.hands[0]
    assert s.known == (cs("KS"), EMPTY)
    assert len(s.hands[1]) == 5
    assert s.knowledge.origins == ()  # no trump is known to be in the talon


# --- end of game ----------------------------------------------------------------------


def test_two_player_draw() -> None:
    s = position(Rules(), [["6H"], ["7H"]], trump=Suit.S)
    s = play(s, att("6H"))
    assert not is_terminal(s)
    assert legal_actions(s) == (dfd("6H", "7H"), TAKE)
    s = step(s, dfd("6H", "7H"))
    assert is_terminal(s)
    assert s.turn == -1
    assert legal_actions(s) == ()
    assert loser(s) is None
    assert returns(s) == (0.0, 0.0)
    assert s.hands == (EMPTY, EMPTY)


def test_loser_raises_before_the_end() -> None:
    s = worked_start()
    with pytest.raises(ValueError, match="not terminal"):
        loser(s)
    assert returns(s) == (0.0, 0.0)


def test_attacker_with_last_card_stays_until_bout_end_then_wins() -> None:
    s = position(Rules(), [["6H"], ["7H", "8C"]], trump=Suit.S)
    s = step(s, att("6H"))
    assert not is_terminal(s)
    assert s.hands[0] == EMPTY
    assert s.players_out == frozenset()
    assert s.turn == 1
    assert legal_actions(s) == (dfd("6H", "7H"), TAKE)
    beaten = step(s, dfd("6H", "7H"))
    assert is_terminal(beaten)
    assert loser(beaten) == 1
    assert returns(beaten) == (1.0, -1.0)
    taken = step(s, TAKE)
    assert is_terminal(taken)
    assert loser(taken) == 1
    assert taken.hands == (EMPTY, cs("6H", "7H", "8C"))


def test_attacker_with_last_card_leaves_at_bout_end_in_three_players() -> None:
    s = position(Rules(players=3), [["6H"], ["7C", "8C", "9C"], ["6D", "10D"]], trump=Suit.S)
    s = step(s, att("6H"))
    assert s.players_out == frozenset()
    s = step(s, TAKE)
    # Player 0 holds nothing, so it is not asked; player 2 is.
    assert s.turn == 2
    assert legal_actions(s) == (att("6D"), PASS)
    s = step(s, att("6D"))
    assert s.turn == 2
    assert s.players_out == frozenset()
    s = step(s, PASS)
    assert s.players_out == frozenset({0})
    # After the take the defender's left (2) attacks; the defender skips player 0.
    at_bout_start(s, attacker=2, defender=1)
    assert s.hands == (EMPTY, cs("6H", "6D", "7C", "8C", "9C"), cs("10D"))
    assert s.cap == 5


def test_defender_emptying_hand_leaves_and_roles_skip_it() -> None:
    s = position(Rules(players=3), [["6H", "9S"], ["7H"], ["10C", "JC"]], trump=Suit.S)
    s = play(s, att("6H"), dfd("6H", "7H"))
    assert s.players_out == frozenset({1})
    at_bout_start(s, attacker=2, defender=0)
    s = play(s, att("10C"), TAKE)  # the cap of one card ends the bout
    at_bout_start(s, attacker=2, defender=0)
    assert s.hands == (cs("9S", "10C"), EMPTY, cs("JC"))


def test_last_two_players_one_empties_game_over() -> None:
    s = position(Rules(players=3), [["6H", "9S", "8D"], ["7H"], ["10C"]], trump=Suit.S)
    s = play(s, att("6H"), dfd("6H", "7H"))  # player 1 leaves
    at_bout_start(s, attacker=2, defender=0)
    s = play(s, att("10C"), TAKE)  # player 2 played its last card
    assert is_terminal(s)
    assert s.players_out == frozenset({1, 2})
    assert loser(s) == 0
    assert returns(s) == (-1.0, 0.5, 0.5)


# --- roles in three and four players ------------------------------------------------------


THREE_HANDS = [["6H", "9S", "10S"], ["7D", "8D", "9D", "QD"], ["6D", "6C", "JC"]]


def test_three_player_take_asking_order_and_next_roles() -> None:
    s = position(Rules(players=3), THREE_HANDS, trump=Suit.S)
    s = play(s, att("6H"), TAKE)
    assert s.taking
    # The main attacker is asked first even though it cannot throw in.
    assert s.turn == 0
    assert legal_actions(s) == (PASS,)
    s = step(s, PASS)
    assert s.turn == 2
    assert legal_actions(s) == (att("6D"), att("6C"), PASS)
    s = step(s, att("6D"))
    assert s.turn == 0  # from the top again
    assert legal_actions(s) == (PASS,)
    s = play(s, PASS)
    assert s.turn == 2
    assert legal_actions(s) == (att("6C"), PASS)
    s = step(s, PASS)
    # The defender is skipped: its left (2) attacks, and 0 defends.
    at_bout_start(s, attacker=2, defender=0)
    assert s.hands[1] == cs("6H", "6D", "7D", "8D", "9D", "QD")
    assert s.known[1] == cs("6H", "6D")
    assert s.cap == 2


def test_three_player_roles_rotate_after_takes() -> None:
    s = position(Rules(players=3), THREE_HANDS, trump=Suit.S)
    s = play(s, att("10S"), TAKE, PASS, PASS)
    at_bout_start(s, attacker=2, defender=0)
    s = play(s, att("JC"), TAKE)
    assert s.turn == 2  # main attacker first
    s = step(s, PASS)
    assert s.turn == 1  # then clockwise from the defender's left
    s = step(s, PASS)
    at_bout_start(s, attacker=1, defender=2)


FOUR_HANDS = [["6H", "9S"], ["7H", "8D", "9D"], ["10C", "JC"], ["6D", "6C"]]


def test_neighbours_only_defenders_neighbours_throw_in() -> None:
    s = position(Rules(players=4, throw_in="neighbours"), FOUR_HANDS, trump=Suit.S)
    s = play(s, att("6H"), dfd("6H", "7H"))
    assert s.turn == 0
    assert legal_actions(s) == (PASS,)
    s = step(s, PASS)
    assert s.turn == 2
    assert legal_actions(s) == (PASS,)
    s = step(s, PASS)
    # Player 3 holds 6♦ and 6♣ but is not a neighbour of the defender.
    at_bout_start(s, attacker=1, defender=2)
    assert subset(cs("6H", "7H"), s.discard)
    assert s.hands[3] == cs("6D", "6C")


def test_all_players_throw_in_by_default() -> None:
    s = position(Rules(players=4), FOUR_HANDS, trump=Suit.S)
    s = play(s, att("6H"), dfd("6H", "7H"), PASS, PASS)
    assert s.turn == 3
    assert legal_actions(s) == (att("6D"), att("6C"), PASS)
    s = step(s, att("6C"))
    assert s.turn == 1
    assert legal_actions(s) == (TAKE,)


# --- transfer (Perevodnoy) --------------------------------------------------------------


TRANSFER_HANDS = [["6H", "9S", "10S", "JS"], ["6D", "7H", "QC", "KC"], ["6C", "AD", "AC"]]


def test_transfer_three_players() -> None:
    s = position(Rules(players=3, transfer=True), TRANSFER_HANDS, trump=Suit.S)
    assert s.cap == 4
    s = step(s, att("6H"))
    assert legal_actions(s) == (dfd("6H", "7H"), xfer("6D"), TAKE)
    s = step(s, xfer("6D"))
    assert (s.attacker, s.defender, s.turn) == (1, 2, 2)
    assert s.table == ((c("6H"), None), (c("6D"), None))
    assert not s.taking
    assert s.cap == 3  # the new defender's hand
    assert legal_actions(s) == (dfd("6D", "AD"), xfer("6C"), TAKE)
    s = step(s, xfer("6C"))
    assert (s.attacker, s.defender, s.turn) == (2, 0, 0)
    assert s.cap == 3
    legal = legal_actions(s)
    assert not any(isinstance(a, Transfer) for a in legal)
    assert legal[-1] == TAKE
    assert dfd("6H", "9S") in legal
    s = step(s, TAKE)
    # Three cards reached the cap: the bout ends; the defender's left attacks next.
    at_bout_start(s, attacker=1, defender=2)
    assert s.hands[0] == cs("6H", "6D", "6C", "9S", "10S", "JS")


def test_transfer_then_take_recomputes_priority_order() -> None:
    s = position(Rules(players=3, transfer=True), TRANSFER_HANDS, trump=Suit.S)
    s = play(s, att("6H"), xfer("6D"), TAKE)
    # The transferring player (1) is now the main attacker and is asked first, then the
    # new defender's left (0); neither holds a six.
    assert s.taking
    assert s.turn == 1
    assert legal_actions(s) == (PASS,)
    s = step(s, PASS)
    assert (s.attacker, s.defender, s.turn) == (1, 2, 0)  # a pass asks the next attacker
    assert legal_actions(s) == (PASS,)
    s = step(s, PASS)
    at_bout_start(s, attacker=0, defender=1)
    assert s.hands[2] == cs("6H", "6D", "6C", "AD", "AC")
    assert s.known[2] == cs("6H", "6D")


@pytest.mark.parametrize(("next_hand", "allowed"), [(["AD"], False), (["AD", "AC"], True)])
def test_transfer_needs_enough_cards_in_next_hand(next_hand: list[str], allowed: bool) -> None:
    hands = [["6H", "9S"], ["6D", "7H"], next_hand]
    s = step(position(Rules(players=3, transfer=True), hands, trump=Suit.S), att("6H"))
    expected = (dfd("6H", "7H"), xfer("6D"), TAKE) if allowed else (dfd("6H", "7H"), TAKE)
    assert legal_actions(s) == expected


def test_transfer_limited_by_bout_cap() -> None:
    hands = [["6H", "9S", "10S"], ["6D", "7H"]]
    s = step(position(Rules(transfer=True, bout_cap=1), hands, trump=Suit.S), att("6H"))
    assert legal_actions(s) == (dfd("6H", "7H"), TAKE)
    s = step(position(Rules(transfer=True, bout_cap=2), hands, trump=Suit.S), att("6H"))
    assert legal_actions(s) == (dfd("6H", "7H"), xfer("6D"), TAKE)


def test_no_transfer_after_a_card_is_beaten() -> None:
    hands = [["6H", "6D", "9D", "10D", "JD", "QD"], ["7H", "6C", "7C", "8C"]]
    s = position(Rules(transfer=True), hands, trump=Suit.S)
    s = play(s, att("6H"))
    assert legal_actions(s) == (dfd("6H", "7H"), xfer("6C"), TAKE)
    s = play(s, dfd("6H", "7H"), att("6D"))
    # Every attack card is a six, but one is beaten: no transfer with 6♣.
    assert s.table == ((c("6H"), c("7H")), (c("6D"), None))
    assert legal_actions(s) == (TAKE,)


def test_no_transfer_with_card_index_0_after_a_card_is_beaten() -> None:
    # 2♠ is card 0, the lowest bit of every mask: "no transfer" must be the empty mask.
    hands = [["6H", "6D", "9D", "10D", "JD", "QD"], ["7H", "2S", "7C", "8C"]]
    s = position(Rules(lowest_rank=2, transfer=True), hands, trump=Suit.S)
    s = play(s, att("6H"), dfd("6H", "7H"), att("6D"))
    assert legal_actions(s) == (dfd("6D", "2S"), TAKE)


def test_no_transfer_after_a_card_is_beaten_different_rank() -> None:
    hands = [["6H", "7D", "9D", "10D"], ["7H", "6D", "7C", "8C"]]
    s = position(Rules(transfer=True), hands, trump=Suit.S)
    s = play(s, att("6H"))
    assert legal_actions(s) == (dfd("6H", "7H"), xfer("6D"), TAKE)
    s = play(s, dfd("6H", "7H"), att("7D"))
    assert legal_actions(s) == (TAKE,)


def test_no_transfer_when_attack_ranks_differ() -> None:
    # Not reachable by play (throw-ins need every card beaten); built from a bout start.
    hands = [["9S", "10S"], ["6D", "7C", "QC"], ["AD", "AC", "KD"]]
    s = position(Rules(players=3, transfer=True), hands, trump=Suit.S)
    s = attrs.evolve(
        s,
        table=((c("6H"), None), (c("7D"), None)),
        discard=s.discard - cs("6H", "7D"),
        turn=s.defender,
    )
    assert legal_actions(s) == (TAKE,)
    same_rank = attrs.evolve(
        s, table=((c("6H"), None), (c("6S"), None)), discard=(s.discard | cs("7D")) - cs("6S")
    )
    assert legal_actions(same_rank) == (xfer("6D"), TAKE)


def test_transfer_two_players_goes_back_to_attacker() -> None:
    hands = [["6S", "9C", "10C"], ["6H", "6D", "JC", "QC"]]
    s = position(Rules(transfer=True), hands, trump=Suit.H)
    s = step(s, att("6S"))
    assert legal_actions(s) == (dfd("6S", "6H"), xfer("6H"), xfer("6D"), TAKE)
    s = step(s, xfer("6D"))
    assert (s.attacker, s.defender, s.turn) == (1, 0, 0)
    assert s.cap == 2
    assert legal_actions(s) == (TAKE,)


def test_transfer_not_offered_without_the_option() -> None:
    s = step(position(Rules(players=3), TRANSFER_HANDS, trump=Suit.S), att("6H"))
    assert legal_actions(s) == (dfd("6H", "7H"), TAKE)


# --- errors and purity -----------------------------------------------------------------


def test_illegal_action_message_names_action_and_player() -> None:
    s = worked_start()
    with pytest.raises(IllegalActionError, match=r"Attack\(8♥\).*player 0"):
        step(s, att("8H"))
    s = step(s, att("6H"))
    with pytest.raises(IllegalActionError, match=r"Defend\(6♥<-A♣\).*player 1"):
        step(s, dfd("6H", "AC"))
    with pytest.raises(ValueError, match=r"Pass.*player 1"):
        step(s, PASS)
    assert issubclass(IllegalActionError, ValueError)


def test_equal_but_fresh_action_instances_are_accepted() -> None:
    s = worked_start()
    s = step(s, Attack(Card(Rank.SIX, Suit.H)))
    assert s.turn == 1


def test_step_on_terminal_state_raises() -> None:
    s = play(position(Rules(), [["6H"], ["7H"]], trump=Suit.S), att("6H"), dfd("6H", "7H"))
    assert is_terminal(s)
    with pytest.raises(IllegalActionError, match="over"):
        step(s, PASS)
    with pytest.raises(IllegalActionError):
        step(s, TAKE)


def test_step_rejects_non_actions() -> None:
    s = worked_start()
    with pytest.raises(IllegalActionError):
        step(s, "Attack(6♥)")  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError):
        step(s, None)  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError):
        step(s, c("6H"))  # type: ignore[arg-type]


def _walk(state: GameState, limit: int) -> list[GameState]:
    out = [state]
    while not is_terminal(state) and len(out) < limit:
        legal = legal_actions(state)
        state = step(state, legal[len(out) % len(legal)])
        out.append(state)
    return out


# --- repetition -------------------------------------------------------------------------


def test_three_player_perpetual_take_is_a_draw() -> None:
    s = position(Rules(players=3), [["6H", "7H"], ["6D", "7D"], ["6C", "7C"]], trump=Suit.S)
    seen: list[tuple[int, int, tuple[CardSet, ...], tuple[CardSet, ...]]] = []
    last_defender = -1
    for _ in range(1000):
        if is_terminal(s):
            break
        if not s.table:
            start = (s.attacker, s.defender, s.hands, s.known)
            assert start not in seen
            seen.append(start)
            action = legal_actions(s)[0]
        elif s.turn == s.defender and not s.taking:
            action = TAKE
        else:
            action = PASS
        last_defender = s.defender
        s = step(s, action)
    assert is_terminal(s)
    assert loser(s) is None
    assert returns(s) == (0.0, 0.0, 0.0)
    assert s.players_out == frozenset()
    assert all(len(h) >= 1 for h in s.hands)
    # The game ended exactly when the next bout start would have repeated an earlier one.
    attacker = (last_defender + 1) % 3
    repeated = (attacker, (attacker + 1) % 3, s.hands, s.known)
    assert repeated in seen
    assert len(seen) == 12
    assert seen.index(repeated) == 6


def test_a_return_to_the_first_position_of_the_game_is_a_draw() -> None:
    # Every card is dealt (12 cards, 3 hands of 4), so the trump card A♠ (dealt last, to
    # player 2) and the lowest trump Q♠ (player 0's, shown as it leads) are public from
    # the start. Only those two move, so the first bout start can recur exactly.
    deck = ["QS", "QH", "QD", "KH", "KD", "QC", "KC", "AH", "AD", "KS", "AC", "AS"]
    s = deal(Rules(players=3, lowest_rank=12, hand_size=4), deck)
    first = (s.attacker, s.defender, s.hands, s.known)
    assert first[:2] == (0, 1) and s.known == (cs("QS"), EMPTY, cs("AS"))
    for card in ["QS", "AS", "QS", "AS", "QS"]:  # each defender takes; the others pass
        s = play(s, att(card), TAKE, PASS, PASS)
        assert not is_terminal(s)
        assert (s.attacker, s.defender, s.hands, s.known) != first
    end = play(s, att("AS"), TAKE, PASS, PASS)
    assert (end.hands, end.known) == first[2:]
    assert is_terminal(end) and loser(end) is None


def test_two_player_transfer_cycle_is_a_draw() -> None:
    hands = [["6S", "9C", "10C"], ["6H", "6D", "JC", "QC"]]
    s = position(Rules(transfer=True, lowest_rank=6), hands, trump=Suit.H, talon=(), attacker=0)
    assert len(s.discard) == 36 - 7

    s = play(s, att("6S"), xfer("6H"))
    assert legal_actions(s) == (TAKE,)
    bout2 = step(s, TAKE)
    at_bout_start(bout2, attacker=1, defender=0)
    assert bout2.hands == (cs("6S", "6H", "9C", "10C"), cs("6D", "JC", "QC"))
    assert bout2.known == (cs("6S", "6H"), EMPTY)

    s = play(bout2, att("6D"))
    assert legal_actions(s) == (dfd("6D", "6H"), xfer("6S"), xfer("6H"), TAKE)
    bout3 = play(s, xfer("6S"), TAKE)
    at_bout_start(bout3, attacker=0, defender=1)
    assert bout3.hands == (cs("6H", "9C", "10C"), cs("6S", "6D", "JC", "QC"))
    assert bout3.known == (cs("6H"), cs("6S", "6D"))

    s = play(bout3, att("6H"))
    assert legal_actions(s) == (xfer("6S"), xfer("6D"), TAKE)
    bout4 = play(s, xfer("6S"), TAKE)
    # The cards are where they were at the start of bout 2, but B's 6♦ is now public
    # knowledge, so the repetition key differs and the game goes on.
    at_bout_start(bout4, attacker=1, defender=0)
    assert bout4.hands == bout2.hands
    assert bout4.known == (cs("6S", "6H"), cs("6D"))

    end = play(bout4, att("6D"), xfer("6S"), TAKE)
    # The start of bout 3 repeats, knowledge included: a draw.
    assert is_terminal(end)
    assert end.hands == bout3.hands
    assert end.known == bout3.known
    assert loser(end) is None
    assert returns(end) == (0.0, 0.0)
    assert legal_actions(end) == ()
