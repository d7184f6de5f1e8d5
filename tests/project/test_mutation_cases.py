"""What a mutation run collects (``tests/conftest.py``): only its suites, of all the tests
mutmut's selection names; and the cases it leaves out, each naming a test of its file, so
that a renamed test cannot slip back into a run unnoticed (a heavy case slows every mutant
it reaches)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from tests.conftest import HEAVY_CASES, SUITES, TESTS, fastest_first, recorded_durations


def _tests_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
    }


@pytest.mark.parametrize("case", sorted(HEAVY_CASES))
def test_every_case_left_out_of_a_run_names_a_test_of_its_file(case: str) -> None:
    file, _, name = case.partition("::")
    path = TESTS / file
    assert path.is_file(), f"{case}: no file {file}"
    assert name.split("[")[0] in _tests_of(path), f"{case}: no such test in {file}"


#: Collects every test the way mutmut does, then names the test modules imported.
_COLLECT = """
import sys, pytest
pytest.main(["--collect-only", "-qq", "-p", "no:cacheprovider", "--rootdir", ".", "tests"])
print(*sorted(m for m in sys.modules if m.rpartition(".")[2].startswith("test_")))
"""


@pytest.mark.parametrize("run", ["agents.inference", "encoding"])
def test_a_run_imports_its_suites_alone_of_every_test(run: str) -> None:
    # agents.inference shares tests/agents with other runs' files; a file outside the
    # run must not even be imported (tests/cli/test_conventions.py reads docs/ at import,
    # which a run's copy of the project lacks).
    env = {**os.environ, "DURAK_MUTATION_MODULE": run}
    out = subprocess.run(
        [sys.executable, "-c", _COLLECT],
        cwd=TESTS.parent,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    files = {"tests/" + "/".join(m.split(".")[1:]) + ".py" for m in out.splitlines()[-1].split()}
    suites = {f"tests/{suite}" for suite in SUITES[run]}
    assert files and all(any(f.startswith(s) for s in suites) for f in files), files
    assert all(any(f.startswith(s) for f in files) for s in suites), suites


@dataclass
class _Item:
    nodeid: str


def test_a_runs_tests_go_fastest_first_by_mutmuts_record(tmp_path: Path) -> None:
    stats = tmp_path / "mutmut-stats.json"
    assert recorded_durations(stats) == {}  # no record yet: the order collected
    slow, fast, new = _Item("tests/a.py::test_slow"), _Item("tests/a.py::test_fast"), _Item("b")
    record = {"tests/a.py::test_slow": 9.0, "tests/a.py::test_fast": 2.5, "tests/gone.py::x": 1.0}
    stats.write_text(json.dumps({"stats_time": 3.0, "duration_by_test": record}), "utf-8")
    durations = recorded_durations(stats)
    assert durations == record
    items = cast(list[pytest.Item], [slow, fast, new])
    # the test without a record first, then by duration
    ordered = [item.nodeid for item in fastest_first(items, durations)]
    assert ordered == [new.nodeid, fast.nodeid, slow.nodeid]
