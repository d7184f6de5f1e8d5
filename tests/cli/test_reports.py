"""The report files of ``durak match``, ``tournament``, ``grid``, ``agents`` and
``learners`` (``--csv FILE``, ``--json FILE``): a regular file already there is replaced
only with ``--force`` (or by the run it continues, ``--resume``), and the refusal comes
before the first game, in one line, with the file's bytes untouched (issue 47, item 1).
``-`` is standard output, never a file that exists."""

from __future__ import annotations

import csv
import io
import json
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from durak.cli.app import app
from tests.support.cli_checks import one_error

runner = CliRunner()
SMALL = ["--lowest-rank", "10", "--seed", "1", "-j", "1"]

#: A short run of each command that writes --csv and --json reports (two games a match).
REPORTING = {
    "match": ["match", "greedy", "random", "-n", "2", *SMALL],
    "tournament": ["tournament", "greedy", "random", "-n", "2", *SMALL],
    "grid": ["grid", "mcts:limit={n}", "-p", "n=1,2", "-n", "2", *SMALL],
}
OLD = b"keep me\n"


def invoke(*args: str | Path) -> Result:
    return runner.invoke(app, [str(a) for a in args])


def kinds(folder: Path) -> dict[str, int]:
    return {p.name: stat.S_IFMT(p.lstat().st_mode) for p in folder.iterdir()}


def check_report(path: Path, option: str) -> None:
    """``path`` holds a whole report of a finished run of :data:`REPORTING`."""
    text = path.read_text(encoding="utf-8")
    if option == "--json":
        data = json.loads(text)
        assert data["seed"] == 1 and data["interrupted"] is False
    else:
        rows = list(csv.DictReader(io.StringIO(text)))
        assert rows and {r["games"] for r in rows} == {"2"}


@pytest.mark.parametrize("option", ["--csv", "--json"])
@pytest.mark.parametrize("command", sorted(REPORTING))
def test_a_report_that_exists_is_replaced_only_with_force(
    tmp_path: Path, command: str, option: str
) -> None:
    report, log = tmp_path / "report", tmp_path / "games.jsonl"
    report.write_bytes(OLD)
    args: list[str | Path] = [*REPORTING[command], "--log", log, option, report]
    refused = invoke(*args)
    one_error(refused, str(report), "exists", "--force")
    assert refused.stdout == ""  # not even the header: refused before the first game
    assert report.read_bytes() == OLD and not log.exists()  # the log holds no game
    assert list(kinds(tmp_path)) == ["report"]  # and no temporary file was left
    forced = invoke(*args, "--force")
    assert forced.exit_code == 0, forced.output
    check_report(report, option)
    assert sorted(kinds(tmp_path)) == ["games.jsonl", "report"]


def test_a_resumed_run_replaces_the_report_of_the_run_it_continues(tmp_path: Path) -> None:
    report, log = tmp_path / "r.json", tmp_path / "games.jsonl"
    first = invoke(*REPORTING["match"], "--log", log, "--json", report)
    assert first.exit_code == 0, first.output
    assert json.loads(report.read_text(encoding="utf-8"))["games"] == 2
    more = [*REPORTING["match"][:4], "4", *REPORTING["match"][5:]]
    one_error(invoke(*more, "--json", report), str(report), "exists", "--force")  # a new run
    resumed = invoke(*more, "--log", log, "--json", report, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(report.read_text(encoding="utf-8"))["games"] == 4


@pytest.mark.parametrize("command", ["agents", "learners"])
def test_a_listing_that_exists_is_replaced_only_with_force(tmp_path: Path, command: str) -> None:
    listing = tmp_path / "listing.json"
    listing.write_bytes(OLD)
    one_error(invoke(command, "--json", listing), str(listing), "exists", "--force")
    assert listing.read_bytes() == OLD and list(kinds(tmp_path)) == ["listing.json"]
    forced = invoke(command, "--json", listing, "--force")
    assert forced.exit_code == 0, forced.output
    names = [entry["name"] for entry in json.loads(listing.read_text(encoding="utf-8"))]
    assert ("greedy" if command == "agents" else "qlearn") in names


def test_standard_output_is_never_a_file_that_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_bytes(OLD)  # a file named "-" is not what "-" means
    result = invoke(*REPORTING["match"], "--json", "-")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["games"] == 2
    listed = invoke("agents", "--json", "-")
    assert listed.exit_code == 0, listed.output
    assert (tmp_path / "-").read_bytes() == OLD and list(kinds(tmp_path)) == ["-"]
