"""``durak play`` driven by a scripted standard input."""

from __future__ import annotations

import json
import random
from pathlib import Path
from threading import Event

from typer.testing import CliRunner, Result

import tests.support.faulty_agents  # noqa: F401  (registers the test agents)
from durak.agents import GreedyAgent
from durak.arena.gamelog.files import read_log
from durak.arena.gamelog.replay import replay_entry
from durak.cli.app import app
from durak.cli.commands.play import Announced
from durak.rules import Action, Observation, Rules, legal_actions, new_game, observe

runner = CliRunner()
ALWAYS_FIRST = "1\n" * 600


def play(*args: str, stdin: str = ALWAYS_FIRST) -> Result:
    return runner.invoke(app, ["play", *args], input=stdin)


def test_a_person_plays_a_whole_game_and_it_is_logged(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    result = play("greedy", "--seed", "3", "--log", str(log))
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("play: you are seat 0 of 2 · seed 3 · 2 players, 36 cards")
    for shown in (
        "Discard pile: 0 cards.",
        "Trump: ",
        "Talon: ",
        "Opponents: player 1: ",
        "Table: empty",
        "Your hand: ",
        "Legal actions:\n  1. ",
        "Your choice (1-",
    ):
        assert shown in out
    assert "=== game over: " in out
    (entry,) = read_log(log).entries
    assert (entry.kind, entry.specs, entry.seats, entry.end) == (
        "play",
        ("human", "greedy"),
        (0, 1),
        "finished",
    )
    game = replay_entry(entry, log)
    assert game.final.turn == -1
    # Every decision of the person is asked, or played at once when only one is legal.
    asked = [
        len(legal_actions(s)) > 1
        for s, m in zip(game.states[:-1], game.movers, strict=True)
        if m == 0
    ]
    assert out.count("Your choice (1-") == sum(asked)
    assert out.count("Only one action is legal") == len(asked) - sum(asked)
    verdict = (
        "you are the durak"
        if entry.durak == 0
        else ("player 1 is the durak" if entry.durak == 1 else "a draw")
    )
    assert f"=== game over: {verdict}" in out
    again = play("greedy", "--seed", "3", "--log", str(tmp_path / "again.jsonl"))
    assert again.exit_code == 0
    assert read_log(tmp_path / "again.jsonl").entries[0].actions == entry.actions


def test_bad_input_is_asked_again() -> None:
    result = play("greedy", "--seed", "3", stdin="garbage\n0\nPass\n" + ALWAYS_FIRST)
    assert result.exit_code == 0, result.output
    assert "Could not read 'garbage'" in result.stdout
    assert "0 is not a choice: enter a number from 1 to " in result.stdout
    assert "Pass is not legal now" in result.stdout  # never, when leading or defending
    assert "=== game over: " in result.stdout


def test_the_end_of_input_saves_the_game_so_far(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    result = play("greedy", "--seed", "3", "--log", str(log), stdin="1\n1\n")
    assert result.exit_code == 0, result.output
    (entry,) = read_log(log).entries
    assert entry.end == "interrupted" and entry.durak is None and len(entry.actions) >= 2
    assert (
        f"end of input after {len(entry.actions)} moves; the game so far is saved in {log}"
        in result.stderr
    )
    assert replay_entry(entry, log).final.turn == 0  # the person was to move


def test_ctrl_c_exits_cleanly_with_the_game_saved(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    result = play("test-interrupt:after=3", "--seed", "5", "--log", str(log))
    assert result.exit_code == 130
    (entry,) = read_log(log).entries
    assert entry.end == "interrupted" and entry.specs == ("human", "test-interrupt:after=3")
    game = replay_entry(entry, log)
    assert sum(1 for m in game.movers if m == 1) == 2  # its third decision was Ctrl-C
    assert (
        f"interrupted after {len(entry.actions)} moves; the game so far is saved" in result.stderr
    )
    assert "Traceback" not in result.output


def test_a_seat_among_three_and_several_games(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    result = play(
        "greedy",
        "random",
        "--seat",
        "1",
        "--games",
        "2",
        "--seed",
        "8",
        "--log",
        str(log),
        "--variant",
        "perevodnoy",
    )
    assert result.exit_code == 0, result.output
    assert "you are seat 1 of 3" in result.stdout and "perevodnoy" in result.stdout
    entries = read_log(log).entries
    assert [e.game for e in entries] == [0, 1]
    assert all(e.specs == ("greedy", "human", "random") and e.rules.transfer for e in entries)
    lost = sum(e.durak == 1 for e in entries)
    assert f"you were the durak in {lost} of 2 games" in result.stdout
    for e in entries:
        replay_entry(e, log)


def test_play_errors_exit_2() -> None:
    for args, message in [
        (["greedy", "--seat", "2"], "--seat 2 is not a seat of a 2-player"),
        (["nope"], "unknown agent 'nope'"),
        (["greedy"] * 6, "Rules.players must be 2..6, got 7"),
    ]:
        result = play(*args)
        assert result.exit_code == 2 and message in result.stderr
        assert result.stderr.count("\n") == 1


def test_a_slow_opponent_is_announced_and_a_quick_one_is_not() -> None:
    state = new_game(Rules(), 1)
    said: list[str] = []
    started = Event()

    class Slow(GreedyAgent):
        def act(self, observation: Observation, rng: random.Random) -> Action:
            assert started.wait(60), "the announcement never came"
            return super().act(observation, rng)

    def announce(text: str) -> None:
        said.append(text)
        started.set()

    slow = Announced(Slow(), 1, delay=0.0, announce=announce)  # decides only once announced
    assert slow.act(observe(state, state.turn), random.Random(0)) in legal_actions(state)
    assert said == ["player 1 is thinking…"]
    quick = Announced(GreedyAgent(), 2, delay=60.0, announce=said.append)
    quick.act(observe(state, state.turn), random.Random(0))
    assert said == ["player 1 is thinking…"]  # cancelled before its time


def test_a_second_session_on_one_log_continues_its_numbering(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    for _ in range(2):  # the same seed twice: without new numbers, game 0 twice
        session = play("greedy", "--seed", "3", "--lowest-rank", "12", "--log", str(log))
        assert session.exit_code == 0, session.output
    checked = runner.invoke(app, ["replay", str(log)])
    assert checked.exit_code == 0, checked.output
    games = [json.loads(line)["game"] for line in log.read_text().splitlines()]
    assert games == [0, 1]
    assert "continue its numbering from game 1" in session.stdout
