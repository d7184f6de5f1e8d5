"""Agents' spec parsing, the game runner, the benchmark and the CLI."""

from __future__ import annotations

import random

import pytest
from typer.testing import CliRunner

from durak.agents import RandomAgent, SpecError, make_agent, parse_spec, registry
from durak.agents.heuristics.simple import random_choice
from durak.arena.experiments.bench import (
    bench_alphabeta,
    bench_engine,
    bench_ismcts,
    bench_mcts,
    endgames,
)
from durak.arena.play.game import play_game
from durak.cli.app import app
from durak.rules import (
    Attack,
    Card,
    Pass,
    Rules,
    Take,
    is_terminal,
    legal_actions,
    new_game,
    observe,
    step,
)
from durak.seeding import derive_seed

runner = CliRunner()


def test_parse_spec_splits_name_and_params() -> None:
    assert parse_spec("random") == ("random", {})
    assert parse_spec(" random:stop_chance=0.5 ") == ("random", {"stop_chance": "0.5"})


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("nope", "unknown agent 'nope'"),
        ("random:depth=3", "unknown parameter 'depth'"),
        ("random:stop_chance=high", "stop_chance must be a number"),
        ("random:stop_chance=1.5", "stop_chance must be in [0, 1]"),
        ("random:stop_chance", "expected key=value"),
        ("random:stop_chance=0.1,stop_chance=0.2", "given twice"),
    ],
)
def test_bad_specs_name_the_problem(spec: str, fragment: str) -> None:
    with pytest.raises(SpecError) as info:
        make_agent(spec)
    assert fragment in str(info.value)


def test_registry_lists_random_and_builds_it() -> None:
    info = registry()["random"]
    assert [p.name for p in info.params] == ["stop_chance"]
    assert "stop_chance: float = 0.2 in [0, 1]" in info.usage()
    agent = make_agent("random:stop_chance=0.3")
    assert agent == RandomAgent(0.3)


def test_random_choice_respects_stop_chance() -> None:
    card = Card.parse("6S")
    legal = (Attack(card), Pass())
    assert random_choice(legal, lambda: 0.0, 0.2) == Pass()  # 0.0 < stop_chance: stops
    assert random_choice(legal, lambda: 0.5, 0.2) == Attack(card)
    assert random_choice((Take(),), lambda: 0.99, 0.2) == Take()


def test_random_agent_only_plays_legal_actions() -> None:
    agent = RandomAgent()
    rng = random.Random(3)
    state = new_game(Rules(players=3), 3)
    while not is_terminal(state):
        action = agent.act(observe(state, state.turn), rng)
        assert action in legal_actions(state)
        state = step(state, action)


def test_derive_seed_is_deterministic_and_spreads() -> None:
    assert derive_seed(1, 2) == derive_seed(1, 2)
    seeds = {derive_seed(1, i) for i in range(1000)} | {derive_seed(2, i) for i in range(1000)}
    assert len(seeds) == 2000


def test_play_game_is_reproducible_and_replays() -> None:
    rules = Rules(players=3, transfer=True)
    agents = [RandomAgent(), RandomAgent(0.5), RandomAgent(0.0)]
    first = play_game(rules, agents, seed=11)
    second = play_game(rules, agents, seed=11)
    assert first.actions == second.actions and first.loser == second.loser
    final = first.replay()
    assert is_terminal(final)
    assert first.bouts >= 1
    assert sum(first.decisions) == len(first.actions)
    other = play_game(rules, agents, seed=12)
    assert other.actions != first.actions


def test_play_game_rejects_wrong_agent_count() -> None:
    with pytest.raises(ValueError, match="3 players need 3 agents"):
        play_game(Rules(players=3), [RandomAgent()], seed=0)


def test_bench_engine_counts_games_and_decisions() -> None:
    result = bench_engine(Rules(), games=5, seed=0)
    assert result.games == 5
    assert result.decisions >= 5 * 3  # every game has at least a lead, an answer and an end
    assert result.games_per_second > 0 and result.us_per_decision > 0


def test_cli_match_prints_results_and_is_deterministic() -> None:
    out1 = runner.invoke(app, ["match", "random", "random", "--games", "20", "--seed", "4"])
    out2 = runner.invoke(app, ["match", "random", "random", "--games", "20", "--seed", "4"])
    assert out1.exit_code == 0, out1.output
    assert "seed 4 · 20 games = 10 deals × 2 seatings" in out1.output
    assert "games 20 · draws " in out1.output

    def body(text: str) -> list[str]:
        # Drop the wall-time line and the two timing columns; the rest is seed-determined.
        return [
            "│".join(line.split("│")[:-3])
            for line in text.splitlines()
            if not line.startswith("time:")
        ]

    assert body(out1.output) == body(out2.output)


def test_bench_searches_count_their_work() -> None:
    mcts_run = bench_mcts(Rules(), positions=2, iterations=30, seed=0)
    assert (mcts_run.count, mcts_run.positions, mcts_run.unit) == (60, 2, "iterations")
    ismcts_run = bench_ismcts(Rules(), positions=2, iterations=25, seed=0)
    assert (ismcts_run.count, ismcts_run.positions, ismcts_run.unit) == (50, 2, "iterations")
    ab = bench_alphabeta(Rules(), positions=2, nodes=500, seed=0)
    assert ab.unit == "nodes" and 2 <= ab.count <= 2 * 500
    assert mcts_run.per_second > 0 and ismcts_run.per_second > 0 and ab.per_second > 0


def test_bench_endgames_have_an_empty_talon_and_a_player_to_move() -> None:
    states = endgames(Rules(), 3, seed=5)
    assert len(states) == 3
    assert all(not s.talon and s.turn >= 0 for s in states)
    assert len(set(states)) == 3


def test_cli_bench_prints_three_player_counts_and_the_searches() -> None:
    args = ["bench", "--games", "3", "--positions", "1", "--iterations", "20", "--nodes", "300"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    for players in ("2", "4", "6"):
        assert any(
            line.split("│")[1].strip() == players
            for line in result.output.splitlines()
            if line.count("│") > 2
        )
    assert "20 iterations" in result.output and "ISMCTS, greedy rollouts" in result.output
    assert "iterations/s" in result.output and "nodes/s" in result.output
