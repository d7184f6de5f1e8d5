"""The learner's table (:class:`durak.envs.SoloTable`) with an autopilot: a declining
autopilot changes nothing, the exact-endgame autopilot leaves the learner only the
decisions the ``solver`` agent would defer, and training then sees the games that
``solver:fallback=...`` plays."""

from __future__ import annotations

import random

from durak.agents import LowestAgent
from durak.agents.heuristics.simple import lowest_action
from durak.agents.solver import ExactEndgame, SolverAgent, solved_move
from durak.arena.play.game import play_game
from durak.envs.solo import SoloStep, SoloTable
from durak.rules import Action, Observation, Rules

SMALL = Rules(lowest_rank=10, hand_size=4)  # 20 cards: endgames solve in a few nodes
NODES = 10**6


def _play(table: SoloTable, seed: int) -> tuple[list[Observation], SoloStep]:
    """One game with the learner playing ``lowest``; its decision points and the end."""
    now = table.reset(seed)
    seen = []
    while not now.done:
        seen.append(now.observation)
        now = table.step(lowest_action(now.observation))
    return seen, now


def test_an_autopilot_that_declines_changes_nothing() -> None:
    asked: list[Observation] = []

    def decline(o: Observation, rng: random.Random) -> Action | None:
        asked.append(o)
        return None

    plain = SoloTable(SMALL, [LowestAgent()], learner_seat=1)
    piloted = SoloTable(SMALL, [LowestAgent()], learner_seat=1, autopilot=decline)
    for seed in range(10):
        asked.clear()
        seen, end = _play(piloted, seed)
        assert (seen, end) == _play(plain, seed)
        assert asked == seen  # asked at exactly the learner's decision points


def test_the_endgame_autopilot_leaves_only_what_the_solver_defers() -> None:
    pilot_calls: list[bool] = []

    def pilot(o: Observation, rng: random.Random) -> Action | None:
        move = solved_move(o, rng, nodes=NODES)
        pilot_calls.append(move is not None)
        return move

    table = SoloTable(SMALL, [LowestAgent()], autopilot=pilot)
    for seed in range(30):
        seen, end = _play(table, seed)
        assert end.done
        for o in seen:
            assert solved_move(o, random.Random(0), nodes=NODES) is None
    piloted = sum(pilot_calls)
    assert 0 < piloted < len(pilot_calls)  # it played some moves and left others


class _Recorder:
    """``lowest``, which also records every action of the game it hears."""

    name = "recorder"

    def __init__(self) -> None:
        self.heard: list[Action] = []

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return lowest_action(observation)

    def game_started(self, observation: Observation) -> None:
        self.heard.clear()

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        self.heard.append(action)

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        pass


def test_training_with_the_autopilot_plays_the_solver_agents_games() -> None:
    """The learner (here: ``lowest``) with the exact-endgame autopilot plays exactly the
    games ``solver:fallback=lowest`` plays, so a table trained this way is trained for the
    agent that will play it."""
    opponent = _Recorder()
    pilot = ExactEndgame(NODES)  # as durak train --solve-endgame uses it
    table = SoloTable(SMALL, [opponent], learner_seat=0, autopilot=pilot)
    hybrid = SolverAgent(LowestAgent(), nodes=NODES)
    differs = 0
    for seed in range(20):
        _, end = _play(table, seed)
        record = play_game(SMALL, [hybrid, LowestAgent()], seed)
        assert tuple(opponent.heard) == record.actions
        assert end.loser == record.loser
        assert len(pilot.table) == 0  # it heard the game end
        plain = play_game(SMALL, [LowestAgent(), LowestAgent()], seed)
        differs += plain.actions != record.actions
    assert differs  # the autopilot did change some games
