"""What the rules say to a user who builds positions and decks by hand, or acts wrongly:
every error names the offending card, player or action (the mutation run of issue 27
found these messages read by no test), and the text forms round-trip."""

from __future__ import annotations

import pickle
import random
import re
from typing import Any

import pytest

from durak.rules import (
    CARDS,
    Attack,
    Card,
    CardSet,
    Defend,
    DurakGame,
    IllegalActionError,
    Pass,
    Rules,
    RulesError,
    Suit,
    Take,
    Transfer,
    action_universe,
    deal,
    deck_cards,
    legal_actions,
    loser,
    new_game,
    observe,
    parse_action,
    places,
    position,
    sample_world,
    step,
)
from durak.rules.engine import is_legal
from durak.rules.history import History
from durak.testing.games import random_game

SMALL = Rules(lowest_rank=12, hand_size=3)  # Q, K, A: 12 cards
c = Card.parse


# --- position ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(hands=[["QS"]], trump=Suit.S), r"position needs 2 hands \(Rules.players\), got 1"),
        (dict(hands=[["QS"], ["6S"]], trump=Suit.S), r"6♠ \(hand 1\) is not in the 12-card deck"),
        (dict(hands=[["QS"], ["QS"]], trump=Suit.S), r"duplicate card Q♠ \(hand 1\)"),
        (dict(hands=[["QS"], ["KS"]], trump=Suit.S, talon=["QS"]), r"duplicate card Q♠ \(talon\)"),
        (dict(hands=[["QS"], []], trump=c("AH"), talon=["AH"]),
         "a player holds no cards although the talon is not empty"),
        (dict(hands=[["QS"], []], trump=Suit.S), "at least two players must hold cards"),
        (dict(hands=[["QS"], ["KS"]], trump=Suit.S, attacker=2),
         "attacker 2 is not a player holding cards"),
        (dict(hands=[["QS"], ["KS"]], trump=Suit.S, attacker=-1),
         "attacker -1 is not a player holding cards"),
        (dict(hands=[["QS"], ["KS"]], trump=Suit.S, defender=0),
         r"defender 0 is not the next active player after attacker 0 \(that is 1\)"),
        (dict(hands=[["QS"], ["KS"]], trump=c("AH"), talon=["AD"]),
         "the talon must end with the trump card A♥, not A♦"),
        (dict(hands=[["QS"], ["KS"]], trump=c("6H")), "trump card 6♥ is not in the 12-card deck"),
        (dict(hands=[["QS"], ["KS"]], trump=Suit.H, talon=["AD"]),
         "the talon must end with a trump card of suit ♥"),
        (dict(hands=[["QS"], ["KS"]], trump="H"), "trump must be a Card or a Suit, got 'H'"),
        (dict(hands=[["QS"], [5]], trump=Suit.S), "not a card: 5"),
    ],
)  # fmt: skip
def test_a_bad_position_is_refused_naming_the_problem(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(RulesError, match=f"^{message}"):
        position(SMALL, **kwargs)  # type: ignore[arg-type]


def test_a_position_without_trumps_takes_no_trump() -> None:
    rules = Rules(lowest_rank=12, hand_size=3, trumps=False)
    with pytest.raises(RulesError, match=r"Rules\.trumps is False, so trump must be None"):
        position(rules, [["QS"], ["KS"]], Suit.S)
    state = position(rules, [["QS"], ["KS"]], None)
    assert state.trump_suit is None and state.trump_card is None


def test_a_position_with_a_trump_suit_and_a_talon_takes_the_talons_last_card() -> None:
    state = position(SMALL, [["QS"], ["KS"]], Suit.H, talon=["AD", "AH"])
    assert state.trump_card is c("AH") and state.trump_suit is Suit.H
    bare = position(SMALL, [["QS"], ["KS"]], Suit.H)
    assert bare.trump_card is None and bare.trump_suit is Suit.H
    assert bare.defender == 1 and bare.turn == 0 and bare.attacker == 0
    assert bare.discard == CardSet.from_cards(deck_cards(12)) - CardSet.of("QS", "KS")


# --- decks ---------------------------------------------------------------------------


def test_a_deck_with_a_duplicate_names_the_card() -> None:
    deck = [*deck_cards(12)]
    deck[3] = deck[0]
    with pytest.raises(RulesError, match=f"^duplicate card {deck[0]} in the deck$"):
        deal(SMALL, deck)


def test_a_wrong_deck_names_what_it_lacks_and_what_does_not_belong() -> None:
    deck = [*deck_cards(12)[1:], c("6S")]
    with pytest.raises(RulesError) as e:
        deal(SMALL, deck)
    assert str(e.value) == (
        "the deck must hold the 12 cards from rank 12 up in 4 suits; "
        "missing: [Q♠], not in this deck: [6♠]"
    )
    with pytest.raises(RulesError, match=r"missing: \[A♣\], not in this deck: \[\]$"):
        deal(SMALL, deck_cards(12)[:-1])


# --- actions -------------------------------------------------------------------------


def test_an_illegal_action_names_the_player_its_role_and_every_legal_action() -> None:
    state = new_game(Rules(), 3)
    legal = legal_actions(state)
    wrong = Take()
    with pytest.raises(IllegalActionError) as e:
        step(state, wrong)
    options = ", ".join(str(a) for a in legal)
    assert str(e.value) == (
        f"illegal action Take for player {state.turn} (attacker); legal actions: {options}"
    )
    attacked = step(state, legal[0])
    with pytest.raises(IllegalActionError) as e:
        step(attacked, Pass())
    assert str(e.value).startswith(f"illegal action Pass for player {attacked.turn} (defender)")


def test_an_action_after_the_end_says_the_game_is_over() -> None:
    state = new_game(SMALL, 1)
    while state.turn >= 0:
        state = step(state, legal_actions(state)[-1])
    with pytest.raises(IllegalActionError, match=r"^illegal action Take: the game is over$"):
        step(state, Take())


def test_every_action_round_trips_through_its_text() -> None:
    for action in action_universe(deck_cards(2)):
        assert parse_action(str(action)) == action
        assert parse_action(f"  {action}  ") == action
    assert str(Take()) == "Take" and str(Pass()) == "Pass"
    assert str(Defend(c("6H"), c("8H"))) == "Defend(6♥<-8♥)"
    assert str(Attack(c("10S"))) == "Attack(10♠)" and str(Transfer(c("AS"))) == "Transfer(A♠)"


@pytest.mark.parametrize(
    "text",
    ["", "take", "Attack(", "Attack(6H", "Attack(XX)", "Defend(6H)", "Defend(6H<-)",
     "Transfer()", "Pass()", "Attack 6H"],
)  # fmt: skip
def test_text_that_is_no_action_is_refused_naming_it(text: str) -> None:
    with pytest.raises(ValueError, match=r"not (an action|a card)"):
        parse_action(text)


def test_actions_order_by_kind_then_target_then_card() -> None:
    ordered = [Attack(c("6S")), Attack(c("7S")), Defend(c("6S"), c("7S")),
               Defend(c("7S"), c("6H")), Transfer(c("6S")), Take(), Pass()]  # fmt: skip
    for i, a in enumerate(ordered):
        for j, b in enumerate(ordered):
            assert (a < b, a <= b, a > b, a >= b) == (i < j, i <= j, i > j, i >= j), (a, b)
    with pytest.raises(TypeError):
        _ = Take() < 3


# --- cards ---------------------------------------------------------------------------


def test_cards_order_by_rank_then_suit_under_every_comparison() -> None:
    for a in CARDS:
        for b in CARDS:
            i, j = a.index, b.index
            assert (a < b, a <= b, a > b, a >= b) == (i < j, i <= j, i > j, i >= j)


def test_a_card_set_repr_rebuilds_it() -> None:
    for cards in [CardSet(), CardSet.of("6H"), CardSet.of("AS", "10C", "6H")]:
        assert eval(repr(cards)) == cards  # the repr is meant to be code
    assert repr(CardSet.of("AS", "6H")) == "CardSet.of('6♥', 'A♠')"


# --- where an observer believes a card is --------------------------------------------


def test_places_follow_what_the_observer_knows() -> None:
    state = position(SMALL, [["QS", "KS"], ["QH", "KH"]], c("AD"), talon=["AH", "AC", "AD"])
    watcher = observe(state, 0)
    assert places(watcher, c("QS")) == frozenset({0})
    assert places(watcher, c("AD")) == frozenset({"talon"})  # the face-up trump
    assert places(watcher, c("QH")) == frozenset({1, "talon"})
    assert places(watcher, c("QD")) == frozenset({"discard"})
    attacked = step(state, Attack(c("QS")))
    assert places(observe(attacked, 1), c("QS")) == frozenset({"table"})
    with pytest.raises(RulesError, match="6♠ is not in the 12-card deck"):
        places(watcher, c("6S"))
    open_world = observe(state, 0, open_world=True)
    assert places(open_world, c("QH")) == frozenset({1})


# --- found alive by a mutation run (issue 27) -----------------------------------------


def test_type_errors_name_the_type_given() -> None:
    with pytest.raises(TypeError, match=r"^Card\.parse needs a string, got int$"):
        Card.parse(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^state must be a GameState, got int$"):
        step(5, Take())  # type: ignore[arg-type]
    o = observe(new_game(SMALL, 1), 0)
    with pytest.raises(TypeError, match=r"^observation must be an Observation, got str$"):
        sample_world("o", random.Random(1))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^rng must be a random\.Random, got int$"):
        sample_world(o, 1)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match=r"^Rules\.trumps is False, so trump must be None$"):
        position(Rules(lowest_rank=12, hand_size=3, trumps=False), [["QS"], ["KS"]], Suit.S)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: new_game("36", 1),  # type: ignore[arg-type]
         "rules must be a Rules, got str"),
        (lambda: deal(None, []),  # type: ignore[arg-type]
         "rules must be a Rules, got NoneType"),
        (lambda: position({}, [], Suit.S),  # type: ignore[arg-type]
         "rules must be a Rules, got dict"),
        (lambda: deal(Rules(), 5),  # type: ignore[arg-type]
         "deck must be a list or tuple of cards, got int"),
        (lambda: deal(Rules(), "6S7S"), "deck must be a list or tuple of cards, got str"),
        (lambda: position(SMALL, "QS", Suit.S), "hands must be a list or tuple of hands, got str"),
        (lambda: position(SMALL, [["QS"], ["KS"]], Suit.S, talon="AS"),
         "talon must be a list or tuple of cards, got str"),
    ],
)  # fmt: skip
def test_setup_refuses_what_is_not_rules_or_a_card_list(make: Any, message: str) -> None:
    with pytest.raises(TypeError, match=f"^{message}$"):
        make()


def test_card_indices_run_from_0_to_51() -> None:
    assert Card.from_index(0) is c("2S") and Card.from_index(51) is c("AC")
    with pytest.raises(RulesError, match="got 52"):
        Card.from_index(52)


@pytest.mark.parametrize("operator", ["__lt__", "__le__", "__gt__", "__ge__"])
def test_actions_do_not_compare_with_other_objects(operator: str) -> None:
    assert getattr(Take(), operator)(3) is NotImplemented
    assert getattr(Take(), operator)(Pass()) is (operator in ("__lt__", "__le__"))


def test_a_defence_text_with_two_arrows_is_not_a_card() -> None:
    with pytest.raises(RulesError, match=r"^not a card: '8H<-9H'"):
        parse_action("Defend(6H<-8H<-9H)")


def test_a_position_in_the_full_deck_may_hold_the_two_of_spades() -> None:
    state = position(Rules(lowest_rank=2), [["2S"], ["3S"]], Suit.H)
    assert c("2S") in state.hands[0] and c("2S") not in state.discard


def test_a_player_with_no_cards_and_no_talon_has_left_the_position() -> None:
    rules = Rules(players=3, lowest_rank=12, hand_size=3)
    state = position(rules, [["QS"], ["KS"], []], Suit.S)
    assert state.players_out == frozenset({2})
    watcher = observe(state, 0)
    assert places(watcher, c("KS")) == frozenset({1})  # not the player who has left


def test_the_trump_of_a_suit_is_the_talons_last_card_whatever_its_length() -> None:
    state = position(SMALL, [["QS"], ["KS"]], Suit.H, talon=["QD", "AD", "AH"])
    assert state.trump_card is c("AH")


def test_a_talon_of_only_the_face_up_trump_hides_no_card() -> None:
    state = position(SMALL, [["QS"], ["KS", "AS"]], c("AH"), talon=["AH"])
    assert places(observe(state, 0), c("AS")) == frozenset({1})


def test_attack_cards_and_the_history_repr_show_their_contents() -> None:
    state = step(new_game(Rules(), 2), legal_actions(new_game(Rules(), 2))[0])
    assert state.attack_cards() == (state.table[0][0],)
    assert repr(History([(1, 2)])) == "History([(1, 2)])"


def test_the_game_adapter_observes_in_its_own_world() -> None:
    state = new_game(Rules(), 4)
    assert DurakGame(Rules(), open_world=True).observe(state, 0).hands == state.hands
    assert DurakGame(Rules()).observe(state, 0).hands is None


@pytest.mark.parametrize("players", [2, 3, 6])
def test_the_game_adapter_states_its_players_payoffs_and_worlds(players: int) -> None:
    rules = Rules(players=players)
    game = DurakGame(rules)
    assert game.num_players == players
    assert game.payoff_bounds == (-1.0, 0.0)
    assert game.value_range == (-1.0, 1.0 / (players - 1))
    state = new_game(rules, players)
    o = game.observe(state, 1)
    assert o == observe(state, 1)
    world = game.sample_world(o, random.Random(5))
    assert world == sample_world(o, random.Random(5)) and observe(world, 1) == o


def test_table_cards_hold_every_attack_and_defence_card() -> None:
    state = position(SMALL, [["QS", "KS"], ["AS", "QH"]], Suit.S)
    state = step(state, Attack(c("QS")))
    assert state.table_cards() == CardSet.of("QS")
    state = step(state, Defend(c("QS"), c("AS")))
    assert state.table_cards() == CardSet.of("QS", "AS")
    assert state.attack_cards() == (c("QS"),)


@pytest.mark.parametrize("lowest", [2, 6, 14])
def test_the_action_universe_is_every_attack_defence_transfer_take_and_pass(lowest: int) -> None:
    deck = deck_cards(lowest)
    universe = action_universe(deck)
    expected = (
        {Attack(x) for x in deck}
        | {Defend(t, x) for t in deck for x in deck if t != x}
        | {Transfer(x) for x in deck}
        | {Take(), Pass()}
    )
    n = len(deck)
    assert len(universe) == n + n * (n - 1) + n + 2 == len(expected)
    assert set(universe) == expected and list(universe) == sorted(expected)


def test_a_state_and_its_history_survive_pickling() -> None:
    # Pools and Ray send states between processes.
    state = new_game(Rules(), 3)
    for _ in range(12):
        state = step(state, legal_actions(state)[-1])
    copy = pickle.loads(pickle.dumps(state))
    assert copy == state and list(copy.history) == list(state.history)
    assert legal_actions(copy) == legal_actions(state)
    history = History([(1, 2), (3,)])
    assert list(pickle.loads(pickle.dumps(history))) == [(1, 2), (3,)]


def test_distinct_histories_hash_apart_and_equal_ones_alike() -> None:
    histories = [History([]), History([(1,)]), History([(2,)]), History([(1,), (2,)])]
    assert len({hash(h) for h in histories}) == len(histories)
    grown = History([(1,)]).add((2,))
    assert hash(grown) == hash(History([(2,), (1,)])) == hash(grown)


def test_only_the_player_to_act_sees_legal_actions() -> None:
    state = new_game(Rules(players=3), 2)
    for _ in range(30):
        for seat in range(3):
            seen = observe(state, seat).legal_actions
            assert seen == (legal_actions(state) if seat == state.turn else ())
        state = step(state, legal_actions(state)[0])


@pytest.mark.parametrize("seed", [True, "1", 1.5, None])
def test_a_seed_that_is_not_an_int_is_refused_showing_it(seed: object) -> None:
    with pytest.raises(RulesError, match=f"^seed must be an int, got {re.escape(repr(seed))}$"):
        new_game(Rules(), seed)  # type: ignore[arg-type]


def test_loser_refuses_a_game_in_progress() -> None:
    message = r"^loser\(\) needs a finished game; this state is not terminal$"
    with pytest.raises(ValueError, match=message):
        loser(new_game(Rules(), 1))


def test_histories_are_equal_exactly_when_they_hold_the_same_keys() -> None:
    assert History([(1,), (2,)]) == History([(2,), (1,)])
    assert History([(1,)]) != History([(1,), (2,)]) and History([(1,), (2,)]) != History([(1,)])
    assert History([(1,)]) != History([(2,)]) and History([]) == History([])


def test_the_trumps_below_the_one_shown_are_known_to_be_in_the_talon() -> None:
    # Full deck, spades trump (A♠ at the bottom): the lowest trump dealt is 5♠, so 2♠, 3♠
    # and 4♠, all in the talon, are known to have been there.
    text = ["5S", "KH", "6S", "QH", "7D", "JH", "8D", "10H", "9D", "9H", "10D", "8H", "AS"]
    named = [c(t) for t in text]
    rest = [x for x in deck_cards(2) if x not in named]
    state = deal(Rules(lowest_rank=2), [*named[:-1], *rest, named[-1]])
    assert state.turn == 0 and state.knowledge.exposed == CardSet.of("5S", "AS")
    assert state.knowledge.from_talon == CardSet.of("2S", "3S", "4S")


def test_a_finished_game_has_no_legal_action() -> None:
    over = random_game(SMALL, 3)[-1]
    assert legal_actions(over) == ()
    assert not any(
        is_legal(over, a) for a in action_universe(deck_cards(SMALL.lowest_rank, SMALL.suits))
    )
    with pytest.raises(IllegalActionError):
        step(over, Pass())


def test_legal_actions_names_the_type_given() -> None:
    with pytest.raises(TypeError, match=r"^state must be a GameState, got int$"):
        legal_actions(5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text", ["Attack(6H", "Transfer(6H", "Defend(6H<-8H", "Defence(6H<-8H)", "Defend 6H<-8H)"]
)
def test_text_shaped_almost_like_an_action_is_no_action_not_a_bad_card(text: str) -> None:
    with pytest.raises(ValueError) as raised:
        parse_action(text)
    assert str(raised.value) == f"not an action: {text!r}"


def test_a_position_led_by_a_player_out_is_refused_and_the_right_defender_accepted() -> None:
    rules = Rules(players=3, lowest_rank=12, hand_size=2)
    hands = [[], ["QS", "KS"], ["QH"]]
    with pytest.raises(RulesError) as raised:
        position(rules, hands, Suit.C, attacker=0)
    assert str(raised.value) == "attacker 0 is not a player holding cards"
    s = position(rules, hands, Suit.C, attacker=1, defender=2)
    assert (s.attacker, s.defender, s.players_out) == (1, 2, frozenset({0}))


@pytest.mark.parametrize(
    ("rank", "suit", "message"),
    [(2.5, 0, "card rank must be 2..14, got 2.5"), (6, 1.5, "card suit must be a Suit, got 1.5")],
)
def test_a_card_of_a_fractional_rank_or_suit_is_refused_naming_it(
    rank: Any, suit: Any, message: str
) -> None:
    with pytest.raises(RulesError) as raised:
        Card(rank, suit)
    assert str(raised.value) == message
