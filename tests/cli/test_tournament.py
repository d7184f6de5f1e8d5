"""``durak tournament`` and ``durak grid``: tables, files, faulty agents, errors."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import tests.support.faulty_agents  # noqa: F401  (registers the test agents)
from durak.arena.gamelog.files import read_log
from durak.cli.app import app
from tests.support.faulty_agents import HangAgent

runner = CliRunner()


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def rows(text: str) -> list[list[str]]:
    """The body rows of every table, as stripped cells."""
    return [
        [c.strip() for c in line.split("│")[1:-1]]
        for line in text.splitlines()
        if line.startswith("│")
    ]


def test_a_tournament_prints_the_matrix_and_the_ranking(tmp_path: Path) -> None:
    csv_file, json_file = tmp_path / "t.csv", tmp_path / "t.json"
    args = ["tournament", "random", "greedy", "lowest", "-n", "8", "--seed", "4"]
    one = invoke(*args, "-j", "1", "--csv", str(csv_file), "--json", str(json_file))
    assert one.exit_code == 0, one.output
    assert one.stdout.startswith("tournament: 3 agents, 3 pairings × 8 games · seed 4\n")
    table = rows(one.stdout)
    matrix, ranking = table[:3], table[3:]
    assert [r[0] for r in matrix] == ["random", "greedy", "lowest"]
    assert [matrix[i][i + 1] for i in range(3)] == ["—"] * 3
    data = json.loads(json_file.read_text(encoding="utf-8"))
    score = {(p["row"], p["column"]): p["score"] for p in data["pairs"]}
    assert score[("greedy", "random")] + score[("random", "greedy")] == pytest.approx(1)
    assert matrix[1][1].startswith(f"{score[('greedy', 'random')]:.1%} (")
    assert [r[1] for r in ranking] == [s["spec"] for s in data["ranking"]]
    assert [r[0] for r in ranking] == ["1", "2", "3"]
    with csv_file.open(encoding="utf-8") as f:
        lines = list(csv.DictReader(f))
    assert len(lines) == 6 and {(r["row"], r["column"]) for r in lines} == set(score)
    assert all(int(r["wins"]) + int(r["draws"]) + int(r["losses"]) == 8 for r in lines)
    two = invoke(*args, "-j", "2")
    assert [r[:-1] for r in rows(two.stdout)] == [r[:-1] for r in table]  # but ms/move


def test_faulty_agents_forfeit_without_stopping_the_tournament(tmp_path: Path) -> None:
    log = tmp_path / "t.jsonl"
    finished = len(HangAgent.finished)
    result = invoke(
        "tournament",
        "test-crash:p=0.3",
        "test-hang:seconds=20",
        "test-illegal:p=0.2",
        "greedy",
        "-n",
        "2",
        "--seed",
        "1",
        "-j",
        "1",
        "--move-timeout",
        "0.05",
        "--log",
        str(log),
        "-v",
    )
    assert result.exit_code == 0, result.output
    assert len(HangAgent.finished) == finished  # every stuck move was interrupted
    entries = read_log(log).entries
    assert len(entries) == 12  # 6 pairings × 2 games: the run went on
    faults = {
        (e.specs[e.seats[e.forfeit.seat]], e.forfeit.fault)
        for e in entries
        if e.forfeit is not None
    }
    assert faults == {
        ("test-crash:p=0.3", "error"),
        ("test-hang:seconds=20", "timeout"),
        ("test-illegal:p=0.2", "illegal"),
    }
    for e in entries:
        if e.forfeit is not None:
            assert e.durak == e.seats[e.forfeit.seat] and e.end == "forfeit"
    ranking = {r[1]: r for r in rows(result.stdout) if len(r) == 10}
    for spec, row in ranking.items():  # the forfeits column counts the logged forfeits
        logged = sum(
            e.forfeit is not None and e.specs[e.seats[e.forfeit.seat]] == spec for e in entries
        )
        assert row[8] == str(logged)
    assert ranking["greedy"][8] == "0" and int(ranking["test-hang:seconds=20"][8]) >= 3
    assert "forfeit by test-hang:seconds=20 (timeout: no answer within the 0.05 s" in result.stdout


def test_a_grid_prints_each_setting_and_marks_the_best(tmp_path: Path) -> None:
    csv_file = tmp_path / "g.csv"
    result = invoke(
        "grid",
        "random",
        "--param",
        "stop_chance=0,0.5,0.9",
        "--vs",
        "greedy",
        "-n",
        "6",
        "--seed",
        "2",
        "-j",
        "1",
        "--csv",
        str(csv_file),
        "--json",
        "-",
    )
    assert result.exit_code == 0, result.output
    # The JSON goes to stdout alone, so a pipe can parse it; the tables go to stderr.
    report = json.loads(result.stdout)
    assert result.stderr.startswith("grid: random with stop_chance (3 settings) vs greedy")
    table = rows(result.stderr)
    assert [r[1] for r in table] == [
        "random:stop_chance=0",
        "random:stop_chance=0.5",
        "random:stop_chance=0.9",
    ]
    with csv_file.open(encoding="utf-8") as f:
        lines = list(csv.DictReader(f))
    scores = [float(r["score"]) for r in lines]
    best = scores.index(max(scores))
    assert [r[0].endswith(" *") for r in table] == [k == best for k in range(3)]
    assert report["best"] == lines[best]["spec"] and report["params"] == {
        "stop_chance": ["0", "0.5", "0.9"]
    }


def test_a_grid_with_two_opponents_plays_three_seats() -> None:
    result = invoke(
        "grid",
        "random:stop_chance={s}",
        "-p",
        "s=0,1",
        "--vs",
        "greedy",
        "--vs",
        "lowest",
        "-n",
        "3",
        "--seed",
        "1",
        "-j",
        "1",
    )
    assert result.exit_code == 0, result.output
    assert "rules: 3 players" in result.stdout
    assert [r[1] for r in rows(result.stdout)] == ["random:stop_chance=0", "random:stop_chance=1"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tournament", "random"], "a tournament needs at least two agents"),
        (["tournament", "random", "random"], "agent spec 'random' is given twice"),
        (["tournament", "random", "random:"], "agent spec 'random:' is given twice"),
        (["grid", "random", "--param", "stop_chance=0.5,.5"], "'random:stop_chance=.5' is given"),
        (["tournament", "random", "nope"], "unknown agent 'nope'"),
        (["grid", "mcts", "--param", "c"], "bad --param 'c'"),
        (["grid", "mcts:c=1", "--param", "c=1,2"], "c is set in the template"),
        (["grid", "random", "--param", "stop_chance=2"], "stop_chance must be in [0, 1]"),
        (["grid", "random"], "Missing option '--param'"),
    ],
)
def test_errors_are_one_line_with_exit_code_2(args: list[str], message: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert message in result.stderr and "Traceback" not in result.output
