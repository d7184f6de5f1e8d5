"""Decks of fewer than four suits (``Rules.suits``, ``docs/rules.md``, "Options"): the deck,
the deal, the shared legality and leak checks, the encodings, the DMC features and the CLI.

The small decks exist for exact game-theoretic study (issue 40): 2 suits of 3 ranks is a
6-card game with real choices that OpenSpiel's tree tools can walk.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import attrs
import numpy as np
import pytest
from typer.testing import CliRunner

from durak.cli.app import app
from durak.cli.options import describe_rules, rules_flags
from durak.encoding import ActionSpace, card_bits, encode_observation, observation_size
from durak.learn.dmc.features import decision_rows
from durak.rules import (
    CardSet,
    Rules,
    RulesError,
    Suit,
    action_universe,
    deal,
    deck_cards,
    new_game,
    observe,
    position,
    sample_world,
)
from durak.testing.games import play_random_game
from durak.testing.observations import check_observation_invariance, check_sampled_worlds
from tests.support.invariants import check_invariants

#: Q, K, A of spades and hearts.
SIX = Rules(lowest_rank=12, suits=2, hand_size=2)
runner = CliRunner()


def test_the_deck_is_the_first_suits_of_each_rank() -> None:
    assert [str(c) for c in deck_cards(12, 2)] == ["Q♠", "Q♥", "K♠", "K♥", "A♠", "A♥"]
    assert [str(c) for c in deck_cards(13, 3)] == ["K♠", "K♥", "K♦", "A♠", "A♥", "A♦"]
    assert deck_cards(6, 4) == deck_cards(6)  # four suits: the usual deck


def test_a_deal_uses_only_the_deck_and_draws_the_trump_among_its_suits() -> None:
    trumps: Counter[Suit | None] = Counter()
    for seed in range(60):
        state = new_game(SIX, seed)
        cards = CardSet.from_cards(state.talon) | state.hands[0] | state.hands[1]
        assert cards == CardSet.from_cards(deck_cards(12, 2))
        assert state.trump_card is not None and state.trump_card is state.talon[-1]
        trumps[state.trump_suit] += 1
    assert set(trumps) == {Suit.S, Suit.H}


def test_a_card_or_trump_outside_the_suits_is_refused_in_one_line() -> None:
    clubs = ["QS", "QH", "KS", "KH", "AS", "AC"]
    with pytest.raises(RulesError, match=r"missing: \[A♥\], not in this deck: \[A♣\]$"):
        deal(SIX, clubs)
    with pytest.raises(RulesError, match=r"^A♣ \(hand 1\) is not in the 6-card deck$"):
        position(SIX, [["QS"], ["AC"]], Suit.S)
    with pytest.raises(RulesError, match=r"^trump suit ♣ is not in the 6-card deck$"):
        position(SIX, [["QS"], ["AH"]], Suit.C)


def test_an_observation_with_a_trump_suit_outside_the_deck_is_inconsistent() -> None:
    o = observe(position(SIX, [["QS", "KS"], ["AH"]], Suit.S), 0)
    sample_world(o, random.Random(0))  # the genuine one is accepted
    forged = attrs.evolve(o, trump_suit=Suit.D)
    message = "^inconsistent observation: the trump suit ♦ is not in the 6-card deck$"
    with pytest.raises(RulesError, match=message):
        sample_world(forged, random.Random(0))


@pytest.mark.parametrize(
    "rules",
    [
        SIX,
        Rules(lowest_rank=12, suits=2, hand_size=1, transfer=True),
        Rules(players=3, lowest_rank=11, suits=3, hand_size=3, transfer=True),
        Rules(players=3, lowest_rank=10, suits=2, hand_size=2, throw_in="neighbours"),
        Rules(lowest_rank=9, suits=1, hand_size=3),  # every card a trump
        Rules(lowest_rank=12, suits=2, hand_size=2, trumps=False),
    ],
    ids=lambda r: f"{r.players}p-{r.deck_size}cards-{r.suits}suits",
)
def test_random_games_are_legal_and_leak_free(rules: Rules) -> None:
    for seed in range(8):
        states, _ = play_random_game(rules, seed)
        rng = random.Random(seed)
        for i, state in enumerate(states):
            check_invariants(state)
            if i % 3 == 0 and state.turn >= 0:
                check_observation_invariance(state, state.turn, rng)
                check_sampled_worlds(
                    state, (state.turn + 1) % rules.players, seed, check_invariants
                )


def test_the_action_space_is_the_deck_s_universe() -> None:
    space = ActionSpace(SIX)
    universe = action_universe(deck_cards(12, 2))
    assert space.size == 6 * 7 + 2 == len(universe)
    assert space.actions == tuple(universe)
    assert [space.decode(space.encode(a)) for a in universe] == list(universe)
    club = next(a for a in ActionSpace(Rules(lowest_rank=12)).actions if "♣" in str(a))
    with pytest.raises(ValueError, match="not in the action space of the 6-card deck"):
        space.encode(club)


def test_the_observation_encoding_has_one_slot_per_deck_card() -> None:
    state = new_game(SIX, 3)
    o = observe(state, 0)
    vector = encode_observation(o)
    assert vector.shape == (observation_size(SIX),) == ((2 + 5) * 6 + 4 * 2 + 13,)
    hand = card_bits(o.hand.mask, SIX)
    assert hand.shape == (6,) and hand.sum() == 2
    deck = deck_cards(12, 2)
    assert [deck[i] for i in np.flatnonzero(hand)] == list(o.hand)
    assert np.array_equal(vector[:6], hand)
    assert card_bits(CardSet.of("AC", "QD").mask, SIX).sum() == 0  # outside the deck


def test_the_dmc_rows_put_the_trump_suit_first_on_two_suits() -> None:
    checked = 0
    for seed in range(10):
        state = new_game(SIX, seed)
        o = observe(state, state.turn)
        rows = decision_rows(o, o.legal_actions)
        pairs = rows[0, :6].reshape(3, 2)  # own hand: one pair of slots per rank
        trumps = sum(1 for c in o.hand if c.suit is o.trump_suit)
        assert pairs[:, 0].sum() == trumps and pairs.sum() == len(o.hand)
        checked += o.trump_suit is Suit.H  # hearts moved to the first slot
    assert checked


def test_the_cli_takes_suits_and_reports_them() -> None:
    result = runner.invoke(
        app,
        ["match", "random", "lowest", "-n", "4", "--seed", "2", "-j", "1", "--json"],
        catch_exceptions=False,
    )
    assert json.loads(result.stdout)["rules"]["suits"] == 4
    args = ["match", "random", "lowest", "-n", "4", "--seed", "2", "-j", "1"]
    small = ["--suits", "2", "--lowest-rank", "12", "--hand-size", "2", "--json"]
    result = runner.invoke(app, [*args, *small])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rules"] == attrs.asdict(SIX)
    assert "6 cards (queen to ace, ♠♥)" in result.stderr
    assert describe_rules(SIX).startswith("2 players, 6 cards (queen to ace, ♠♥), hand 2,")
    assert "♠" not in describe_rules(Rules())
    assert rules_flags(SIX) == ["--lowest-rank", "12", "--suits", "2", "--hand-size", "2"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--suits", "0"], "error: Rules.suits must be 1..4, got 0"),
        (["--suits", "5"], "error: Rules.suits must be 1..4, got 5"),
        (
            ["--suits", "1", "--lowest-rank", "13"],
            "error: 2 players × hand_size 6 = 12 cards, more than the 2-card deck "
            "(lowest_rank=13, suits=1)",
        ),
    ],
)
def test_a_bad_suits_option_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["match", "random", "random", "-n", "2", "--seed", "1", *args])
    assert result.exit_code == 2
    assert result.stderr.strip() == message
