"""The second mutation pass with mutmut's record of which tests reach a function
(``make mutation-extra REACH=mutmut``): mutmut's names read as the mutator's scopes, its
stats read into the run's reach, and a nested function judged by its outer one's tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mutation.operators import Mutant
from mutation.runner import Runner, mutmut_reach, mutmut_scope
from mutmut.utils.format_utils import make_mutant_key

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("function", "owner", "scope"),
    [
        ("hint_seed", None, "durak.web.hints:hint_seed"),
        ("hint", "Hinter", "durak.web.hints:Hinter.hint"),
        ("__init__", "Hinter", "durak.web.hints:Hinter.__init__"),
        ("_x_y", None, "durak.web.hints:_x_y"),
    ],
)
def test_mutmuts_name_of_a_function_is_read_as_the_mutators_scope(
    function: str, owner: str | None, scope: str
) -> None:
    assert mutmut_scope(f"durak.web.hints.{make_mutant_key(function, owner)}") == scope


def test_mutmuts_stats_give_each_scope_the_tests_that_reach_it(tmp_path: Path) -> None:
    stats = tmp_path / "mutmut-stats.json"
    by_name = {
        "durak.web.hints.x_hint_seed": ["t::a", "t::b"],
        "durak.web.hints.xǁHinterǁhint": ["t::b"],
        "durak.web.reviews.xǁReviewsǁstart": [],
    }
    stats.write_text(json.dumps({"tests_by_mangled_function_name": by_name}), encoding="utf-8")
    assert mutmut_reach(stats) == {
        "durak.web.hints:hint_seed": {"t::a", "t::b"},
        "durak.web.hints:Hinter.hint": {"t::b"},
        "durak.web.reviews:Reviews.start": set(),
    }


def _mutant(scope: str) -> Mutant:
    return Mutant("src/durak/web/reviews.py", scope, "remove-raise", 0, 1, 0, 1, "pass", "f")


def test_a_nested_function_no_test_is_recorded_reaching_is_judged_by_its_outers_tests(
    tmp_path: Path,
) -> None:
    runner = Runner(ROOT, tmp_path)
    runner.durations = {"slow": 2.0, "fast": 1.0, "other": 0.5}
    runner.reaching = {
        "durak.web.reviews:Reviews.start": {"slow", "fast"},
        "durak.web.reviews:Reviews.start.finish": {"other"},
    }
    assert runner.tests_for(_mutant("Reviews.start.run")) == ["fast", "slow"]
    assert runner.tests_for(_mutant("Reviews.start.run.inner")) == ["fast", "slow"]
    assert runner.tests_for(_mutant("Reviews.start.finish")) == ["other"]
    assert runner.tests_for(_mutant("Reviews.close")) == []
    assert runner.tests_for(_mutant("close")) == []
