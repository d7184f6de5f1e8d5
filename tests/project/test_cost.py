"""The deterministic cost check (issue 37): the call counts of fixed seeded workloads stay
within 3% of ``benchmarks/cost_budget.json`` (``benchmarks/cost.py`` says why and how).

Each workload runs in a fresh interpreter, so that no cache warmed by another test and no
tracer of the test run changes what it calls.  An intended increase: ``make cost-budget``
in the same commit, whose message says why.
"""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "benchmarks" / "cost.py"
BUDGET: dict[str, Any] = json.loads((ROOT / "benchmarks" / "cost_budget.json").read_text())
COST = runpy.run_path(str(RUNNER))  # compare() and the workloads' names, without running them

#: Code run before the workload that adds one call of its own to every public ``step``.
PLANT = """
import durak.rules.engine as engine
_is_legal = engine.is_legal
def planted_extra_call(state, action):
    return _is_legal(state, action)
engine.is_legal = planted_extra_call
"""

pytestmark = pytest.mark.skipif(
    f"{sys.version_info[0]}.{sys.version_info[1]}" != BUDGET["python"],
    reason=f"the cost budget was made on Python {BUDGET['python']}: call counts differ on "
    f"{sys.version_info[0]}.{sys.version_info[1]} (make cost-budget there to check locally)",
)


def counts(workload: str, hash_seed: str = "0", before: str = "") -> dict[str, int]:
    """The call counts of ``workload`` in a fresh interpreter, after running ``before``."""
    code = (
        f"{before}\nimport runpy, sys\n"
        f"sys.argv = ['cost.py', '--workload', {workload!r}]\n"
        f"runpy.run_path({str(RUNNER)!r}, run_name='__main__')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    record: dict[str, Any] = json.loads(done.stdout)
    assert record["python"] == BUDGET["python"]
    result: dict[str, int] = record["workloads"][workload]
    return result


@pytest.mark.parametrize("workload", sorted(BUDGET["workloads"]))
def test_a_workload_costs_no_more_than_its_budget(workload: str) -> None:
    problems = COST["compare"](BUDGET["workloads"][workload], counts(workload))
    assert not problems, f"{workload} costs more than benchmarks/cost_budget.json allows:\n" + (
        "\n".join(problems) + "\n(an intended increase: make cost-budget, and say why)"
    )


def test_the_budget_holds_every_workload() -> None:
    assert sorted(BUDGET["workloads"]) == sorted(COST["WORKLOADS"])
    assert BUDGET["tolerance"] == COST["TOLERANCE"] == 0.03


def test_the_counts_do_not_depend_on_the_hash_seed() -> None:
    assert counts("four_players", hash_seed="1") == counts("four_players", hash_seed="2")


def test_an_extra_call_in_step_fails_the_check_and_is_named() -> None:
    problems = COST["compare"](BUDGET["workloads"]["readme"], counts("readme", before=PLANT))
    assert problems, "a planted call per step went unnoticed"
    assert "calls against a budget of" in problems[0]
    assert any("planted_extra_call" in line for line in problems[1:]), problems


def test_compare_names_what_grew_beyond_the_tolerance() -> None:
    budget = {"a": 1000, "b": 1000, "c": 8}
    compare = COST["compare"]
    assert compare(budget, {"a": 1030, "b": 1000, "c": 8}) == []  # 1.5% in all: within
    assert compare(budget, {"a": 900, "b": 1000, "c": 150}) == []  # moved: 2.1% in all
    problems = compare(budget, {"a": 1100, "b": 1000, "c": 8, "new": 40})
    assert problems == [
        "2,148 calls against a budget of 2,008 (+7.0%)",
        "  a: 1,000 -> 1,100 (+100)",
        "  new: 0 -> 40 (+40)",
    ]
