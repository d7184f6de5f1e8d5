"""``durak match``: options, determinism across processes, logs, resume, Ctrl-C, errors."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

import tests.support.faulty_agents  # noqa: F401  (registers the test agents)
from durak.agents.strongest import GUIDED, MORE_PLAYERS, TWO_PLAYERS
from durak.arena.gamelog.files import read_log
from durak.arena.gamelog.replay import replay_entry
from durak.cli.app import app
from tests.support.cli_checks import one_error
from tests.support.extras import require_extra

runner = CliRunner()
SPECS = ["random", "greedy", "lowest"]


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def seeded(text: str) -> list[str]:
    """The output without what depends on the machine: the ``runs on:`` and ``time:`` lines
    and the last two columns (ms/move, max ms) of the table."""
    keep = []
    for line in text.splitlines():
        if line.startswith(("time:", "runs on:")):
            continue
        cells = line.split("│")
        keep.append("│".join(cells[:-3]) if len(cells) > 5 else line)
    return keep


def report(result: Result) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.stdout)
    del data["timing"]
    return data


def test_two_jobs_print_what_one_job_prints() -> None:
    base = ["match", *SPECS, "-n", "18", "--seed", "5", "--variant", "perevodnoy"]
    one, two = invoke(*base, "--jobs", "1"), invoke(*base, "--jobs", "2")
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    assert seeded(one.stdout) == seeded(two.stdout)
    assert "time: " in one.stdout and "1 job" in one.stdout and "2 jobs" in two.stdout
    rows = [line for line in one.stdout.splitlines() if line.count("│") > 5]
    assert [r.split("│")[2].strip() for r in rows] == SPECS
    j1, j2 = invoke(*base, "--json", "-j", "1"), invoke(*base, "--json", "-j", "2")
    assert report(j1) == report(j2) and report(j1)["games"] == 18


def test_the_statistics_block_is_printed() -> None:
    result = invoke("match", "random", "greedy", "-n", "10", "--seed", "3", "-j", "1")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("match: random vs greedy · seed 3 · 10 games = 5 deals × 2 seatings\n")
    assert "rules: 2 players, 36 cards (6 to ace), hand 6, trumps, podkidnoy" in out
    for column in ("wins", "win rate", "98% CI", "durak rate", "forfeits", "ms/move", "max ms"):
        assert column in out
    summary = next(line for line in out.splitlines() if line.startswith("games 10 · draws "))
    data = report(invoke("match", "random", "greedy", "-n", "10", "--seed", "3", "--json"))
    assert f"{data['bouts_per_game']:.2f} bouts per game" in summary
    assert f"{data['moves_per_bout']:.2f} moves per bout" in summary
    assert "98% CI" in summary and "0 forfeits" in summary


def test_every_rules_option_reaches_the_rules() -> None:
    result = invoke(
        "match",
        *SPECS,
        "-n",
        "3",
        "--seed",
        "1",
        "--players",
        "3",
        "--lowest-rank",
        "9",
        "--suits",
        "3",
        "--hand-size",
        "4",
        "--no-trumps",
        "--variant",
        "perevodnoy",
        "--throw-in",
        "neighbours",
        "--bout-cap",
        "5",
        "--first-bout-cap",
        "4",
        "--open-world",
        "--move-timeout",
        "30",
        "--confidence",
        "0.9",
        "--json",
    )
    assert result.exit_code == 0, result.output
    data = report(result)
    assert data["rules"] == {
        "players": 3,
        "lowest_rank": 9,
        "suits": 3,
        "hand_size": 4,
        "bout_cap": 5,
        "first_bout_cap": 4,
        "throw_in": "neighbours",
        "transfer": True,
        "trumps": False,
    }
    assert (data["open_world"], data["move_timeout"], data["confidence"]) == (True, 30.0, 0.9)
    assert "3 games = 1 deal × 3 seatings" in result.stderr
    assert "open world · move limit 30 s" in result.stderr
    odd = invoke("match", *SPECS, "-n", "4", "--seed", "1", "-j", "1")
    assert "4 games (not a multiple of 3: seats are not balanced)" in odd.stdout


def test_a_run_without_a_seed_prints_one_that_repeats_it() -> None:
    first = invoke("match", "random", "random", "-n", "6", "-j", "1")
    assert first.exit_code == 0, first.output
    header = first.stdout.splitlines()[0]
    seed = header.split("seed ")[1].split(" ")[0]
    assert f"(random; repeat with --seed {seed})" in header
    again = invoke("match", "random", "random", "-n", "6", "-j", "1", "--seed", seed)
    assert seeded(again.stdout)[1:] == seeded(first.stdout)[1:]


def test_verbose_prints_each_game_and_twice_its_moves() -> None:
    one = invoke("match", "random", "greedy", "-n", "4", "--seed", "2", "-j", "1", "-v")
    games = [line for line in one.stdout.splitlines() if line.startswith("game ")]
    assert [g.split(" (")[0] for g in games] == ["game 0", "game 1", "game 2", "game 3"]
    assert games[1].startswith("game 1 (deal 0): greedy / random: ")
    two = invoke("match", "random", "greedy", "-n", "4", "--seed", "2", "-j", "1", "-vv")
    moves = [line.split() for line in two.stdout.splitlines() if line.startswith("    Attack(")]
    assert len(moves) == 4 and [len(m) for m in moves] == [
        int(g.split(" bouts, ")[1].split()[0]) for g in games
    ]


def test_a_resumed_run_ends_with_the_statistics_of_one_run(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    base = ["match", *SPECS, "--seed", "9", "--json", "--log", str(log)]
    part = invoke(*base, "-n", "9", "-j", "2")
    assert part.exit_code == 0, part.output
    data = log.read_bytes()
    log.write_bytes(data[: data.rindex(b"\n", 0, -1) + 20])  # the last line cut off
    rest = invoke(*base[:-2], "--log", str(log), "-n", "21", "--resume", "-j", "2")
    assert rest.exit_code == 0, rest.output
    assert "line 9 was cut off mid-write; dropped it" in rest.stderr
    assert "resuming: 8 of 21 games already in" in rest.stderr
    assert f"log: {log} (21 games, 8 resumed)" in rest.stderr
    whole = invoke("match", *SPECS, "--seed", "9", "--json", "-n", "21", "-j", "1")
    assert report(rest) == report(whole)
    entries = read_log(log).entries
    assert sorted(e.game for e in entries) == list(range(21))
    seedless = invoke("match", *SPECS, "--json", "--log", str(log), "-n", "21", "--resume")
    assert seedless.exit_code == 0 and report(seedless) == report(whole)  # the log's seed


def test_resume_refuses_another_run_in_one_line(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    assert (
        invoke(
            "match", "random", "greedy", "-n", "2", "--seed", "1", "--log", str(log), "-j", "1"
        ).exit_code
        == 0
    )
    cases = [
        (["--seed", "2"], "the log has seed 1, the command 2"),
        (["--variant", "perevodnoy"], "the log's rules differ: transfer=False"),
    ]
    for extra, message in cases:
        result = invoke(
            "match",
            "random",
            "greedy",
            "-n",
            "4",
            "--log",
            str(log),
            "--resume",
            "--seed",
            "1",
            *extra,
        )
        assert result.exit_code == 2
        assert result.stderr.count("\n") == 1 and message in result.stderr
        assert result.stderr.startswith("error: ") and "refusing to resume" in result.stderr
    again = invoke("match", "random", "greedy", "-n", "2", "--seed", "1", "--log", str(log))
    assert again.exit_code == 2 and "already holds games" in again.stderr


def test_ctrl_c_stops_cleanly_and_keeps_the_finished_games(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    result = invoke(
        "match",
        "test-interrupt:after=60",
        "random",
        "-n",
        "20",
        "--seed",
        "1",
        "-j",
        "1",
        "--log",
        str(log),
    )
    assert result.exit_code == 130
    entries = read_log(log).entries
    assert 0 < len(entries) < 20
    assert [e.game for e in entries] == list(range(len(entries)))
    for entry in entries:
        replay_entry(entry, log)
    assert (
        f"interrupted: {len(entries)} of 20 games finished; they are in {log}; run the same "
        "command with --resume to finish"
    ) in result.stderr
    assert f"{len(entries)} games, 98% Wilson intervals" in result.stdout
    assert "Traceback" not in result.output


def test_ctrl_c_stops_the_worker_processes(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"

    def press_ctrl_c() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if log.exists() and log.read_bytes().count(b"\n") >= 4:
                break
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=press_ctrl_c)
    thread.start()
    result = invoke(
        "match", "random", "random", "-n", "1000000", "--seed", "1", "-j", "2", "--log", str(log)
    )
    thread.join()
    assert result.exit_code == 130, result.output
    games = sorted(e.game for e in read_log(log).entries)  # no cut-off or corrupt line
    assert len(games) >= 4 and len(set(games)) == len(games)
    assert f"interrupted: {len(games)} of 1000000 games finished" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["random", "bogus"], "unknown agent 'bogus' in spec 'bogus'"),
        (["random", "mcts:limit=0"], "mcts: limit must be in [1, 1e+07], got 0"),
        (["random"], "a match needs at least two agents"),
        (["random", "random", "--hand-size", "30"], "more than the 36-card deck"),
        (["random", "random", "--players", "3"], "--players 3 but 2 agent specs"),
        (["random", "random", "--games", "x"], "Invalid value for '--games'"),
        (["random", "random", "--games", "0"], "Invalid value for '--games'"),
        (["random", "random", "--variant", "x"], "Invalid value for '--variant'"),
        (["random", "random", "--confidence", "1"], "--confidence must be between 0 and 1"),
        (["random", "random", "--move-timeout", "-1"], "--move-timeout must be positive"),
        (["random", "random", "--resume"], "--resume needs --log FILE"),
        (["random", "random", "--log", "/no/such/dir/x.jsonl"], "no such directory"),
        (["random", "random", "--bogus"], "No such option: --bogus"),
    ],
)
def test_errors_are_one_line_with_exit_code_2(args: list[str], message: str) -> None:
    result = invoke("match", *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert message in result.stderr
    assert "Traceback" not in result.output and result.stdout == ""


def test_full_information_is_logged_replayed_and_resumed(tmp_path: Path) -> None:
    log = tmp_path / "full.jsonl"
    base = ["match", "random", "greedy", "-n", "4", "--seed", "3", "-j", "1", "--log", str(log)]
    result = invoke(*base, "--full-information", "--json")
    assert result.exit_code == 0, result.output
    assert report(result)["open_world"] == "full"
    assert "full information" in result.stderr
    entries = read_log(log).entries
    assert len(entries) == 4 and all(e.open_world == "full" for e in entries)
    for e in entries:
        replay_entry(e)  # raises if the log does not replay
    more = invoke(*[*base[:4], "6", *base[5:]], "--full-information", "--resume")
    assert more.exit_code == 0, more.output
    assert len(read_log(log).entries) == 6
    one_error(invoke(*base, "--resume"), "open_world")
    one_error(invoke(*base, "--open-world", "--full-information"), "--full-information")


def test_a_phased_agent_plays_a_seeded_match() -> None:
    """Issue 51's diagnosis, by ``durak match``: an agent's seat with its endgame handed
    to a search; the same seed gives the same games."""
    spec = "phased:opening=greedy,endgame=ismcts:limit=5"
    args = ["match", spec, "greedy", "greedy", "-n", "3", "--seed", "1", "--json"]
    first, again = invoke(*args), invoke(*args)
    assert first.exit_code == 0, first.output
    assert report(first) == report(again)
    assert report(first)["games"] == 3 and spec in first.stdout


#: A spec that can only forfeit on a 20-card deck: its opponent model is the 36-card network.
UNFIT = "mcts:infer=dmc,limit=5,samples=1"
SMALL_DECK = ["--lowest-rank", "10", "--hand-size", "3"]


@pytest.mark.parametrize(
    "args",
    [
        ["match", UNFIT, "greedy", "-n", "2"],
        ["match", "solver:fallback=minimax:infer=mix;samples=1", "greedy", "-n", "2"],
        ["match", "phased:endgame=mcts:infer=dmc;limit=5;samples=1", "greedy", "-n", "2"],
        ["match", "maxn:infer=dmc,samples=1", "greedy", "greedy", "--players", "3", "-n", "3"],
        ["tournament", UNFIT, "greedy", "-n", "2"],
        ["grid", "mcts:infer={m},limit=5,samples=1", "-p", "m=greedy,mix", "--vs", "greedy"],
        ["play", UNFIT],
    ],
)
def test_an_option_that_can_only_forfeit_is_refused_before_the_first_game(
    args: list[str], tmp_path: Path
) -> None:
    """Issue 47: ``mcts:infer=dmc`` on a small deck played, every game forfeited."""
    require_extra("torch")
    log = tmp_path / "run.jsonl"
    result = runner.invoke(app, [*args, *SMALL_DECK, "--log", str(log)], input="")
    one_error(result, "dmc: no shipped model for", "20 cards")
    assert result.stdout == ""
    assert not log.exists() or log.read_bytes() == b""


def test_a_training_opponent_that_can_only_forfeit_is_refused_before_the_header(
    tmp_path: Path,
) -> None:
    require_extra("torch")
    out = tmp_path / "q.json"
    args = ["train", "qlearn", "--vs", UNFIT, *SMALL_DECK, "--games", "10", "--out", str(out)]
    result = runner.invoke(app, args)
    one_error(result, "mcts: dmc: no shipped model for", "20 cards")
    assert result.stdout == "" and not out.exists()


def test_strongest_is_listed_with_its_specs_and_plays_a_match() -> None:
    """Issue 50: one name for the best agent; four games against greedy, seed 1."""
    listing = invoke("agents", "strongest", "--json")
    assert listing.exit_code == 0, listing.output
    (entry,) = json.loads(listing.stdout)
    assert all(spec in entry["description"] for spec in (GUIDED, TWO_PLAYERS, MORE_PLAYERS))
    result = invoke("match", "strongest", "greedy", "-n", "4", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    data = report(result)
    assert data["games"] == 4 and data["specs"] == ["strongest", "greedy"]
