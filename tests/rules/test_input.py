"""Bad input to the rules' public entry points: a clear ``TypeError``, ``RulesError`` or
``IllegalActionError`` naming the problem, never a bare ``AttributeError``/``IndexError``
or a silently wrong answer; forged observations are refused by ``sample_world``; and the
module keeps no trace of the hands it has seen."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any
from unittest import mock

import attrs
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import durak.rules.actions
import durak.rules.engine
from durak.rules import (
    VISIBILITIES,
    Attack,
    Card,
    CardSet,
    Defend,
    GameState,
    IllegalActionError,
    Knowledge,
    Observation,
    Rules,
    RulesError,
    Suit,
    Transfer,
    Visibility,
    beats,
    legal_actions,
    new_game,
    observe,
    odds,
    places,
    position,
    sample_world,
    step,
)
from durak.rules.actions import PASS, TAKE
from durak.rules.cards import deck_mask
from durak.rules.history import History
from durak.testing.games import random_game
from durak.testing.strategies import rules as rules_strategy
from durak.testing.strategies import seeds


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
    outside = CardSet(((1 << 52) - 1) & ~deck_mask(o.rules.lowest_rank, o.rules.suits))
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
    deck = CardSet(deck_mask(o.rules.lowest_rank, o.rules.suits))
    wrong = next((c for c in deck if c.suit != o.trump_suit), None)
    if o.trump_card is not None and o.trump_suit is not None and wrong is not None:
        out.append(("trump card", attrs.evolve(o, trump_card=wrong)))
    # Issue 36: facts of the phase, wrong in every state.
    holder = next(p for p in range(n) if o.hand_sizes[p])
    out.append(("a holder out", attrs.evolve(o, players_out=o.players_out | {holder})))
    out.append(("cap", attrs.evolve(o, cap=o.cap + 1)))
    out.append(("taking", attrs.evolve(o, taking=not o.taking)))
    if not o.table and o.turn >= 0:
        out.append(("the defender leads", attrs.evolve(o, turn=o.defender)))
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
        assert odds(o, card) == {
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


# Issue 36: the facts of every observation ``observe`` gives, which a forged one may break.
# Each view below is of the player to act (player 0 once the game is over) at the first
# state of a game that fits.
def _view(rules: Rules, fits: Callable[[GameState], bool], open_world: bool = False) -> Observation:
    state = next(s for seed in range(99) for s in random_game(rules, seed) if fits(s))
    return observe(state, max(state.turn, 0), open_world)


_ENDGAME_RULES = Rules(players=3, lowest_rank=12, hand_size=2)
_START = _view(SHORT, lambda s: not s.table and s.turn >= 0 and bool(s.talon))
_DEFENCE = _view(SHORT, lambda s: bool(s.table) and s.turn == s.defender and len(s.table) < s.cap)
_ASKED = _view(SHORT, lambda s: bool(s.table) and not s.taking and s.turn == s.attacker)
_TAKING = _view(SHORT, lambda s: s.taking)
_OPEN = _view(
    SHORT,
    lambda s: (
        not s.table and s.turn >= 0 and not s.knowledge.from_talon and bool(s.known[1 - s.turn])
    ),
    open_world=True,
)
_LAST = _view(SHORT, lambda s: bool(s.table) and s.turn >= 0 and not all(s.hand_masks))
_OVER = _view(SHORT, lambda s: s.turn < 0)
_ENDGAME = _view(_ENDGAME_RULES, lambda s: not s.table and s.turn >= 0 and bool(s.players_out))
_TRUMPED = _view(SHORT, lambda s: bool(s.knowledge.from_talon))
_MIDTALON = _view(
    SHORT, lambda s: bool(s.table and s.talon) and s.turn >= 0 and not all(s.hand_masks)
)
_WIDE = _view(SHORT, lambda s: len(s.table) >= 2 and s.turn == s.defender)
_DEFENDER_WAITS = next(
    observe(s, s.defender)
    for seed in range(99)
    for s in random_game(SHORT, seed)
    if s.table and not s.taking and s.turn == s.attacker and not s.knowledge.from_talon
)
_NO_TRUMPS = _view(attrs.evolve(SHORT, trumps=False), lambda s: not s.table and s.turn >= 0)
assert _OPEN.hands is not None
_THEM = 1 - _OPEN.player
_LEAD = re.escape(repr(_DEFENCE.table[0][0]))
_TRUMP = re.escape(repr(_START.trump_card))
_OFF_TRUMP = next(c for c in _START.hidden_cards() if c.suit != _START.trump_suit)
assert _START.trump_card is not None and _OVER.trump_card is not None
_EMPTY_SEAT = next(p for p in range(2) if not _OVER.hand_sizes[p])
_BROKE = next(p for p in range(2) if not _LAST.hand_sizes[p])
_GONE = min(_ENDGAME.players_out)
_BROKE_MID = next(p for p in range(2) if not _MIDTALON.hand_sizes[p])
_SOME_DISCARD = next(iter(_OVER.discard))
_NO_TRUMPS_HIDDEN = next(iter(_NO_TRUMPS.hidden_cards()))


def _forge(o: Observation, **changes: Any) -> Observation:
    """``o`` with the fields given changed, to any value (a forgery)."""
    forged: Observation = attrs.evolve(o, **changes)
    return forged


def _changed(o: Observation, name: str, p: int, value: object) -> Observation:
    """``o`` with entry ``p`` of the tuple field ``name`` replaced by ``value``."""
    entries = list(getattr(o, name))
    entries[p] = value
    return _forge(o, **{name: tuple(entries)})


def _with_knowledge(o: Observation, **changes: Any) -> Observation:
    return attrs.evolve(o, knowledge=attrs.evolve(o.knowledge, **changes))


def _emptied_defender(o: Observation) -> Observation:
    """``o`` (the defender's own view) with its cards moved to the discard pile."""
    d, cards = o.defender, o.hand
    o = _changed(_changed(o, "hand_sizes", d, 0), "known", d, CardSet())
    o = _with_knowledge(o, exposed=CardSet(o.knowledge.exposed.mask & ~cards.mask))
    return _forge(o, hand=CardSet(), discard=o.discard | cards)


def _thrown_in_off_rank(o: Observation) -> tuple[Observation, Card]:
    """``o`` (the defender's view) with the attacker's throw-in of a rank not on the table."""
    ranks = {c.rank for pair in o.table for c in pair if c is not None}
    card = next(c for c in o.hidden_cards() if c.rank not in ranks)
    forged = _changed(o, "hand_sizes", o.attacker, o.hand_sizes[o.attacker] - 1)
    return attrs.evolve(forged, table=(*o.table, (card, None))), card


def _beaten_by_a_loser(o: Observation) -> tuple[Observation, Card, Card]:
    """``o`` with the first defence replaced by a hidden card that does not beat it."""
    (attack, defence), *rest = o.table
    assert defence is not None
    low = next(c for c in o.hidden_cards() if not beats(c, attack, o.trump_suit))
    exposed = CardSet(o.knowledge.exposed.mask & ~(1 << defence.index))
    forged = _with_knowledge(attrs.evolve(o, table=((attack, low), *rest)), exposed=exposed)
    return forged, low, attack


def _known_twice(o: Observation) -> Observation:
    """``o`` with a card of its own hand known in the other player's hand too."""
    other = 1 - o.player
    known = _changed(o, "known", other, o.known[other].add(_OWN_CARD))
    return _changed(known, "hand_sizes", other, o.hand_sizes[other] + 1)


_OWN_CARD = next(iter(_START.hand))
_OFF_RANK, _OFF_RANK_CARD = _thrown_in_off_rank(_DEFENCE)
# The player's own origins one entry longer than its unknown cards allow.
_OWN_UNKNOWN = _TRUMPED.hand_sizes[_TRUMPED.player] - len(_TRUMPED.known[_TRUMPED.player])
_TOO_LONG = tuple(
    (0,) * (_OWN_UNKNOWN + 1) + (1,) if p == _TRUMPED.player else w
    for p, w in enumerate(_TRUMPED.knowledge.origins)
)
_LOSER, _LOW, _BEATEN = _beaten_by_a_loser(_ASKED)


@pytest.mark.parametrize(
    ("forged", "message"),
    [
        # The reproductions: both players out while holding cards (step then looped
        # in next_active), one out (step refused an action legal_actions listed), an
        # open-world hand short of a card (the world drawn did not give the observation
        # back), and the defender to act at the opening attack.
        (_forge(_START, players_out=frozenset({0, 1})),
         f"player 0 is out but holds {_START.hand_sizes[0]} cards"),
        (_forge(_START, players_out=frozenset({1})),
         f"player 1 is out but holds {_START.hand_sizes[1]} cards"),
        (_changed(_OPEN, "hands", _THEM, CardSet.from_cards(list(_OPEN.hands[_THEM])[1:])),
         f"player {_THEM}'s shown hand has {_OPEN.hand_sizes[_THEM] - 1} cards; "
         f"its size says {_OPEN.hand_sizes[_THEM]}"),
        (_forge(_START, turn=_START.defender, legal_actions=()),
         f"the attacker {_START.attacker} leads a bout, not player {_START.defender}"),
        # Types.
        (_forge(_START, hand=frozenset(_START.hand)),
         "the hand must be a CardSet, got frozenset"),
        (_changed(_START, "known", 1, 0), "the known cards of player 1 must be a CardSet, got int"),
        (_changed(_OPEN, "hands", 1, None), "the hand of player 1 must be a CardSet, got NoneType"),
        (_forge(_START, hand_sizes=list(_START.hand_sizes)),
         "hand_sizes must be a tuple, got list"),
        (_changed(_START, "hand_sizes", 1, 4.0), "hand sizes must be ints, got 4.0"),
        (_forge(_START, talon_size="8"), "talon_size must be an int, got '8'"),
        (_forge(_START, cap=None), "cap must be an int, got None"),
        (_forge(_START, taking=0), "taking must be a bool, got 0"),
        (_forge(_DEFENCE, table=(_DEFENCE.table[0][0],)),
         rf"a table entry must be an \(attack card, card or None\), not {_LEAD}"),
        (_forge(_DEFENCE, table=((_DEFENCE.table[0][0], "x"),)),
         rf"a table entry must be an \(attack card, card or None\), not \({_LEAD}, 'x'\)"),
        (_forge(_DEFENCE, table=([_DEFENCE.table[0][0], None],)),
         rf"a table entry must be an \(attack card, card or None\), not \[{_LEAD}, None\]"),
        (_forge(_DEFENCE, table=((_DEFENCE.table[0][0],),)),
         rf"a table entry must be an \(attack card, card or None\), not \({_LEAD},\)"),
        (_forge(_DEFENCE, table=((_DEFENCE.table[0][0], None, None),)),
         rf"a table entry must be an \(attack card, card or None\), not \({_LEAD}, None, None\)"),
        (_forge(_DEFENCE, table=(("A♠", None),)),
         r"a table entry must be an \(attack card, card or None\), not \('A♠', None\)"),
        (_forge(_START, talon_order=["A♠"]), "talon_order must be a tuple, got list"),
        (_forge(_START, talon_order=("A♠",)), "the talon order must hold only cards"),
        (_forge(_START, trump_suit="♥"),
         rf"the trump must be a Card and a Suit \(or None\), got {_TRUMP}, '♥'"),
        (_forge(_START, trump_card="A♥"),
         rf"the trump must be a Card and a Suit \(or None\), got 'A♥', {_START.trump_suit!r}"),
        (_forge(_START, players_out={0}), "players_out must be a frozenset, got set"),
        (_with_knowledge(_START, exposed=0), "knowledge must be a Knowledge of two CardSets"),
        (_with_knowledge(_START, from_talon=0), "knowledge must be a Knowledge of two CardSets"),
        (_forge(_START, knowledge=0), "knowledge must be a Knowledge of two CardSets"),
        (_with_knowledge(_TRUMPED, origins=[(1,), (1,)]), "origins must be a tuple, got list"),
        (_with_knowledge(_TRUMPED, origins=((2,), (1,))),
         r"origin weights must be ints >= 0 in lowest terms ending above 0, not \(2,\)"),
        (_with_knowledge(_TRUMPED, origins=((1, 0), (1,))),
         r"origin weights must be ints >= 0 in lowest terms ending above 0, not \(1, 0\)"),
        (_with_knowledge(_TRUMPED, origins=((-1, 1), (1,))),
         r"origin weights must be ints >= 0 in lowest terms ending above 0, not \(-1, 1\)"),
        (_with_knowledge(_TRUMPED, origins=((), (1,))),
         r"origin weights must be ints >= 0 in lowest terms ending above 0, not \(\)"),
        (_with_knowledge(_TRUMPED, origins=((1.0,), (1,))),
         r"origin weights must be ints >= 0 in lowest terms ending above 0, not \(1.0,\)"),
        (_with_knowledge(_TRUMPED, origins=([1], (1,))),
         r"origin weights must be ints >= 0 in lowest terms ending above 0, not \[1\]"),
        (_forge(_START, history=()), "history must be a History, got tuple"),
        (_forge(_START, legal_actions=list(_START.legal_actions)),
         "legal_actions must be a tuple, got list"),
        # Players out.
        (_forge(_ENDGAME, players_out=frozenset()),
         f"player {_GONE} holds no cards between bouts but is not out"),
        (_forge(_OVER, players_out=frozenset()),
         f"player {_EMPTY_SEAT} holds no cards between bouts but is not out"),
        (_forge(_LAST, players_out=frozenset({_BROKE})),
         "a game in play needs two players still in"),
        (_forge(_MIDTALON, players_out=frozenset({_BROKE_MID})),
         "a player is out although the talon is not empty"),
        (_forge(_ENDGAME, attacker=_GONE), f"the attacker {_GONE} is out"),
        (_forge(_ENDGAME, defender=_GONE), f"the defender {_GONE} is out"),
        (_forge(_ENDGAME, turn=_GONE), f"the turn {_GONE} is out"),
        # Trumps.
        (_forge(_START, trump_card=None), "a talon needs a face-up trump card"),
        (_forge(_START, trump_suit=None), "a game with trumps needs a trump suit"),
        (_forge(_START, rules=attrs.evolve(SHORT, trumps=False)),
         "a game without trumps has no trump suit or card"),
        (_forge(_START, rules=attrs.evolve(SHORT, trumps=False), trump_suit=None),
         "a game without trumps has no trump suit or card"),
        (_forge(_START, rules=attrs.evolve(SHORT, trumps=False), trump_card=None),
         "a game without trumps has no trump suit or card"),
        (_forge(_OVER, trump_card=Card.parse("2" + _OVER.trump_card.suit.symbol)),
         f"the trump card 2{_OVER.trump_card.suit.symbol} is not in the 24-card deck"),
        # Knowledge.
        (_known_twice(_START),
         f"{_OWN_CARD} is both in its own hand and in player {1 - _START.player}'s known cards"),
        (_changed(_START, "known", _START.player, CardSet()),
         "the player's known cards must be the exposed cards of its hand"),
        (_with_knowledge(_START, exposed=_START.knowledge.exposed.add(_OFF_TRUMP)),
         f"exposed {_OFF_TRUMP} is in no hand, not on the table, not face up"),
        (_changed(_START, "known", 1 - _START.player, CardSet.of(_OFF_TRUMP)),
         f"{_OFF_TRUMP} known in player {1 - _START.player}'s hand but not exposed"),
        (_with_knowledge(_START, exposed=_START.knowledge.exposed.remove(_START.trump_card)),
         f"the trump card {_START.trump_card} must be exposed unless discarded"),
        (_with_knowledge(_NO_TRUMPS, from_talon=CardSet.of(_NO_TRUMPS_HIDDEN)),
         f"{_NO_TRUMPS_HIDDEN} known to have been in the talon is not a trump"),
        (_with_knowledge(_START, from_talon=_START.knowledge.from_talon.add(_OFF_TRUMP)),
         f"{_OFF_TRUMP} known to have been in the talon is not a trump"),
        (_with_knowledge(_START, from_talon=CardSet.of(_START.trump_card)),
         f"{_START.trump_card} known to have been in the talon has been seen since"),
        (_with_knowledge(_START, from_talon=CardSet(), origins=((1,), (1,))),
         "origins are recorded only while a trump is known to have been in the talon"),
        (_with_knowledge(_TRUMPED, origins=_TOO_LONG),
         f"player {_TRUMPED.player}'s origins list more cards than it holds"),
        # The open world.
        (_changed(_OPEN, "hands", _OPEN.player, _OPEN.hands[_THEM]),
         "the player's hand differs from its entry in hands"),
        (_changed(_OPEN, "known", _THEM, CardSet()),
         f"player {_THEM}'s known cards must be the exposed cards of its hand"),
        # A finished game.
        (_forge(_OVER, cap=1), "a finished game has no table, take, cap or legal action"),
        (_forge(_OVER, table=((_SOME_DISCARD, None),), discard=_OVER.discard.remove(_SOME_DISCARD)),
         "a finished game has no table, take, cap or legal action"),
        (_forge(_OVER, taking=True),
         "a finished game has no table, take, cap or legal action"),
        (_forge(_OVER, legal_actions=_START.legal_actions),
         "a finished game has no table, take, cap or legal action"),
        (_forge(_START, turn=-1, cap=0, legal_actions=()),
         "a game without repetition ends only when at most one player holds cards"),
        # Roles, turn and cap.
        (_forge(_START, defender=_START.attacker),
         f"the defender {_START.attacker} is not the next player in after the attacker "
         f"{_START.attacker}"),
        (_forge(_START, cap=_START.cap + 1),
         f"the cap is {_START.cap + 1}; the bout's is {_START.cap}"),
        (_forge(_START, taking=True), "nobody takes at a bout start"),
        (_forge(_WIDE, rules=attrs.evolve(SHORT, bout_cap=1), cap=1),
         f"{len(_WIDE.table)} attack cards exceed the cap 1"),
        (_forge(_LAST, turn=_BROKE, legal_actions=()),
         f"player {_BROKE} is to act but holds no cards"),
        (_emptied_defender(_DEFENDER_WAITS),
         f"the defender {_DEFENDER_WAITS.defender} holds no cards"),
        # A bout under way.
        (_OFF_RANK, f"the attack card {_OFF_RANK_CARD} matches no rank on the table before it"),
        (_LOSER, f"{_LOW} does not beat {_BEATEN}"),
        (_forge(_DEFENCE, turn=_DEFENCE.attacker, legal_actions=()),
         f"player {_DEFENCE.attacker} is asked while the defender {_DEFENCE.defender} has cards "
         "to beat"),
        (_forge(_TAKING, taking=False),
         f"player {_TAKING.turn} is asked while the defender {_TAKING.defender} has cards to beat"),
        (_forge(_ASKED, taking=True), "the defender took with every card beaten"),
        (_forge(_ASKED, turn=_ASKED.defender, legal_actions=()),
         f"player {_ASKED.defender} is not an attacker who may throw in"),
        (_forge(_TAKING, cap=len(_TAKING.table),
                      rules=attrs.evolve(SHORT, bout_cap=len(_TAKING.table))),
         f"an attacker is asked with the cap {len(_TAKING.table)} reached"),
        # What is read off the world drawn.
        (_forge(_START, legal_actions=()),
         "the legal actions are not those of the player's hand"),
        (_forge(_START, history=History([(0,)])),
         "a game in which no position can repeat keeps no record"),
    ],
)  # fmt: skip
def test_a_forged_phase_or_fact_is_refused_saying_what_is_wrong(
    forged: Observation, message: str
) -> None:
    with pytest.raises(RulesError, match=f"^inconsistent observation: {message}$"):
        sample_world(forged, random.Random(1))


@pytest.mark.parametrize(
    "genuine",
    [_START, _DEFENCE, _ASKED, _TAKING, _OPEN, _LAST, _OVER, _ENDGAME, _TRUMPED, _MIDTALON,
     _WIDE, _NO_TRUMPS, _DEFENDER_WAITS],
)  # fmt: skip
def test_the_views_forged_above_are_genuine(genuine: Observation) -> None:
    world = sample_world(genuine, random.Random(1))
    assert observe(world, genuine.player, genuine.visibility) == genuine


def test_a_forged_view_is_refused_by_odds_too() -> None:
    card = next(iter(_START.hidden_cards()))
    with pytest.raises(RulesError, match=r"^inconsistent observation: player 1 is out but holds"):
        odds(_forge(_START, players_out=frozenset({1})), card)


@given(rules_strategy(), seeds(), st.sampled_from([False, True, "full"]))
def test_every_observation_of_a_game_passes_the_check_and_comes_back(
    rules: Rules, seed: int, visibility: Visibility
) -> None:
    for state in random_game(rules, seed):
        for p in range(rules.players):
            o = observe(state, p, visibility)
            assert observe(sample_world(o, random.Random(seed)), p, visibility) == o


def test_observations_of_hand_built_positions_pass_the_check() -> None:
    rules = Rules(players=3, lowest_rank=12, hand_size=2)
    cases = [
        position(rules, [["QS", "KS"], ["AH"], []], Suit.H, attacker=1),
        position(rules, [["QS"], ["AH", "KD"], ["QD"]], Card.parse("QH"), ["AC", "QH"]),
        position(attrs.evolve(rules, trumps=False), [["QS"], ["AH"], ["QD"]], None),
    ]
    for state in cases:
        for p in range(3):
            for visibility in VISIBILITIES:
                o = observe(state, p, visibility)
                assert observe(sample_world(o, random.Random(p)), p, visibility) == o


@pytest.mark.parametrize("card", ["A♠", 12, None])
def test_odds_and_places_refuse_what_is_not_a_card_naming_it(card: Any) -> None:
    message = f"odds needs a Card, got {type(card).__name__} {card!r} (Card.parse reads text)"
    for ask in (odds, places):
        with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
            ask(_START, card)


def test_histories_of_different_sizes_differ_and_overlap_is_no_subset() -> None:
    small, large = History([(1,)]), History([(1,), (2,)])
    assert small != large and large != small and small <= large and not large <= small
    assert small not in ({(1,)}, [(1,)]) and History() != ()
    overlapping = History([(1,), (3,)])
    assert not overlapping <= large and not large <= overlapping and not overlapping < large


def test_a_smaller_history_is_a_proper_subset_only_when_every_key_is_in_the_larger() -> None:
    small, large, outside = History([(1,)]), History([(1,), (2,)]), History([(3,)])
    assert small < large and not outside < large and not large < small
    assert not large < History([(2,), (1,)])


class _Racing(list[tuple[int, ...]]):
    """A key list that another thread extends first at the next append."""

    def append(self, key: tuple[int, ...]) -> None:
        super().append((99,))
        super().append(key)


def test_history_growing_at_a_tip_another_thread_extended_first_copies() -> None:
    tip = History._view(_Racing([(0,)]), {(0,): 0}, 1)
    grown = tip.add((1,))
    assert list(grown) == [(0,), (1,)] and (99,) not in grown and list(tip) == [(0,)]


def test_a_game_drawn_by_repetition_is_observed_and_sampled_with_cards_in_hand() -> None:
    # Every defender takes and the others pass until a bout start repeats
    # (test_scenarios.test_three_player_perpetual_take_is_a_draw).
    s = position(Rules(players=3), [["6H", "7H"], ["6D", "7D"], ["6C", "7C"]], trump=Suit.S)
    while s.turn >= 0:
        taking = s.turn == s.defender and not s.taking
        s = step(s, legal_actions(s)[0] if not s.table else TAKE if taking else PASS)
    assert all(s.hand_masks) and not s.players_out
    for p in range(3):
        o = observe(s, p)
        assert observe(sample_world(o, random.Random(p)), p) == o


def test_an_observation_is_terminal_exactly_when_the_game_is_over() -> None:
    first_to_act = next(o for o in (_START, _DEFENCE, _ASKED) if o.turn == 0)
    assert not first_to_act.is_terminal and _OVER.is_terminal


@pytest.mark.parametrize("bad", [0, 1, 1.0])
def test_a_visibility_equal_to_a_bool_but_not_one_is_refused(bad: object) -> None:
    state = new_game(SHORT, 1)
    with pytest.raises(RulesError) as raised:
        observe(state, 0, open_world=bad)  # type: ignore[arg-type]
    assert str(raised.value) == f"open_world must be False, True or 'full', got {bad}"


def test_with_the_talon_empty_a_hidden_card_is_in_the_opponents_hand_only() -> None:
    o = _view(SHORT, lambda s: not s.talon and s.turn >= 0 and bool(s.hand_masks[1 - s.turn]))
    card = next(iter(o.hidden_cards()))
    assert odds(o, card) == {1 - o.player: Fraction(1)}


def test_odds_of_a_card_missing_from_a_full_view_are_refused() -> None:
    full = observe(random_game(SHORT, 2)[3], 0, open_world="full")
    assert full.talon_order is not None and len(full.talon_order) > 1
    top, *rest = full.talon_order
    forged = _forge(full, talon_order=tuple(rest), talon_size=full.talon_size - 1)
    with pytest.raises(RulesError, match=r"^inconsistent observation: "):
        odds(forged, top)


class _LookAlike:
    """Not a card, though it carries the index, rank and suit of one."""

    def __init__(self, card: Card) -> None:
        self.index, self.rank, self.suit = card.index, card.rank, card.suit


def test_a_card_look_alike_is_never_legal() -> None:
    lead = new_game(SHORT, 1)
    held = next(iter(lead.hands[lead.turn]))
    fake: Any = _LookAlike(held)
    with pytest.raises(IllegalActionError):
        step(lead, Attack(fake))
    rules = attrs.evolve(SHORT, transfer=True)
    hands = [["9S", "10S", "KS"], ["9H", "JS", "QH"]]
    s = step(position(rules, hands, Suit.C), Attack(Card.parse("9S")))
    nine, jack = Card.parse("9H"), Card.parse("JS")
    assert {Transfer(nine), Defend(Card.parse("9S"), jack)} <= set(legal_actions(s))
    for action in (Transfer(_LookAlike(nine)), Defend(Card.parse("9S"), _LookAlike(jack))):  # type: ignore[arg-type]
        with pytest.raises(IllegalActionError):
            step(s, action)


def test_no_transfer_without_the_transfer_rule() -> None:
    s = position(SHORT, [["9S", "10S", "KS"], ["9H", "JS", "QH"]], Suit.C)
    s = step(s, Attack(Card.parse("9S")))
    transfer = Transfer(Card.parse("9H"))
    assert transfer not in legal_actions(s)
    with pytest.raises(IllegalActionError):
        step(s, transfer)


def test_in_the_open_world_the_talons_trumps_change_no_draw() -> None:
    # Every hand is shown, so where a card came from no longer matters: the same seed
    # draws the same world with or without the record of the talon's trumps.
    o = _view(
        SHORT,
        lambda s: s.turn >= 0 and any(c in s.knowledge.from_talon for c in s.talon[:-1]),
        open_world=True,
    )
    unrecorded = _with_knowledge(o, from_talon=CardSet(), origins=())
    for seed in range(5):
        world = sample_world(o, random.Random(seed))
        same = sample_world(unrecorded, random.Random(seed))
        assert (world.talon, world.hand_masks) == (same.talon, same.hand_masks)


def test_a_card_already_beaten_is_never_beaten_again() -> None:
    # The extra mutation pass: without is_legal's "not yet beaten" test, a defence of a
    # beaten card was legal to step (it replaced the first defence on the table).
    s = position(Rules(), [["6S", "6H", "KC"], ["7S", "7H", "AS"]], trump=Suit.D)
    s = step(s, Attack(Card.parse("6S")))
    s = step(s, Defend(Card.parse("6S"), Card.parse("7S")))
    s = step(s, Attack(Card.parse("6H")))
    again = Defend(Card.parse("6S"), Card.parse("AS"))
    assert again not in legal_actions(s)
    with pytest.raises(IllegalActionError, match=r"illegal action .* for player 1 \(defender\)"):
        step(s, again)
    assert step(s, Defend(Card.parse("6H"), Card.parse("7H"))).turn == 0


def test_a_position_with_no_origins_record_plays_on_without_one() -> None:
    # A hand-built observation may list trumps known to be from the talon without the
    # record of where the unknown cards came from (the sampler then assumes it); a world
    # drawn from it plays its cards without starting a record.
    state = next(s for seed in range(100) if (s := new_game(Rules(), seed)).knowledge.from_talon)
    o = observe(state, state.turn)
    bare = attrs.evolve(o, knowledge=Knowledge(o.knowledge.exposed, o.knowledge.from_talon))
    world = sample_world(bare, random.Random(3))
    assert world.knowledge.from_talon == o.knowledge.from_talon and not world.knowledge.origins
    unknown = next(
        a
        for a in legal_actions(world)
        if a.card not in world.knowledge.exposed  # type: ignore[union-attr]
    )
    after = step(world, unknown)
    assert after.knowledge.origins == () and after.knowledge.from_talon == o.knowledge.from_talon


@pytest.mark.parametrize("suits", [1, 2, 3])
def test_a_trump_suit_outside_a_deck_of_fewer_suits_is_refused(suits: int) -> None:
    # The extra mutation pass: the first suit past the deck's was accepted as the trump.
    rules = Rules(suits=suits, lowest_rank=12, hand_size=1)
    hands = [["QS", "KS"], ["AS"]]
    outside = Suit(suits)
    with pytest.raises(RulesError, match=f"trump suit {outside} is not in the {3 * suits}-card"):
        position(rules, hands, trump=outside)
    assert position(rules, hands, trump=Suit(suits - 1)).trump_suit is Suit(suits - 1)
