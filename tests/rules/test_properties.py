"""Property-based verification of the rules engine over random variants and random play.

Every property draws a random :class:`Rules` (``durak.testing.strategies.rules``) and a seed,
and plays a whole game with the shared uniform-random policy
(``durak.testing.games.play_random_game``).
The example counts come from the Hypothesis profile (``conftest.py``).
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from durak.rules import (
    Action,
    Attack,
    Card,
    CardSet,
    Defend,
    GameState,
    IllegalActionError,
    Knowledge,
    Pass,
    Rules,
    RulesError,
    Take,
    Transfer,
    action_universe,
    is_terminal,
    legal_actions,
    new_game,
    observe,
    places,
    position,
    returns,
    sample_world,
    step,
    step_unchecked,
)
from durak.rules.cards import CARDS, deck_cards
from durak.testing import check_random_game
from durak.testing.games import full_position, is_bout_start, play_random_game
from durak.testing.observations import check_observation_invariance, check_sampled_worlds
from durak.testing.strategies import rules as rules_strategy
from durak.testing.strategies import seeds
from durak.testing.worlds import fill, hidden_slots, rebuild
from tests.support.fingerprints import fingerprint
from tests.support.invariants import check_invariants
from tests.support.rules_reference import check_step_matches_reference

GAMES = given(rules=rules_strategy(), seed=seeds())


# --------------------------------------------------------------------------- helpers


def sample_states(states: Sequence[GameState], seed: int, k: int) -> list[GameState]:
    """The deal, the terminal state and ``k`` other states of a game, chosen by ``seed``."""
    rng = random.Random(seed ^ 0x5EED)
    middle = range(1, len(states) - 1)
    picked = sorted(rng.sample(middle, min(k, len(middle))))
    return [states[0], *(states[i] for i in picked), states[-1]]


def next_active(p: int, n: int, out: frozenset[int]) -> int:
    """The next player clockwise from ``p`` who has not left (the rules' definition)."""
    q = (p + 1) % n
    while q in out:
        q = (q + 1) % n
    return q


def fresh(action: Action) -> Action:
    """An equal action that is a different object from the engine's interned one."""
    if isinstance(action, Attack):
        return Attack(action.card)
    if isinstance(action, Defend):
        return Defend(action.target, action.card)
    if isinstance(action, Transfer):
        return Transfer(action.card)
    if isinstance(action, Take):
        return Take()
    return Pass()


def bout_starts(states: Sequence[GameState]) -> Iterator[GameState]:
    return (s for s in states if is_bout_start(s))


# ------------------------------------------------------------ play and invariants


@GAMES
def test_invariants_hold_in_every_state(rules: Rules, seed: int) -> None:
    states, actions = play_random_game(rules, seed)
    assert len(states) == len(actions) + 1
    for s in states:
        check_invariants(s)
    assert is_terminal(states[-1])
    assert not any(is_terminal(s) for s in states[:-1])


@given(rules=rules_strategy(), seed=seeds(), passive=st.sampled_from([0.0, 0.9]))
def test_the_shipped_game_check_passes(rules: Rules, seed: int, passive: float) -> None:
    """``durak.testing.check_random_game``: every transition moves cards as its action says,
    no position repeats, and the game ends with returns as docs/rules.md says."""
    report = check_random_game(rules, seed, passive=passive)
    states, actions = play_random_game(rules, seed, passive)
    assert report.steps == len(actions) and report.returns == returns(states[-1])


@GAMES
def test_steps_follow_the_rules(rules: Rules, seed: int) -> None:
    """Differential test: every step agrees with the literal model of ``rules_reference.py``."""
    states, actions = play_random_game(rules, seed)
    for s, a, t in zip(states[:-1], actions, states[1:], strict=True):
        check_step_matches_reference(s, a, t)


@GAMES
def test_every_legal_action_steps(rules: Rules, seed: int) -> None:
    states, _ = play_random_game(rules, seed)
    for s in sample_states(states, seed, 30):
        for a in legal_actions(s):
            t = step(s, a)
            check_invariants(t)
            assert t != s
            assert step_unchecked(s, a) == t
            assert step(s, fresh(a)) == t
            check_step_matches_reference(s, a, t)


@GAMES
def test_illegal_actions_raise(rules: Rules, seed: int) -> None:
    deck = deck_cards(rules.lowest_rank, rules.suits)
    universe = action_universe(deck)
    assert sorted(universe) == list(universe)
    assert len(set(universe)) == len(universe)
    universe_set = set(universe)
    states, _ = play_random_game(rules, seed)
    for s in states:
        assert set(legal_actions(s)) <= universe_set

    outside = [c for c in CARDS if c not in deck]
    strangers: list[Action] = [Defend(c, c) for c in deck]
    for c in outside:
        strangers += [Attack(c), Transfer(c), Defend(c, deck[-1]), Defend(deck[0], c)]
    rng = random.Random(seed)
    # The whole universe on a few states (small decks), a large sample of it otherwise.
    for s in sample_states(states, seed, 2):
        legal = set(legal_actions(s))
        candidates = [a for a in universe if a not in legal]
        if len(candidates) > 600:
            kept: list[Action] = [a for a in candidates if not isinstance(a, Defend)]
            kept += rng.sample([a for a in candidates if isinstance(a, Defend)], 500)
            candidates = kept
        before = fingerprint(s)
        for a in [*candidates, *strangers]:
            with pytest.raises(IllegalActionError):
                step(s, a)
        assert fingerprint(s) == before


@GAMES
def test_step_never_changes_its_input(rules: Rules, seed: int) -> None:
    states, _ = play_random_game(rules, seed)
    universe = action_universe(deck_cards(rules.lowest_rank, rules.suits))
    rng = random.Random(seed)
    for s in sample_states(states, seed, 20):
        copy = rebuild(s)
        before = fingerprint(s)
        h = hash(s)
        legal = legal_actions(s)
        for a in legal:
            step(s, a)
            step_unchecked(s, a)
        illegal = [a for a in rng.sample(universe, min(20, len(universe))) if a not in legal]
        for a in illegal:
            with pytest.raises(IllegalActionError):
                step(s, a)
        assert fingerprint(s) == before
        assert s == copy
        assert hash(s) == h == hash(copy)
        assert legal_actions(s) == legal


@GAMES
def test_replay_is_deterministic(rules: Rules, seed: int) -> None:
    states, actions = play_random_game(rules, seed)
    again, again_actions = play_random_game(rules, seed)
    assert again == states
    assert again_actions == actions
    s = new_game(rules, seed)
    u = new_game(rules, seed)
    assert s == states[0] == u
    for a, expected in zip(actions, states[1:], strict=True):
        s = step(s, a)
        u = step_unchecked(u, fresh(a))
        assert s == expected == u
        assert hash(s) == hash(expected) == hash(u)


# ------------------------------------------------------------------ outcomes


@GAMES
def test_deal_and_its_public_knowledge(rules: Rules, seed: int) -> None:
    """docs/rules.md, "Deal and trump" and "First attacker"."""
    s = new_game(rules, seed)
    n = rules.players
    deck = deck_cards(rules.lowest_rank, rules.suits)
    assert all(len(h) == rules.hand_size for h in s.hands)
    assert len(s.talon) == rules.deck_size - n * rules.hand_size
    assert not s.discard
    assert not s.table
    assert s.players_out == frozenset()
    assert s.turn == s.attacker
    assert s.defender == (s.attacker + 1) % n
    known = [CardSet() for _ in range(n)]
    from_talon = CardSet()
    if rules.trumps:
        trump = s.trump_card
        assert trump is not None
        assert s.trump_suit is trump.suit
        trumps = [c for c in deck if c.suit == trump.suit]
        if not s.talon:
            # Everything was dealt: the trump card is the last card dealt, in the last hand.
            holder = (n * rules.hand_size - 1) % n
            assert trump in s.hands[holder]
            known[holder] = known[holder].add(trump)
        held = [(c, p) for p, h in enumerate(s.hands) for c in h if c.suit == trump.suit]
        if held:
            lowest, leader = min(held)
            assert s.attacker == leader
            known[leader] = known[leader].add(lowest)
            from_talon = CardSet.from_cards(c for c in trumps if c < lowest and c != trump)
        else:
            from_talon = CardSet.from_cards(c for c in trumps if c != trump)
        assert all(c in s.talon for c in from_talon)
        # Nobody has drawn yet: no unknown card came from the talon.
        assert s.knowledge.origins == (((1,),) * n if from_talon else ())
    else:
        assert s.trump_card is None
        assert s.trump_suit is None
    assert s.known == tuple(known)
    assert s.knowledge.from_talon == from_talon


# --------------------------------------------------------------- termination


@given(rules=rules_strategy(players=2, transfer=False), seed=seeds())
def test_two_player_potential_falls_every_bout(rules: Rules, seed: int) -> None:
    states, _ = play_random_game(rules, seed)
    starts = list(bout_starts(states))
    potentials = [(len(s.talon), -len(s.discard), len(s.hands[s.attacker])) for s in starts]
    for before, after in itertools.pairwise(potentials):
        assert after < before, f"potential did not fall: {before} -> {after}"
    size = rules.deck_size
    assert len(starts) <= (size + 1) ** 3
    # Hence the repetition rule never fires: a draw only ever has every hand empty.
    assert sum(1 for h in states[-1].hands if h) <= 1


#: Random play, and play that mostly takes and passes (long stretches of takes, and
#: draws by repetition in 3+ players or with transfers).
PASSIVITY = st.sampled_from([0.0, 0.9, 0.97])


@given(rules=rules_strategy(), seed=seeds(), passive=PASSIVITY)
def test_no_bout_start_position_repeats(rules: Rules, seed: int, passive: float) -> None:
    states, _ = play_random_game(rules, seed, passive)
    for s in states:
        check_invariants(s)
    starts = list(bout_starts(states))
    positions = [full_position(s) for s in starts]
    assert len(set(positions)) == len(positions)


def irreversible(before: GameState, after: GameState) -> bool:
    """Whether a draw, a discard or a player leaving happened between two states."""
    return (
        len(after.talon) != len(before.talon)
        or after.discard != before.discard
        or after.players_out != before.players_out
    )


@given(rules=rules_strategy(), seed=seeds(), passive=PASSIVITY)
def test_repetition_record_and_draw(rules: Rules, seed: int, passive: float) -> None:
    states, _ = play_random_game(rules, seed, passive)
    starts = list(bout_starts(states))
    if not rules.can_repeat:
        # Two players, no transfer: no position can repeat, so nothing is recorded.
        assert all(not s.history for s in states)
        return
    assert len(starts[0].history) == 1
    epoch = [starts[0]]
    for before, after in itertools.pairwise(starts):
        if irreversible(before, after):
            assert len(after.history) == 1
            epoch = [after]
        else:
            assert before.history < after.history
            assert len(after.history) == len(before.history) + 1
            epoch.append(after)
    end = states[-1]
    last = starts[-1]
    holders = [p for p, h in enumerate(end.hands) if h]
    if len(holders) >= 2:
        # A draw by repetition: it comes only at the end of a take with nothing irreversible,
        # and the next bout start would have repeated one of this epoch.
        assert not irreversible(last, end)
        assert end.history == last.history
        n = rules.players
        attacker = next_active(end.defender, n, end.players_out)
        defender = next_active(attacker, n, end.players_out)
        would_be = (
            end.hands,
            end.talon,
            end.discard,
            attacker,
            defender,
            end.players_out,
            end.known,
        )
        assert would_be in [full_position(s) for s in epoch]


# --------------------------------------------------------------- observations


@GAMES
def test_observation_ignores_hidden_cards(rules: Rules, seed: int) -> None:
    states, _ = play_random_game(rules, seed)
    rng = random.Random(seed)
    for s in sample_states(states, seed, 6):
        for p in range(rules.players):
            check_observation_invariance(s, p, rng)


@GAMES
def test_sample_world_fits_the_observation(rules: Rules, seed: int) -> None:
    states, _ = play_random_game(rules, seed)
    for i, s in enumerate(sample_states(states, seed, 6)):
        for p in range(rules.players):
            for k in range(2):
                check_sampled_worlds(s, p, seed + 1000 * i + k, check_invariants)


@given(seed=seeds(), data=st.data())
def test_sample_world_is_reproducible_from_generator_state(seed: int, data: st.DataObject) -> None:
    rules = data.draw(rules_strategy())
    states, _ = play_random_game(rules, seed)
    s = data.draw(st.sampled_from(states))
    p = data.draw(st.integers(0, rules.players - 1))
    obs = observe(s, p)
    rng = random.Random(seed)
    rng.random()
    state = rng.getstate()
    first = sample_world(obs, rng)
    rng.setstate(state)
    assert sample_world(obs, rng) == first


# ------------------------------------------------------ uniformity of the sampler


World = tuple[tuple[int, ...], tuple[int, ...]]


def world_key(state: GameState) -> World:
    """A world: every hand's mask and the talon order."""
    return tuple(h.mask for h in state.hands), tuple(c.index for c in state.talon)


def enumerate_worlds(state: GameState, player: int) -> set[World]:
    """Every world the knowledge model allows for ``player``, by brute force over all
    permutations of the hidden cards into their slots."""
    obs = observe(state, player)
    owners, cards = hidden_slots(state, player)
    from_talon = state.knowledge.from_talon
    # A hand holds at most as many such trumps as it may hold cards from the talon.
    most = [len(w) - 1 for w in state.knowledge.origins] or [len(h) for h in state.hands]
    worlds: set[World] = set()
    for perm in itertools.permutations(cards):
        held = Counter(owner for owner, c in zip(owners, perm, strict=True) if c in from_talon)
        if any(held[p] > most[p] for p in held if p >= 0):
            continue
        world = fill(state, player, owners, perm)
        assert observe(world, player) == obs
        worlds.add(world_key(world))
    return worlds


def chi_square(counts: Mapping[World, float], expected: Mapping[World, float]) -> float:
    """Pearson's statistic of ``counts`` against ``expected`` (which covers every world)."""
    assert set(counts) <= set(expected)
    return sum((counts.get(w, 0) - e) ** 2 / e for w, e in expected.items())


def sample_counts(state: GameState, player: int, draws: int, seed: int) -> Counter[World]:
    obs = observe(state, player)
    rng = random.Random(seed)
    return Counter(world_key(sample_world(obs, rng)) for _ in range(draws))


def two_player_position() -> GameState:
    """Player 1 holds two unknown cards; two unknown cards lie above the trump card."""
    rules = Rules(players=2, lowest_rank=12, hand_size=2)
    return position(rules, [["QS", "QH"], ["QD", "QC"]], Card.parse("AC"), ["KS", "KH", "AC"])


def restricted_position() -> GameState:
    """Three players; player 2 has drawn its one unknown card and shows K♥, player 1 has not
    drawn.  K♣ is a trump known to have been in the talon, so it may be in the talon or in
    hand 2, never in hand 1."""
    rules = Rules(players=3, lowest_rank=12, hand_size=2)
    s = position(
        rules, [["QS", "QH"], ["QD", "QC"], ["KS", "KH"]], Card.parse("AC"), ["KD", "KC", "AC"]
    )
    knowledge = Knowledge(CardSet.of("AC", "KH"), CardSet.of("KC"), ((1,), (1,), (0, 1)))
    return rebuild(s, knowledge=knowledge)


DRAWS = 6000
#: Chi-square bound: for ``df`` degrees of freedom, ``df + 6 * sqrt(2 * df)`` (the mean plus
#: six standard deviations); a uniform sampler exceeds it with negligible probability.


def chi_bound(worlds: int) -> float:
    df = worlds - 1
    return df + 6 * math.sqrt(2 * df)


def test_sample_world_uniform_two_players() -> None:
    s = two_player_position()
    worlds = enumerate_worlds(s, 0)
    assert len(worlds) == 12  # C(4, 2) hands for player 1 times 2 talon orders
    assert world_key(s) in worlds
    counts = sample_counts(s, 0, DRAWS, seed=2024)
    assert set(counts) == worlds
    uniform = {w: DRAWS / len(worlds) for w in worlds}
    assert chi_square(counts, uniform) < chi_bound(len(worlds))
    # The same bound rejects a sampler that puts the talon's top card in player 1's hand
    # twice as often as it should: this test has the power to see such a bias.
    ks = Card.parse("KS").index
    biased_weight = {w: 2.0 if w[0][1] >> ks & 1 else 1.0 for w in worlds}
    total = sum(biased_weight.values())
    biased = {w: DRAWS * x / total for w, x in biased_weight.items()}
    assert chi_square(biased, uniform) > chi_bound(len(worlds))


def test_sample_world_uniform_with_restricted_trump() -> None:
    s = restricted_position()
    check_invariants(s)
    obs = observe(s, 0)
    kc = Card.parse("KC")
    assert places(obs, kc) == frozenset({2, "talon"})
    assert places(obs, Card.parse("KH")) == frozenset({2})
    worlds = enumerate_worlds(s, 0)
    # K♣ in hand 2: C(4, 2) * 2 = 12 worlds; in one of 2 talon slots: 2 * 4 * 3 = 24.
    assert len(worlds) == 36
    assert world_key(s) in worlds
    counts = sample_counts(s, 0, DRAWS, seed=7)
    assert set(counts) == worlds
    for hands, _ in counts:
        assert not hands[1] >> kc.index & 1, "K♣ placed with player 1, who never drew"
    uniform = {w: DRAWS / len(worlds) for w in worlds}
    assert chi_square(counts, uniform) < chi_bound(len(worlds))
    # A sampler that first picks K♣'s place uniformly (hand 2 or talon, 1/2 each) instead of
    # by slot count would be rejected by the same bound.
    in_hand = [w for w in worlds if w[0][2] >> kc.index & 1]
    other = [w for w in worlds if w not in in_hand]
    biased = {w: DRAWS / 2 / len(in_hand) for w in in_hand}
    biased |= {w: DRAWS / 2 / len(other) for w in other}
    assert chi_square(biased, uniform) > chi_bound(len(worlds))


def test_sample_world_rejects_inconsistent_observations() -> None:
    obs = observe(two_player_position(), 0)
    with pytest.raises(RulesError):
        sample_world(attrs.evolve(obs, talon_size=obs.talon_size + 3), random.Random(0))
    # K♣ must have come from the talon, but nobody has drawn and the talon holds only the
    # trump card: no world fits.
    rules = Rules(players=3, lowest_rank=12, hand_size=2)
    s = position(rules, [["QS", "QH"], ["QD", "KC"], ["KS", "KH"]], Card.parse("AC"), ["AC"])
    s = rebuild(s, knowledge=Knowledge(CardSet.of("AC"), CardSet.of("KC"), ((1,), (1,), (1,))))
    with pytest.raises(RulesError):
        sample_world(observe(s, 0), random.Random(0))
