"""The rough edges a newcomer met in the first hour (issue 39's "Friction"), each with the
command that showed it."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner, Result

from durak.agents import SpecError, make_agent
from durak.cli.app import app
from durak.cli.console import duration
from tests.support.cli_checks import one_error

runner = CliRunner()


def invoke(*args: str | Path, columns: int = 200) -> Result:
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": str(columns)})


def test_a_match_of_one_agent_is_refused_as_such() -> None:
    one_error(invoke("match", "greedy"), "a match needs at least two agents")


def test_a_nested_spec_s_parameter_after_a_comma_gets_the_semicolon_hint() -> None:
    try:
        make_agent("solver:fallback=mcts:samples=1,limit=10")
    except SpecError as e:
        assert "fallback=mcts:samples=1;limit=10" in str(e)
    else:
        raise AssertionError("the spec was accepted")


def test_replay_lines_up_the_actions_whatever_the_specs(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    played = invoke("match", "mcts:limit=5,samples=1", "greedy", "-n", "2", "--seed", "1",
                    "-j", "1", "-q", "--lowest-rank", "12", "--log", log)  # fmt: skip
    assert played.exit_code == 0, played.output
    shown = invoke("replay", log, "--game", "0")
    assert shown.exit_code == 0, shown.output
    moves = [line for line in shown.stdout.splitlines() if re.match(r"\s+\d+\. seat", line)]
    assert len(moves) > 2
    columns = {re.search(r"(Attack|Defend|Take|Pass|Transfer)", m).start() for m in moves}  # type: ignore[union-attr]
    assert len(columns) == 1, moves


def test_grid_marks_every_setting_of_a_tie_for_the_best() -> None:
    # faulty plays like random until `after` cards are discarded: never, with these values
    tie = invoke("grid", "faulty:fault=error", "--param", "after=100,200", "--vs", "greedy",
                 "-n", "4", "--seed", "1", "-j", "1", "-q")  # fmt: skip
    assert tie.exit_code == 0, tie.output
    marked = [line for line in tie.stdout.splitlines() if re.search(r"after=\d+ \*", line)]
    assert len(marked) == 2, tie.stdout
    assert "2 settings tied for the best" in tie.stdout


def test_help_descriptions_are_filled_not_broken_at_the_docstring_s_lines() -> None:
    shown = invoke("bench", "--help", columns=400)
    assert shown.exit_code == 0
    lines = [line.strip() for line in shown.stdout.splitlines()]
    assert any(
        line.startswith("Engine speed") and line.endswith("alpha-beta nodes/s.") for line in lines
    ), shown.stdout


def test_durations_are_never_zero_hours() -> None:
    assert duration(12.34) == "12.3 s"
    assert duration(750) == "12.5 min"
    assert duration(3 * 3600) == "3.00 h"


def test_a_resumed_dmc_run_says_its_seed_came_from_the_checkpoint(tmp_path: Path) -> None:
    out = tmp_path / "m.pt"
    base = ["train", "dmc:round=8,chunk=4,hidden=16,layers=2,batch=64", "--vs", "self,lowest"]
    base += ["--lowest-rank", "12", "--out", str(out), "--interval", "8"]
    base += ["--eval-games", "2", "--no-plot", "-q"]
    first = invoke(*base, "--games", "8")
    assert first.exit_code == 0, first.output
    seed = re.search(r"seed (\d+) \(random", first.stdout)
    assert seed is not None, first.stdout
    again = invoke(*base, "--games", "16", "--resume")
    assert again.exit_code == 0, again.output
    assert f"seed {seed[1]} (from m.pt.ckpt)" in again.stdout
    assert "0.00 h" not in first.stdout + again.stdout


def test_a_resume_with_one_game_left_says_it_runs_in_this_process(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    first = invoke("match", "greedy", "random", "-n", "4", "--seed", "1", "-j", "2", "--log", log)
    assert first.exit_code == 0, first.output
    more = invoke("match", "greedy", "random", "-n", "5", "-j", "2", "--log", log, "--resume")
    assert more.exit_code == 0, more.output
    assert "runs on: this process" in more.stdout
    assert "· 1 job" in more.stdout
    assert "seed 1 (from" in more.stdout  # not "random": the seed is the log's
