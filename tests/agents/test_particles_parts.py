"""The parts of the particle filter (:mod:`durak.agents.inference.particles`) one at a
time, on the states of whole games: the refill of a stepped world and the swap that gives
a mover the card it played (issue 65: survivors of the mutation runs)."""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import cast

import attrs
import pytest

from durak.agents import make_agent
from durak.agents.heuristics.tactics import action_card
from durak.agents.inference import particles
from durak.agents.inference.agent_model import AgentModel
from durak.agents.inference.particles import (
    WorldFilter,
    _normalized,
    _probabilities,
    refill,
    swap_in,
)
from durak.rules import (
    CARDS,
    Action,
    Card,
    GameState,
    Observation,
    Rules,
    Visibility,
    legal_actions,
    new_game,
    observe,
    sample_world,
    step,
)
from durak.testing.games import play_random_game
from durak.testing.invariants import check_cards


def _refills(
    players: int, me: int, seed: int, visibility: Visibility = False
) -> Iterator[tuple[GameState, Action, Observation]]:
    """At each action of a random game that drew from the talon: a world the observer
    ``me`` could have believed before it, the action, and what the observer saw after
    (each observation of ``visibility``)."""
    states, actions = play_random_game(Rules(players=players), seed)
    rng = random.Random(seed)
    for real, action, real_after in zip(states, actions, states[1:], strict=False):
        if len(real_after.talon) == len(real.talon):
            continue
        before = sample_world(observe(real, me, visibility), rng)
        yield before, action, observe(real_after, me, visibility)


@pytest.mark.parametrize(
    ("players", "me", "seed", "visibility"),
    [
        (2, 0, 1, False),
        (2, 1, 2, False),
        (3, 2, 3, False),
        (4, 1, 4, False),
        # the open worlds: every hand seen, and with "full" the talon's order too
        (3, 1, 3, True),
        (2, 0, 1, "full"),
        (3, 1, 3, "full"),
    ],
)
def test_a_refill_fits_what_the_observer_saw_and_holds_every_card_once(
    players: int, me: int, seed: int, visibility: Visibility
) -> None:
    rng = random.Random(seed)
    emptied = 0
    for before, action, seen in _refills(players, me, seed, visibility):
        after = step(before, action)
        world = refill(before, after, seen, rng)
        assert world is not None
        assert observe(world, me, seen.visibility) == seen
        check_cards(world)
        hidden = seen.hidden_cards().mask
        for p in range(players):
            # what an opponent held before and still holds stays, unless now placed
            kept = after.hand_masks[p] & before.hand_masks[p] & hidden
            assert world.hand_masks[p] & kept == kept
        emptied += not world.talon
    assert emptied == 1  # the last refill, which takes the face-up trump card


def test_a_refill_draws_the_unplaced_cards_afresh() -> None:
    before, action, seen = next(iter(_refills(2, 0, 1)))
    after = step(before, action)
    worlds = {refill(before, after, seen, random.Random(s)) for s in range(8)}
    assert len(worlds) > 1 and None not in worlds


def test_a_refill_refuses_what_another_game_saw() -> None:
    before, action, _ = next(iter(_refills(2, 0, 1)))
    _, _, other = next(iter(_refills(2, 0, 5)))
    assert refill(before, step(before, action), other, random.Random(0)) is None


def _midgame(seed: int = 7) -> GameState:
    """A 3-player state with cards in the talon, in every hand, on the table and in the
    discard pile, and a card of player 2's exposed (seen taken from the table)."""
    states, _ = play_random_game(Rules(players=3), seed)
    return next(
        s
        for s in states
        if len(s.talon) > 2 and all(s.hand_masks) and s.table and s.discard.mask
        and s.hand_masks[2] & s.knowledge.exposed.mask
    )  # fmt: skip


def _unknown(world: GameState, p: int) -> int:
    return world.hand_masks[p] & ~world.knowledge.exposed.mask


@pytest.mark.parametrize("where", ["talon", "hand"])
def test_a_swap_gives_the_mover_the_card_for_one_of_its_unknown_cards(where: str) -> None:
    world, mover = _midgame(), 1
    card = world.talon[0] if where == "talon" else CARDS[(_unknown(world, 2)).bit_length() - 1]
    swapped = swap_in(world, mover, card, random.Random(0))
    assert swapped is not None
    check_cards(swapped)
    given = world.hand_masks[mover] & ~swapped.hand_masks[mover]
    assert given.bit_count() == 1 and given & _unknown(world, mover)
    assert swapped.hand_masks[mover] == world.hand_masks[mover] & ~given | 1 << card.index
    if where == "talon":
        assert swapped.talon == (CARDS[given.bit_length() - 1], *world.talon[1:])
        assert swapped.hand_masks[2] == world.hand_masks[2]
    else:
        assert swapped.talon == world.talon
        assert swapped.hand_masks[2] == world.hand_masks[2] & ~(1 << card.index) | given
    assert swapped.hand_masks[0] == world.hand_masks[0]


def test_a_swap_refuses_a_card_not_hidden_or_a_mover_without_an_unknown_card() -> None:
    world, mover = _midgame(), 1
    exposed = world.hand_masks[2] & world.knowledge.exposed.mask
    placed = [c for c in CARDS if (world.discard.mask | exposed) >> c.index & 1]
    placed += [a for a, _ in world.table]
    assert len(placed) > 2
    for card in placed:
        assert swap_in(world, mover, card, random.Random(0)) is None, card
    emptied = list(world.hand_masks)
    emptied[mover] &= world.knowledge.exposed.mask
    bare = attrs.evolve(world, hand_masks=tuple(emptied))
    assert swap_in(bare, mover, world.talon[0], random.Random(0)) is None


class _Counting:
    """An opponent model giving the k-th legal action ``k + 1`` parts, counting its calls."""

    def __init__(self) -> None:
        self.asked: list[GameState] = []

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        self.asked.append(state)
        parts = range(1, len(legal) + 1)
        return [k / sum(parts) for k in parts]

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        raise AssertionError("not asked")

    def prime(self, states: Iterable[GameState]) -> None:
        raise AssertionError("not asked")


def _choice() -> tuple[GameState, tuple[Action, ...]]:
    """A state whose mover has three or more legal actions, and those actions."""
    states, _ = play_random_game(Rules(), 3)
    state = next(s for s in states if len(legal_actions(s)) > 2)
    return state, legal_actions(state)


def test_a_moves_probability_is_0_where_illegal_1_where_forced_and_asked_once_a_world() -> None:
    state, legal = _choice()
    action, elsewhere, forced = legal[1], attrs.evolve(state), attrs.evolve(state)
    worlds = [state, elsewhere, state, forced]
    legals = [legal, tuple(a for a in legal if a != action), legal, (action,)]
    model = _Counting()
    probs = _probabilities(worlds, legals, action, model, {})
    assert probs == [2 / sum(range(1, len(legal) + 1)), 0.0, probs[0], 1.0]
    assert model.asked == [state]


@attrs.define
class _ViewSpy(AgentModel):
    """An agent's model recording the views it is asked about."""

    views: list[Observation] = attrs.field(factory=list)

    def view_policy(self, view: Observation) -> list[float]:
        self.views.append(view)
        return super().view_policy(view)


@pytest.mark.parametrize("visibility", [False, True, "full"])
def test_an_agents_model_reads_the_movers_view_shared_by_the_call(
    visibility: Visibility,
) -> None:
    state, legal = _choice()
    spy = _ViewSpy(make_agent("greedy"), 0.1, 1, random.Random(0), visibility)
    key = (id(state), spy.visibility)
    shared = observe(state, state.turn, spy.visibility)
    views = {key: shared}
    _probabilities([state], [legal], legal[0], spy, views)
    assert spy.views == [shared] and spy.views[0] is shared
    fresh: dict[tuple[int, Visibility], Observation] = {}
    _probabilities([state], [legal], legal[0], spy, fresh)
    assert fresh == {key: shared}


def test_a_moves_probabilities_need_a_legal_list_per_world() -> None:
    state, legal = _choice()
    with pytest.raises(ValueError, match="zip"):
        _probabilities([state, state], [legal], legal[0], _Counting(), {})


def test_weights_are_normalized_or_uniform_when_they_sum_to_0() -> None:
    assert _normalized([1.0, 3.0]) == [0.25, 0.75]
    assert _normalized([0.0, 0.0, 0.0, 0.0]) == [0.25] * 4


def test_a_filter_starts_with_its_worlds_drawn_from_the_observation_every_weight_1() -> None:
    first = observe(new_game(Rules(players=3), 2), 1)
    f = WorldFilter.start(first, 2, 5, random.Random(0))
    assert len(f.worlds) == 5 and all(observe(w, 1) == first for w in f.worlds)
    assert f.weights == {0: [[1.0] * 5] * 2, 2: [[1.0] * 5] * 2}


class _Fixed:
    """An opponent model giving ``action`` probability ``p``, recording what it primes."""

    def __init__(self, action: Action, p: float) -> None:
        self.action, self.p = action, p
        self.primed: list[GameState] = []

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        rest = (1 - self.p) / (len(legal) - 1)
        return [self.p if a == self.action else rest for a in legal]

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        raise AssertionError("not asked")

    def prime(self, states: Iterable[GameState]) -> None:
        self.primed += states


def _attack() -> tuple[Action, Observation, Observation, list[GameState]]:
    """Player 1's attack with a card player 0 has not seen, 0's observations before and
    after it, and six worlds 0 could believe before it: the 1st and 4th give 1 the card,
    the others do not."""
    states, actions = play_random_game(Rules(players=3), 1)
    state, action = states[36], actions[36]
    rng = random.Random(0)
    worlds = [sample_world(observe(state, 0), rng) for _ in range(6)]
    card = cast(Card, action_card(action))
    assert [w.hand_masks[1] >> card.index & 1 for w in worlds] == [1, 0, 0, 1, 0, 0]
    return action, observe(state, 0), observe(states[37], 0), worlds


def _still(monkeypatch: pytest.MonkeyPatch) -> None:
    """No resampling: the weights are read as the move left them."""
    monkeypatch.setattr(WorldFilter, "_resample_if_degenerate", lambda self, post, rng: None)


def _even(q: int) -> list[float]:
    return [0.5, 0.5]


def test_a_move_is_weighed_in_the_worlds_that_allowed_it_and_reinvigorates_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    action, _, after, ws = _attack()
    never = ws[2]  # a world the card cannot be swapped into
    swap = particles.swap_in
    monkeypatch.setattr(
        particles, "swap_in", lambda w, *args: None if w is never else swap(w, *args)
    )
    _still(monkeypatch)
    weights = {1: [[1.0, 2.0, 3.0, 4.0], [0.0] * 4], 2: [[1.0, 2.0, 3.0, 4.0], [5.0] * 4]}
    f = WorldFilter(0, 4, 2, [ws[0], ws[1], never, ws[3]], weights)
    models = [_Fixed(action, 0.5), _Fixed(action, 0.25)]
    factors = f.advance(1, action, after, models, _even, random.Random(0))
    # only the worlds that gave 1 the card count; a candidate weighing 0 everywhere, 0
    assert factors == [0.5 * (1.0 + 4.0) / 10.0, 0.0]
    assert len(f.worlds) == 3 and all(observe(w, 0) == after for w in f.worlds)
    (mine, reinvigorated, theirs), _ = f.weights[1]
    assert (mine, theirs) == (0.5, 2.0) and reinvigorated in (1.0, 2.0)
    assert f.weights[2] == [[1.0, 2.0, 4.0], [5.0] * 3]
    for model in models:
        assert ws[0] in model.primed and ws[3] in model.primed
        assert all(len(legal_actions(w)) > 1 for w in model.primed)


def test_a_move_no_world_allowed_changes_nothing() -> None:
    action, _, after, ws = _attack()
    worlds = [ws[1], ws[2]]
    f = WorldFilter(0, 2, 1, list(worlds), {1: [[1.0, 1.0]], 2: [[1.0, 1.0]]})
    assert f.advance(1, action, after, [_Fixed(action, 0.5)], _even, random.Random(0)) is None
    assert f.worlds == worlds and f.weights == {1: [[1.0, 1.0]], 2: [[1.0, 1.0]]}


def test_a_world_holding_the_card_is_left_alone_and_draws_nothing() -> None:
    action, _, _, ws = _attack()
    f = WorldFilter(0, 2, 1, [ws[0], ws[3]], {1: [[1.0, 1.0]], 2: [[1.0, 1.0]]})
    rng = random.Random(0)
    state = rng.getstate()
    f._reinvigorate(1, action, rng)
    assert f.worlds[0] is ws[0] and f.worlds[1] is ws[3] and rng.getstate() == state


def test_a_restart_draws_its_worlds_afresh_from_before_the_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    action, before, after, ws = _attack()
    drawn: list[Observation] = []

    def sampler(observation: Observation, rng: random.Random) -> GameState:
        drawn.append(observation)
        return sample_world(observation, rng)

    monkeypatch.setattr(particles, "sample_world", sampler)
    f = WorldFilter(0, 2, 1, [ws[1], ws[2]], {1: [[1.0, 1.0]], 2: [[1.0, 1.0]]})
    f.restart(before, action, after, [_Fixed(action, 0.5)], 3, _even, random.Random(0))
    assert drawn[:3] == [before] * 3


def test_a_step_without_a_draw_steps_each_world_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    action, _, after, ws = _attack()
    _still(monkeypatch)
    f = WorldFilter(0, 2, 1, [ws[0], ws[3]], {1: [[1.0, 2.0]], 2: [[3.0, 4.0]]})
    f._step([0, 1], action, after, _even, random.Random(0))
    assert f.worlds == [step(ws[0], action), step(ws[3], action)]
    assert f.weights == {1: [[1.0, 2.0]], 2: [[3.0, 4.0]]}


@pytest.mark.parametrize("refused", [{0}, {0, 1}])
def test_a_world_its_refill_refuses_is_dropped_with_its_weights(
    refused: set[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    _still(monkeypatch)
    rng = random.Random(1)
    before, action, seen = next(iter(_refills(2, 0, 1)))
    worlds = [before, sample_world(observe(before, 0), rng)]
    real = particles.refill
    monkeypatch.setattr(
        particles,
        "refill",
        lambda b, *args: None if any(b is worlds[i] for i in refused) else real(b, *args),
    )
    f = WorldFilter(0, 3, 1, list(worlds), {1: [[1.0, 2.0]]})
    f._step([0, 1], action, seen, _even, rng)
    if refused == {0}:
        assert len(f.worlds) == 1 and f.weights == {1: [[2.0]]}
    else:  # none left: drawn afresh from what the observer saw
        assert len(f.worlds) == 3 and f.weights == {1: [[1.0] * 3]}
        assert all(observe(w, 0) == seen for w in f.worlds)


def test_worlds_evenly_weighed_are_kept_as_they_are_unless_too_few() -> None:
    _, _, _, ws = _attack()
    rows = {1: [[1.0] * 4], 2: [[1.0] * 4]}
    f = WorldFilter(0, 4, 1, ws[:4], rows)
    rng = random.Random(0)
    state = rng.getstate()
    f._resample_if_degenerate(_even, rng)
    assert f.worlds == ws[:4] and rng.getstate() == state
    few = WorldFilter(0, 5, 1, ws[:3], {1: [[1.0] * 3], 2: [[1.0] * 3]})
    few._resample_if_degenerate(_even, rng)
    assert len(few.worlds) == 5 and set(map(id, few.worlds)) <= set(map(id, ws[:3]))


def test_degenerate_worlds_are_resampled_systematically_and_reweighed_by_importance() -> None:
    # Kitagawa's systematic resampling: one uniform u in [0, 1/n), the k-th world drawn is
    # the first whose cumulative proposal reaches u + k/n; each candidate's weight on it
    # is then its normalized weight over the proposal's, over n.
    _, _, _, ws = _attack()
    rows = {1: [[8.0, 1.0, 0.5, 0.5]], 2: [[1.0, 1.0, 2.0, 0.0]]}
    f = WorldFilter(0, 4, 1, ws[:4], {q: [list(r) for r in rs] for q, rs in rows.items()})
    m = f.proposal(lambda q: [1.0])
    assert sum(x * x for x in m) * 4 / 2 > 1.0  # degenerate
    cumulative, u = list(accumulate(m)), random.Random(3).random() / 4
    chosen = []
    for _ in range(4):
        chosen.append(min(bisect_left(cumulative, u), 3))
        u += 1 / 4
    f._resample_if_degenerate(lambda q: [1.0], random.Random(3))
    assert [next(i for i, w in enumerate(ws) if w is x) for x in f.worlds] == chosen
    assert len(set(chosen)) > 1 and chosen != sorted(set(chosen))  # a world drawn twice
    for q, rs in rows.items():
        expected = [[_normalized(r)[j] / m[j] / 4 for j in chosen] for r in rs]
        assert f.weights[q] == [pytest.approx(e) for e in expected]


@pytest.mark.parametrize("opponents", [(1,), (1, 2)])
def test_the_proposal_is_the_defensive_mixture_multiplied_over_the_opponents(
    opponents: tuple[int, ...],
) -> None:
    # Hesterberg's defensive mixture, per opponent: half the posterior's mixture of the
    # candidates' normalized weights, half their plain mean; the product over opponents,
    # normalized.
    _, _, _, ws = _attack()
    every = {
        1: [[3.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]],
        2: [[1.0, 2.0, 3.0, 4.0], [4.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
    }
    rows = {q: every[q] for q in opponents}
    post = {1: [0.7, 0.2, 0.1], 2: [0.1, 0.3, 0.6]}
    f = WorldFilter(0, 4, 3, ws[:4], rows)
    expected = [1.0] * 4
    for q, rs in rows.items():
        shares = [post[q][c] / 2 + 1 / (2 * len(rs)) for c in range(len(rs))]
        for i in range(4):
            expected[i] *= sum(a * b[i] for a, b in zip(shares, map(_normalized, rs), strict=True))
    total = sum(expected)
    assert f.proposal(post.__getitem__) == pytest.approx([x / total for x in expected])


class _At(random.Random):
    """A generator whose ``random()`` is always ``u``."""

    def __init__(self, u: float) -> None:
        super().__init__(0)
        self.u = u

    def random(self) -> float:
        return self.u


def _ids(worlds: Sequence[GameState], among: Sequence[GameState]) -> list[int]:
    return [next(i for i, w in enumerate(among) if w is x) for x in worlds]


def test_resampling_keeps_up_to_twice_its_size_and_an_effective_size_of_half() -> None:
    _, _, _, ws = _attack()
    twice = WorldFilter(0, 3, 1, list(ws), {1: [[1.0] * 6], 2: [[1.0] * 6]})
    twice._resample_if_degenerate(_even, _At(0.0))
    assert twice.worlds == ws
    # one world of two carries all the weight: an effective size of 1, half of 2
    half = WorldFilter(0, 2, 1, ws[:2], {1: [[1.0, 0.0]], 2: [[1.0, 1.0]]})
    half._resample_if_degenerate(_even, _At(0.0))
    assert half.worlds == ws[:2]


def test_a_uniform_landing_on_a_cumulative_weight_draws_that_world() -> None:
    _, _, _, ws = _attack()
    f = WorldFilter(0, 4, 1, ws[:2], {1: [[1.0, 1.0]], 2: [[1.0, 1.0]]})
    f._resample_if_degenerate(_even, _At(0.0))  # draws at 0, 1/4, 1/2 and 3/4
    assert _ids(f.worlds, ws) == [0, 0, 0, 1]


def test_systematic_draws_walk_the_cumulative_weights_to_the_last_world(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, _, _, ws = _attack()
    monkeypatch.setattr(WorldFilter, "proposal", lambda self, posterior: [0.7, 0.1, 0.1, 0.1])
    f = WorldFilter(0, 4, 1, ws[:4], {1: [[1.0] * 4], 2: [[1.0] * 4]})
    f._resample_if_degenerate(_even, _At(0.96))  # draws at 0.24, 0.49, 0.74 and 0.99
    assert _ids(f.worlds, ws) == [0, 0, 1, 3]


def test_more_than_twice_its_size_of_worlds_are_resampled() -> None:
    _, _, _, ws = _attack()
    f = WorldFilter(0, 2, 1, ws[:5], {1: [[1.0] * 5], 2: [[1.0] * 5]})
    f._resample_if_degenerate(_even, _At(0.0))  # draws at 0 and 1/2
    assert _ids(f.worlds, ws) == [0, 2]


def test_resampling_never_draws_past_the_last_world(monkeypatch: pytest.MonkeyPatch) -> None:
    # where rounding leaves the proposal's sum short of the last draw
    _, _, _, ws = _attack()
    monkeypatch.setattr(WorldFilter, "proposal", lambda self, posterior: [0.5, 0.1])
    f = WorldFilter(0, 3, 1, ws[:2], {1: [[1.0, 1.0]], 2: [[1.0, 1.0]]})
    f._resample_if_degenerate(_even, _At(0.49))  # draws at 0.163, 0.497 and 0.83
    assert _ids(f.worlds, ws) == [0, 0, 1]
