"""Validation and defaults of :class:`Rules`."""

from __future__ import annotations

import re
from typing import Any

import attrs
import pytest

from durak.rules import Rules, RulesError


def test_defaults() -> None:
    r = Rules()
    assert r.players == 2
    assert r.lowest_rank == 6
    assert r.suits == 4
    assert r.hand_size == 6
    assert r.bout_cap == 6
    assert r.first_bout_cap is None
    assert r.throw_in == "all"
    assert r.transfer is False
    assert r.trumps is True
    assert r.deck_size == 36


@pytest.mark.parametrize(("lowest", "size"), [(2, 52), (6, 36), (7, 32), (9, 24), (14, 4)])
def test_deck_size(lowest: int, size: int) -> None:
    assert Rules(lowest_rank=lowest, hand_size=1).deck_size == size


@pytest.mark.parametrize(
    ("lowest", "suits", "size"), [(12, 2, 6), (11, 2, 8), (13, 3, 6), (12, 3, 9), (13, 1, 2)]
)
def test_deck_size_counts_the_suits(lowest: int, suits: int, size: int) -> None:
    assert Rules(lowest_rank=lowest, suits=suits, hand_size=1).deck_size == size


def test_valid_extremes() -> None:
    assert Rules(players=6, lowest_rank=6, hand_size=6).deck_size == 36
    assert Rules(players=6, lowest_rank=2, hand_size=8).players == 6
    assert Rules(players=2, lowest_rank=14, hand_size=2).deck_size == 4
    assert Rules(bout_cap=1, first_bout_cap=1).first_bout_cap == 1
    assert Rules(throw_in="neighbours", transfer=True, trumps=False).throw_in == "neighbours"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 7}, "Rules.players must be 2..6, got 7"),
        ({"players": 1}, "Rules.players must be 2..6, got 1"),
        ({"players": 0}, "Rules.players must be 2..6, got 0"),
        ({"players": 2.5}, "Rules.players must be an int, got 2.5"),
        ({"players": True}, "Rules.players must be an int, got True"),
        ({"players": "2"}, "Rules.players must be an int, got '2'"),
        ({"lowest_rank": 15}, "Rules.lowest_rank must be 2..14, got 15"),
        ({"lowest_rank": 1}, "Rules.lowest_rank must be 2..14, got 1"),
        ({"lowest_rank": 6.0}, "Rules.lowest_rank must be an int, got 6.0"),
        ({"suits": 0}, "Rules.suits must be 1..4, got 0"),
        ({"suits": 5}, "Rules.suits must be 1..4, got 5"),
        ({"suits": 2.0}, "Rules.suits must be an int, got 2.0"),
        ({"suits": True}, "Rules.suits must be an int, got True"),
        ({"hand_size": 0}, "Rules.hand_size must be at least 1, got 0"),
        ({"hand_size": -1}, "Rules.hand_size must be at least 1, got -1"),
        ({"players": 6, "lowest_rank": 9, "hand_size": 6},
         "6 players × hand_size 6 = 36 cards, more than the 24-card deck (lowest_rank=9, suits=4)"),
        ({"players": 2, "lowest_rank": 14, "hand_size": 3},
         "2 players × hand_size 3 = 6 cards, more than the 4-card deck (lowest_rank=14, suits=4)"),
        ({"players": 2, "lowest_rank": 12, "suits": 2, "hand_size": 4},
         "2 players × hand_size 4 = 8 cards, more than the 6-card deck (lowest_rank=12, suits=2)"),
        ({"bout_cap": 0}, "Rules.bout_cap must be at least 1, got 0"),
        ({"bout_cap": None}, "Rules.bout_cap must be an int, got None"),
        ({"first_bout_cap": 0}, "Rules.first_bout_cap must be None or at least 1, got 0"),
        ({"first_bout_cap": 2.5}, "Rules.first_bout_cap must be an int, got 2.5"),
        ({"first_bout_cap": True}, "Rules.first_bout_cap must be an int, got True"),
        ({"throw_in": "left"}, "Rules.throw_in must be one of all, neighbours, got 'left'"),
        ({"throw_in": "All"}, "Rules.throw_in must be one of all, neighbours, got 'All'"),
        ({"transfer": "yes"}, "Rules.transfer must be a bool, got 'yes'"),
        ({"transfer": 1}, "Rules.transfer must be a bool, got 1"),
        ({"trumps": None}, "Rules.trumps must be a bool, got None"),
        ({"trumps": 0}, "Rules.trumps must be a bool, got 0"),
    ],
)  # fmt: skip
def test_an_inconsistent_option_is_refused_naming_it_and_its_value(
    kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(RulesError, match=f"^{re.escape(message)}$"):
        Rules(**kwargs)


def test_deck_overflow_message_names_the_numbers() -> None:
    with pytest.raises(RulesError, match="36 cards") as info:
        Rules(players=6, lowest_rank=9, hand_size=6)
    assert "24-card deck" in str(info.value)


def test_rules_error_is_value_error() -> None:
    with pytest.raises(ValueError, match="players"):
        Rules(players=7)


def test_frozen() -> None:
    r = Rules()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        r.players = 3  # type: ignore[misc]
    assert r.players == 2


def test_evolve_revalidates() -> None:
    with pytest.raises(RulesError, match="players"):
        attrs.evolve(Rules(), players=9)
    assert attrs.evolve(Rules(), players=3) == Rules(players=3)


def test_hashable_and_equal_by_value() -> None:
    assert Rules() == Rules()
    assert hash(Rules()) == hash(Rules())
    assert Rules(transfer=True) != Rules()
    assert Rules(players=3) != Rules()
    table = {Rules(): "podkidnoy", Rules(transfer=True): "perevodnoy"}
    assert table[Rules(transfer=True)] == "perevodnoy"
    assert len({Rules(), Rules(), Rules(players=3)}) == 2
