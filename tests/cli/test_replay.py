"""``durak replay`` (re-validation, listing, stepping, corrupt logs) and ``durak agents``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import tests.support.faulty_agents  # noqa: F401  (registers the test agents)
from durak.agents import registry
from durak.arena.gamelog.files import read_log
from durak.cli.app import app

runner = CliRunner()


def invoke(*args: str, stdin: str | None = None) -> Result:
    return runner.invoke(app, list(args), input=stdin)


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six games, some forfeited by an agent that plays illegal actions."""
    path = tmp_path_factory.mktemp("logs") / "run.jsonl"
    result = invoke(
        "match",
        "test-illegal:p=0.05",
        "greedy",
        "-n",
        "6",
        "--seed",
        "1",
        "-j",
        "1",
        "--log",
        str(path),
    )
    assert result.exit_code == 0, result.output
    return path


def test_replay_checks_and_lists_every_game(log: Path) -> None:
    result = invoke("replay", str(log))
    assert result.exit_code == 0, result.output
    assert f"{log}: 6 games, all valid" in result.stdout
    listed = [
        [c.strip() for c in line.split("│")[1:-1]]
        for line in result.stdout.splitlines()
        if line.startswith("│")
    ]
    entries = read_log(log).entries
    assert [r[0] for r in listed] == [str(e.line) for e in entries]
    assert [r[4] for r in listed] == [e.end for e in entries]
    assert "forfeit" in [e.end for e in entries]


def test_replay_steps_through_one_game(log: Path) -> None:
    entry = next(e for e in read_log(log).entries if e.end == "finished")
    result = invoke("replay", str(log), "--game", str(entry.game))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    head = (
        f"match game {entry.game} of test-illegal:p=0.05 vs greedy (line {entry.line}) · "
        f"seed 1 · deal seed {entry.deal_seed}"
    )
    assert lines[0] == head
    assert lines[2].startswith("deal: trump ")
    moves = [line.split()[4] for line in lines if line[:6].strip().rstrip(".").isdigit()]
    assert moves == list(entry.actions)
    assert sum(line.startswith("bout ") for line in lines) == entry.bouts
    assert lines[-1].startswith(f"end: durak {entry.specs[entry.durak or 0]}")
    assert lines[-1].endswith(
        f"{entry.bouts} bouts · {len(entry.actions)} moves · checked by the engine"
    )
    by_line = invoke("replay", str(log), "--line", str(entry.line))
    assert by_line.stdout == result.stdout


def test_replay_shows_a_forfeit_and_can_stop_early(log: Path) -> None:
    entry = next(e for e in read_log(log).entries if e.end == "forfeit")
    result = invoke("replay", str(log), "--line", str(entry.line))
    assert result.exit_code == 0 and "by forfeit: illegal: illegal action" in result.stdout
    stepped = invoke("replay", str(log), "--line", str(entry.line), "--step", stdin="\n\nq\n")
    assert stepped.exit_code == 0
    numbered = [line for line in stepped.stdout.splitlines() if line.startswith("     ")]
    assert len(numbered) == 3 and "end:" not in stepped.stdout


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda lines: lines.__setitem__(2, lines[2][:40]), "line 3: not valid JSON"),
        (lambda lines: lines.__setitem__(1, "[1, 2]"), "line 2: expected a JSON object, got list"),
        (
            lambda lines: lines.__setitem__(
                3, lines[3].replace('"actions":["Attack(', '"actions":["Atack(')
            ),
            "line 4: action 1 'Atack(",
        ),
        (
            lambda lines: lines.__setitem__(0, lines[0].replace('"seed":1,', '"seed":2,')),
            "line 1: deal seed",
        ),
    ],
)
def test_a_corrupt_line_is_reported_with_its_number(
    log: Path, tmp_path: Path, damage: object, message: str
) -> None:
    lines = log.read_text(encoding="utf-8").splitlines()
    assert callable(damage)
    damage(lines)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = invoke("replay", str(bad))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {bad} {message}") and result.stderr.count("\n") == 1


def test_an_illegal_move_and_a_cut_off_line_are_reported(log: Path, tmp_path: Path) -> None:
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    first = next(e for e in entries if e["end"] == "finished")
    first["actions"][1] = first["actions"][0]  # the same card twice
    bad = tmp_path / "illegal.jsonl"
    bad.write_text(json.dumps(first, ensure_ascii=False) + "\n", encoding="utf-8")
    result = invoke("replay", str(bad))
    assert result.exit_code == 2
    assert f"error: {bad} line 1: action 2 {first['actions'][0]} is illegal: " in result.stderr
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(log.read_bytes()[:-25])
    result = invoke("replay", str(cut), "--game", "0")
    assert result.exit_code == 2
    assert "line 6: cut off: the file ends inside this entry" in result.stderr


def test_replay_selection_errors(log: Path, tmp_path: Path) -> None:
    missing = invoke("replay", str(log), "--game", "99")
    assert missing.exit_code == 2 and "has no game with --game 99" in missing.stderr
    t = tmp_path / "t.jsonl"
    invoke(
        "tournament",
        "random",
        "greedy",
        "lowest",
        "-n",
        "2",
        "--seed",
        "1",
        "-j",
        "1",
        "--log",
        str(t),
    )
    ambiguous = invoke("replay", str(t), "--game", "0")
    assert ambiguous.exit_code == 2
    assert "has 3 games with index 0 (lines 1, 3, 5); choose one with --line" in ambiguous.stderr
    nofile = invoke("replay", str(tmp_path / "none.jsonl"))
    assert nofile.exit_code == 2 and "No such file or directory" in nofile.stderr


def test_agents_lists_every_agent_with_its_parameters() -> None:
    result = invoke("agents")
    assert result.exit_code == 0
    for name, info in registry().items():
        assert f"│ {name} " in result.stdout
        for param in info.params:
            assert f"{param.name}: {param.kind.__name__} = {param.default}" in result.stdout
    one = json.loads(invoke("agents", "mcts", "--json").stdout)
    assert [a["name"] for a in one] == ["mcts"]
    assert {p["name"]: p["default"] for p in one[0]["params"]}["limit"] == 300
    unknown = invoke("agents", "nope")
    assert unknown.exit_code == 2 and "unknown agent 'nope'; known agents: " in unknown.stderr


def test_help_lists_every_command() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("match", "tournament", "grid", "play", "replay", "agents", "bench"):
        assert f"│ {command} " in result.stdout
