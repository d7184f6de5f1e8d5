"""Property-based verification of the rules engine over random variants and random play.

Every property draws a random :class:`Rules` (``strategies.rules_strategy``) and a seed, and
plays a whole game with the shared uniform-random policy (``strategies.play_random_game``).
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
    Observation,
    Pass,
    Rules,
    RulesError,
    Take,
    Transfer,
    action_universe,
    is_terminal,
    legal_actions,
    loser,
    new_game,
    observe,
    position,
    returns,
    sample_world,
    step,
    step_unchecked,
)
from durak.rules.cards import CARDS, deck_cards
from reference import check_step_matches_reference
from strategies import (
    actual_place,
    check_invariants,
    check_knowledge_sound,
    fingerprint,
    full_position,
    is_bout_start,
    play_random_game,
    rebuild,
    rules_strategy,
    seeds,
)

GAMES = given(rules=rules_strategy(), seed=seeds())


# --------------------------------------------------------------------------- helpers


def sample_states(states: Sequence[GameState], seed: int, k: int) -> list[GameState]:
    """The deal, the terminal state and ``k`` other states of a game, chosen by ``seed``."""
    rng = random.Random(seed ^ 0x5EED)
    middle = range(1, len(states) - 1)
    picked = sorted(rng.sample(middle, min(k, len(middle))))
    return [states[0], *(states[i] for i in picked), states[-1]]


def with_hidden(state: GameState, hands: Sequence[CardSet], talon: Sequence[Card]) -> GameState:
    """``state`` with other hands and talon (everything else kept)."""
    return rebuild(state, hand_masks=tuple(h.mask for h in hands), talon=tuple(talon))


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


def hidden_slots(state: GameState, player: int) -> tuple[list[int], list[Card]]:
    """The slots of the cards ``player`` cannot see, and the cards in them: each opponent's
    unknown cards (owner = the opponent) and the talon above the face-up trump card (owner
    -1, top first)."""
    owners: list[int] = []
    cards: list[Card] = []
    known = state.known
    for q, hand in enumerate(state.hands):
        if q != player:
            for c in hand - known[q]:
                owners.append(q)
                cards.append(c)
    talon = state.talon
    face_up = bool(talon) and state.trump_card is not None
    for c in (talon[:-1] if face_up else talon):
        owners.append(-1)
        cards.append(c)
    return owners, cards


def fill(
    state: GameState, player: int, owners: Sequence[int], cards: Sequence[Card]
) -> GameState:
    """``state`` with the hidden slots of ``player`` refilled with ``cards``."""
    known = state.known
    masks = [h.mask if q == player else known[q].mask for q, h in enumerate(state.hands)]
    talon: list[Card] = []
    for owner, c in zip(owners, cards, strict=True):
        if owner < 0:
            talon.append(c)
        else:
            masks[owner] |= 1 << c.index
    if state.talon and state.trump_card is not None:
        talon.append(state.trump_card)
    return with_hidden(state, [CardSet(m) for m in masks], talon)


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


@GAMES
def test_steps_follow_the_rules(rules: Rules, seed: int) -> None:
    """Differential test: every step agrees with the literal model of ``reference.py``."""
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
    deck = deck_cards(rules.lowest_rank)
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
    universe = action_universe(deck_cards(rules.lowest_rank))
    rng = random.Random(seed)
    for s in sample_states(states, seed, 20):
        copy = rebuild(s)
        before = fingerprint(s)
        h = hash(s)
        legal = legal_actions(s)
        for a in legal:
            step(s, a)
            step_unchecked(s, a)
        illegal = [a for a in rng.sample(universe, 20) if a not in legal]
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
def test_terminal_iff_no_legal_actions_and_returns(rules: Rules, seed: int) -> None:
    n = rules.players
    states, _ = play_random_game(rules, seed)
    for s in states[:-1]:
        assert not is_terminal(s)
        assert legal_actions(s)
        assert returns(s) == (0.0,) * n
        with pytest.raises(ValueError, match="not terminal"):
            loser(s)
    end = states[-1]
    assert is_terminal(end)
    assert legal_actions(end) == ()
    for a in (Take(), Pass()):
        with pytest.raises(IllegalActionError):
            step(end, a)
    r = returns(end)
    assert len(r) == n
    assert math.isclose(sum(r), 0.0, abs_tol=1e-9)
    holders = [p for p, h in enumerate(end.hands) if h]
    lost = loser(end)
    if lost is None:
        assert len(holders) != 1
        assert r == (0.0,) * n
    else:
        assert holders == [lost]
        assert r[lost] == -1.0
        for p in range(n):
            if p != lost:
                assert math.isclose(r[p], 1.0 / (n - 1), rel_tol=1e-12)
    if len(holders) <= 1:
        assert not end.talon
        assert end.players_out == frozenset(range(n)) - frozenset(holders)


# --------------------------------------------------------------- termination


@given(rules=rules_strategy(players=2, transfer=False), seed=seeds())
def test_two_player_potential_falls_every_bout(rules: Rules, seed: int) -> None:
    states, _ = play_random_game(rules, seed)
    starts = list(bout_starts(states))
    potentials = [
        (len(s.talon), -len(s.discard), len(s.hands[s.attacker])) for s in starts
    ]
    for before, after in itertools.pairwise(potentials):
        assert after < before, f"potential did not fall: {before} -> {after}"
    size = rules.deck_size
    assert len(starts) <= (size + 1) ** 3
    # Hence the repetition rule never fires: a draw only ever has every hand empty.
    assert sum(1 for h in states[-1].hands if h) <= 1


@GAMES
def test_no_bout_start_position_repeats(rules: Rules, seed: int) -> None:
    states, _ = play_random_game(rules, seed)
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


@GAMES
def test_repetition_record_and_draw(rules: Rules, seed: int) -> None:
    states, _ = play_random_game(rules, seed)
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
            end.hands, end.talon, end.discard, attacker, defender, end.players_out,
            end.known,
        )  # fmt: skip
        assert would_be in [full_position(s) for s in epoch]


# --------------------------------------------------------------- observations


@GAMES
def test_observation_ignores_hidden_cards(rules: Rules, seed: int) -> None:
    states, _ = play_random_game(rules, seed)
    rng = random.Random(seed)
    for s in sample_states(states, seed, 6):
        for p in range(rules.players):
            obs = observe(s, p)
            owners, cards = hidden_slots(s, p)
            assert CardSet.from_cards(cards) == obs.hidden_cards()
            for q in range(rules.players):
                assert obs.unknown_count(q) == owners.count(q)
            for _ in range(3):
                shuffled = list(cards)
                rng.shuffle(shuffled)
                other = fill(s, p, owners, shuffled)
                assert observe(other, p) == obs
                assert hash(observe(other, p)) == hash(obs)


def check_world(world: GameState, obs: Observation) -> None:
    """A sampled world fits the observation it was drawn from."""
    p = obs.player
    open_world = obs.hands is not None
    assert observe(world, p, open_world=open_world) == obs
    check_invariants(world)
    assert world.hands[p] == obs.hand
    assert world.knowledge == obs.knowledge
    for q in range(world.rules.players):
        assert not obs.known_cards(q).mask & ~world.hands[q].mask, f"known cards of {q} moved"
    for c in deck_cards(world.rules.lowest_rank):
        assert actual_place(world, c.index) in obs.places(c)
    if not open_world:
        for c in obs.hidden_cards() & obs.knowledge.from_talon:
            place = actual_place(world, c.index)
            assert place == "talon" or place in obs.knowledge.drawers, (
                f"{c} from the talon placed in hand {place}, a player who never drew"
            )
    legal = legal_actions(world)
    if legal:
        check_invariants(step(world, legal[0]))


@GAMES
def test_sample_world_fits_the_observation(rules: Rules, seed: int) -> None:
    states, _ = play_random_game(rules, seed)
    for i, s in enumerate(sample_states(states, seed, 4)):
        for p in range(rules.players):
            obs = observe(s, p)
            check_knowledge_sound(s, obs)
            for k in range(2):
                world = sample_world(obs, random.Random(seed + 1000 * i + k))
                check_world(world, obs)
                assert sample_world(obs, random.Random(seed + 1000 * i + k)) == world
            opened = observe(s, p, open_world=True)
            check_knowledge_sound(s, opened)
            world = sample_world(opened, random.Random(seed + i))
            check_world(world, opened)
            assert world.hands == s.hands
            assert sample_world(opened, random.Random(seed + i)) == world


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
    drawers = state.knowledge.drawers
    worlds: set[World] = set()
    for perm in itertools.permutations(cards):
        if any(
            c in from_talon and owner >= 0 and owner not in drawers
            for owner, c in zip(owners, perm, strict=True)
        ):
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
    """Three players; player 2 has drawn and shows K♥, player 1 has not drawn.  K♣ is a
    trump known to have been in the talon, so it may be in the talon or in hand 2, never
    in hand 1."""
    rules = Rules(players=3, lowest_rank=12, hand_size=2)
    s = position(
        rules, [["QS", "QH"], ["QD", "QC"], ["KS", "KH"]], Card.parse("AC"), ["KD", "KC", "AC"]
    )
    knowledge = Knowledge(CardSet.of("AC", "KH"), CardSet.of("KC"), frozenset({2}))
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
    assert obs.places(kc) == frozenset({2, "talon"})
    assert obs.places(Card.parse("KH")) == frozenset({2})
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
    s = rebuild(s, knowledge=Knowledge(CardSet.of("AC"), CardSet.of("KC"), frozenset()))
    with pytest.raises(RulesError):
        sample_world(observe(s, 0), random.Random(0))
