"""Bad input to the rules' public entry points: a clear ``TypeError``, ``RulesError`` or
``IllegalActionError`` naming the problem, never a bare ``AttributeError``/``IndexError``
or a silently wrong answer; forged observations are refused by ``sample_world``; and the
module keeps no trace of the hands it has seen."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from fractions import Fraction
from unittest import mock

import attrs
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import durak.rules.actions
import durak.rules.engine
from durak.rules import (
    Card,
    CardSet,
    GameState,
    IllegalActionError,
    Observation,
    Rules,
    RulesError,
    legal_actions,
    new_game,
    observe,
    sample_world,
    step,
)
from durak.rules.cards import deck_mask
from durak.rules.history import History
from strategies import random_game, rules_strategy, seeds


def _midgame(seed: int = 5) -> Observation:
    states = random_game(Rules(players=3), seed)
    state = states[len(states) // 3]
    return observe(state, state.turn)


def test_step_refuses_an_object_that_equals_everything() -> None:
    state = new_game(Rules(), 1)
    with pytest.raises(IllegalActionError, match="not an action: <ANY>"):
        step(state, mock.ANY)


def test_step_names_the_type_of_a_non_action() -> None:
    state = new_game(Rules(), 1)
    text = str(legal_actions(state)[0])
    with pytest.raises(IllegalActionError, match="a str, not an Action"):
        step(state, text)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (
            lambda: step(None, legal_actions(new_game(Rules(), 1))[0]),  # type: ignore[arg-type]
            TypeError,
            "state must be a GameState, got NoneType",
        ),
        (lambda: legal_actions(None), TypeError, "state must be a GameState, got NoneType"),  # type: ignore[arg-type]
        (lambda: Card.parse(None), TypeError, "Card.parse needs a string, got NoneType"),  # type: ignore[arg-type]
        (lambda: Card.from_index(99), RulesError, "a card index must be in 0..51, got 99"),
        (lambda: Card.from_index(-1), RulesError, "a card index must be in 0..51, got -1"),
        (lambda: Card.from_index("3"), TypeError, "a card index must be an int, got str"),  # type: ignore[arg-type]
        (lambda: CardSet(-1), RulesError, "a CardSet mask must hold bits 0..51 only, got -1"),
        (
            lambda: CardSet(1 << 52),
            RulesError,
            "a CardSet mask must hold bits 0..51 only, got 4503599627370496",
        ),
        (lambda: CardSet(True), TypeError, "a CardSet mask must be an int, got bool"),
        (lambda: CardSet("AS"), TypeError, "a CardSet mask must be an int, got str"),  # type: ignore[arg-type]
        (
            lambda: sample_world(_midgame(), None),  # type: ignore[arg-type]
            TypeError,
            "rng must be a random.Random, got NoneType",
        ),
        (
            lambda: sample_world(None, random.Random(1)),  # type: ignore[arg-type]
            TypeError,
            "observation must be an Observation, got NoneType",
        ),
    ],
)
def test_bad_arguments_raise_a_named_error(
    call: Callable[[], object], error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=f"^{re.escape(words)}$"):
        call()


def _module_state(module: object) -> dict[str, object]:
    """Copies of the module's mutable containers, keyed by name."""
    out: dict[str, object] = {}
    for name, value in vars(module).items():
        if isinstance(value, dict | list | set):
            out[name] = repr(
                sorted(value.items(), key=repr)
                if isinstance(value, dict)
                else sorted(value, key=repr)
            )
    return out


def test_legal_actions_leave_no_trace_of_the_hands_in_the_modules() -> None:
    modules = (durak.rules.actions, durak.rules.engine)
    before = [_module_state(m) for m in modules]
    for state in random_game(Rules(players=4), 3):
        legal_actions(state)
    assert [_module_state(m) for m in modules] == before


def test_history_branches_do_not_see_each_other() -> None:
    root = History([(0,)])
    a = root.add((1,))  # extends the shared tip
    b = root.add((2,))  # a branch: copies
    aa = a.add((3,))
    assert (1,) in a and (2,) not in a and (3,) not in a
    assert (2,) in b and (1,) not in b
    assert (3,) in aa and list(aa) == [(0,), (1,), (3,)]
    assert a == History([(1,), (0,)]) and hash(a) == hash(History([(0,), (1,)]))
    assert root < a and not a < b and a.add((1,)) is a


# Forgeries of a genuine observation: each leaves no world that fits it.
def _hand_plus(o: Observation, card: Card) -> Observation:
    sizes = list(o.hand_sizes)
    sizes[o.player] += 1
    return attrs.evolve(o, hand=o.hand.add(card), hand_sizes=tuple(sizes))


def _forgeries(o: Observation) -> list[tuple[str, Observation]]:
    n = o.rules.players
    out = [
        ("turn", attrs.evolve(o, turn=n)),
        ("turn", attrs.evolve(o, turn=-2)),
        ("attacker", attrs.evolve(o, attacker=n)),
        ("defender", attrs.evolve(o, defender=-1)),
        ("talon size", attrs.evolve(o, talon_size=o.talon_size + 1)),
    ]
    for players in (n - 1, n + 1):
        try:
            other_rules = attrs.evolve(o.rules, players=players)
        except RulesError:
            continue
        out.append(("rules", attrs.evolve(o, rules=other_rules)))
    sizes = list(o.hand_sizes)
    sizes[(o.player + 1) % n] += 1
    out.append(("hand size", attrs.evolve(o, hand_sizes=tuple(sizes))))
    outside = CardSet(((1 << 52) - 1) & ~deck_mask(o.rules.lowest_rank))
    if outside:
        out.append(("card outside the deck", _hand_plus(o, next(iter(outside)))))
    if o.discard:
        out.append(("discard card in hand", _hand_plus(o, next(iter(o.discard)))))
    if o.hand:
        card = next(iter(o.hand))
        out.append(("hand card in discard", attrs.evolve(o, discard=o.discard.add(card))))
        other = (o.player + 1) % n
        known = list(o.known)
        known[other] = known[other].add(card)
        sizes = list(o.hand_sizes)
        sizes[other] += 1
        out.append(
            (
                "hand card known elsewhere",
                attrs.evolve(o, known=tuple(known), hand_sizes=tuple(sizes)),
            )
        )
    if o.trump_card is not None and o.trump_suit is not None:
        wrong = next(c for c in CardSet(deck_mask(o.rules.lowest_rank)) if c.suit != o.trump_suit)
        out.append(("trump card", attrs.evolve(o, trump_card=wrong)))
    return out


@given(rules_strategy(), seeds(), st.data())
def test_sample_world_refuses_every_forged_observation(
    rules: Rules, seed: int, data: st.DataObject
) -> None:
    states = random_game(rules, seed)
    state = data.draw(st.sampled_from(states[:-1]))
    player = data.draw(st.integers(0, rules.players - 1))
    genuine = observe(state, player)
    sample_world(genuine, random.Random(seed))  # the genuine one is accepted
    name, forged = data.draw(st.sampled_from(_forgeries(genuine)))
    note(f"forged: {name}")
    with pytest.raises(RulesError, match="inconsistent observation"):
        sample_world(forged, random.Random(seed))


def test_history_subsets_follow_set_semantics() -> None:
    a, b, same = History([(1,)]), History([(2,)]), History([(1,)])
    both = History([(1,), (2,)])
    assert not a <= b and not b <= a and a <= same and a <= both and not both <= a
    assert not a < same and a < both and not both < History([(2,), (1,)]) and not a < b


def test_history_grows_at_its_tip_without_copying() -> None:
    # The documented O(1) growth: extending the newest value shares its key list, and only
    # extending an older value copies (docs/rules.md, "How the record is stored").
    root = History([(0,)])
    tip = root.add((1,))
    assert tip._keys is root._keys and list(tip._keys) == [(0,), (1,)]
    branch = root.add((2,))
    assert branch._keys is not root._keys and list(branch) == [(0,), (2,)]
    assert list(tip.add((3,))) == [(0,), (1,), (3,)] and list(root) == [(0,)]


#: 24 cards, 4 each: talons long enough to hold known trumps, games short enough to search.
SHORT = Rules(lowest_rank=9, hand_size=4)


def _first_view(seed: int, fits: Callable[[GameState], bool]) -> Observation:
    """The view of the player to act at the first state of ``SHORT`` game ``seed`` that
    ``fits`` (and is not over)."""
    return next(observe(s, s.turn) for s in random_game(SHORT, seed) if s.turn >= 0 and fits(s))


def test_a_forged_observation_is_refused_naming_the_card_and_its_places() -> None:
    o = _first_view(3, lambda s: bool(s.discard and s.hands[s.turn]))
    own = next(iter(o.hand))
    both = attrs.evolve(o, discard=o.discard.add(own))
    with pytest.raises(
        RulesError,
        match=f"^inconsistent observation: {own} is both in its own hand and in the discard pile$",
    ):
        sample_world(both, random.Random(1))
    two_spades = Card.parse("2S")
    with pytest.raises(
        RulesError,
        match=r"^inconsistent observation: 2♠ in its own hand is not a card of the 24-card deck$",
    ):
        sample_world(_hand_plus(o, two_spades), random.Random(1))


def test_forged_sizes_and_origins_are_refused_with_their_counts() -> None:
    o = _first_view(2, lambda s: bool(s.knowledge.from_talon & observe(s, s.turn).hidden_cards()))
    other = 1 - o.player
    hidden = len(o.hidden_cards())
    sizes = list(o.hand_sizes)
    sizes[other] += 1
    with pytest.raises(
        RulesError,
        match=f"^inconsistent observation: {hidden} hidden cards for {hidden + 1} places$",
    ):
        sample_world(attrs.evolve(o, hand_sizes=tuple(sizes)), random.Random(1))
    origins = list(o.knowledge.origins)
    origins[other] = (1,) * (o.unknown_count(other) + 2)
    knowledge = attrs.evolve(o.knowledge, origins=tuple(origins))
    with pytest.raises(
        RulesError,
        match=f"^inconsistent observation: player {other}'s origins list more cards than it holds$",
    ):
        sample_world(attrs.evolve(o, knowledge=knowledge), random.Random(1))


# Player 0's view early in a game with trumps known to be in the talon, and a later state
# in full information.
_O = next(observe(s, 0) for s in random_game(SHORT, 2) if s.talon and s.knowledge.origins)
_FULL = observe(random_game(SHORT, 2)[3], 0, open_world="full")
assert _FULL.hands is not None and _FULL.talon_order is not None
_HANDS, _ORDER = _FULL.hands, _FULL.talon_order


@pytest.mark.parametrize(
    ("forged", "message"),
    [
        (attrs.evolve(_O, rules="36"),  # type: ignore[arg-type]
         "rules must be a Rules, got str"),
        (attrs.evolve(_O, player=2), "player 2 is not a player of a 2-player game"),
        (attrs.evolve(_O, attacker="0"),  # type: ignore[arg-type]
         "attacker '0' is not a player of a 2-player game"),
        (attrs.evolve(_O, defender=-1), "defender -1 is not a player of a 2-player game"),
        (attrs.evolve(_O, player=True), "player True is not a player of a 2-player game"),
        (attrs.evolve(_O, turn=2), r"turn 2 is not a player of a 2-player game \(or -1\)"),
        (attrs.evolve(_O, turn=True), r"turn True is not a player of a 2-player game \(or -1\)"),
        (attrs.evolve(_O, hand_sizes=(4,)),
         "hand sizes, known cards and hands must have 2 entries each"),
        (attrs.evolve(_O, known=(_O.known[0],)),
         "hand sizes, known cards and hands must have 2 entries each"),
        (attrs.evolve(_FULL, hands=_HANDS[:1]),
         "hand sizes, known cards and hands must have 2 entries each"),
        (attrs.evolve(_O, players_out=frozenset({2})), "players out must be players of the game"),
        (attrs.evolve(_O, knowledge=attrs.evolve(_O.knowledge, origins=((1,),) * 3)),
         "origins must have 2 entries"),
        (attrs.evolve(_O, talon_size=-1), "talon size -1 is not possible"),
        (attrs.evolve(_O, talon_size=17), "talon size 17 is not possible"),
        (attrs.evolve(_O, talon_order=_FULL.talon_order),
         "a talon order needs every hand and talon_size cards"),
        (attrs.evolve(_FULL, talon_order=_ORDER[1:]),
         "a talon order needs every hand and talon_size cards"),
        (attrs.evolve(_FULL, talon_order=_ORDER[::-1]),
         f"the talon must end with the trump card {_FULL.trump_card}"),
        (attrs.evolve(_O, hand_sizes=(_O.hand_sizes[0] + 1, _O.hand_sizes[1])),
         f"the hand has {len(_O.hand)} cards; its size says {_O.hand_sizes[0] + 1}"),
        (attrs.evolve(_O, known=(_O.known[0], CardSet.from_cards(list(_O.hidden_cards())[:5]))),
         "player 1 is known to hold more cards than its hand size"),
    ],
)  # fmt: skip
def test_a_forged_observation_is_refused_saying_what_is_wrong(
    forged: Observation, message: str
) -> None:
    with pytest.raises(RulesError, match=f"^inconsistent observation: {message}$"):
        sample_world(forged, random.Random(1))


def test_a_trump_card_off_the_trump_suit_is_refused_naming_both() -> None:
    wrong = next(c for c in _O.hidden_cards() if c.suit != _O.trump_suit)
    forged = attrs.evolve(_O, trump_card=wrong)
    message = f"the trump card {wrong} is not of the trump suit {_O.trump_suit}"
    with pytest.raises(RulesError, match=f"^inconsistent observation: {message}$"):
        sample_world(forged, random.Random(1))


def test_without_a_record_every_unknown_card_may_be_a_talon_trump() -> None:
    # No origins: the trumps known to have been in the talon are equally likely in any
    # unknown card or talon slot.
    o = attrs.evolve(_O, knowledge=attrs.evolve(_O.knowledge, origins=()))
    slots = o.unknown_count(1) + o.talon_size - o.trump_in_talon
    restricted = o.knowledge.from_talon & o.hidden_cards()
    assert restricted
    for card in restricted:
        assert o.odds(card) == {
            1: Fraction(o.unknown_count(1), slots),
            "talon": Fraction(o.talon_size - o.trump_in_talon, slots),
        }


def test_a_card_in_two_seen_places_is_refused_naming_both() -> None:
    mid_bout = next(
        observe(s, 0) for s in random_game(SHORT, 4) if s.table and s.discard and s.talon
    )
    on_table, trump = mid_bout.table[0][0], _O.trump_card
    assert trump is not None
    cases = [
        (
            attrs.evolve(mid_bout, discard=mid_bout.discard.add(on_table)),
            f"{on_table} is both in the table and in the discard pile",
        ),
        (
            _hand_plus(_O, trump),
            f"{trump} is both in its own hand and in the talon \\(the face-up trump\\)",
        ),
        (
            _hand_plus(_FULL, _ORDER[0]),
            f"{_ORDER[0]} is both in its own hand and in the talon",
        ),
    ]
    for forged, message in cases:
        with pytest.raises(RulesError, match=f"^inconsistent observation: {message}$"):
            sample_world(forged, random.Random(1))


def test_an_observation_at_the_deal_with_the_fullest_talon_is_accepted() -> None:
    # 24 cards, 2 hands of 4: the talon holds 16, the most it ever holds.
    o = observe(new_game(SHORT, 7), 0)
    assert o.talon_size == 16
    assert observe(sample_world(o, random.Random(1)), 0) == o


def test_observe_refuses_a_seat_outside_the_game_naming_the_range() -> None:
    state = new_game(Rules(players=3), 1)
    for seat in (-1, 3):
        with pytest.raises(RulesError, match=rf"^player must be 0\.\.2, got {seat}$"):
            observe(state, seat)


def test_a_drawn_game_with_every_player_out_is_observed_and_sampled() -> None:
    rules = Rules(players=3, lowest_rank=12, hand_size=2)
    final = next(
        states[-1]
        for seed in range(500)
        for states in [random_game(rules, seed)]
        if len(states[-1].players_out) == rules.players
    )
    o = observe(final, 0)
    assert o.players_out == frozenset(range(3))
    assert sample_world(o, random.Random(1)) == final
