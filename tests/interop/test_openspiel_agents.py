"""OpenSpiel's bots as durak agents, and durak agents as OpenSpiel bots."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.support.extras import require_extra

pyspiel = require_extra("pyspiel")

import numpy as np  # noqa: E402
from open_spiel.python import policy  # noqa: E402
from open_spiel.python.algorithms import evaluate_bots, exploitability  # noqa: E402

from durak.agents import make_agent  # noqa: E402
from durak.agents.base import SpecError  # noqa: E402
from durak.arena.gamelog.files import read_log  # noqa: E402
from durak.cli.app import app  # noqa: E402
from durak.encoding import ActionSpace  # noqa: E402
from durak.interop.openspiel import AgentBot, bot, game_string  # noqa: E402
from durak.interop.openspiel.agent_policies import AgentPolicy  # noqa: E402
from durak.rules import (  # noqa: E402
    Action,
    Observation,
    Rules,
    RulesError,
    is_terminal,
    legal_actions,
    new_game,
    observe,
    step,
)

SMALL = Rules(lowest_rank=10, hand_size=5)  # 20 cards
SPECS = [
    "openspiel-ismcts:simulations=8",
    "openspiel-mcts:simulations=8",
    # The least allowed: the first simulation only expands the root (issue 47).
    "openspiel-ismcts:simulations=2,policy=value",
    "openspiel-mcts:simulations=2",
]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(
    "rules", [SMALL, Rules(players=3, lowest_rank=9, hand_size=4, transfer=True)]
)
def test_openspiel_agents_play_whole_legal_games(spec: str, rules: Rules) -> None:
    agents = [make_agent(spec)] + [make_agent("random")] * (rules.players - 1)
    state = new_game(rules, 8)
    rngs = [random.Random(p) for p in range(rules.players)]
    while not is_terminal(state):
        p = state.turn
        action = agents[p].act(observe(state, p), rngs[p])
        assert action in legal_actions(state)
        state = step(state, action)


@pytest.mark.parametrize("name", ["openspiel-ismcts", "openspiel-mcts"])
def test_bad_settings_are_refused_by_name(name: str) -> None:
    with pytest.raises(SpecError, match="simulations"):
        make_agent(f"{name}:simulations=0")
    # One simulation tries no action: it forfeited every decision with a choice (issue 47).
    with pytest.raises(SpecError, match=r"simulations must be in \[2, 1e\+07\], got 1"):
        make_agent(f"{name}:simulations=1")
    with pytest.raises(SpecError, match="unknown parameter 'depth'"):
        make_agent(f"{name}:depth=2")


def test_without_open_spiel_the_registry_loads_and_the_agent_says_what_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['pyspiel'] = None\n"
        "import durak.interop.openspiel_agents\n"
        "from durak.agents import SpecError, make_agent, registry\n"
        "assert 'openspiel-ismcts' in registry()\n"
        "try:\n"
        "    make_agent('openspiel-ismcts')\n"
        "except SpecError as e:\n"
        "    print(isinstance(e, ImportError), e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "True openspiel-ismcts needs open-spiel: pip install 'durak-lab[openspiel]'"
    )


def match(tmp_path: Path, name: str, *specs: str) -> tuple[dict[str, Any], list[Any]]:
    log = tmp_path / f"{name}.jsonl"
    args = ["match", *specs, "-n", "2", "--seed", "4", "--lowest-rank", "10", "--hand-size", "5"]
    result = CliRunner().invoke(app, [*args, "--json", "-q", "--log", str(log)])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    del report["timing"]
    # The log is in the order the worker processes finish: sorted, it is one per game.
    return report, sorted((e.game, e.deal_seed, e.seats, e.actions) for e in read_log(log).entries)


def test_durak_match_plays_legal_seeded_reproducible_games(tmp_path: Path) -> None:
    specs = ("openspiel-ismcts:simulations=5", "openspiel-mcts:simulations=5")
    first, games = match(tmp_path, "a", *specs)
    again, replayed = match(tmp_path, "b", *specs)
    assert first == again and games == replayed and len(games) == 2
    assert first["forfeits"] == 0 and all(not row["forfeits"] for row in first["agents"])


# --- durak agents as OpenSpiel bots ---------------------------------------------------------


def play(bots: list[AgentBot], seed: int) -> tuple[list[float], list[int]]:
    game = pyspiel.load_game(game_string(SMALL))
    state = game.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(seed))
    return returns, state.history()


def test_bots_play_agents_reproducibly() -> None:
    first = play([bot("smart", 0, 1), bot("ismcts:limit=10", 1, 2)], seed=3)
    again = play([bot("smart", 0, 1), bot("ismcts:limit=10", 1, 2)], seed=3)
    assert first == again and sorted(first[0]) == [-1.0, 1.0]
    one = play([bot("random", 0, 1), bot("random", 1, 2)], seed=3)
    other = play([bot("random", 0, 1), bot("random", 1, 5)], seed=3)
    assert other[1][:20] == one[1][:20]  # the same deal
    assert other != one  # another seed, another game


def test_bot_refuses_bad_input() -> None:
    with pytest.raises(SpecError, match="unknown agent"):
        bot("nobody", 0, 1)
    with pytest.raises(TypeError, match="player must be"):
        bot("random", -1, 1)
    game = pyspiel.load_game(game_string(SMALL))
    state = game.new_initial_state()
    with pytest.raises(RulesError, match="the deal is not over"):
        bot("random", 0, 1).step(state)
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    other = 1 - state.current_player()
    with pytest.raises(RulesError, match="not this bot's"):
        bot("random", other, 1).step(state)


class Listener:
    """An agent that plays the first legal action and records the watcher hooks."""

    name = "listener"

    def __init__(self) -> None:
        self.heard: list[str] = []

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return observation.legal_actions[0]

    def game_started(self, observation: Observation) -> None:
        self.heard.append("start")

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        assert observation.player == 0
        self.heard.append(f"{player}:{action}")

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        self.heard.append(f"end {loser}")


def test_a_watching_agent_hears_every_action_once() -> None:
    listener = Listener()
    returns, history = play([AgentBot(listener, 0, 1), bot("random", 1, 2)], seed=4)
    decisions = len(history) - SMALL.deck_size
    assert listener.heard[0] == "start" and listener.heard.count("start") == 1
    assert len(listener.heard) == decisions + 2
    durak = returns.index(-1.0)
    assert listener.heard[-1] == f"end {durak}"


# --- durak agents as OpenSpiel policies -----------------------------------------------------


def decisions(game: Any, seed: int) -> list[Any]:
    """Copies of the decision states of one random game of ``game``."""
    rng = random.Random(seed)
    state, out = game.new_initial_state(), []
    while not state.is_terminal():
        if not state.is_chance_node():
            out.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    return out


def test_a_deterministic_agent_is_a_pure_policy() -> None:
    game = pyspiel.load_game(game_string(SMALL))
    lowest = AgentPolicy(game, "lowest", samples=3, seed=1)
    agent = make_agent("lowest")
    for state in decisions(game, 2):
        probs = lowest.action_probabilities(state)
        assert set(probs) == set(state.legal_actions())
        chosen = [a for a, p in probs.items() if p == 1.0]
        now = state.durak_state
        expected = agent.act(observe(now, now.turn), random.Random(0))
        assert chosen == [ActionSpace(SMALL).encode(expected)]


def test_a_random_agent_is_a_seeded_distribution_over_legal_actions() -> None:
    game = pyspiel.load_game(game_string(SMALL))
    one, two = (AgentPolicy(game, "random", samples=40, seed=3) for _ in range(2))
    mixed = 0
    for state in decisions(game, 4):
        probs = one.action_probabilities(state)
        assert set(probs) == set(state.legal_actions())
        assert sum(probs.values()) == pytest.approx(1.0)
        assert probs == two.action_probabilities(state)
        mixed += sum(p > 0 for p in probs.values()) > 1
    assert mixed > 3
    with pytest.raises(ValueError, match="samples must be a positive int"):
        AgentPolicy(game, "random", samples=0)


def test_a_policy_is_asked_only_for_the_player_to_act() -> None:
    game = pyspiel.load_game(game_string(SMALL))
    greedy = AgentPolicy(game, "greedy", samples=1, seed=0)
    state = decisions(game, 5)[3]
    now = state.current_player()
    assert set(greedy.action_probabilities(state, now)) == set(state.legal_actions())
    for other in (1 - now, -1, 7):
        with pytest.raises(RulesError) as error:
            greedy.action_probabilities(state, other)
        text = str(error.value)
        assert text == f"a policy is asked for the player to act, player {now}, not {other}"


def test_nash_conv_of_agents_on_the_smallest_three_player_game() -> None:
    """The 3-player 4-card game is not degenerate: the uniform policy can be exploited; an
    agent's NashConv is a number OpenSpiel's best response computes over the whole tree."""
    game = pyspiel.load_game("python_durak(players=3,lowest_rank=14,hand_size=1)")
    uniform = exploitability.nash_conv(game, policy.UniformRandomPolicy(game))
    assert uniform > 0.1
    value = exploitability.nash_conv(game, AgentPolicy(game, "greedy", samples=1, seed=0))
    assert 0.0 <= value <= 3 * (game.max_utility() - game.min_utility())
