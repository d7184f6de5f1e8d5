"""Validation and defaults of :class:`Rules`."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from durak.rules import Rules, RulesError


def test_defaults() -> None:
    r = Rules()
    assert r.players == 2
    assert r.lowest_rank == 6
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


def test_valid_extremes() -> None:
    assert Rules(players=6, lowest_rank=6, hand_size=6).deck_size == 36
    assert Rules(players=6, lowest_rank=2, hand_size=8).players == 6
    assert Rules(players=2, lowest_rank=14, hand_size=2).deck_size == 4
    assert Rules(bout_cap=1, first_bout_cap=1).first_bout_cap == 1
    assert Rules(throw_in="neighbours", transfer=True, trumps=False).throw_in == "neighbours"


@pytest.mark.parametrize(
    ("kwargs", "names"),
    [
        ({"players": 7}, "players"),
        ({"players": 1}, "players"),
        ({"players": 0}, "players"),
        ({"players": 2.5}, "players"),
        ({"players": True}, "players"),
        ({"players": "2"}, "players"),
        ({"lowest_rank": 15}, "lowest_rank"),
        ({"lowest_rank": 1}, "lowest_rank"),
        ({"lowest_rank": 6.0}, "lowest_rank"),
        ({"hand_size": 0}, "hand_size"),
        ({"hand_size": -1}, "hand_size"),
        ({"players": 6, "lowest_rank": 9, "hand_size": 6}, "hand_size"),
        ({"players": 2, "lowest_rank": 14, "hand_size": 3}, "hand_size"),
        ({"bout_cap": 0}, "bout_cap"),
        ({"bout_cap": None}, "bout_cap"),
        ({"first_bout_cap": 0}, "first_bout_cap"),
        ({"first_bout_cap": 2.5}, "first_bout_cap"),
        ({"first_bout_cap": True}, "first_bout_cap"),
        ({"throw_in": "left"}, "throw_in"),
        ({"throw_in": "All"}, "throw_in"),
        ({"transfer": "yes"}, "transfer"),
        ({"transfer": 1}, "transfer"),
        ({"trumps": None}, "trumps"),
        ({"trumps": 0}, "trumps"),
    ],
)
def test_inconsistent_option_raises_naming_it(kwargs: dict[str, Any], names: str) -> None:
    with pytest.raises(RulesError, match=names):
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
