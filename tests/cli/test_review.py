"""``durak review``: a logged game's decisions with the analyst's choice and the value
lost, the largest mistakes first, as a table or JSON; bad input is one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from durak.agents import make_agent
from durak.arena.gamelog.files import LogWriter, read_log
from durak.arena.gamelog.replay import replay_entry
from durak.arena.play.game import play_game
from durak.arena.play.person import play_entry
from durak.cli.app import app
from durak.rules import Rules
from durak.seeding import derive_seed
from tests.support.cli_checks import one_error

runner = CliRunner()

#: Small and quick: a small deck and a small search.
SMALL = ["--lowest-rank", "10", "--hand-size", "4"]
AGENT = "ismcts:limit=20"


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two match games of greedy against random on a small deck."""
    path = tmp_path_factory.mktemp("logs") / "run.jsonl"
    ran = invoke("match", "greedy", "random", "-n", "2", "--seed", "1", "-j", "1", *SMALL,
                 "--log", str(path))  # fmt: skip
    assert ran.exit_code == 0, ran.output
    return path


def reviewed(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def test_the_json_review_lists_every_decision_of_every_seat(log: Path) -> None:
    entry = read_log(log).entries[1]
    found = reviewed(invoke("review", str(log), "1", "--agent", AGENT, "--json", "-", "-q"))
    decisions = found["decisions"]
    assert isinstance(decisions, list)
    # No person played: every seat is reviewed, each logged action is a decision.
    assert found["seats"] == [0, 1] and found["game"] == 1 and found["line"] == entry.line
    assert [d["played"] for d in decisions] == list(entry.actions)
    assert [d["seat"] for d in decisions] == list(replay_entry(entry).movers)
    assert all(d["loss"] >= 0 for d in decisions if d["loss"] is not None)
    assert all(d["loss"] == 0 for d in decisions if d["played"] == d["chosen"])
    losses = {d["step"]: d["loss"] for d in decisions}
    assert [losses[s] for s in found["mistakes"]] == sorted(
        (v for v in losses.values() if v), reverse=True
    )
    again = reviewed(invoke("review", str(log), "1", "--agent", AGENT, "--json", "-", "-q"))
    assert again == found


def test_the_table_shows_each_decision_and_the_largest_mistakes(log: Path) -> None:
    entry = read_log(log).entries[0]
    result = invoke("review", str(log), "0", "--agent", AGENT, "--seat", "1", "--top", "2")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"match game 0 of greedy / random (line {entry.line}): seat 1 reviewed by {AGENT}" in out
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in out.splitlines() if "│" in line]
    game = replay_entry(entry)
    mine = [str(k + 1) for k, m in enumerate(game.movers) if m == 1]
    table = rows[: len(mine)]
    assert [r[0] for r in table] == mine and all(r[1] == "1" for r in table)
    assert "largest mistakes (top 2)" in out
    mistakes = rows[len(mine) :]
    assert len(mistakes) <= 2
    lost = [float(r[4]) for r in mistakes]
    assert lost == sorted(lost, reverse=True) and all(v > 0 for v in lost)


def test_a_persons_seat_is_the_one_reviewed_by_default(tmp_path: Path) -> None:
    rules = Rules(lowest_rank=10, hand_size=4)
    record = play_game(rules, [make_agent("greedy"), make_agent("random")], derive_seed(9, 0))
    path = tmp_path / "play.jsonl"
    with LogWriter(path) as writer:
        writer.write(play_entry(rules, ("greedy", "human"), 9, False, 0, record.actions, record))
    found = reviewed(invoke("review", str(path), "--agent", AGENT, "--json", "-"))
    assert found["seats"] == [1] and found["names"] == ["greedy", "human"]
    decisions = found["decisions"]
    assert isinstance(decisions, list) and decisions
    assert {d["seat"] for d in decisions} == {1}


def test_a_tampered_log_is_refused_as_replay_refuses_it(log: Path, tmp_path: Path) -> None:
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    entries[0]["actions"][1] = entries[0]["actions"][0]  # the same card twice
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries), "utf-8")
    replayed = invoke("replay", str(bad))
    result = invoke("review", str(bad), "1", "--agent", AGENT)
    one_error(result, f"{bad} line 1: action 2 ", "is illegal")
    assert result.stderr == replayed.stderr and result.stdout == ""


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["7"], ["has no game with game 7"]),
        ([], ["has 2 games", "(lines 1, 2); choose one with --line"]),
        (["--line", "5"], ["has no game with --line 5"]),
        (["0", "--seat", "2"], ["seat 2 is not a seat of this game (seats 0 to 1)"]),
        (["0", "--agent", "greedy"], ["agent 'greedy' cannot analyse a decision"]),
        (["0", "--agent", "nope"], ["unknown agent 'nope'"]),
        (["0", "--top", "-1"], ["--top"]),
    ],
    ids=["unknown game", "no game named", "unknown line", "bad seat", "no analyst", "no agent",
         "bad top"],
)  # fmt: skip
def test_bad_input_is_one_line(log: Path, args: list[str], words: list[str]) -> None:
    one_error(invoke("review", str(log), *args), *words)


def test_a_missing_log_is_one_line(tmp_path: Path) -> None:
    one_error(invoke("review", str(tmp_path / "none.jsonl")), "No such file or directory")
