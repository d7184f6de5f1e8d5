"""The opponent models' parts, each checked in milliseconds against stand-ins: the weighted
draw, the error rate's softened policy and slip, the refusal of a policy of the wrong
length, a mixture's priming, the posterior's draw of a model, the posterior carried by
seat offset, the named models' construction, the order of an agent's spec parameters, the
refusals' prefixes, and the particle filter's fresh draw when no world allowed a move.

The draws are checked at the interval ends of the cumulative weights, from a generator
that returns chosen numbers: the sampling law is the definition, not a frequency."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from typing import Any, cast

import attrs
import pytest

import durak.agents.inference.belief as belief_module
from durak.agents import SpecError, make_agent
from durak.agents.inference.agent_model import AgentModel
from durak.agents.inference.belief import (
    Belief,
    DealChain,
    InferredGame,
    _candidate,
    is_weighable,
    weigh_worlds,
)
from durak.agents.inference.inferring import (
    Inferring,
    inference_last,
    opponent_model,
)
from durak.agents.inference.opponents import (
    GreedyModel,
    GuideModel,
    MixModel,
    OpponentModel,
    draw,
    slip,
    soften,
)
from durak.agents.inference.particles import WorldFilter
from durak.agents.inference.posterior import (
    MIN_WEIGHT,
    TRIES,
    ArgmaxGuideModel,
    Posterior,
    PosteriorModel,
)
from durak.agents.inference.record import GameLog, PublicRecord
from durak.agents.searchers.ismcts import IsmctsAgent
from durak.agents.specs import params_of
from durak.rules import (
    CARDS,
    Action,
    GameState,
    Rules,
    Visibility,
    legal_actions,
    new_game,
    observe,
    sample_world,
    step,
)
from durak.rules.state import table_mask
from durak.testing.worlds import rebuild
from tests.support.extras import require_extra
from tests.support.played_logs import played_log


class Drawn(random.Random):
    """A generator whose ``random()`` returns the given numbers in turn, then the seeded
    generator's (which its other draws use)."""

    def __init__(self, *draws: float) -> None:
        super().__init__(0)
        self.draws = list(draws)

    def random(self) -> float:
        return self.draws.pop(0) if self.draws else super().random()


def choice_state(seed: int = 3) -> GameState:
    """A 2-player opening with more than two legal actions."""
    state = new_game(Rules(), seed)
    assert len(legal_actions(state)) > 2
    return state


@pytest.mark.parametrize(
    ("x", "index"), [(0.0, 0), (0.24, 0), (0.25, 1), (0.74, 1), (0.75, 2), (0.99, 2)]
)
def test_a_draw_is_the_first_index_whose_running_sum_exceeds_it(x: float, index: int) -> None:
    assert draw([0.25, 0.5, 0.25], Drawn(x)) == index


def test_a_draw_past_a_sum_rounded_short_of_one_is_the_last_index() -> None:
    assert draw([0.25, 0.25, 0.25], Drawn(0.9)) == 2
    assert draw([0.5, 0.25], Drawn(0.8)) == 1


def test_a_softened_policy_keeps_one_minus_epsilon_and_spreads_epsilon_evenly() -> None:
    assert soften([0.0, 1.0, 0.0, 0.0], 0.25) == [0.0625, 0.8125, 0.0625, 0.0625]
    assert soften((0.5, 0.5), 0.0) == [0.5, 0.5]
    assert soften(iter([0.25, 0.75]), 1.0) == [0.5, 0.5]


def test_a_slip_never_touches_the_generator_without_errors() -> None:
    rng = random.Random(4)
    before = rng.getstate()
    assert slip(0.0, legal_actions(choice_state()), rng) is None
    assert rng.getstate() == before


def test_a_slip_is_a_uniform_action_below_epsilon_and_none_above() -> None:
    legal = legal_actions(choice_state())
    assert slip(0.3, legal, Drawn(0.31)) is None
    slipped = Drawn(0.29)
    assert slip(0.3, legal, slipped) == legal[Drawn().randrange(len(legal))]
    assert slipped.draws == []


@attrs.frozen
class Scored:
    """A stand-in guidance: action ``best`` scored highest, ``prior`` as given."""

    best: int
    probabilities: tuple[float, ...] = ()

    def scores(self, state: GameState) -> list[float]:
        return [float(i == self.best) for i in range(len(legal_actions(state)))]

    def prior(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        return list(self.probabilities)


def own_move_models() -> list[tuple[OpponentModel, Any]]:
    """Each softened model with no errors, and how its own move is found: ``greedy``'s
    (whatever it is), the agent's draw with the same generator, the best-scored action."""
    agent = make_agent("random")
    return [
        (GreedyModel(0.0), None),
        (
            AgentModel(agent, 0.0, 8, random.Random(0)),
            lambda s, r: agent.act(observe(s, s.turn), r),
        ),
        (ArgmaxGuideModel(cast(Any, Scored(1)), 0.0), lambda s, r: legal_actions(s)[1]),
    ]


@pytest.mark.parametrize("which", range(3))
def test_a_model_without_errors_plays_its_own_move_with_the_same_generator(which: int) -> None:
    model, own = own_move_models()[which]
    state = choice_state()
    rng, twin = random.Random(5), random.Random(5)
    move = model.rollout(state, rng)
    if own is not None:
        assert move == own(state, twin)
    else:
        assert model.rollout(state, twin) == move
    assert rng.getstate() == twin.getstate()


@pytest.mark.parametrize("which", range(3))
def test_a_model_that_always_errs_plays_the_uniform_slip(which: int) -> None:
    model = own_move_models()[which][0]
    state = choice_state()
    erring = attrs.evolve(cast(Any, model), epsilon=1.0)
    legal = legal_actions(state)
    for seed in range(6):
        expected = random.Random(seed)
        expected.random()
        assert erring.rollout(state, random.Random(seed)) == legal[expected.randrange(len(legal))]


def test_a_guided_model_draws_from_its_guides_prior() -> None:
    state = choice_state()
    legal = legal_actions(state)
    one = tuple(float(i == 2) for i in range(len(legal)))
    assert GuideModel(cast(Any, Scored(0, one))).rollout(state, Drawn(0.5)) == legal[2]


def test_a_policy_of_the_wrong_length_is_refused() -> None:
    state = choice_state()
    n = len(legal_actions(state))
    short = GuideModel(cast(Any, Scored(0, (1.0,) * (n - 1))))
    with pytest.raises(ValueError, match=f"a policy of {n - 1} probabilities for {n} actions"):
        short.rollout(state, Drawn(0.5))
    with pytest.raises(ValueError):
        MixModel(short, GreedyModel(0.1), 0.5).policy(state, legal_actions(state))


@attrs.define
class Recorder:
    """A stand-in model that records what it is primed with and which rollouts it plays."""

    primed: list[list[GameState]] = attrs.field(factory=list)
    rolled: list[random.Random] = attrs.field(factory=list)

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        return [1 / len(legal)] * len(legal)

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        self.rolled.append(rng)
        return legal_actions(state)[0]

    def prime(self, states: Iterable[GameState]) -> None:
        self.primed.append(list(states))


def test_a_mixture_primes_both_models_with_every_state() -> None:
    first, second = Recorder(), Recorder()
    states = [choice_state(3), choice_state(4)]
    MixModel(first, second, 0.5).prime(iter(states))
    assert first.primed == second.primed == [states]


@pytest.mark.parametrize(("x", "drawn"), [(0.2, 0), (0.3, 1), (0.9, 1)])
def test_the_posterior_draws_a_model_by_the_movers_weights(x: float, drawn: int) -> None:
    state = choice_state()
    mover, other = state.turn, 1 - state.turn
    models = (Recorder(), Recorder())
    posterior = PosteriorModel(models, {mover: (0.25, 0.75), other: (0.75, 0.25)})
    rng = Drawn(x)
    posterior.rollout(state, rng)
    assert [len(m.rolled) for m in models] == [int(drawn == 0), int(drawn == 1)]
    assert models[drawn].rolled == [rng]


def test_a_posterior_is_carried_by_seat_offset_to_a_new_seat() -> None:
    rows = {0: {"greedy": -1.0, "lowest": -2.0}, 2: {"greedy": -3.0, "lowest": -4.0}}
    carried = Posterior(("greedy", "lowest"), rows).by_offset(1, 3)
    assert carried == {2: rows[0], 1: rows[2]}
    # the next game seats the agent at 0: the player two seats on is at 2, one on at 1
    first = observe(new_game(Rules(players=3), 1), 0)
    assert Posterior.start(("greedy", "lowest"), first, carried).loglik == {
        2: rows[0],
        1: rows[2],
    }
    # at 2: the player two seats on is at 1, one on at 0
    first = observe(new_game(Rules(players=3), 1), 2)
    assert Posterior.start(("greedy", "lowest"), first, carried).loglik == {
        1: rows[0],
        0: rows[2],
    }


def test_the_named_models_are_built_from_their_parts() -> None:
    guide = cast(Any, Scored(0))
    assert opponent_model("greedy", 0.2, 0.4, None) == GreedyModel(0.2)
    assert opponent_model("dmc", 0.2, 0.4, guide) == GuideModel(guide)
    assert opponent_model("mix", 0.2, 0.4, guide) == MixModel(
        GuideModel(guide), GreedyModel(0.2), 0.4
    )


def test_an_agents_own_parameters_come_before_the_inference_ones() -> None:
    shared = [p.name for p in params_of(Inferring)]
    ordered = [p.name for p in inference_last(IsmctsAgent)]
    own = [p.name for p in params_of(IsmctsAgent) if p.name not in shared]
    assert own and ordered == own + shared


@attrs.frozen
class Nameless(Inferring):
    """An inferring agent without a ``name``."""


def test_an_agent_without_a_name_is_named_by_its_class_in_a_refusal() -> None:
    with pytest.raises(SpecError, match=r"^Nameless: infer: mcts: limit must be in"):
        Nameless(infer="mcts:limit=0")


def test_a_guide_made_for_other_rules_is_refused_with_the_agents_name() -> None:
    require_extra("torch")
    with pytest.raises(SpecError, match=r"^ismcts: dmc: no shipped model for 5 players"):
        make_agent("ismcts:prior=dmc", Rules(players=5))


def opponent_move() -> tuple[int, Any, Action, Any]:
    """An observer, its observations before and after the opponent's opening attack (with
    its highest card: the lowest trump, which the opening may show, is the first)."""
    state = choice_state()
    me = 1 - state.turn
    action = legal_actions(state)[-1]
    return me, observe(state, me), action, observe(step(state, action), me)


def test_a_fresh_draw_that_allows_the_move_carries_its_likelihood() -> None:
    me, before, action, after = opponent_move()
    models = [GreedyModel(0.3), GreedyModel(1.0)]
    f = WorldFilter.start(before, 2, 24, random.Random(0))
    factors = f.restart(before, action, after, models, 64, lambda q: [0.5, 0.5], random.Random(1))
    assert factors is not None and len(factors) == 2
    assert all(0 < x <= 1 for x in factors)
    assert all(observe(w, me) == after for w in f.worlds)
    assert any(x != 1.0 for x in f.weights[before.turn][0])  # the move's likelihood


def test_without_a_fresh_world_allowing_the_move_the_set_is_drawn_from_after() -> None:
    me, before, action, after = opponent_move()
    models = [GreedyModel(0.3), GreedyModel(1.0)]
    for seed in range(100):
        f = WorldFilter.start(before, 2, 24, random.Random(seed))
        factors = f.restart(
            before, action, after, models, 1, lambda q: [0.5, 0.5], random.Random(seed)
        )
        if factors is None:
            break
    else:
        pytest.fail("one fresh world allowed the move at every seed")
    assert len(f.worlds) == 24
    assert all(observe(w, me) == after for w in f.worlds)
    assert all(x == 1.0 for rows in f.weights.values() for row in rows for x in row)


def opponent_move_ending_a_bout(seed: int = 3) -> tuple[int, Any, Action, Any]:
    """As :func:`opponent_move`, for the first opponent move of a greedy game that ends a
    bout with cards drawn from the talon (the observer's hand changes with it)."""
    state = new_game(Rules(), seed)
    while True:
        me = 1 - state.turn
        for action in legal_actions(state):
            following = step(state, action)
            if len(following.talon) != len(state.talon):
                return me, observe(state, me), action, observe(following, me)
        state = step(state, legal_actions(state)[0])


def test_a_fresh_draw_across_a_bouts_end_is_refilled_as_the_observer_saw_it() -> None:
    me, before, action, after = opponent_move_ending_a_bout()
    assert after.hand != before.hand  # the observer drew
    models = [GreedyModel(0.3), GreedyModel(1.0)]
    f = WorldFilter.start(before, 2, 24, random.Random(0))
    factors = f.restart(before, action, after, models, 64, lambda q: [0.5, 0.5], random.Random(2))
    assert factors is not None
    assert f.worlds and all(observe(w, me) == after for w in f.worlds)


def test_an_inferred_game_without_a_belief_samples_as_the_plain_game() -> None:
    state = choice_state()
    seen = observe(state, 1 - state.turn)
    game = InferredGame(Rules())
    for seed in range(3):
        assert game.sample_world(seen, random.Random(seed)) == sample_world(
            seen, random.Random(seed)
        )


def test_a_log_is_weighable_only_closed_at_its_own_latest_observation() -> None:
    log, state = played_log()
    assert is_weighable(log, observe(state, 0))
    assert not is_weighable(None, observe(state, 0))
    assert not is_weighable(log, observe(state, 0, True))  # an open world: nothing to infer
    assert not is_weighable(log, log.moves[0][2])  # an earlier observation of its own
    assert not is_weighable(log, observe(state, 1))  # another player's
    opened, state = played_log(open_world=True)
    assert not is_weighable(opened, observe(state, 0, True))  # a log of an open world
    mixed = GameLog(observe(new_game(Rules(), 3), 1), log.moves)  # started at seat 1
    assert not is_weighable(mixed, mixed.latest)


@pytest.mark.parametrize(
    ("weights", "x", "drawn"),
    [
        ((1.0, 2.0, 0.0), 0.0, 0),
        ((1.0, 2.0, 0.0), 1 / 3, 1),
        ((1.0, 2.0, 0.0), math.nextafter(1.0, 0.0), 1),  # never a world of weight 0
        ((0.0, 0.0, 0.0), math.nextafter(1.0, 0.0), 2),  # none weighs: uniform
        ((0.1, 0.2, 0.3), math.nextafter(1.0, 0.0), 2),  # a sum that is not a float's
        ((0.1, 0.2, 0.3), 0.6, 2),  # weights summing to less than 1 are not uniform
    ],
)
def test_a_belief_draws_a_world_in_proportion_to_its_weight(
    weights: tuple[float, ...], x: float, drawn: int
) -> None:
    _, state = played_log()
    belief = Belief(observe(state, 1), (state,) * 3, weights)
    assert belief.draw(Drawn(x)) == drawn


def test_a_belief_draws_its_own_worlds_for_an_observation_equal_to_its_root() -> None:
    _, state = played_log()
    root = observe(state, 1)
    belief = Belief(root, (state,), (1.0,))
    copy = attrs.evolve(root)
    assert copy == root and copy is not root
    assert all(belief.sample(copy, random.Random(seed)) == state for seed in range(8))


@attrs.define
class _Asked:
    """An agent that answers with ``answer`` (``None``: the first legal action) and keeps
    the observations it is asked."""

    answer: Action | None = None
    name: str = "asked"
    seen: list[Any] = attrs.Factory(list)

    def act(self, observation: Any, rng: random.Random) -> Action:
        self.seen.append(observation)
        return self.answer if self.answer is not None else observation.legal_actions[0]


@pytest.mark.parametrize("visibility", [False, True])
def test_a_rollout_asks_the_agent_with_the_searchers_visibility(visibility: bool) -> None:
    state = choice_state()
    agent = _Asked()
    model = AgentModel(agent, 0.0, 8, random.Random(0), visibility)
    assert model.rollout(state, random.Random(1)) == legal_actions(state)[0]
    assert agent.seen == [observe(state, state.turn, visibility)]


def test_a_rollout_whose_agent_answers_an_illegal_action_names_the_agent() -> None:
    state = choice_state()
    illegal = legal_actions(step(state, legal_actions(state)[0]))[0]
    assert illegal not in legal_actions(state)
    model = AgentModel(_Asked(illegal), 0.0, 8, random.Random(0))
    with pytest.raises(ValueError) as caught:
        model.rollout(state, random.Random(1))
    assert str(caught.value) == f"model asked chose {illegal}, not a legal action"


@attrs.define
class _Drawing(_Asked):
    """An :class:`_Asked` that answers the legal action its generator's ``randrange``
    picks, and keeps the generators' states."""

    states: list[Any] = attrs.Factory(list)

    def act(self, observation: Any, rng: random.Random) -> Action:
        self.seen.append(observation)
        self.states.append(rng.getstate())
        return cast(Action, observation.legal_actions[rng.randrange(2)])


@pytest.mark.parametrize("visibility", [False, True, "full"])
def test_an_agent_models_policy_counts_the_agents_answers_on_fresh_seeds(
    visibility: Visibility,
) -> None:
    # an agent stating no policy: its policy is the share of its answers over ``draws``
    # calls, each with a generator seeded by 64 bits of the model's
    state = choice_state()
    legal = legal_actions(state)
    agent = _Drawing()
    model = AgentModel(agent, 0.0, 16, random.Random(7), visibility)
    policy = model.policy(state, legal)
    twin = random.Random(7)
    seeds = [random.Random(twin.getrandbits(64)) for _ in range(16)]
    assert agent.states == [r.getstate() for r in seeds]
    picks = [r.randrange(2) for r in seeds]
    assert policy == [picks.count(0) / 16, picks.count(1) / 16] + [0.0] * (len(legal) - 2)
    assert 0 < policy[0] < 1
    assert agent.seen == [observe(state, state.turn, visibility)] * 16


def test_an_agent_models_policy_whose_agent_answers_an_illegal_action_names_it() -> None:
    state = choice_state()
    illegal = legal_actions(step(state, legal_actions(state)[0]))[0]
    model = AgentModel(_Asked(illegal), 0.0, 8, random.Random(0))
    with pytest.raises(ValueError) as caught:
        model.policy(state, legal_actions(state))
    assert str(caught.value) == f"model asked chose {illegal}, not a legal action"


def test_a_belief_samples_any_other_observation_as_the_plain_sampler() -> None:
    _, state = played_log()
    belief = Belief(observe(state, 1), (state,), (1.0,))
    other = observe(state, 0)
    for seed in range(3):
        drawn = belief.sample(other, random.Random(seed))
        assert drawn == sample_world(other, random.Random(seed))


@attrs.frozen
class OneHot:
    """A stand-in model sure of the ``k``-th legal action."""

    k: int

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        return [float(i == self.k) for i in range(len(legal))]

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        return legal_actions(state)[self.k]

    def prime(self, states: Iterable[GameState]) -> None:
        """Nothing to prime."""


def test_the_posteriors_policy_mixes_the_models_by_the_movers_weights() -> None:
    state = choice_state()
    mover, other = state.turn, 1 - state.turn
    models = (OneHot(0), OneHot(1))
    posterior = PosteriorModel(models, {mover: (0.25, 0.75), other: (0.75, 0.25)})
    legal = legal_actions(state)
    assert posterior.policy(state, legal) == [0.25, 0.75] + [0.0] * (len(legal) - 2)


def test_a_seat_without_a_posterior_weighs_every_model_alike() -> None:
    models = (OneHot(0), OneHot(1), OneHot(2), OneHot(3))
    posterior = PosteriorModel(models, {0: (1.0, 0.0, 0.0, 0.0)})
    assert posterior.mixture(1) == [(m, 0.25) for m in models]
    assert posterior.mixture(0) == [(models[0], 1.0)]


def test_a_mixture_refuses_weights_that_are_not_one_per_model() -> None:
    posterior = PosteriorModel((OneHot(0), OneHot(1)), {0: (1.0,), 1: (0.2, 0.3, 0.5)})
    for seat in (0, 1):
        with pytest.raises(ValueError):
            posterior.mixture(seat)


def test_a_mixture_keeps_a_model_of_exactly_the_least_weight() -> None:
    models = (OneHot(0), OneHot(1), OneHot(2))
    posterior = PosteriorModel(models, {0: (MIN_WEIGHT, 1 - 2 * MIN_WEIGHT, 0.9 * MIN_WEIGHT)})
    kept = posterior.mixture(0)
    assert [m for m, _ in kept] == list(models[:2])
    share = MIN_WEIGHT / (1 - MIN_WEIGHT)
    assert [w for _, w in kept] == pytest.approx([share, 1 - share])


def test_a_posterior_restarts_its_worlds_from_the_observation_before_each_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No world allows an opponent's move: the filter draws afresh from what the observer
    # saw just before that move (the start for the first, the previous move's after).
    log, _ = played_log()
    calls: list[tuple[Any, ...]] = []

    def nowhere(self: WorldFilter, mover: int, *args: Any) -> list[float] | None:
        return [] if mover == self.me else None

    def restart(self: WorldFilter, *args: Any) -> list[float]:
        calls.append(args)
        return [0.5, 0.25]

    monkeypatch.setattr(WorldFilter, "advance", nowhere)
    monkeypatch.setattr(WorldFilter, "restart", restart)
    whole, _ = played_log(moves=6)
    posterior = Posterior.start(("greedy", "lowest"), log.start, {})
    models = [GreedyModel(0.3), GreedyModel(1.0)]
    rngs = [random.Random(0), random.Random(1)]
    posterior.update(log, models, rngs[0])
    posterior.update(whole, models, rngs[1])  # only the moves not counted yet
    befores = [whole.start, *(after for _, _, after in whole.moves)][:-1]
    theirs = [
        (before, action, after, models, TRIES, posterior.weights, rngs[t >= len(log.moves)])
        for t, (before, (q, action, after)) in enumerate(zip(befores, whole.moves, strict=True))
        if q != 0
    ]
    assert theirs[0][0] is whole.start and len(theirs) > 1 and calls == theirs
    assert posterior.counted == len(whole.moves)
    # each of those moves counted with the fresh draw's factors
    n = len(theirs)
    assert posterior.loglik[1] == pytest.approx(
        {"greedy": n * math.log(0.5), "lowest": n * math.log(0.25)}
    )


def test_an_agent_models_policy_of_a_forced_move_is_certain() -> None:
    state = new_game(Rules(), 3)
    while len(legal_actions(state)) != 1:
        state = step(state, legal_actions(state)[0])
    agent, rng = _Asked(), random.Random(0)
    model = AgentModel(agent, 0.2, 8, rng)
    assert model.view_policy(observe(state, state.turn)) == [1.0]
    assert model.policy(state, legal_actions(state)) == [1.0]
    # without asking the agent, or drawing from the model's generator
    assert agent.seen == [] and rng.getstate() == random.Random(0).getstate()


@pytest.mark.parametrize("replayed", ["nothing", "other hands", "another talon"])
def test_a_drawn_past_that_does_not_replay_to_its_world_is_an_inference_error(
    replayed: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, state = played_log(moves=4)
    record = PublicRecord.of(log)
    hands = state.hand_masks
    others = {
        "other hands": rebuild(state, hand_masks=(hands[1], hands[0], *hands[2:])),
        "another talon": rebuild(state, talon=tuple(reversed(state.talon))),
    }
    assert all(o != state for o in others.values())
    final = others.get(replayed)
    monkeypatch.setattr(
        PublicRecord, "replay", lambda self, start: None if final is None else (final, [])
    )
    with pytest.raises(RuntimeError, match=r"^inference: the replayed past does not lead"):
        _candidate(record, state, random.Random(0))


@attrs.define
class _Priming:
    """A stand-in model, uniform, that records the states it is primed with and then asked."""

    primed: list[list[GameState]] = attrs.field(factory=list)
    asked: list[tuple[GameState, bool]] = attrs.field(factory=list)

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        self.asked.append((state, bool(self.primed)))
        return [1 / len(legal)] * len(legal)

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        return legal_actions(state)[0]

    def prime(self, states: Iterable[GameState]) -> None:
        self.primed.append(list(states))


def test_a_chained_belief_is_its_walks_worlds_behind_the_logs_latest_observation() -> None:
    log = _seat_log(0, 2, 12)
    assert DealChain.applies(PublicRecord.of(log))
    belief = weigh_worlds(log, GreedyModel(0.3), 2, random.Random(0), steps=5)
    assert belief.root == log.latest and belief.weights == (1.0,) * 5
    assert all(observe(w, 0) == log.latest for w in belief.worlds)
    drawn = {belief.sample(log.latest, random.Random(s)) for s in range(20)}
    assert drawn <= set(belief.worlds)


def test_weighing_worlds_primes_the_model_with_every_state_it_then_asks() -> None:
    log, _ = played_log(moves=6)
    model = _Priming()
    belief = weigh_worlds(log, model, 4, random.Random(0))
    assert len(belief.worlds) == 4
    (batch,) = model.primed
    assert batch and [state for state, _ in model.asked] == batch
    assert all(after_priming for _, after_priming in model.asked)


def _seat_log(me: int, players: int, moves: int) -> GameLog:
    """Player ``me``'s log of a game ``moves`` moves in, on the deal of seed 5."""
    return played_log(5, moves, me, players)[0]


@pytest.mark.parametrize(("me", "players"), [(0, 2), (1, 3)])
def test_a_replay_chooses_at_the_opponents_moves_with_a_choice_alone(me: int, players: int) -> None:
    # the replay of the true deal: its choices are the opponents' moves that had an
    # alternative, each with the state, the legal actions and the index of the move
    log = _seat_log(me, players, 30)
    state = new_game(Rules(players=players), 5)
    expected = []
    for mover, action, _ in log.moves:
        legal = legal_actions(state)
        if mover != me and len(legal) > 1:
            expected.append((state, legal, legal.index(action)))
        state = step(state, action)
    forced = sum(mover != me for mover, _, _ in log.moves) - len(expected)
    assert expected and forced > 0
    assert PublicRecord.of(log).replay(new_game(Rules(players=players), 5)) == (state, expected)


@pytest.mark.parametrize(("me", "players"), [(0, 2), (1, 2), (2, 3), (0, 3)])
def test_a_deal_chains_own_cards_deal_its_start_whoever_observes(me: int, players: int) -> None:
    log = _seat_log(me, players, 12)
    record = PublicRecord.of(log)
    rng = random.Random(me)
    past = record.past(sample_world(log.latest, rng), rng)
    chain = DealChain.of(record, past)
    assert any(q != me for q, x in chain.cells if x == -1)  # an opponent's start cards
    assert chain._deal(list(chain.cards)) == past


def test_a_posterior_refuses_factors_that_are_not_one_per_candidate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Even when the one factor given is 0 (a move no candidate makes is skipped).
    log, _ = played_log(moves=4)
    monkeypatch.setattr(WorldFilter, "advance", lambda self, mover, *args: [0.0])
    posterior = Posterior.start(("greedy", "lowest"), log.start, {})
    with pytest.raises(ValueError):
        posterior.update(log, [GreedyModel(0.3)], random.Random(0))


@pytest.mark.parametrize(("me", "players"), [(0, 2), (1, 2), (2, 3)])
def test_a_deal_chains_sources_are_the_opponents_start_cards_and_draws(
    me: int, players: int
) -> None:
    log = _seat_log(me, players, 12)
    record = PublicRecord.of(log)
    rng = random.Random(me)
    chain = DealChain.of(record, record.past(sample_world(log.latest, rng), rng))
    drawn = sum(count for r in record.refills for _, count in r.draws)
    assert drawn and any(x >= drawn for _, x in chain.cells)  # cards still to draw, too
    starts = [c for c in chain.cells if c[1] == -1]
    draws = [c for c in chain.cells if 0 <= c[1] < drawn]
    assert chain.cells[: chain.sources] == (*starts, *draws)
    # a cell is (player, -1) in an opponent's start hand, else (-1, talon position)
    assert all(q == -1 if x >= 0 else q not in (-1, me) for q, x in chain.cells)


def _scripted(
    carried: dict[int, dict[str, float]], monkeypatch: pytest.MonkeyPatch
) -> tuple[Posterior, int]:
    """A posterior over greedy and lowest (``carried`` by seat offset) updated by six moves
    whose factors are scripted: 0.5 and 0 for the first opponent move, then 0.5 and 0.25;
    and how many opponent moves there were."""
    log, _ = played_log(moves=6)
    factors = iter([[0.5, 0.0]] + [[0.5, 0.25]] * len(log.moves))

    def advance(self: WorldFilter, mover: int, *args: Any) -> list[float]:
        return [] if mover == self.me else next(factors)

    monkeypatch.setattr(WorldFilter, "advance", advance)
    posterior = Posterior.start(("greedy", "lowest"), log.start, carried)
    posterior.update(log, [GreedyModel(0.3), GreedyModel(1.0)], random.Random(0))
    return posterior, sum(mover != 0 for mover, _, _ in log.moves)


def test_a_move_no_possible_candidate_makes_is_skipped_and_the_later_ones_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # greedy is ruled out already; the first opponent move only greedy would make.
    carried = {1: {"greedy": -math.inf, "lowest": 0.0}}
    posterior, theirs = _scripted(carried, monkeypatch)
    assert theirs > 1
    assert posterior.loglik[1]["greedy"] == -math.inf
    assert posterior.loglik[1]["lowest"] == pytest.approx((theirs - 1) * math.log(0.25))


def _chain() -> tuple[DealChain, GameState]:
    log = _seat_log(0, 2, 12)
    record = PublicRecord.of(log)
    rng = random.Random(0)
    past = record.past(sample_world(log.latest, rng), rng)
    return DealChain.of(record, past), past


@pytest.mark.parametrize("cut", ["no source", "one cell"])
def test_a_deal_chain_with_nothing_to_swap_stays_at_its_world(cut: str) -> None:
    chain, past = _chain()
    if cut == "no source":
        stuck = attrs.evolve(chain, sources=0)
    else:
        stuck = attrs.evolve(chain, cells=chain.cells[:1], cards=chain.cards[:1], sources=1)
    assert stuck.run(GreedyModel(0.3), 1.0, past, 3, random.Random(0)) == [past] * 3


class _Picks(random.Random):
    """A generator whose ``randrange`` returns the numbers given, in order."""

    def __init__(self, picks: Sequence[int]) -> None:
        super().__init__(0)
        self.picks = list(picks)

    def randrange(self, *args: Any, **kwargs: Any) -> int:
        return self.picks.pop(0)


@pytest.mark.parametrize(("i", "k", "other"), [(1, 0, 0), (1, 1, 2), (0, 0, 1)])
def test_a_deal_chain_proposes_to_swap_a_source_with_another_cell(
    i: int, k: int, other: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    chain, past = _chain()
    assert chain.sources > 1 and len(chain.cells) > 2
    proposed: list[list[int]] = []

    def undealable(self: DealChain, cards: list[int]) -> None:
        proposed.append(list(cards))

    monkeypatch.setattr(DealChain, "_deal", undealable)
    # a proposal that cannot be dealt is refused, even from a world of weight 0
    for weight in (1.0, 0.0):
        assert chain.run(GreedyModel(0.3), weight, past, 1, _Picks([i, k])) == [past]
    swapped = list(chain.cards)
    swapped[i], swapped[other] = swapped[other], swapped[i]
    assert proposed == [swapped, swapped]


def test_a_deal_chain_of_two_cells_proposes_to_swap_them(monkeypatch: pytest.MonkeyPatch) -> None:
    chain, past = _chain()
    two = attrs.evolve(chain, cells=chain.cells[:2], cards=chain.cards[:2], sources=1)
    proposed: list[list[int]] = []
    monkeypatch.setattr(DealChain, "_deal", lambda self, cards: proposed.append(list(cards)))
    assert two.run(GreedyModel(0.3), 1.0, past, 1, _Picks([0, 0])) == [past]
    assert proposed == [[chain.cards[1], chain.cards[0]]]


@pytest.mark.parametrize("weight", [0.0, 1.0])
def test_a_deal_chain_at_weight_0_moves_to_any_deal_but_refuses_one_of_weight_0_otherwise(
    weight: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A chain started on an impossible world wanders until it finds a possible one.
    chain, past = _chain()
    monkeypatch.setattr(belief_module, "likelihood", lambda model, choices: 0.0)
    worlds = chain.run(GreedyModel(0.3), weight, past, 20, random.Random(0))
    assert (worlds[-1] != past) == (weight == 0.0)


def test_a_candidate_that_would_not_make_a_move_others_make_is_ruled_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    posterior, theirs = _scripted({}, monkeypatch)
    assert posterior.loglik[1]["greedy"] == pytest.approx(theirs * math.log(0.5))
    assert posterior.loglik[1]["lowest"] == -math.inf
    assert posterior.weights(1) == (1.0, 0.0)


def test_a_posterior_weighs_candidates_far_apart_or_ruled_out() -> None:
    # far below 0 too: exp(-800 - 800) is 0 in floats, exp(-800 + 800) is 1
    loglik = {1: {"a": -2800.0, "b": -800.0, "c": -math.inf, "d": math.log(0.5) - 800}}
    weights = Posterior(("a", "b", "c", "d"), loglik).weights(1)
    assert weights == pytest.approx((0.0, 1 / 1.5, 0.0, 0.5 / 1.5))


class _Primed:
    """A stand-in model recording what it primes."""

    def __init__(self) -> None:
        self.primed: list[list[GameState]] = []

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        raise AssertionError("not asked")

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        raise AssertionError("not asked")

    def prime(self, states: Iterable[GameState]) -> None:
        self.primed.append(list(states))


def test_a_mixture_primes_every_model_with_the_same_states() -> None:
    _, state = played_log(moves=4)
    first, second = _Primed(), _Primed()
    PosteriorModel((first, second), {}).prime(iter([state]))
    assert first.primed == second.primed == [[state]]


def test_a_game_without_trumps_has_a_past_that_leads_to_the_world() -> None:
    log = _to_the_last_draw(Rules(trumps=False), 4)
    record, rng = PublicRecord.of(log), random.Random(0)
    assert record.refills and log.start.trump_card is None
    world = sample_world(log.latest, rng)
    replayed = record.replay(record.past(world, rng))
    assert replayed is not None and observe(replayed[0], 0) == log.latest


class NoAcceptanceDraw(random.Random):
    """A generator for a past with no restricted trump to weigh: its ``random()`` (the
    acceptance draw) fails the test."""

    def random(self) -> float:
        raise AssertionError("an acceptance draw for a past with no restricted trump")

    def getrandbits(self, k: int) -> int:
        # defined here too, so that randrange keeps drawing bits rather than random()
        return super().getrandbits(k)


def test_a_past_with_no_restricted_trump_is_taken_at_its_first_draw() -> None:
    # every such past has the same weight, so none is refused and no draw is spent on it
    log = _to_the_last_draw(Rules(trumps=False), 4)
    record = PublicRecord.of(log)
    assert not log.start.knowledge.from_talon
    world = sample_world(log.latest, random.Random(0))
    replayed = record.replay(record.past(world, NoAcceptanceDraw(0)))
    assert replayed is not None and observe(replayed[0], 0) == log.latest


@pytest.mark.parametrize("seed", [0, 9])  # at seed 0 both players draw, at 9 player 1 alone
def test_a_record_whose_only_refill_gives_an_opponent_the_trump_card_has_a_past(
    seed: int,
) -> None:
    log = _to_the_last_draw(Rules(suits=2, lowest_rank=11, hand_size=3), seed)
    record = PublicRecord.of(log)
    assert [r.trump_to for r in record.refills] == [1]
    for s in range(4):
        rng = random.Random(s)
        replayed = record.replay(record.past(sample_world(log.latest, rng), rng))
        assert replayed is not None and observe(replayed[0], 0) == log.latest


@pytest.mark.parametrize("seed", [0, 1])
def test_a_record_begun_with_cards_on_the_table_has_pasts_that_lead_to_its_world(
    seed: int,
) -> None:
    # the start's table cards are seen: a defender who takes them did not hold them
    # among the unknown cards of its start hand
    state, rng = new_game(Rules(), seed), random.Random(seed)
    moves = []
    while state.talon:
        mover, action = state.turn, rng.choice(legal_actions(state))
        state = step(state, action)
        moves.append((mover, action, observe(state, 0)))
    taken = 0
    for s in range(1, len(moves)):
        start = moves[s - 1][2]
        if not start.table:
            continue
        later = GameLog(start, moves[s:])
        record, r = PublicRecord.of(later), random.Random(s)
        replayed = record.replay(record.past(sample_world(later.latest, r), r))
        assert replayed is not None and observe(replayed[0], 0) == later.latest
        ended = next(o for _, _, o in later.moves if not o.table)  # the bout's end
        taken += bool(table_mask(start.table) & ended.known_cards(1).mask)
    assert taken  # records whose start's table player 1 takes


def test_a_world_with_cards_the_record_cannot_place_is_an_inference_error() -> None:
    log = _seat_log(0, 2, 16)
    record, rng = PublicRecord.of(log), random.Random(0)
    world = sample_world(log.latest, rng)
    hidden = world.hand_masks[1] & ~world.knowledge.exposed.mask & ~record.seen
    card = CARDS[hidden.bit_length() - 1]
    short = rebuild(
        world,
        hand_masks=(world.hand_masks[0], world.hand_masks[1] & ~(1 << card.index)),
        talon=(card, *world.talon),
    )
    with pytest.raises(RuntimeError, match=r"^inference: \d+ cards for \d+ places of 1$"):
        record.past(short, rng)


def test_a_card_played_before_any_place_could_hold_it_is_an_inference_error() -> None:
    log = _seat_log(0, 2, 16)
    record, rng = PublicRecord.of(log), random.Random(0)
    assert any(who == 1 for r in record.refills for who, _ in r.draws)  # 1 drew later
    world = sample_world(log.latest, rng)
    # every card of player 1 told to have been played before its first draw
    early = attrs.evolve(record, first_play=dict.fromkeys(range(len(CARDS)), -1))
    with pytest.raises(RuntimeError, match=r"^inference: card .+ has no place in 1's past$"):
        early.past(world, rng)


def test_a_log_whose_draws_do_not_add_up_is_an_inference_error() -> None:
    log = _seat_log(0, 2, 40)
    sizes = [log.start.talon_size] + [after.talon_size for _, _, after in log.moves]
    drew = [t for t in range(len(log.moves)) if sizes[t + 1] < sizes[t]]
    assert len(drew) > 1
    first, later = drew[0], drew[1]
    mover, action, _ = log.moves[first]
    # the talon shrinks by two refills' draws while the hands grow by one's
    after = attrs.evolve(log.moves[first][2], talon_size=log.moves[later][2].talon_size)
    skipped = GameLog(log.start, [*log.moves[:first], (mover, action, after)])
    with pytest.raises(RuntimeError, match=rf"^inference: the draws after action {first} do"):
        PublicRecord.of(skipped)


def _to_the_last_draw(rules: Rules, seed: int) -> GameLog:
    """Player 0's log of a game played with the first legal action up to the refill that
    empties the talon."""
    state = new_game(rules, seed)
    log = GameLog(observe(state, 0))
    while state.talon or not log.moves:
        mover, action = state.turn, legal_actions(state)[0]
        state = step(state, action)
        log.moves.append((mover, action, observe(state, 0)))
    return log


@pytest.mark.parametrize(("seed", "drawer"), [(2, 1), (8, 1), (1, 0)])
def test_the_face_up_trump_card_goes_last_to_whoever_drew_it(seed: int, drawer: int) -> None:
    log = _to_the_last_draw(Rules(), seed)
    record = PublicRecord.of(log)
    assert record.refills[-1].trump_to == drawer
    assert all(r.trump_to is None for r in record.refills[:-1])
    for s in range(6):
        rng = random.Random(s)
        past = record.past(sample_world(log.latest, rng), rng)
        assert past.talon[-1] == log.start.trump_card


def test_a_game_without_trumps_has_no_trump_card_to_draw() -> None:
    record = PublicRecord.of(_to_the_last_draw(Rules(trumps=False), 4))
    assert record.refills and all(r.trump_to is None for r in record.refills)
