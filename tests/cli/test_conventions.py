"""One meaning per option across the commands (docs/cli.md, "Option conventions"): the
table below is checked against every command's options as the typer app declares them."""

from __future__ import annotations

import importlib.metadata
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from durak.cli.app import app
from durak.cli.conventions import rewrite_arguments
from tests.project.test_docs import cli_commands

runner = CliRunner()

#: option -> (its short form, its value placeholder in --help)
CONVENTION: dict[str, tuple[str | None, str | None]] = {
    "--games": ("-n", None),
    "--jobs": ("-j", None),
    "--seed": (None, None),
    "--json": (None, "[FILE|-]"),
    "--csv": (None, "[FILE|-]"),
    "--force": (None, None),
}
#: Which commands take which of them.
TAKEN = {
    "match": {"--games", "--jobs", "--seed", "--json", "--csv", "--force"},
    "tournament": {"--games", "--jobs", "--seed", "--json", "--csv", "--force"},
    "grid": {"--games", "--jobs", "--seed", "--json", "--csv", "--force"},
    "ladder": {"--games", "--jobs", "--seed", "--json", "--csv", "--force"},
    "train": {"--games", "--jobs", "--seed", "--csv", "--force"},
    "exploit": {"--games", "--jobs", "--seed", "--json", "--force"},
    "dataset": {"--games", "--jobs", "--seed", "--force"},
    "play": {"--games", "--seed"},
    "bench": {"--games", "--seed"},
    "agents": {"--json", "--force"},
    "learners": {"--json", "--force"},
    "replay": set(),
    "serve": set(),
}


def invoke(*args: str | Path) -> Result:
    return runner.invoke(app, [str(a) for a in args])


def options(command: Any) -> dict[str, Any]:
    return {o: p for p in command.params if p.param_type_name == "option" for o in p.opts}


@pytest.mark.parametrize("name", sorted(TAKEN))
def test_every_command_follows_the_option_convention(name: str) -> None:
    command = cli_commands()[name]
    declared = options(command)
    assert {o for o in declared if o in CONVENTION} == TAKEN[name]
    for long, (short, metavar) in CONVENTION.items():
        if long in declared:
            param = declared[long]
            assert set(param.opts) == {long} | ({short} if short else set()), param.opts
            if metavar is not None:
                assert param.metavar == metavar
    shorts = {o for o in declared if re.fullmatch(r"-\w", o)}
    conventional = {s for s, _ in CONVENTION.values() if s}
    for s in shorts & conventional:  # -n is always --games, -j always --jobs
        assert declared[s].opts[0] in CONVENTION


def test_every_command_that_writes_a_file_takes_one_force_flag() -> None:
    # One meaning: the same declaration (a flag, its help) wherever a file may be replaced.
    forces = {name: options(cli_commands()[name]).get("--force") for name in TAKEN}
    taken = {name: p for name, p in forces.items() if p is not None}
    assert set(taken) == {name for name, opts in TAKEN.items() if "--force" in opts}
    assert all(p.is_flag and p.default is False for p in taken.values())
    assert len({p.help for p in taken.values()}) == 1, {n: p.help for n, p in taken.items()}


@pytest.mark.parametrize("name", sorted(TAKEN))
def test_help_shows_flags_as_flags_and_required_options(name: str) -> None:
    shown = invoke(name, "--help")
    assert shown.exit_code == 0, shown.output
    assert "<bool>" not in shown.stdout
    usage = next(line for line in shown.stdout.splitlines() if "Usage:" in line)
    assert "{" not in usage, usage


def test_rich_markup_does_not_eat_the_extra_name() -> None:
    shown = runner.invoke(app, ["match", "--help"], env={"COLUMNS": "400"})
    assert "pip install 'durak-lab[ray]'" in shown.stdout


def test_match_writes_json_and_csv_to_a_file_or_standard_output(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    match = ["match", "greedy", "random", "-n", "4", "--seed", "1", "-j", "1"]
    written = invoke(*match, "--json", out)
    assert written.exit_code == 0, written.output
    assert json.loads(out.read_text())["games"] == 4
    to_stdout = invoke(*match, "--csv")
    assert to_stdout.exit_code == 0, to_stdout.output
    header, *rows = to_stdout.stdout.splitlines()
    assert header.startswith("agent,spec,games,wins") and len(rows) == 2


def test_optional_values_are_filled_in() -> None:
    assert rewrite_arguments(["match", "a", "b", "--json"]) == ["match", "a", "b", "--json", "-"]
    assert rewrite_arguments(["grid", "--csv", "-n", "4"]) == ["grid", "--csv", "-", "-n", "4"]
    assert rewrite_arguments(["grid", "--csv", "t.csv"]) == ["grid", "--csv", "t.csv"]
    assert rewrite_arguments(["agents", "--json", "-"]) == ["agents", "--json", "-"]
    moved = rewrite_arguments(["match", "mine", "--agent-module", "m", "greedy", "--json"])
    assert moved == ["--agent-module", "m", "match", "mine", "greedy", "--json", "-"]


def test_old_train_spellings_work_with_a_one_line_note(tmp_path: Path) -> None:
    out = tmp_path / "q.json"
    old = invoke(
        "train", "qlearn", "--vs", "random", "--episodes", "6", "--interval", "3", "--seed", "1",
        "--out", out, "--no-plot",
    )  # fmt: skip
    assert old.exit_code == 0, old.output
    notes = [line for line in old.stderr.splitlines() if "deprecated" in line]
    assert notes == ["note: train --episodes is deprecated and will be removed; use --games"]
    assert "episodes 6/6" in old.stdout
    actors = invoke("train", "qlearn", "--vs", "random", "--actors", "2", "-n", "4", "--out", out)
    assert actors.exit_code == 2
    assert "note: train --actors is deprecated and will be removed; use --jobs" in actors.stderr
    assert "--jobs" in actors.stderr.splitlines()[-1]


def test_a_missing_required_option_says_it_is_required(tmp_path: Path) -> None:
    missing = invoke("train", "qlearn", "--vs", "random", "--out", tmp_path / "q.json")
    assert missing.exit_code == 2
    assert missing.stderr.splitlines() == [
        "error: --games is required: how many training games (episodes)"
    ]
    assert "required" in " ".join(invoke("train", "--help").stdout.split())


def test_version_is_the_package_version() -> None:
    shown = invoke("--version")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout == f"durak {importlib.metadata.version('durak-lab')}\n"


def test_the_top_level_help_shows_its_flags_as_flags() -> None:
    shown = invoke("--help")
    assert shown.exit_code == 0, shown.output
    assert "--version" in shown.stdout and "<bool>" not in shown.stdout
