"""Round robins, grid searches and the statistics block of a match."""

from __future__ import annotations

import pytest

from durak.agents import SpecError
from durak.arena.experiments.grid import Grid, GridParam, GridResult, expand, parse_param
from durak.arena.experiments.tournament import Tournament, TournamentResult
from durak.arena.play.match import GameOutcome, MatchPlan, play_match_game
from durak.arena.play.referee import Forfeit, Referee
from durak.arena.runs.run import Run
from durak.arena.scores.result import MatchResult
from durak.arena.scores.wilson import wilson
from durak.rules import Rules

SPECS = ("random", "greedy", "lowest")


def play(plans: list[MatchPlan]) -> list[MatchResult]:
    run = Run(plans)
    for _ in run.play():
        pass
    return run.results()


def test_a_tournament_plays_every_pair_on_the_same_deals() -> None:
    t = Tournament(Rules(), SPECS, seed=3, games=10)
    assert t.pairs == [(0, 1), (0, 2), (1, 2)]
    plans = t.plans()
    assert [p.specs for p in plans] == [
        ("random", "greedy"),
        ("random", "lowest"),
        ("greedy", "lowest"),
    ]
    assert {p.deal_seed(4) for p in plans} == {plans[0].deal_seed(4)}


def test_the_matrix_is_antisymmetric_and_the_ranking_sorted() -> None:
    t = Tournament(Rules(), SPECS, seed=3, games=10)
    result = TournamentResult(t, tuple(play(t.plans())))
    for i in range(3):
        for j in range(3):
            if i != j:
                assert result.score(i, j) + result.score(j, i) == pytest.approx(1.0)
                low, high = result.score_interval(i, j)
                assert low <= result.score(i, j) <= high
    match, a = result.match_between(2, 0)  # lowest vs random is the plan (random, lowest)
    assert match.specs == ("random", "lowest") and a == 1
    assert result.score(2, 0) == (match.wins(1) + match.draws / 2) / 10
    ranking = result.ranking()
    assert [s.score for s in ranking] == sorted((s.score for s in ranking), reverse=True)
    top = ranking[0]
    assert top.wins + top.draws + top.losses == top.games == 20
    assert top.score == pytest.approx(
        sum(result.score(top.agent, j) for j in range(3) if j != top.agent) / 2
    )
    assert (top.low, top.high) == wilson(top.wins + top.draws / 2, 20, 0.98)


@pytest.mark.parametrize(
    ("specs", "rules", "message"),
    [
        (("random",), Rules(), "at least two agents"),
        (("random", "random"), Rules(), "twice"),
        (("random", "greedy", "random:"), Rules(), "'random:' is given twice"),
        (("random:stop_chance=.50", "random:stop_chance=0.5"), Rules(), "given twice"),
        (SPECS, Rules(players=3), "for 2 players"),
    ],
)
def test_a_tournament_checks_its_input(specs: tuple[str, ...], rules: Rules, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Tournament(rules, specs, seed=0, games=2)


def test_a_tournament_names_its_agents_by_their_canonical_specs() -> None:
    t = Tournament(Rules(), ("random:stop_chance=.50", "greedy:"), seed=0, games=2)
    assert t.specs == ("random:stop_chance=0.5", "greedy")
    assert [p.specs for p in t.plans()] == [("random:stop_chance=0.5", "greedy")]


def test_a_tournament_refuses_negative_games_when_made_and_plans_with_its_own_fields() -> None:
    with pytest.raises(ValueError, match=r"^games must not be negative, got -1$"):
        Tournament(Rules(), SPECS, seed=0, games=-1)
    referee = Referee(move_timeout=5.0)
    t = Tournament(Rules(), SPECS, seed=7, games=4, open_world=True, referee=referee)
    assert [(p.rules, p.seed, p.games, p.open_world, p.referee) for p in t.plans()] == [
        (Rules(), 7, 4, True, referee)
    ] * len(t.pairs)
    assert [p.specs for p in t.plans()] == [(SPECS[i], SPECS[j]) for i, j in t.pairs]


def test_grid_parameters_are_read_and_checked() -> None:
    assert parse_param("c=0.5, 1,1.41") == GridParam("c", ("0.5", "1", "1.41"))
    for bad, why in [
        ("c", "expected name=value"),
        ("=1", "expected name=value"),
        ("c=1,,2", "an empty value"),
        ("c=1,1", "given twice"),
    ]:
        with pytest.raises(ValueError, match=why):
            parse_param(bad)


def test_grid_settings_fill_placeholders_or_append() -> None:
    c, limit = GridParam("c", ("0.5", "2")), GridParam("limit", ("10", "20"))
    specs = [s.spec for s in expand("mcts:samples=1", [c, limit])]
    assert specs == [
        "mcts:samples=1,c=0.5,limit=10",
        "mcts:samples=1,c=0.5,limit=20",
        "mcts:samples=1,c=2,limit=10",
        "mcts:samples=1,c=2,limit=20",
    ]
    assert [s.spec for s in expand("mcts", [c])] == ["mcts:c=0.5", "mcts:c=2"]
    placed = expand("mcts:limit={limit},samples=1", [limit])
    assert [(s.spec, s.label) for s in placed] == [
        ("mcts:limit=10,samples=1", "limit=10"),
        ("mcts:limit=20,samples=1", "limit=20"),
    ]
    for template, params, why in [
        ("mcts:c=1", [c], "set in the template"),
        ("mcts:c={x}", [c], "placeholder {x}"),
        ("mcts", [c, c], "swept twice"),
    ]:
        with pytest.raises(SpecError, match=why):
            expand(template, params)


def test_a_grid_plays_each_setting_against_the_same_opponents() -> None:
    grid = Grid(
        "random", (GridParam("stop_chance", ("0", "0.9")),), ("greedy",), Rules(), seed=2, games=6
    )
    plans = grid.plans()
    assert [p.specs for p in plans] == [
        ("random:stop_chance=0", "greedy"),
        ("random:stop_chance=0.9", "greedy"),
    ]
    result = GridResult(grid, tuple(play(plans)))
    rates = [m.score_rate(0) for m in result.matches]
    assert result.best() == rates.index(max(rates))


def test_the_statistics_block_counts_what_it_says() -> None:
    plan = MatchPlan(Rules(players=3), SPECS, 5, 6)
    played = [play_match_game(plan, g) for g in range(6)]
    result = MatchResult(plan, tuple(p.outcome for p in played))
    moves = sum(len(p.actions) for p in played)
    bouts = sum(p.outcome.bouts for p in played)
    assert result.bouts_per_game() == bouts / 6 and result.moves_per_bout() == moves / bouts
    for agent in range(3):
        assert result.durak_count(agent) + result.wins(agent) + result.draws == 6
        decisions = sum(p.outcome.decisions[agent] for p in played)
        think = sum(p.outcome.think_time[agent] for p in played)
        assert result.mean_think(agent) == pytest.approx(think / decisions)
    assert result.draw_interval() == wilson(result.draws, 6, 0.98)


def test_forfeits_are_counted_per_agent_and_fault() -> None:
    def game(g: int, forfeit: Forfeit | None, durak: int) -> GameOutcome:
        return GameOutcome(g, durak, (1, 0), 1, 1, (1, 1), (0.0, 0.0), (0.0, 0.0), forfeit)

    plan = MatchPlan(Rules(), ("random", "greedy"), 0, 4)
    result = MatchResult(
        plan,
        (
            game(0, Forfeit(0, "timeout", "slow"), 1),
            game(1, None, 0),
            game(2, Forfeit(0, "timeout", "slow"), 1),
            game(3, Forfeit(1, "error", "boom"), 0),
        ),
    )
    assert result.forfeits(1) == {"timeout": 2} and result.forfeits(0) == {"error": 1}
    assert result.forfeit_count == 3
    first = result.first_forfeit(1)
    assert first is not None and first.game == 0
    assert not MatchResult(plan, ()).complete and MatchResult(plan, ()).win_interval(0) == (0, 1)
