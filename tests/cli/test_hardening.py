"""Faults a demanding user hit in the run commands, each pinned by a test: the move limit,
the log lock, output files checked first, machine-readable stdout, resumed games
re-validated, lazy tasks, a full disk, SIGTERM, nested JSON and rules-bound models."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import tests.support.faulty_agents  # noqa: F401  (registers the test agents)
from durak.arena.gamelog.files import LogWriter, read_log
from durak.arena.play.match import MatchPlan
from durak.arena.runs.interface import IN_FLIGHT_PER_WORKER, MAX_BATCH
from durak.arena.runs.pool import play_parallel
from durak.cli.app import app
from durak.learn.qlearn.qtable import QTable
from durak.rules import Rules
from tests.support.cli_checks import one_error

runner = CliRunner()
ROOT = str(Path(__file__).resolve().parents[2])
# The CLI in a subprocess, with the test agents registered.
DURAK = [
    sys.executable,
    "-c",
    f"import sys; sys.path.insert(0, {ROOT!r}); import tests.support.faulty_agents; "
    "from durak.cli.app import main; main()",
]


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


@pytest.mark.parametrize("value", ["inf", "1e10", "nan", "-1", "0"])
def test_a_move_limit_out_of_bounds_is_refused_before_any_game(value: str) -> None:
    one_error(
        invoke("match", "random", "greedy", "-n", "2", "--move-timeout", value), "--move-timeout"
    )


def test_a_log_held_by_another_run_is_refused_at_once(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    with log.open("ab") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = invoke(
            "match",
            "random",
            "greedy",
            "-n",
            "4",
            "--seed",
            "1",
            "-j",
            "1",
            "--log",
            str(log),
            "--resume",
        )
    one_error(result, str(log), "in use by another run")
    assert log.read_bytes() == b""


def test_replay_reports_a_game_logged_twice(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    assert (
        invoke(
            "match", "random", "greedy", "-n", "2", "--seed", "1", "-j", "1", "--log", str(log)
        ).exit_code
        == 0
    )
    first = log.read_text(encoding="utf-8").splitlines()[0]
    with log.open("a", encoding="utf-8") as f:
        f.write(first + "\n")
    one_error(invoke("replay", str(log)), "line 3", "already logged at line 1")


@pytest.mark.parametrize(
    "command",
    [
        ["tournament", "random", "greedy"],
        ["grid", "random", "-p", "stop_chance=0,1"],
    ],
)
def test_output_files_are_checked_before_the_first_game(tmp_path: Path, command: list[str]) -> None:
    log = tmp_path / "run.jsonl"
    bad = tmp_path / "missing" / "out.csv"
    result = invoke(
        *command, "-n", "2", "--seed", "1", "-j", "1", "--log", str(log), "--csv", str(bad)
    )
    one_error(result, str(bad))
    assert not log.exists() or log.read_bytes() == b""  # no game was played


@pytest.mark.parametrize("stream", ["--csv", "--json"])
def test_a_tournament_to_stdout_prints_only_its_data_there(stream: str) -> None:
    result = invoke(
        "tournament", "random", "greedy", "-n", "2", "--seed", "1", "-j", "1", stream, "-"
    )
    assert result.exit_code == 0, result.output
    if stream == "--json":
        assert json.loads(result.stdout)["specs"] == ["random", "greedy"]
    else:
        assert result.stdout.splitlines()[0].startswith("row,column,")
    assert "tournament:" in result.stderr and "tournament:" not in result.stdout


def test_a_tournament_is_two_player_and_says_so() -> None:
    one_error(
        invoke("tournament", "random", "greedy", "lowest", "--players", "3"),
        "two-player",
        "durak match",
    )


def _edit_line(log: Path, number: int, **changes: object) -> None:
    lines = log.read_text(encoding="utf-8").splitlines()
    entry = json.loads(lines[number - 1])
    entry.update(changes)
    lines[number - 1] = json.dumps(entry, ensure_ascii=False)
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("change", ["durak", "illegal action", "fake forfeit"])
def test_resume_refuses_a_logged_game_that_does_not_replay(tmp_path: Path, change: str) -> None:
    log = tmp_path / "run.jsonl"

    def args(games: int) -> list[str]:
        return [
            "match",
            "random",
            "greedy",
            "-n",
            str(games),
            "--seed",
            "3",
            "-j",
            "1",
            "--log",
            str(log),
        ]

    assert invoke(*args(4)).exit_code == 0
    entry = json.loads(log.read_text(encoding="utf-8").splitlines()[1])
    if change == "durak":
        _edit_line(log, 2, durak=1 - entry["durak"] if entry["durak"] is not None else 0)
    elif change == "illegal action":
        _edit_line(log, 2, actions=["Take", *entry["actions"][1:]])
    else:
        forfeit = {
            "seat": 0,
            "agent": entry["seats"][0],
            "fault": "error",
            "message": "x",
            "action": None,
        }
        _edit_line(log, 2, end="forfeit", durak=entry["seats"][0], forfeit=forfeit)
    one_error(invoke(*args(6), "--resume"), f"{log} line 2")


def test_tasks_are_drawn_lazily_with_bounded_work_in_flight() -> None:
    plan = MatchPlan(Rules(), ("random", "random"), 1, 10**8)
    drawn = 0

    def tasks() -> Iterator[tuple[int, int]]:
        nonlocal drawn
        for g in range(plan.games):
            drawn += 1
            yield 0, g

    with closing(play_parallel([plan], tasks(), plan.games, 2)) as games:
        for _ in range(3):
            next(games)
    assert drawn <= (2 * IN_FLIGHT_PER_WORKER + 3) * MAX_BATCH


def test_a_full_disk_keeps_the_statistics_and_exits_2(tmp_path: Path) -> None:
    # The log may not grow past 10 bytes (``ulimit -f``): its first line fails with EFBIG,
    # as on a full disk.  (A device such as /dev/full is refused before the run: issue 47.)
    log = tmp_path / "full.jsonl"
    limit = "import resource; resource.setrlimit(resource.RLIMIT_FSIZE, (10, 10)); "
    args = ["match", "random", "greedy", "-n", "4", "--seed", "1", "-j", "1", "--log", str(log)]
    code = DURAK[2].replace("import sys;", f"import sys; {limit}sys.argv[1:] = {args!r};", 1)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 2, result.stderr
    errors = [x for x in result.stderr.splitlines() if x.startswith("error:")]
    assert len(errors) == 1 and str(log) in errors[0] and "File too large" in errors[0], errors
    assert "time:" in result.stdout and "0 of 4 games finished" in result.stderr


def test_a_run_stopped_by_a_full_disk_resumes_to_the_same_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "run.jsonl"
    args = ["match", "random", "greedy", "-n", "8", "--seed", "5", "-j", "1", "--json"]
    whole = json.loads(invoke(*args).stdout)
    original = LogWriter.write
    written: list[int] = []

    def fills_up(self: LogWriter, entry: object) -> None:
        if len(written) == 3:
            raise OSError(28, "No space left on device", str(self.path))
        written.append(1)
        original(self, entry)  # type: ignore[arg-type]

    monkeypatch.setattr(LogWriter, "write", fills_up)
    stopped = invoke(*args, "--log", str(log))
    one_error(stopped, "No space left on device")
    assert json.loads(stopped.stdout)["games"] == 3
    monkeypatch.setattr(LogWriter, "write", original)
    resumed = invoke(*args, "--log", str(log), "--resume")
    assert resumed.exit_code == 0, resumed.output
    report = json.loads(resumed.stdout)
    for key in ("games", "draws", "agents", "bouts_per_game", "moves_per_bout"):
        assert report[key] == whole[key]


def test_sigterm_keeps_the_finished_games_and_prints_the_summary(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    args = [
        *DURAK,
        "match",
        "test-hang:seconds=0.05",
        "random",
        "-n",
        "400",
        "--seed",
        "1",
        "-j",
        "2",
        "--log",
        str(log),
        "--quiet",
    ]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while (not log.exists() or not log.read_bytes().count(b"\n")) and time.monotonic() < deadline:
        time.sleep(0.05)  # polling for the first game; the test's outcome does not depend on it
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    assert "terminated (SIGTERM)" in err and "--resume" in err
    assert "Traceback" not in err and "BrokenPipeError" not in err
    assert "time:" in out
    kept = read_log(log).entries
    assert 0 < len(kept) < 400 and f"log: {log} ({len(kept)} games" in out


def test_a_deeply_nested_log_line_is_a_corrupt_line(tmp_path: Path) -> None:
    log = tmp_path / "deep.jsonl"
    log.write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    one_error(invoke("replay", str(log)), "line 1", "nested too deeply")


def test_a_deeply_nested_q_table_is_a_corrupt_file(tmp_path: Path) -> None:
    table = tmp_path / "q.json"
    table.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    one_error(invoke("match", f"qlearn:path={table}", "lowest", "-n", "2"), "nested too deeply")


def test_a_q_table_for_other_rules_is_refused_before_the_first_game(tmp_path: Path) -> None:
    table = tmp_path / "q.json"
    QTable(Rules(lowest_rank=9), "crampton").save(table)
    log = tmp_path / "run.jsonl"
    result = invoke("match", f"qlearn:path={table}", "lowest", "-n", "2", "--log", str(log))
    one_error(result, "trained for", "lowest_rank=9")
    assert not log.exists() or log.read_bytes() == b""


def test_an_ascii_terminal_gets_ascii_card_names() -> None:
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    args = [*DURAK, "match", "greedy", "random", "-n", "2", "--seed", "1", "-j", "1", "-vv", "-q"]
    result = subprocess.run(args, check=False, capture_output=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode("ascii")  # raises if anything is not ASCII
    assert "Attack(" in text and any(f"{r}{s})" in text for r in "6789JQKA" for s in "SHDC")
