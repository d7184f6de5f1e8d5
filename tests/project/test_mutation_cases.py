"""The test cases a mutation run leaves out (``tests/conftest.py``): each names a test of
its file, so a renamed test cannot slip back into a run unnoticed (a heavy case slows
every mutant it reaches)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import HEAVY_CASES, TESTS


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
