"""Bad command lines, table-driven: every one exits 2 with exactly one ``error:`` line
naming the problem, and no traceback.  Specs, option values, files and combinations, over
every command."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from durak.cli.app import app

runner = CliRunner()

Case = tuple[str, list[str], str]  # (id, arguments, a word the error line must contain)

SPECS: list[tuple[str, str]] = [
    ("nosuch", "unknown agent"),
    ("random:foo=1", "unknown parameter"),
    ("random:stop_chance=2", "stop_chance must be in"),
    ("random:stop_chance=x", "a number"),
    ("mcts:limit=0", "limit must be in"),
    ("mcts:limit=1.5", "an integer"),
    ("mcts:c=-1", "c must be in"),
    ("mcts:simulation=smart", "simulation must be one of"),
    ("mcts:combine=mean", "combine must be one of"),
    ("mcts:talon=open", "talon must be one of"),
    ("mcts:samples=0", "samples must be in"),
    ("mcts:seconds=0", "seconds must be in"),
    ("ismcts:limit=-5", "limit must be in"),
    ("ismcts:bias=x", "a number"),
    ("minimax:depth=0", "depth must be in"),
    ("minimax:eval=foo", "eval must be one of"),
    ("maxn:depth=100", "depth must be in"),
    ("solver:nodes=0", "nodes must be in"),
    ("solver:fallback=nosuch", "unknown agent"),
    ("phased:endgame=nosuch", "phased: endgame: unknown agent"),
    ("phased:when=never", "when must be one of"),
    ("random:stop_chance", "expected key=value"),
    ("random:=1", "expected key=value"),
    ("mcts:limit=1,limit=2", "given twice"),
    ("qlearn", "give the Q-table file"),
    ("qlearn:path=/nonexistent/q.json", "cannot read"),
    ("qlearn:min_visits=-1,path=x", "min_visits must be in"),
    ("", "unknown agent"),
]

RULES: list[tuple[list[str], str]] = [
    (["--lowest-rank", "15"], "lowest"),
    (["--lowest-rank", "1"], "lowest"),
    (["--hand-size", "0"], "hand"),
    (["--hand-size", "30"], "hand"),
    (["--bout-cap", "0"], "cap"),
    (["--first-bout-cap", "0"], "cap"),
    (["--variant", "foo"], "--variant"),
    (["--throw-in", "some"], "--throw-in"),
    (["--lowest-rank", "x"], "--lowest-rank"),
    (["--hand-size", "1.5"], "--hand-size"),
]

RUN: list[tuple[list[str], str]] = [
    (["--games", "0"], "--games"),
    (["-n", "-3"], "-n"),
    (["--games", "x"], "--games"),
    (["--jobs", "0"], "--jobs"),
    (["--move-timeout", "inf"], "--move-timeout"),
    (["--move-timeout", "0"], "--move-timeout"),
    (["--move-timeout", "-2"], "--move-timeout"),
    (["--move-timeout", "1e10"], "--move-timeout"),
    (["--move-timeout", "nan"], "--move-timeout"),
    (["--confidence", "1"], "--confidence"),
    (["--confidence", "0"], "--confidence"),
    (["--confidence", "2"], "--confidence"),
    (["--resume"], "--resume needs --log"),
    (["--seed", "x"], "--seed"),
    (["--nosuch"], "--nosuch"),
]


def _make_files(tmp: Path) -> None:
    """The bad files the cases name, in ``tmp``."""
    (tmp / "corrupt.jsonl").write_text('{"format": 1\n{"x": 1}\n', encoding="utf-8")
    (tmp / "nested.jsonl").write_text("[" * 50_000 + "]" * 50_000 + "\n", encoding="utf-8")
    (tmp / "wrong.jsonl").write_text('{"format": 99}\n', encoding="utf-8")
    (tmp / "latin.jsonl").write_bytes(b"\xff\xfe\n")
    (tmp / "q.json").write_text('{"format": "nope"}', encoding="utf-8")
    (tmp / "deep.json").write_text("{" + '"a":{' * 50_000 + "}" * 50_001, encoding="utf-8")
    (tmp / "folder").mkdir()


def _cases(tmp: Path) -> list[Case]:
    corrupt, nested, wrong = tmp / "corrupt.jsonl", tmp / "nested.jsonl", tmp / "wrong.jsonl"
    latin, qtable, deep_q = tmp / "latin.jsonl", tmp / "q.json", tmp / "deep.json"
    used, folder = tmp / "used.jsonl", tmp / "folder"
    train = ["--games", "5", "--out", str(used), "--vs", "random"]
    cases: list[Case] = []
    for spec, word in SPECS:
        cases.append((f"match spec {spec!r}", ["match", spec, "random", "-n", "2"], word))
    for spec, word in SPECS[:12]:
        cases.append((f"tournament spec {spec!r}", ["tournament", "random", spec], word))
        cases.append((f"play spec {spec!r}", ["play", spec], word))
    for args, word in RULES:
        for command in (
            ["match", "random", "greedy"],
            ["tournament", "random", "greedy"],
            ["grid", "random", "-p", "stop_chance=0,1"],
            ["play", "random"],
        ):
            cases.append((f"{command[0]} {' '.join(args)}", [*command, *args], word))
    for args, word in RUN:
        for command in (
            ["match", "random", "greedy"],
            ["tournament", "random", "greedy"],
            ["grid", "random", "-p", "stop_chance=0,1"],
        ):
            cases.append((f"{command[0]} {' '.join(args)}", [*command, *args], word))
    cases += [
        ("match players mismatch", ["match", "random", "greedy", "--players", "3"], "--players"),
        ("match one spec", ["match", "random"], "two agents"),
        ("match seven specs", ["match", *["random"] * 7], "players"),
        ("match log is a folder", ["match", "random", "greedy", "--log", str(folder)], "folder"),
        (
            "match log in missing folder",
            ["match", "random", "greedy", "--log", str(tmp / "no" / "x.jsonl")],
            "x.jsonl",
        ),
        (
            "resume a corrupt log",
            ["match", "random", "greedy", "--log", str(corrupt), "--resume"],
            "line 1",
        ),
        (
            "resume a nested log",
            ["match", "random", "greedy", "--log", str(nested), "--resume"],
            "nested too deeply",
        ),
        (
            "resume a log of another format",
            ["match", "random", "greedy", "--log", str(wrong), "--resume"],
            "format",
        ),
        (
            "resume a non-UTF-8 log",
            ["match", "random", "greedy", "--log", str(latin), "--resume"],
            "UTF-8",
        ),
        ("tournament of one", ["tournament", "random"], "at least two"),
        ("tournament twice the same", ["tournament", "random", "random"], "twice"),
        (
            "tournament of 3 players",
            ["tournament", "random", "greedy", "--players", "3"],
            "two-player",
        ),
        (
            "tournament csv in missing folder",
            ["tournament", "random", "greedy", "--csv", str(tmp / "no" / "t.csv")],
            "t.csv",
        ),
        (
            "tournament csv and json both to stdout",
            ["tournament", "random", "greedy", "--csv", "-", "--json", "-"],
            "same file",
        ),
        ("grid without --param", ["grid", "random"], "--param"),
        ("grid with a bad --param", ["grid", "random", "-p", "stop_chance"], "stop_chance"),
        ("grid with an unknown parameter", ["grid", "random", "-p", "foo=1,2"], "foo"),
        (
            "grid json in missing folder",
            ["grid", "random", "-p", "stop_chance=0,1", "--json", str(tmp / "no" / "g.json")],
            "g.json",
        ),
        ("replay a missing file", ["replay", str(tmp / "missing.jsonl")], "missing.jsonl"),
        ("replay a corrupt log", ["replay", str(corrupt)], "line 1"),
        ("replay a nested log", ["replay", str(nested)], "nested too deeply"),
        ("replay a log of another format", ["replay", str(wrong)], "format"),
        ("replay a non-UTF-8 log", ["replay", str(latin)], "UTF-8"),
        ("replay a folder", ["replay", str(folder)], "folder"),
        ("play with a bad seat", ["play", "random", "--seat", "5"], "--seat"),
        ("play with a negative seat", ["play", "random", "--seat", "-1"], "--seat"),
        ("agents of an unknown name", ["agents", "nosuch"], "unknown agent"),
        ("learners of an unknown name", ["learners", "nosuch"], "unknown learner"),
        ("bench with zero games", ["bench", "--games", "0"], "--games"),
        ("train an unknown learner", ["train", "nosuch", *train], "unknown learner"),
        ("train with a bad parameter", ["train", "qlearn:alpha=5", *train], "alpha"),
        (
            "train against an unknown agent",
            ["train", "qlearn", *train[:-1], "nosuch"],
            "unknown agent",
        ),
        ("train from a corrupt table", ["train", f"qlearn:init={qtable}", *train], "not a Q-table"),
        ("train zero episodes", ["train", "qlearn", "--games", "0", *train[2:]], "--games"),
        (
            "match with a corrupt Q-table",
            ["match", f"qlearn:path={qtable}", "random"],
            "not a Q-table",
        ),
        (
            "match with a nested Q-table",
            ["match", f"qlearn:path={deep_q}", "random"],
            "nested too deeply",
        ),
        ("an unknown command", ["nosuch"], "nosuch"),
    ]
    return cases


CASES = _cases(Path("/nonexistent"))  # for the ids and the count; each test makes its files


def test_there_are_at_least_a_hundred_cases() -> None:
    assert len(CASES) >= 100


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c[0] for c in CASES])
def test_a_bad_command_line_gives_one_error_line(
    index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _make_files(tmp_path)
    _, args, word = _cases(tmp_path)[index]
    result = runner.invoke(app, args, input="")
    assert result.exit_code == 2, (args, result.output)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, (args, result.stderr)
    assert word.lower() in errors[0].lower(), (args, errors[0])
    assert "Traceback" not in result.output, result.output
