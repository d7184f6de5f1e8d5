"""Inference from the current bout (``durak.agents.inference``): sound against ``greedy``,
silent about moves the model cannot explain, and a sampler that keeps to the observation."""

from __future__ import annotations

import random

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from durak.agents.inference import bout_exclusions, sample_fitting
from durak.agents.simple import greedy_action
from durak.agents.tactics import power
from durak.rules import (
    Attack,
    CardSet,
    GameState,
    Rules,
    is_terminal,
    legal_actions,
    new_game,
    observe,
    sample_world,
    step,
)
from strategies import rebuild


def _observed_games(rules: Rules, seed: int) -> list[tuple[GameState, dict[int, CardSet]]]:
    """A game where player 0 plays at random and everyone else plays ``greedy``: every state
    where player 0 decides, with what it infers there."""
    rng = random.Random(seed)
    state = new_game(rules, seed)
    seen: list[tuple[GameState, dict[int, CardSet]]] = []
    while not is_terminal(state):
        p = state.turn
        if p == 0:
            seen.append((state, bout_exclusions(observe(state, 0))))
            action = rng.choice(legal_actions(state))
        else:
            action = greedy_action(observe(state, p))
        state = step(state, action)
    return seen


@settings(max_examples=30, deadline=None)
@given(
    players=st.integers(2, 4),
    transfer=st.booleans(),
    lowest=st.sampled_from([6, 9, 10]),
    seed=st.integers(0, 10**6),
)
def test_a_greedy_opponent_never_holds_a_card_its_moves_rule_out(
    players: int, transfer: bool, lowest: int, seed: int
) -> None:
    hand = min(6, 4 * (15 - lowest) // players)
    rules = Rules(players=players, lowest_rank=lowest, hand_size=hand, transfer=transfer)
    for state, excluded in _observed_games(rules, seed):
        obs = observe(state, 0)
        for p, cards in excluded.items():
            assert p != 0
            assert not state.hand_masks[p] & cards.mask, (p, cards)
            assert cards.mask & ~obs.hidden_cards().mask == 0, "only hidden cards are excluded"
        if transfer:
            assert excluded == {}


def test_inference_finds_something_in_most_bouts_against_greedy() -> None:
    decisions = [e for seed in range(20) for _, e in _observed_games(Rules(), seed)]
    inferred = sum(1 for e in decisions if e)
    assert inferred > 0.3 * len(decisions), (inferred, len(decisions))


def _greedy_lead(seed: int) -> GameState:
    """A 2-player state where ``greedy`` (player 1) has just led and player 0 must answer."""
    state = new_game(Rules(), seed)
    rng = random.Random(seed)
    while True:
        assert not is_terminal(state)
        p = state.turn
        action = greedy_action(observe(state, p)) if p == 1 else rng.choice(legal_actions(state))
        state = step(state, action)
        if p == 1 and isinstance(action, Attack) and len(state.table) == 1 and state.talon:
            return state


@pytest.mark.parametrize("seed", range(6))
def test_a_greedy_lead_rules_out_exactly_the_weaker_hidden_cards(seed: int) -> None:
    state = _greedy_lead(seed)
    obs = observe(state, 0)
    lead, trump = state.table[0][0], obs.trump_suit
    weaker = {c for c in obs.hidden_cards() if power(c, trump) < power(lead, trump)}
    assert set(bout_exclusions(obs).get(1, CardSet())) == weaker


def test_a_move_greedy_would_not_make_teaches_nothing() -> None:
    """Give the leader a weaker card than its lead: hidden, the lead rules it out; known to
    all, greedy could not have led so, and nothing is inferred."""
    for seed in range(40):
        state = _greedy_lead(seed)
        lead, trump = state.table[0][0], state.trump_suit
        weak = next((c for c in state.talon[:-1] if power(c, trump) < power(lead, trump)), None)
        if weak is not None:
            break
    else:
        pytest.fail("no deal with a card weaker than the lead in the talon")
    strong = next(iter(CardSet(state.hand_masks[1])))
    talon = tuple(strong if c is weak else c for c in state.talon)
    masks = (state.hand_masks[0], state.hand_masks[1] & ~(1 << strong.index) | 1 << weak.index)
    hidden = rebuild(state, hand_masks=masks, talon=talon)
    assert weak in bout_exclusions(observe(hidden, 0))[1]
    exposed = attrs.evolve(hidden.knowledge, exposed=hidden.knowledge.exposed.add(weak))
    shown = rebuild(hidden, knowledge=exposed)
    assert weak in observe(shown, 0).known_cards(1)
    assert bout_exclusions(observe(shown, 0)) == {}


def test_sample_fitting_keeps_to_the_observation_and_avoids_the_exclusions() -> None:
    obs = next(o for o in (observe(_greedy_lead(k), 0) for k in range(20)) if bout_exclusions(o))
    excluded = bout_exclusions(obs)
    rng = random.Random(5)
    for _ in range(50):
        world = sample_fitting(obs, rng, excluded, tries=200)
        assert observe(world, 0) == obs
        assert not world.hand_masks[1] & excluded[1].mask
    again = [sample_fitting(obs, random.Random(3), excluded, tries=200) for _ in range(2)]
    assert again[0] == again[1]


def test_sample_fitting_returns_the_closest_world_when_none_fits() -> None:
    state = _greedy_lead(2)
    obs = observe(state, 0)
    hidden = list(obs.hidden_cards())
    room = len(hidden) - obs.unknown_count(1)  # the talon's hidden places
    too_many = {1: CardSet.from_cards(hidden[: room + 2])}  # at least 2 must be in hand
    draws = random.Random(0)
    misses = [(sample_world(obs, draws).hand_masks[1] & too_many[1].mask).bit_count()
              for _ in range(30)]  # fmt: skip
    world = sample_fitting(obs, random.Random(0), too_many, tries=30)
    assert observe(world, 0) == obs
    assert (world.hand_masks[1] & too_many[1].mask).bit_count() == min(misses) >= 2
    assert max(misses) > min(misses)
    with pytest.raises(ValueError, match="tries"):
        sample_fitting(obs, random.Random(0), too_many, tries=0)
