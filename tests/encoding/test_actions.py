"""The fixed action encoding (:class:`durak.encoding.ActionSpace`): exact round trips over
the whole action universe of many variants, masks equal to ``legal_actions`` over random
games, and clear errors for bad input."""

from __future__ import annotations

import itertools
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import given

from durak.encoding import ActionSpace, action_space_size
from durak.rules import (
    Attack,
    Card,
    Defend,
    Pass,
    Rules,
    Take,
    Transfer,
    action_universe,
    legal_actions,
    parse_action,
)
from durak.rules.cards import deck_cards
from durak.testing.games import play_random_game
from durak.testing.strategies import rules as rules_strategy
from durak.testing.strategies import seeds

VARIANTS = [
    Rules(players=n, lowest_rank=low, hand_size=min(6, 4 * (15 - low) // n), transfer=t)
    for n, low, t in itertools.product((2, 3, 6), (2, 6, 9), (False, True))
]


@pytest.mark.parametrize("rules", VARIANTS, ids=str)
def test_round_trip_of_every_action(rules: Rules) -> None:
    space = ActionSpace(rules)
    universe = action_universe(deck_cards(rules.lowest_rank, rules.suits))
    assert space.size == len(universe) == action_space_size(rules)
    indices = [space.encode(a) for a in universe]
    assert indices == list(range(space.size)), "index order is the canonical action order"
    for i, a in enumerate(universe):
        assert space.decode(i) == a
        assert space.encode(space.decode(i)) == i


@pytest.mark.parametrize(
    ("lowest_rank", "size"), [(6, 1334), (2, 2758), (9, 602)], ids=["36", "52", "24"]
)
def test_documented_sizes(lowest_rank: int, size: int) -> None:
    for players in (2, 6):
        rules = Rules(players=players, lowest_rank=lowest_rank, hand_size=4)
        assert ActionSpace(rules).size == size


def test_documented_layout() -> None:
    space = ActionSpace(Rules())  # 36 cards: 6♠ is deck card 0, A♣ is deck card 35
    d = 36
    assert space.encode(parse_action("Attack(6♠)")) == 0
    assert space.encode(parse_action("Attack(A♣)")) == d - 1
    assert space.encode(parse_action("Defend(6♠<-6♥)")) == d
    assert space.encode(parse_action("Defend(6♥<-6♠)")) == d + (d - 1)
    assert space.encode(parse_action("Defend(A♣<-A♦)")) == d + d * (d - 1) - 1
    assert space.encode(parse_action("Transfer(6♠)")) == d + d * (d - 1)
    assert space.encode(Take()) == space.size - 2
    assert space.encode(Pass()) == space.size - 1


@given(rules_strategy(), seeds())
def test_mask_is_exactly_the_legal_actions(rules: Rules, seed: int) -> None:
    space = ActionSpace(rules)
    states, actions = play_random_game(rules, seed)
    for state, action in zip(states, actions, strict=False):
        legal = legal_actions(state)
        mask = space.mask(legal)
        assert mask.shape == (space.size,)
        assert mask.dtype == np.bool_
        expected = sorted(space.encode(a) for a in legal)
        assert np.flatnonzero(mask).tolist() == expected
        assert [space.decode(i) for i in expected] == list(legal)
        assert mask[space.encode(action)]
    assert not space.mask(legal_actions(states[-1])).any()


def test_equal_instances_encode_alike() -> None:
    space = ActionSpace(Rules(players=3, transfer=True))
    card = Card.parse("10H")
    assert space.encode(Attack(card)) == space.encode(parse_action("Attack(10♥)"))
    assert space.decode(space.encode(Transfer(card))) == Transfer(card)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (Attack(Card.parse("2S")), "not in the action space of the 36-card deck"),
        (Defend(Card.parse("6S"), Card.parse("5S")), "not in the action space"),
        (Defend(Card.parse("7S"), Card.parse("7S")), "card defending itself"),
        (Transfer(Card.parse("3C")), "not in the action space"),
        ("Take", "not a Durak action"),
        (None, "not a Durak action"),
        ([1, 2], "not a Durak action"),
    ],
)
def test_encode_rejects_bad_actions(action: object, message: str) -> None:
    space = ActionSpace(Rules())
    with pytest.raises(ValueError, match=message):
        space.encode(action)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        space.mask([Take(), action])  # type: ignore[list-item]


@pytest.mark.parametrize("index", [-1, 1334, 10**9, 1.0, "3", True, None])
def test_decode_rejects_bad_indices(index: object) -> None:
    space = ActionSpace(Rules())
    with pytest.raises(ValueError, match="action index"):
        space.decode(index)  # type: ignore[arg-type]


def test_decode_accepts_numpy_integers() -> None:
    space = ActionSpace(Rules())
    assert space.decode(np.int64(space.size - 1)) == Pass()
    with pytest.raises(ValueError, match="out of range"):
        space.decode(np.int64(space.size))


def test_core_library_does_not_import_numpy() -> None:
    code = (
        "import sys, durak, durak.rules, durak.search, durak.agents\n"
        "assert 'numpy' not in sys.modules, 'the core imported numpy'\n"
        "import durak.encoding\n"
        "assert 'numpy' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_every_refusal_reads_whole() -> None:
    space = ActionSpace(Rules())
    cases: list[tuple[Any, str]] = [
        (lambda: space.encode("Take"), "not a Durak action: 'Take'"),  # type: ignore[arg-type]
        (
            lambda: space.encode(Attack(Card.parse("2S"))),
            "Attack(2♠) is not in the action space of the 36-card deck"
            " (a card outside the deck, or a card defending itself)",
        ),
        (lambda: space.decode("3"), "action index must be an int, got '3'"),  # type: ignore[arg-type]
        (lambda: space.decode(True), "action index must be an int, got True"),
        (lambda: space.decode(1334), "action index 1334 out of range 0..1333"),
        (lambda: space.decode(-1), "action index -1 out of range 0..1333"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError) as caught:
            call()
        assert str(caught.value) == message
    assert space.decode(0) == space.actions[0] and space.decode(1333) == space.actions[1333]
    assert [space.is_index(i) for i in (0, 1333, 1334, -1, True, 2.0, np.int32(5))] == [
        True, True, False, False, False, False, True
    ]  # fmt: skip
    assert space.encode_all([Pass(), Take()]) == [space.encode(Pass()), space.encode(Take())]
