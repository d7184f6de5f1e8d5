"""What an agent thinks of a decision (:mod:`durak.agents.interface.analysis`): every legal action,
the agent's own choice, reproducible, and a function of the observation only."""

from __future__ import annotations

import random
from types import SimpleNamespace

import attrs
import pytest

from durak.agents import base as agents_base
from durak.agents import make_agent
from durak.agents.base import SpecError
from durak.agents.heuristics import evals
from durak.agents.interface import analysis as analysis_module
from durak.agents.interface.analysis import (
    ActionAssessment,
    Analysis,
    Analyst,
    analyse,
    forced,
    spec_of,
)
from durak.agents.searchers.ismcts import IsmctsAgent
from durak.agents.searchers.options import ROLLOUTS, searched_game
from durak.agents.solver import determined
from durak.rules import (
    Action,
    GameState,
    Observation,
    Rules,
    is_terminal,
    legal_actions,
    new_game,
    observe,
    sample_world,
    step,
)
from durak.search import Budget, ismcts
from tests.support.extras import require_extra

#: Small budgets: these tests check what an analysis says, not how strong it is.
SEARCHES = (
    "ismcts:limit=40",
    "ismcts:limit=30,bias=5,c=0.5",
    "ismcts:limit=30,opponent=greedy",
    "ismcts:limit=400,nodes=600",
    "ismcts:limit=30,endgame=2000",
)


def positions(rules: Rules, seed: int, count: int) -> list[GameState]:
    """``count`` positions with a choice that more than one world fits (the player to move
    cannot tell where some hidden card is), from games of random moves (``seed``)."""
    rng = random.Random(seed)
    found: list[GameState] = []
    game = 0
    while len(found) < count:
        state = new_game(rules, seed + game)
        game += 1
        while not is_terminal(state):
            unsure = not determined(observe(state, state.turn))
            if len(legal_actions(state)) > 1 and unsure and rng.random() < 0.3:
                found.append(state)
            state = step(state, rng.choice(legal_actions(state)))
    return found[:count]


def twin_of(state: GameState, seed: int) -> GameState:
    """Another full state the player to move cannot tell from ``state``: the hidden cards
    (the opponents' hands, the talon's order) dealt otherwise."""
    mine = observe(state, state.turn)
    rng = random.Random(seed)
    for _ in range(200):
        twin = sample_world(mine, rng)
        if twin != state:
            assert observe(twin, state.turn) == mine
            return twin
    raise AssertionError("no other world fits this observation")


def check_covers_the_decision(analysis: Analysis, o: Observation) -> None:
    assert analysis.player == o.player
    assert tuple(a.action for a in analysis.actions) == tuple(o.legal_actions)
    assert analysis.chosen in o.legal_actions
    assert analysis.loss(analysis.chosen) == 0.0
    for a in analysis.actions:
        loss = analysis.loss(a.action)
        assert loss is None or loss >= 0.0
    if analysis.kind == "search":
        shares = [a.share for a in analysis.actions]
        assert all(s is not None and 0 <= s <= 1 for s in shares)
        assert sum(s for s in shares if s is not None) == pytest.approx(1.0)
        chosen = analysis.of(analysis.chosen)
        assert chosen.visits == max(a.visits or 0 for a in analysis.actions)


@pytest.mark.parametrize("spec", SEARCHES)
def test_a_search_analysis_lists_every_action_and_chooses_what_act_plays(spec: str) -> None:
    rules = Rules(lowest_rank=10)
    for k, state in enumerate(positions(rules, 5, 4)):
        o = observe(state, state.turn)
        agent = make_agent(spec)
        assert isinstance(agent, Analyst)
        analysis = analyse(agent, o, random.Random(k))
        check_covers_the_decision(analysis, o)
        assert analysis.chosen == make_agent(spec).act(o, random.Random(k))
        assert analysis == analyse(make_agent(spec), o, random.Random(k))
        assert analysis.spec == spec_of(agent)
        assert make_agent(analysis.spec) == make_agent(spec)


def test_act_and_analyse_play_the_search_results_action() -> None:
    """``act`` and ``analyse`` share one search: both give the most visited action of
    :func:`durak.search.ismcts` run with the agent's settings and the same generator."""
    agent = make_agent("ismcts:limit=50")
    assert isinstance(agent, IsmctsAgent)
    settings = agent.tree_settings(None, None, ROLLOUTS["greedy"], evals.greedy_heuristic)
    for k, state in enumerate(positions(Rules(lowest_rank=9), 2, 5)):
        o = observe(state, state.turn)
        direct = ismcts(
            searched_game(o),
            o,
            player=o.player,
            budget=Budget(iterations=50),
            rng=random.Random(k),
            settings=settings,
        )
        assert agent.act(o, random.Random(k)) == direct.action
        analysis = analyse(agent, o, random.Random(k))
        assert analysis.chosen == direct.action
        assert [(a.action, a.visits) for a in analysis.actions] == list(direct.visits)
        assert [(a.action, a.value) for a in analysis.actions if a.visits] == list(
            direct.action_values
        )


@pytest.mark.parametrize("spec", SEARCHES)
def test_an_analysis_is_a_function_of_the_observation_only(spec: str) -> None:
    """The leak test: two full states that the player to move cannot tell apart (the
    hidden cards dealt otherwise) give the same analysis for the same seed."""
    rules = Rules(lowest_rank=10)  # 20 cards: hidden ones in the talon and the other hand
    compared = 0
    for k, state in enumerate(positions(rules, 11, 4)):
        twin = twin_of(state, k)
        seen = [
            analyse(make_agent(spec), observe(s, s.turn), random.Random(k)) for s in (state, twin)
        ]
        assert seen[0] == seen[1]
        compared += state.hand_masks != twin.hand_masks
    assert compared > 0, "no twin dealt the hands otherwise"


def test_three_players_and_transfers_are_analysed_too() -> None:
    rules = Rules(players=3, lowest_rank=9, transfer=True)
    for k, state in enumerate(positions(rules, 3, 3)):
        o = observe(state, state.turn)
        analysis = analyse(make_agent("ismcts:limit=30"), o, random.Random(k))
        check_covers_the_decision(analysis, o)
        twin = twin_of(state, k)
        assert (
            analyse(make_agent("ismcts:limit=30"), observe(twin, twin.turn), random.Random(k))
            == analysis
        )


def forced_position(rules: Rules) -> Observation:
    """The first decision with one legal action, playing the last legal action each time."""
    state = new_game(rules, 0)
    while len(legal_actions(state)) != 1:
        state = step(state, legal_actions(state)[-1])
    return observe(state, state.turn)


def test_a_forced_decision_is_its_one_action_with_all_the_share() -> None:
    o = forced_position(Rules(lowest_rank=12))
    analysis = analyse(make_agent("ismcts:limit=30"), o, random.Random(0))
    assert analysis.chosen == o.legal_actions[0]
    assert analysis.actions == (ActionAssessment(o.legal_actions[0], None, share=1.0),)
    assert analysis.loss(analysis.chosen) == 0.0


def test_a_solved_endgame_gives_the_exact_value_of_the_solved_move() -> None:
    from durak.agents import solver  # noqa: PLC0415

    rules = Rules(lowest_rank=12)  # every card dealt: every position is a known endgame
    solved = 0
    for seed in range(20):
        state = new_game(rules, seed)
        for _ in range(2 + seed % 3):
            state = step(state, legal_actions(state)[0])
        if is_terminal(state) or len(legal_actions(state)) == 1:
            continue
        o = observe(state, state.turn)
        exact = solver.solved_result(o, random.Random(seed), nodes=100_000_000)
        analysis = analyse(make_agent("ismcts:limit=3,endgame=100000000"), o, random.Random(seed))
        check_covers_the_decision(analysis, o)
        if exact is None:
            assert analysis.kind == "search"
            continue
        solved += 1
        assert analysis.kind == "solve" and analysis.chosen == exact.action
        assert analysis.of(exact.action).value == exact.value
        assert all(a.share is None for a in analysis.actions)
    assert solved >= 5


def test_strongest_analyses_as_the_agent_it_resolves_to() -> None:
    rules = Rules(lowest_rank=10)
    agent = make_agent("strongest", rules)
    state = positions(rules, 7, 1)[0]
    o = observe(state, state.turn)
    analysis = analyse(agent, o, random.Random(3))
    check_covers_the_decision(analysis, o)
    assert analysis.spec == agent.spec(rules)  # type: ignore[attr-defined]
    assert analysis.kind == "search"
    assert analysis.chosen == make_agent("strongest", rules).act(o, random.Random(3))
    resolved = make_agent(analysis.spec, rules)
    assert attrs.evolve(analyse(resolved, o, random.Random(3)), spec=analysis.spec) == analysis


def test_dmc_gives_its_networks_q_of_every_action() -> None:
    require_extra("torch")
    from durak.learn.dmc.agent import DmcGuide  # noqa: PLC0415

    agent = make_agent("dmc", Rules())
    guide = DmcGuide(agent.resolve(Rules()))  # type: ignore[attr-defined]
    for k, state in enumerate(positions(Rules(), 4, 4)):
        o = observe(state, state.turn)
        analysis = analyse(agent, o, random.Random(k))
        check_covers_the_decision(analysis, o)
        assert analysis.kind == "network" and analysis.spec == "dmc"
        clamped = [min(max(v, -1.0), 1.0) for v in guide.action_values(o)]
        assert [a.value for a in analysis.actions] == pytest.approx(clamped)
        assert all(a.share is None for a in analysis.actions)
        assert analysis.chosen == agent.act(o, random.Random(k))
        best = max(a.value for a in analysis.actions if a.value is not None)
        assert analysis.of(analysis.chosen).value == best
        twin = twin_of(state, k)
        assert analyse(agent, observe(twin, twin.turn), random.Random(k + 1)) == analysis
    assert analyse(agent, forced_position(Rules()), random.Random(0)).kind == "network"


def test_strongest_where_the_network_fits_is_the_guided_search() -> None:
    require_extra("torch")
    from durak.agents.strongest import GUIDED  # noqa: PLC0415

    agent = make_agent("strongest", Rules())
    state = positions(Rules(), 9, 1)[0]
    o = observe(state, state.turn)
    analysis = analyse(agent, o, random.Random(0))
    check_covers_the_decision(analysis, o)
    assert analysis.spec == GUIDED
    twin = twin_of(state, 0)
    assert analyse(agent, observe(twin, twin.turn), random.Random(0)) == analysis


def test_an_agent_that_cannot_analyse_is_one_spec_error_line() -> None:
    o = observe(new_game(Rules(), 0), 0)
    with pytest.raises(SpecError, match=r"^agent 'greedy' cannot analyse a decision") as caught:
        analyse(make_agent("greedy"), o, random.Random(0))
    assert "\n" not in str(caught.value)


def test_the_analysts_named_are_the_registry_s_own_plugins_included(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 61: the list was written by hand beside the registry."""
    o = observe(new_game(Rules(), 0), 0)
    with pytest.raises(SpecError) as caught:
        analyse(make_agent("greedy"), o, random.Random(0))
    assert str(caught.value).endswith("(dmc, ismcts, phased and strongest can)")
    monkeypatch.setattr(agents_base, "_REGISTRY", dict(agents_base._REGISTRY))

    @attrs.frozen
    class Thinker:
        name: str = "test-thinker"

        def act(self, observation: Observation, rng: random.Random) -> Action:
            return observation.legal_actions[0]

        def analyse(self, observation: Observation, rng: random.Random) -> Analysis:
            return forced(observation, self.name, "search")

    agents_base.register("test-thinker", Thinker, "a plugin's analyst")
    agents_base.register("test-plain", lambda: make_agent("greedy"), "a plugin's player")
    assert agents_base.registry()["test-thinker"].analyses
    assert not agents_base.registry()["test-plain"].analyses
    with pytest.raises(
        SpecError, match=r"\(dmc, ismcts, phased, strongest and test-thinker can\)$"
    ):
        analyse(make_agent("greedy"), o, random.Random(0))


@pytest.mark.parametrize(
    ("analysts", "can"),
    [
        ((), "no registered agent can"),
        (("a",), "a can"),
        (("a", "b"), "a and b can"),
        (("a", "b", "c"), "a, b and c can"),
    ],
)
def test_the_analysts_are_named_however_many_there_are(
    analysts: tuple[str, ...], can: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = {n: SimpleNamespace(analyses=n in analysts) for n in ("a", "b", "c", "plain")}
    monkeypatch.setattr(analysis_module, "registry", lambda: held)
    error = analysis_module.not_an_analyst("plain")
    assert str(error) == f"agent 'plain' cannot analyse a decision ({can})"


def test_a_seat_without_a_decision_is_refused() -> None:
    state = new_game(Rules(), 0)
    waiting = observe(state, 1 - state.turn)
    with pytest.raises(ValueError, match="has no decision to analyse"):
        analyse(make_agent("ismcts:limit=5"), waiting, random.Random(0))


def _assessed(action: Action, value: float | None, visits: int) -> ActionAssessment:
    return ActionAssessment(action, value, share=visits / 10, visits=visits)


def test_loss_and_ranking_follow_their_definitions() -> None:
    a, b, c, d = legal_actions(new_game(Rules(), 0))[:4]
    analysis = Analysis(
        0,
        "x",
        b,
        (_assessed(a, 0.5, 2), _assessed(b, 0.25, 5), _assessed(c, -0.5, 3), _assessed(d, None, 0)),
        "search",
    )
    assert analysis.loss(b) == 0.0
    assert analysis.loss(c) == 0.75
    assert analysis.loss(a) == 0.0  # valued above the choice: nothing lost
    assert analysis.loss(d) is None  # never tried: no value to compare
    assert [x.action for x in analysis.ranked()] == [b, c, a, d]
    with pytest.raises(KeyError):
        analysis.loss(legal_actions(new_game(Rules(), 0))[4])


def test_an_analysis_must_list_its_choice_once() -> None:
    a, b = legal_actions(new_game(Rules(), 0))[:2]
    with pytest.raises(ValueError, match="not among the listed"):
        Analysis(0, "x", b, (_assessed(a, 0.1, 1),), "search")
    with pytest.raises(ValueError, match="twice"):
        Analysis(0, "x", a, (_assessed(a, 0.1, 1), _assessed(a, 0.1, 1)), "search")
