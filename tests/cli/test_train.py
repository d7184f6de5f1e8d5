"""``durak train`` and ``durak learners``: the files written, the evaluate command, the
agreement with the library's training loop, determinism, errors, Ctrl-C, no matplotlib."""

from __future__ import annotations

import csv
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import durak.cli.commands.train.online
import tests.support.faulty_agents  # noqa: F401  (registers the test agents)
from durak.agents.base import make_agent
from durak.cli.app import app
from durak.cli.commands.train.output import draw_curve
from durak.envs.solo import SoloTable
from durak.files import FileError
from durak.learn import QTable, make_learner, train
from durak.learn.plot import MatplotlibMissingError, learning_curve
from durak.rules import Rules

runner = CliRunner()
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
HEADER = [
    "episodes",
    "games",
    "wins",
    "losses",
    "draws",
    "win_rate",
    "mean_reward",
    "episodes_per_second",
]
EPISODES, INTERVAL, SEED = 240, 50, 7


def invoke(*args: str | int | Path) -> Result:
    return runner.invoke(app, [str(a) for a in args])


def train_qlearn(out: Path, *extra: str | int | Path) -> Result:
    return invoke(
        "train",
        "qlearn",
        "--vs",
        "random",
        "--games",
        EPISODES,
        "--interval",
        INTERVAL,
        "--out",
        out,
        *extra,
    )


def read_csv(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    """One CLI training run shared by the tests that only read its files."""
    out = tmp_path_factory.mktemp("train") / "q.json"
    return out, train_qlearn(out, "--seed", SEED)


def test_training_writes_the_learner_the_csv_and_the_curve(trained: tuple[Path, Result]) -> None:
    out, result = trained
    assert result.exit_code == 0, result.output
    assert QTable.load(out).episodes == EPISODES
    rows = read_csv(out.with_suffix(".csv"))
    assert rows[0] == HEADER
    cumulative = [int(r[0]) for r in rows[1:]]
    assert cumulative == [50, 100, 150, 200, 240]  # the last interval is shorter
    for row in rows[1:]:
        assert len(row) == len(HEADER)
        games, wins, losses, draws = map(int, row[1:5])
        assert wins + losses + draws == games
        assert float(row[5]) == pytest.approx(wins / games, abs=1e-6)
        assert float(row[7]) > 0
    assert sum(int(r[1]) for r in rows[1:]) == EPISODES
    assert out.with_suffix(".png").read_bytes().startswith(PNG_MAGIC)
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"train: qlearn vs random · {EPISODES} episodes · seed {SEED}")
    assert sum(line.startswith("episodes ") for line in lines) == len(rows) - 1
    assert f"trained: {EPISODES} episodes\n" in result.stdout
    assert re.search(r"^time: .* episodes/s · 1 job$", result.stdout, re.MULTILINE)
    assert f"wrote: {out}, {out.with_suffix('.csv')}, {out.with_suffix('.png')}" in lines


def test_the_cli_trains_as_the_library_does(trained: tuple[Path, Result], tmp_path: Path) -> None:
    out, _ = trained
    rules = Rules()
    learner = make_learner("qlearn", rules)
    table = SoloTable(rules, [make_agent("random")])
    stats = list(
        train(
            learner, table, episodes=EPISODES, seed=SEED, rewards=learner.rewards, interval=INTERVAL
        )
    )
    rows = read_csv(out.with_suffix(".csv"))[1:]
    assert [[int(c) for c in r[:5]] for r in rows] == [
        [s.episodes, s.games, s.wins, s.losses, s.draws] for s in stats
    ]
    assert [float(r[6]) for r in rows] == pytest.approx([s.mean_reward for s in stats], abs=1e-5)
    learner.save(tmp_path / "lib.json")
    assert out.read_bytes() == (tmp_path / "lib.json").read_bytes()


def test_the_printed_command_evaluates_the_trained_table(trained: tuple[Path, Result]) -> None:
    out, result = trained
    line = next(x for x in result.stdout.splitlines() if x.startswith("evaluate: "))
    words = shlex.split(line.removeprefix("evaluate: "))
    # A seed other than the training one, so that the match deals are not training deals.
    assert words == [
        "durak",
        "match",
        f"qlearn:path={out}",
        "random",
        "--games",
        "1000",
        "--seed",
        str(SEED + 1),
    ]
    words[words.index("--games") + 1] = "40"
    match = invoke(*words[1:], "-j", "1")
    assert match.exit_code == 0, match.output
    assert f"qlearn:path={out} vs random · seed {SEED + 1} · 40 games" in match.stdout
    assert "forfeits" in match.stdout and "0 forfeits" in match.stdout


def test_the_same_seed_writes_the_same_file(trained: tuple[Path, Result], tmp_path: Path) -> None:
    out, _ = trained
    again = train_qlearn(tmp_path / "again.json", "--seed", SEED, "--no-plot", "--quiet")
    other = train_qlearn(tmp_path / "other.json", "--seed", SEED + 1, "--no-plot")
    assert again.exit_code == 0 and other.exit_code == 0, again.output + other.output
    assert (tmp_path / "again.json").read_bytes() == out.read_bytes()
    assert (tmp_path / "other.json").read_bytes() != out.read_bytes()
    assert not (tmp_path / "again.png").exists()


def test_one_vs_fills_every_seat_and_the_rules_reach_the_evaluation(tmp_path: Path) -> None:
    out = tmp_path / "q3.json"
    result = invoke(
        "train",
        "qlearn:min_visits=5",
        "--vs",
        "random",
        "--players",
        "3",
        "--lowest-rank",
        "9",
        "--hand-size",
        "4",
        "--variant",
        "perevodnoy",
        "--games",
        "30",
        "--interval",
        "10",
        "--seed",
        "2",
        "--out",
        out,
        "--csv",
        tmp_path / "curve.csv",
        "--plot",
        tmp_path / "curve.png",
    )
    assert result.exit_code == 0, result.output
    table = QTable.load(out)
    assert table.rules == Rules(players=3, lowest_rank=9, hand_size=4, transfer=True)
    assert table.settings["min_visits"] == 5
    assert len(read_csv(tmp_path / "curve.csv")) == 4
    assert (tmp_path / "curve.png").read_bytes().startswith(PNG_MAGIC)
    assert not out.with_suffix(".csv").exists()
    line = next(x for x in result.stdout.splitlines() if x.startswith("evaluate: "))
    words = shlex.split(line.removeprefix("evaluate: "))
    assert words[2:5] == [f"qlearn:path={out},min_visits=5", "random", "random"]
    words[words.index("--games") + 1] = "6"
    match = invoke(*words[1:], "-j", "1")
    assert match.exit_code == 0, match.output
    assert "rules: 3 players, 24 cards (9 to ace), hand 4" in match.stdout
    assert "perevodnoy" in match.stdout and "0 forfeits" in match.stdout


def test_solve_endgame_at_three_players_solves_the_endgames_with_two_left(tmp_path: Path) -> None:
    # Every card is known once the talon is empty and two players are left (solver.py).
    def run(out: Path, *extra: str) -> Result:
        return invoke(
            *("train", "qlearn:min_visits=5", "--vs", "lowest", "--players", "3"),
            *("--games", "60", "--interval", "30", "--seed", "3", "--out", out, "--no-plot"),
            *("--lowest-rank", "10", "--hand-size", "4", *extra),
        )

    out, plain = tmp_path / "q.json", tmp_path / "plain.json"
    result, without = run(out, "--solve-endgame", "5000"), run(plain)
    assert result.exit_code == 0 and without.exit_code == 0, result.output + without.output
    assert QTable.load(out).q != QTable.load(plain).q


def test_solve_endgame_trains_the_fallback_of_the_solver_agent(tmp_path: Path) -> None:
    def run(out: Path, *extra: str) -> Result:
        return invoke(
            "train",
            "qlearn:min_visits=5",
            "--vs",
            "lowest",
            "--games",
            "40",
            "--interval",
            "20",
            "--seed",
            "3",
            "--out",
            out,
            "--no-plot",
            "--lowest-rank",
            "10",
            "--hand-size",
            "4",
            *extra,
        )

    out, plain = tmp_path / "q.json", tmp_path / "plain.json"
    result, without = run(out, "--solve-endgame", "5000"), run(plain)
    assert result.exit_code == 0 and without.exit_code == 0, result.output + without.output
    # The learner makes fewer decisions of its own, so it learns other values.
    assert QTable.load(out).q != QTable.load(plain).q
    line = next(x for x in result.stdout.splitlines() if x.startswith("evaluate: "))
    words = shlex.split(line.removeprefix("evaluate: "))
    assert words[2:4] == [f"solver:nodes=5000,fallback=qlearn:path={out};min_visits=5", "lowest"]
    words[words.index("--games") + 1] = "4"
    match = invoke(*words[1:], "-j", "1")
    assert match.exit_code == 0, match.output
    assert "0 forfeits" in match.stdout


def test_an_existing_out_needs_force(trained: tuple[Path, Result], tmp_path: Path) -> None:
    out = tmp_path / "q.json"
    out.write_text("keep me", encoding="utf-8")
    refused = invoke("train", "qlearn", "--vs", "random", "--games", "5", "--out", out)
    assert refused.exit_code == 2 and "pass --force" in refused.stderr
    assert out.read_text(encoding="utf-8") == "keep me"
    forced = invoke(
        "train",
        "qlearn",
        "--vs",
        "random",
        "--games",
        "5",
        "--seed",
        "1",
        "--out",
        out,
        "--force",
        "--no-plot",
    )
    assert forced.exit_code == 0, forced.output
    assert QTable.load(out).episodes == 5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bogus", "--vs", "random"], "unknown learner 'bogus' in spec 'bogus'"),
        (["qlearn:alpha=2", "--vs", "random"], "qlearn: alpha must be in [1e-06, 1], got 2"),
        (["qlearn:abstraction=x", "--vs", "random"], "abstraction must be one of crampton"),
        (["qlearn", "--vs", "bogus"], "unknown agent 'bogus' in spec 'bogus'"),
        (
            ["qlearn", "--vs", "random", "--vs", "random", "--players", "4"],
            "--players 4 needs 3 --vs opponents (or one, for every other seat), got 2",
        ),
        (["qlearn", *["--vs", "random"] * 6], "Rules.players must be 2..6, got 7"),
        (["qlearn", "--vs", "random", "--games", "0"], "--games and --interval must be"),
        (["qlearn", "--vs", "random", "--interval", "-1"], "--games and --interval must be"),
        (["qlearn", "--vs", "random", "--out", "/no/such/dir/q.json"], "no such directory"),
        (["qlearn", "--vs", "random", "--csv", "{out}"], "--out and --csv name the same file"),
        (["qlearn"], "Missing option '--vs'"),
        (["qlearn", "--vs", "random", "--solve-endgame", "0"], "Invalid value for"),
    ],
)
def test_errors_are_one_line_with_exit_code_2(
    args: list[str], message: str, tmp_path: Path
) -> None:
    out = tmp_path / "q.json"
    defaults = {"--games": "20", "--out": str(out)}
    given = [a.replace("{out}", str(out)) for a in args]
    extra = [x for k, v in defaults.items() if k not in given for x in (k, v)]
    result = invoke("train", *given, *extra)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert message in result.stderr
    assert "Traceback" not in result.output and result.stdout == ""
    assert list(tmp_path.iterdir()) == []  # refused before writing anything


def test_a_corrupt_q_table_is_a_clean_error_in_match(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text('{"format": "durak-qtable", "version": 1, "q": {', encoding="utf-8")
    result = invoke("match", f"qlearn:path={corrupt}", "random", "--games", "4", "-j", "1")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: qlearn: {corrupt}: not a Q-table")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


def test_ctrl_c_saves_what_was_learned(tmp_path: Path) -> None:
    out = tmp_path / "q.json"
    result = invoke(
        "train",
        "qlearn",
        "--vs",
        "test-interrupt:after=400",
        "--games",
        "1000",
        "--interval",
        "5",
        "--seed",
        "1",
        "--out",
        out,
    )
    assert result.exit_code == 130, result.output
    episodes = QTable.load(out).episodes
    assert 0 < episodes < 1000
    assert f"interrupted: saved the learner after {episodes} of 1,000 episodes" in result.stderr
    rows = read_csv(out.with_suffix(".csv"))
    assert rows[0] == HEADER and len(rows) - 1 == episodes // 5 > 0
    assert "evaluate:" not in result.stdout and "Traceback" not in result.output


def test_without_matplotlib_the_curve_is_skipped_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    out = tmp_path / "q.json"
    result = invoke(
        "train", "qlearn", "--vs", "random", "--games", "10", "--seed", "1", "--out", out
    )
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"warning: the learning curve needs matplotlib: pip install "
        f"'durak-lab[rl]'; skipped {out.with_suffix('.png')}\n"
    )
    assert out.exists() and out.with_suffix(".csv").exists()
    assert not out.with_suffix(".png").exists()


def test_the_progress_bar_does_not_change_the_results(
    trained: tuple[Path, Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(durak.cli.commands.train.online, "wanted", lambda quiet: not quiet)
    out = tmp_path / "bar.json"
    result = train_qlearn(out, "--seed", SEED, "--no-plot")
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == trained[0].read_bytes()


def test_learners_and_agents_list_qlearn_dqn_and_dmc() -> None:
    listing = invoke("learners")
    assert listing.exit_code == 0, listing.output
    for text in ("qlearn", "dqn", "dmc", "abstraction: str = crampton one of crampton|plus"):
        assert text in listing.stdout
    data = json.loads(invoke("learners", "qlearn", "--json").stdout)
    assert [d["name"] for d in data] == ["qlearn"]
    assert {p["name"] for p in data[0]["params"]} >= {"alpha", "gamma", "abstraction"}
    unknown = invoke("learners", "bogus")
    assert unknown.exit_code == 2 and "known learners: dmc, dqn, qlearn" in unknown.stderr
    agents = invoke("agents", "--json")
    assert {"qlearn", "dqn", "dmc"} <= {a["name"] for a in json.loads(agents.stdout)}


def test_a_curve_needs_an_interval(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least one interval"):
        learning_curve([], tmp_path / "x.png", "empty")


def test_the_end_of_a_human_opponents_input_saves_what_was_learned(tmp_path: Path) -> None:
    out = tmp_path / "q.json"
    result = CliRunner().invoke(
        app,
        ["train", "qlearn", "--vs", "human", "--games", "5", "--seed", "1", "--out", str(out)],
        input="",
    )
    assert result.exit_code == 130, result.output
    assert "end of input: saved the learner after 0 of 5 episodes" in result.stderr
    assert out.exists() and "Traceback" not in result.output


def test_sigterm_saves_what_was_learned_as_ctrl_c_does(tmp_path: Path) -> None:
    # A subprocess: without the stop path, SIGTERM would end the test run itself.
    out = tmp_path / "q.json"
    root = str(Path(__file__).resolve().parents[2])
    code = (
        f"import sys; sys.path.insert(0, {root!r}); import tests.support.faulty_agents; "
        "from durak.cli.app import main; main()"
    )
    args = ["train", "qlearn", "--vs", "test-sigterm", "--games", "50", "--out", str(out)]
    done = subprocess.run(
        [sys.executable, "-c", code, *args, "--seed", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 143, done.stderr
    assert done.stderr == (
        "terminated (SIGTERM): saved the learner after 0 of 50 episodes (the CSV has the "
        "finished intervals)\n"
    )
    assert QTable.load(out).episodes == 0 and read_csv(out.with_suffix(".csv")) == [HEADER]


def test_a_curve_that_cannot_be_drawn_is_one_warning_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "curve.png"

    def fails(error: Exception) -> Callable[[Path], bool]:
        def draw(path: Path) -> bool:
            raise error

        return draw

    assert not draw_curve(png, fails(MatplotlibMissingError("no matplotlib")))
    assert not draw_curve(png, fails(FileError(tmp_path / "e.csv", "cannot read")))
    assert not draw_curve(png, lambda path: False)  # nothing to draw: no warning
    assert draw_curve(png, lambda path: path == png)
    assert capsys.readouterr().err == (
        f"warning: no matplotlib; skipped {png}\n"
        f"warning: {tmp_path / 'e.csv'}: cannot read; skipped {png}\n"
    )
    with pytest.raises(ValueError, match="at least one"):  # a fault of the caller's
        draw_curve(png, fails(ValueError("at least one point")))
