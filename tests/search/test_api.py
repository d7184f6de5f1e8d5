"""The search package's shared pieces: budgets, seeding, results, MCTS tree reuse and the
Durak adapter's conformance to the game protocol."""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Generic

import attrs
import pytest

from durak.rules import (
    Action,
    DurakGame,
    GameState,
    Observation,
    Rules,
    legal_actions,
    new_game,
    observe,
    step,
)
from durak.search import (
    MCTS,
    Budget,
    BudgetExhausted,
    Game,
    ImperfectGame,
    SearchError,
    SearchResult,
    TranspositionTable,
    TreeSettings,
    alphabeta,
    as_rng,
    ismcts,
    maxn,
    mcts,
    pimc,
)
from durak.search.protocol import A, S
from durak.search.simulation import CHECK_EVERY, settled
from tests.support.imperfect_games import CardObs, CardState, HiddenCardGame, OneShot
from tests.support.toygames import (
    Nim,
    NimAction,
    NimState,
    RandomTree,
    RTState,
    TicTacToe,
    random_evaluator,
)

GAME = DurakGame(Rules(lowest_rank=12))  # 12 cards, 2 players: the talon is empty at once


@pytest.mark.parametrize(
    "kwargs",
    [{"iterations": 0}, {"nodes": -3}, {"seconds": 0.0}, {"iterations": 2.5}, {"nodes": True}],
)
def test_budget_rejects_non_positive_or_mistyped_limits(kwargs: dict[str, float]) -> None:
    with pytest.raises(SearchError, match="Budget"):
        Budget(**kwargs)  # type: ignore[arg-type]


def test_budget_needs_a_limit_where_a_search_would_not_end() -> None:
    assert Budget().unlimited and not Budget(seconds=0.5).unlimited
    with pytest.raises(SearchError, match="needs a budget"):
        Budget().require_limit("MCTS")
    Budget(nodes=1).require_limit("MCTS")


def test_as_rng_passes_generators_through_and_seeds_ints() -> None:
    r = random.Random(3)
    assert as_rng(r) is r
    assert as_rng(7).random() == random.Random(7).random()
    with pytest.raises(SearchError, match="rng"):
        as_rng("7")  # type: ignore[arg-type]


def test_value_of_finds_listed_actions_and_refuses_others() -> None:
    result = SearchResult("a", 0.5, 0, (("a", 0.5), ("b", -1.0)))
    assert result.value_of("b") == -1.0
    with pytest.raises(KeyError):
        result.value_of("c")


def test_durak_game_satisfies_the_protocols() -> None:
    game: ImperfectGame[GameState, Action, Observation] = GAME
    perfect: Game[GameState, Action] = GAME
    state = new_game(GAME.rules, 4)
    assert perfect.num_players == 2 and game.legal_actions(state) == legal_actions(state)
    action = legal_actions(state)[0]
    assert game.step(state, action) == step(state, action)
    obs = game.observe(state, 0)
    assert obs == observe(state, 0)
    assert game.observe(game.sample_world(obs, random.Random(1)), 0) == obs


def _root_visits(result: SearchResult[Action]) -> int:
    return sum(n for _, n in result.visits)


def test_mcts_continues_from_the_subtree_of_a_child_state() -> None:
    state = new_game(GAME.rules, 11)
    searcher = MCTS(GAME)
    first = searcher.search(state, budget=Budget(iterations=400), rng=1)
    assert searcher.root is not None
    child_action, child = max(searcher.root.children, key=lambda ac: ac[1].visits)
    before = child.visits
    assert before > 1
    second = searcher.search(step(state, child_action), budget=Budget(iterations=25), rng=2)
    # The child's first visit expanded it; every later one went through one of its children.
    assert _root_visits(second) == before - 1 + 25
    assert second.stats.tree_size > second.stats.iterations
    fresh = MCTS(GAME, reuse_depth=0)
    fresh.search(state, budget=Budget(iterations=400), rng=1)
    again = fresh.search(step(state, child_action), budget=Budget(iterations=25), rng=2)
    assert _root_visits(again) == 25
    assert first.stats.iterations == 400


def test_mcts_finds_a_grandchild_and_starts_afresh_off_the_tree() -> None:
    state = new_game(GAME.rules, 12)
    searcher = MCTS(GAME, reuse_depth=2)
    searcher.search(state, budget=Budget(iterations=600), rng=3)
    assert searcher.root is not None
    a, child = max(searcher.root.children, key=lambda ac: ac[1].visits)
    b, grandchild = max(child.children, key=lambda ac: ac[1].visits)
    before = grandchild.visits
    result = searcher.search(step(step(state, a), b), budget=Budget(iterations=10), rng=4)
    assert searcher.root is grandchild
    assert _root_visits(result) == before - 1 + 10
    off_tree = new_game(GAME.rules, 13)
    result = searcher.search(off_tree, budget=Budget(iterations=10), rng=4)
    assert _root_visits(result) == 10 and result.stats.tree_size == 11


def test_mcts_with_reuse_is_deterministic_over_a_sequence_of_searches() -> None:
    def run() -> list[SearchResult[Action]]:
        searcher = MCTS(GAME)
        state = new_game(GAME.rules, 21)
        out: list[SearchResult[Action]] = []
        rng = random.Random(5)
        while not GAME.is_terminal(state) and len(out) < 6:
            result = searcher.search(state, budget=Budget(iterations=60), rng=rng)
            out.append(result)
            state = step(state, result.action)
        return out

    first, second = run(), run()
    assert [r.action for r in first] == [r.action for r in second]
    assert [r.stats.without_time() for r in first] == [r.stats.without_time() for r in second]


def test_tree_searches_reject_bad_settings() -> None:
    state = new_game(GAME.rules, 1)
    obs = observe(state, state.turn)

    def zero(_: GameState) -> tuple[float, float]:
        return (0.0, 0.0)

    def first(s: GameState, _: random.Random) -> Action:
        return legal_actions(s)[0]

    with pytest.raises(SearchError, match="exploration constant"):
        MCTS(GAME, settings=TreeSettings(c=-1.0))
    with pytest.raises(SearchError, match="not both"):
        MCTS(GAME, settings=TreeSettings(rollout=first, evaluate=zero))
    with pytest.raises(SearchError, match="exploration constant"):
        ismcts(
            GAME,
            obs,
            player=state.turn,
            budget=Budget(iterations=1),
            rng=0,
            settings=TreeSettings(c=float("nan")),
        )
    with pytest.raises(SearchError, match="not both"):
        ismcts(
            GAME,
            obs,
            player=state.turn,
            budget=Budget(iterations=1),
            rng=0,
            settings=TreeSettings(rollout=first, evaluate=zero),
        )


def _positions(count: int) -> list[GameState]:
    """States from greedy-ish random play of full 36-card deals, every few plies."""
    rules = Rules()
    out: list[GameState] = []
    rng = random.Random(3)
    for seed in range(count):
        state = new_game(rules, seed)
        for _ in range(rng.randrange(0, 30)):
            if state.turn < 0:
                break
            state = step(state, legal_actions(state)[0])
        if state.turn >= 0 and len(legal_actions(state)) > 1:
            out.append(state)
    return out


def test_stopping_early_never_changes_the_decision_and_saves_iterations() -> None:
    game = DurakGame(Rules())
    saved = 0
    budget = Budget(iterations=300)
    for i, state in enumerate(_positions(12)):
        obs = observe(state, state.turn)
        full, early = (
            [
                MCTS(game, reuse_depth=0, settings=TreeSettings(stop_early=stop)).search(
                    state, budget=budget, rng=i
                ),
                ismcts(
                    game,
                    obs,
                    player=state.turn,
                    budget=budget,
                    rng=i,
                    settings=TreeSettings(stop_early=stop),
                ),
            ]
            for stop in (False, True)
        )
        for f, e in zip(full, early, strict=True):
            assert e.action == f.action
            assert f.stats.iterations == 300 and e.stats.iterations <= 300
            saved += 300 - e.stats.iterations
    assert saved > 0


# --------------------------------------------------------------------------------------
# Every refusal says what is wrong, whole (a partial match would let a mangled message by)

NIM = Nim((2, 3))
NIM_OVER: NimState = ((0, 0), 1)
CARDS = HiddenCardGame()
CARDS_START = CARDS.deal(5)
CARDS_OBS = CARDS.observe(CARDS_START, 0)


def _nim_value(_: NimState) -> tuple[float, float]:
    return (0.0, 0.0)


def _first_move(s: NimState, _: random.Random) -> NimAction:
    return NIM.legal_actions(s)[0]


def _flip_worlds() -> Callable[[CardObs, random.Random], CardState]:
    """A sampler alternating the two players' hands (their legal actions differ)."""
    worlds = itertools.cycle([CARDS_START, CardState(CARDS_START.hands[::-1], (), 0)])
    return lambda _obs, _rng: next(worlds)


def _alphabeta_cards(s: CardState, rng: random.Random) -> SearchResult[int]:
    return alphabeta(CARDS, s)


def _mcts_cards(s: CardState, rng: random.Random) -> SearchResult[int]:
    return mcts(CARDS, s, budget=Budget(iterations=2), rng=rng)


def _unchecked(value: object) -> Any:
    """``value``, typed to pass where the library must refuse it at run time."""
    return value


TTT = TicTacToe()
NOT_TERMINAL = "cannot search from a terminal state: it has no legal actions"
REFUSALS: list[tuple[Callable[[], object], type[Exception], str]] = [
    (
        lambda: Budget(iterations=0),
        SearchError,
        "Budget.iterations must be a positive number, got 0",
    ),
    (lambda: Budget(nodes=True), SearchError, "Budget.nodes must be a positive number, got True"),
    (
        lambda: Budget(seconds=-1.5),
        SearchError,
        "Budget.seconds must be a positive number, got -1.5",
    ),
    (
        lambda: Budget(iterations=_unchecked(2.5)),
        SearchError,
        "Budget.iterations must be a positive number, got 2.5",
    ),
    (
        lambda: Budget(nodes=_unchecked("9")),
        SearchError,
        "Budget.nodes must be a positive number, got '9'",
    ),
    (
        lambda: Budget().require_limit("PIMC"),
        SearchError,
        "PIMC needs a budget: set iterations, nodes or seconds",
    ),
    (
        lambda: as_rng(_unchecked("7")),
        SearchError,
        "rng must be a random.Random or an int seed, got '7'",
    ),
    (lambda: as_rng(True), SearchError, "rng must be a random.Random or an int seed, got True"),
    (lambda: alphabeta(NIM, NIM_OVER), SearchError, NOT_TERMINAL),
    (lambda: maxn(NIM, NIM_OVER), SearchError, NOT_TERMINAL),
    (lambda: mcts(NIM, NIM_OVER, budget=Budget(iterations=1), rng=0), SearchError, NOT_TERMINAL),
    (
        lambda: alphabeta(NIM, NIM.initial(), depth=0, evaluate=_nim_value),
        SearchError,
        "depth must be a positive int or None, got 0",
    ),
    (
        lambda: alphabeta(NIM, NIM.initial(), depth=True, evaluate=_nim_value),
        SearchError,
        "depth must be a positive int or None, got True",
    ),
    (
        lambda: maxn(NIM, NIM.initial(), depth=2),
        SearchError,
        "a depth limit needs an evaluate function for the frontier",
    ),
    (
        lambda: alphabeta(NIM, NIM.initial(), iterative=False, budget=Budget(nodes=2)),
        BudgetExhausted,
        "the budget ran out before a search to terminals ended",
    ),
    (
        lambda: alphabeta(
            NIM,
            NIM.initial(),
            depth=3,
            evaluate=_nim_value,
            iterative=False,
            budget=Budget(nodes=2),
        ),
        BudgetExhausted,
        "the budget ran out before a search to depth 3 ended",
    ),
    (
        lambda: maxn(NIM, NIM.initial(), bounds=_unchecked((-1.0,))),
        SearchError,
        "bounds must be (min_value, max_sum), two finite numbers; got (-1.0,)",
    ),
    (
        lambda: maxn(NIM, NIM.initial(), bounds=(-1.0, math.inf)),
        SearchError,
        "bounds must be (min_value, max_sum), two finite numbers; got (-1.0, inf)",
    ),
    (
        lambda: maxn(NIM, NIM.initial(), bounds=(-0.5, 0.0)),
        SearchError,
        "returns gave (1.0, -1.0) at ((0, 0), 1), outside the pruning bounds "
        "(every payoff >= -0.5, sum <= 0.0)",
    ),
    (
        lambda: maxn(
            NIM, NIM.initial(), depth=1, evaluate=lambda s: (0.5, 0.5), bounds=(-1.0, 0.0)
        ),
        SearchError,
        "evaluate gave (0.5, 0.5) at ((1, 3), 1), outside the pruning bounds "
        "(every payoff >= -1.0, sum <= 0.0)",
    ),
    (
        lambda: alphabeta(NIM, NIM.initial(), value_range=(1.0, -1.0)),
        SearchError,
        "value_range must be (lo, hi), finite with lo <= hi; got (1.0, -1.0)",
    ),
    (
        lambda: alphabeta(NIM, NIM.initial(), value_range=(-0.5, 0.5)),
        SearchError,
        "returns gave 1.0 at ((0, 0), 1), outside value_range [-0.5, 0.5]",
    ),
    (
        lambda: MCTS(NIM, settings=TreeSettings(c=-1.0)),
        SearchError,
        "the exploration constant c must be >= 0, got -1.0",
    ),
    (
        lambda: MCTS(NIM, settings=TreeSettings(c=math.nan)),
        SearchError,
        "the exploration constant c must be >= 0, got nan",
    ),
    (
        lambda: MCTS(NIM, settings=TreeSettings(rollout=_first_move, evaluate=_nim_value)),
        SearchError,
        "give a rollout policy or a value function, not both",
    ),
    (
        lambda: MCTS(NIM, settings=TreeSettings(bias=-0.5)),
        SearchError,
        "the progressive bias must be >= 0, got -0.5",
    ),
    (
        lambda: MCTS(NIM, settings=TreeSettings(bias=0.5)),
        SearchError,
        "a progressive bias needs a heuristic",
    ),
    (
        lambda: MCTS(
            NIM,
            settings=TreeSettings(
                bias=0.5, heuristic=lambda s, a: a[0], prior=lambda s, a: [1.0] * len(a)
            ),
        ),
        SearchError,
        "give a progressive bias or a prior, not both",
    ),
    (
        lambda: mcts(
            NIM,
            NIM.initial(),
            budget=Budget(iterations=1),
            rng=0,
            settings=TreeSettings(prior=lambda s, a: [0.5, 1.5]),
        ),
        SearchError,
        "a prior must give one probability in [0, 1] per action: 5 actions, got [0.5, 1.5]",
    ),
    (
        lambda: mcts(
            TTT,
            TTT.initial(),
            budget=Budget(iterations=1),
            rng=0,
            settings=TreeSettings(prior=lambda s, a: [0.1] * 8 + [1.5]),
        ),
        SearchError,
        "a prior must give one probability in [0, 1] per action: 9 actions, "
        "got [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]",
    ),
    (
        lambda: ismcts(CARDS, CARDS_OBS, player=1, budget=Budget(iterations=1), rng=0),
        SearchError,
        "player 1 is not to move in this observation",
    ),
    (
        lambda: ismcts(CARDS, CARDS_OBS, player=0, budget=Budget(), rng=0),
        SearchError,
        "ISMCTS needs a budget: set iterations, nodes or seconds",
    ),
    (
        lambda: pimc(CARDS, CARDS_OBS, worlds=0, search=_alphabeta_cards, rng=0),
        SearchError,
        "worlds must be a positive int, got 0",
    ),
    (
        lambda: pimc(CARDS, CARDS_OBS, worlds=True, search=_alphabeta_cards, rng=0),
        SearchError,
        "worlds must be a positive int, got True",
    ),
    (
        lambda: pimc(CARDS, CARDS_OBS, worlds=_unchecked(2.0), search=_alphabeta_cards, rng=0),
        SearchError,
        "worlds must be a positive int, got 2.0",
    ),
    (
        lambda: pimc(
            CARDS, CARDS_OBS, worlds=2, search=_alphabeta_cards, rng=0, combine=_unchecked("best")
        ),
        SearchError,
        "combine must be 'vote', 'mean' or 'visits', got 'best'",
    ),
    (
        lambda: pimc(
            CARDS, CARDS_OBS, worlds=2, search=_alphabeta_cards, rng=0, sample=_flip_worlds()
        ),
        SearchError,
        "sampled worlds disagree on the legal actions: the observation must determine the "
        "searching player's options",
    ),
    (
        lambda: pimc(CARDS, CARDS_OBS, worlds=2, search=_alphabeta_cards, rng=0, combine="mean"),
        SearchError,
        "combine='mean' needs a value for every legal action in every world; use a search "
        "that values them all (e.g. alphabeta(..., root_values=True))",
    ),
    (
        lambda: pimc(CARDS, CARDS_OBS, worlds=2, search=_alphabeta_cards, rng=0, combine="visits"),
        SearchError,
        "combine='visits' needs a search that reports root visits (e.g. mcts)",
    ),
    (
        lambda: SearchResult("a", 0.5, 0, (("a", 0.5),)).value_of("c"),
        KeyError,
        "no value for action 'c'",
    ),
]


@pytest.mark.parametrize(("make", "error", "message"), REFUSALS)
def test_every_refusal_says_what_is_wrong_whole(
    make: Callable[[], object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        make()
    assert raised.value.args == (message,)


def test_pimc_with_mcts_in_each_world_combines_visits() -> None:
    # The refusals above need a search without visits; this one has them.
    result = pimc(CARDS, CARDS_OBS, worlds=2, search=_mcts_cards, rng=0, combine="visits")
    assert sum(n for _, n in result.visits) == 4


def test_every_search_times_itself_within_the_call() -> None:
    root = NIM.initial()
    searches: list[Callable[[], SearchResult[Any]]] = [
        lambda: alphabeta(NIM, root),
        lambda: maxn(NIM, root),
        lambda: maxn(NIM, root, paranoid=True),
        lambda: mcts(NIM, root, budget=Budget(iterations=20), rng=0),
        lambda: ismcts(CARDS, CARDS_OBS, player=0, budget=Budget(iterations=20), rng=0),
        lambda: pimc(CARDS, CARDS_OBS, worlds=2, search=_mcts_cards, rng=0),
    ]
    for search in searches:
        before = time.perf_counter()
        result = search()
        assert 0.0 < result.stats.seconds <= time.perf_counter() - before  # ns clock
        assert result.stats.without_time() == attrs.evolve(result.stats, seconds=0.0)
        assert result.stats.without_time().seconds == 0.0


def test_settled_means_a_lead_greater_than_the_simulations_left() -> None:
    for k in (1, 2, 3):
        for visits in itertools.product(range(5), repeat=k):
            first, second = [*sorted(visits, reverse=True), 0][:2]  # no runner-up: 0 visits
            for remaining in range(6):
                assert settled(visits, remaining) == (first - second > remaining), (
                    visits,
                    remaining,
                )
    assert not settled([100, 0], math.inf)


def test_a_time_limit_already_past_stops_each_search_at_its_first_look_at_the_clock() -> None:
    # 1 ns is over before one simulation, or 1024 nodes, is done.
    budget = Budget(seconds=1e-9)
    game = TicTacToe()
    assert mcts(game, game.initial(), budget=budget, rng=0).stats.iterations == 1
    cards = HiddenCardGame()
    deal = cards.deal(0)
    seen = cards.observe(deal, 0)
    assert ismcts(cards, seen, player=0, budget=budget, rng=0).stats.iterations == 1
    for search in (alphabeta, maxn):
        with pytest.raises(BudgetExhausted, match="before a search to terminals ended"):
            search(game, game.initial(), budget=budget)


def test_stop_early_without_an_iteration_budget_never_stops_early() -> None:
    game = TicTacToe()
    results = [
        MCTS(game, settings=TreeSettings(stop_early=stop)).search(
            game.initial(), budget=Budget(nodes=2000), rng=3
        )
        for stop in (False, True)
    ]
    assert results[0].visits == results[1].visits
    assert results[0].stats.iterations == results[1].stats.iterations > 100


class StepSpy(Generic[S, A]):
    """``game``, recording every ``(state, action)`` it is asked to step."""

    def __init__(self, game: Game[S, A]) -> None:
        self.game = game
        self.num_players = game.num_players
        self.steps: list[tuple[S, A]] = []

    def legal_actions(self, state: S) -> Sequence[A]:
        return self.game.legal_actions(state)

    def step(self, state: S, action: A) -> S:
        self.steps.append((state, action))
        return self.game.step(state, action)

    def current_player(self, state: S) -> int:
        return self.game.current_player(state)

    def is_terminal(self, state: S) -> bool:
        return self.game.is_terminal(state)

    def returns(self, state: S) -> Sequence[float]:
        return self.game.returns(state)


@pytest.mark.parametrize("seed", [2, 3, 4])
def test_alphabeta_tries_the_best_move_a_kept_table_names_first(seed: int) -> None:
    game = RandomTree(seed, players=2, depth=6, branching=3, zero_sum=True, early_stop=0.0)
    root = game.initial()
    evaluate = random_evaluator(seed)
    table = TranspositionTable()
    shallow = alphabeta(
        game, root, depth=2, evaluate=evaluate, iterative=False, transpositions=table
    )
    stored = dict(table.for_player(game.current_player(root)))
    spy = StepSpy(game)
    alphabeta(spy, root, depth=3, evaluate=evaluate, iterative=False, transpositions=table)
    first_tried: dict[RTState, int] = {}
    for state, action in spy.steps:
        first_tried.setdefault(state, action)
    assert first_tried[root] == shallow.action == stored[root][4]
    # Inner states whose entry (depth 1) does not settle them at depth 2 are searched again.
    again = [s for s, entry in stored.items() if s in first_tried and not entry[1]]
    assert {first_tried[s] for s in again} and all(first_tried[s] == stored[s][4] for s in again)
    assert any(stored[s][4] != game.legal_actions(s)[0] for s in again), "no case where it shows"


class EdgePayoffs(OneShot):
    """Three players, one move: the least payoff exactly the tolerance below -1, or the sum
    exactly the tolerance above 1."""

    def __init__(self) -> None:
        super().__init__((0.0, 0.0))

    @property
    def num_players(self) -> int:
        return 3

    def returns(self, state: int) -> tuple[float, ...]:  # type: ignore[override]  # 3 players
        return [(-1.0 - 1e-9, 0.5, 0.5), (1.0, 1e-9, 0.0), (0.0, 0.0, 0.0)][state]


def test_maxn_accepts_payoffs_exactly_at_the_tolerance_of_its_bounds() -> None:
    result = maxn(EdgePayoffs(), -1, bounds=(-1.0, 1.0), root_values=True)
    assert dict(result.action_values) == {0: -1.0 - 1e-9, 1: 1.0}


def test_mcts_and_ismcts_name_themselves_and_the_terminal_root_they_refuse() -> None:
    end = CARDS_START
    while not CARDS.is_terminal(end):
        end = CARDS.step(end, CARDS.legal_actions(end)[0])
    cases: list[tuple[Callable[[], object], str]] = [
        (
            lambda: MCTS(NIM).search(NIM.initial(), budget=Budget(), rng=0),
            "MCTS needs a budget: set iterations, nodes or seconds",
        ),
        (
            lambda: ismcts(CARDS, CARDS_OBS, player=0, budget=Budget(), rng=0),
            "ISMCTS needs a budget: set iterations, nodes or seconds",
        ),
        (
            lambda: ismcts(
                CARDS, CARDS.observe(end, 0), player=0, budget=Budget(iterations=5), rng=0
            ),
            "cannot search from a terminal state: it has no legal actions",
        ),
        (
            lambda: ismcts(
                CARDS,
                CARDS_OBS,
                player=0,
                budget=Budget(iterations=5),
                rng=0,
                settings=TreeSettings(
                    heuristic=lambda s, legal: legal[0],
                    bias=0.5,
                    prior=lambda s, legal: [1.0 / len(legal)] * len(legal),
                ),
            ),
            "give a progressive bias or a prior, not both",
        ),
    ]
    for call, message in cases:
        with pytest.raises(SearchError) as raised:
            call()
        assert str(raised.value) == message


def visits_of(result: SearchResult[Any]) -> list[int]:
    return [n for _, n in result.visits]


@pytest.mark.parametrize("algorithm", ["mcts", "ismcts"])
def test_stop_early_stops_at_the_first_check_where_the_lead_is_settled(algorithm: str) -> None:
    # OneShot-like choice with one clearly best action among eight: the lead builds fast.
    game = OneShot((0.1, 0.2, 0.9, 0.0, 0.3, -0.5, 0.25, 0.15))
    total = 400

    def run(iterations: int, stop_early: bool) -> SearchResult[int]:
        budget = Budget(iterations=iterations)
        if algorithm == "mcts":
            tree = MCTS(game, settings=TreeSettings(c=0.3, stop_early=stop_early))
            return tree.search(game.initial(), budget=budget, rng=7)
        return ismcts(
            game,
            game.initial(),
            player=0,
            budget=budget,
            rng=7,
            settings=TreeSettings(c=0.3, stop_early=stop_early),
        )

    # The same seed runs the same first simulations, so a shorter budget is a prefix.
    stop = next(
        n
        for n in range(CHECK_EVERY, total, CHECK_EVERY)
        if settled(visits_of(run(n, False)), total - n)
    )
    early = run(total, True)
    assert early.stats.iterations == stop < total
    assert visits_of(early) == visits_of(run(stop, False))
    assert early.action == run(total, False).action


def test_a_time_limit_never_met_leaves_mcts_and_ismcts_to_their_iterations() -> None:
    budget = Budget(iterations=50, seconds=3600.0)
    assert mcts(NIM, NIM.initial(), budget=budget, rng=0).stats.iterations == 50
    result = ismcts(CARDS, CARDS_OBS, player=0, budget=budget, rng=0)
    assert result.stats.iterations == 50


def test_no_exploration_and_a_single_value_range_are_allowed() -> None:
    # c = 0 is greedy selection; a range (v, v) suits a game whose every value is v.
    greedy = MCTS(NIM, settings=TreeSettings(c=0.0)).search(
        NIM.initial(), budget=Budget(iterations=30), rng=0
    )
    assert greedy.stats.iterations == 30
    greedy_info = ismcts(
        CARDS,
        CARDS_OBS,
        player=0,
        budget=Budget(iterations=30),
        rng=0,
        settings=TreeSettings(c=0.0),
    )
    assert greedy_info.stats.iterations == 30
    flat = TicTacToe()
    evaluate = lambda s: (0.0, 0.0)  # noqa: E731
    result = alphabeta(flat, flat.initial(), depth=1, evaluate=evaluate, value_range=(0.0, 0.0))
    assert result.value == 0.0


def test_ismcts_reports_the_searching_player() -> None:
    for leader in (0, 1):
        start = CARDS.deal(5, leader=leader)
        seen = CARDS.observe(start, leader)
        result = ismcts(CARDS, seen, player=leader, budget=Budget(iterations=20), rng=0)
        assert result.player == leader
