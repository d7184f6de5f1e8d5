"""Hypothesis profiles for the verification suites, and the suites of a mutation run.

* ``default`` (CI): 200 examples per property; every suite together takes about a minute
  on a two-core machine.
* ``thorough``: thousands of examples per property, for a long local or nightly run.
* ``mutation``: 15 derandomized examples per property, for ``make mutation``.

Select one with the environment variable ``HYPOTHESIS_PROFILE`` (default ``default``), e.g.
``HYPOTHESIS_PROFILE=thorough .venv/bin/pytest tests/rules/test_properties.py``.

``make mutation`` sets ``DURAK_MUTATION_MODULE`` (a key of :data:`SUITES`): each mutant is
then judged by its own module's suites only (the search tests also drive the rules, and
would otherwise run, slowly, against every surviving rules mutant).

A suite started in the background of a shell without job control (``make test &``, nohup)
inherits SIGINT ignored, so Ctrl-C never reaches it; the tests of the stop path press
Ctrl-C, so the suite takes Python's own handler back, as a terminal gives it.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

settings.register_profile(
    "default",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=2500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# Mutation runs (`make mutation`): the same examples every time, so that whether a mutant
# is killed never depends on luck, and few enough for thousands of runs.
settings.register_profile(
    "mutation",
    max_examples=15,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


#: Each mutation run's suites (folders or files under ``tests/``), by the run's name
#: (``make mutation MODULE=...``): the one place that chooses a run's tests (mutmut's
#: selection is every test, and never changes, so a suite added here resets no run).
SUITES: dict[str, tuple[str, ...]] = {
    "rules": ("rules",),
    "search": ("search",),
    "arena.scores": (
        "arena/test_ratings.py",
        "arena/test_scores_reference.py",
        "arena/test_scores_contracts.py",
        "arena/test_result_reference.py",
    ),
    # the exploit evaluation's figures (cli/test_exploit.py trains learners: too slow here)
    "arena.experiments": ("arena/test_exploit_reference.py",),
    "agents.analysis": ("agents/test_analysis.py", "agents/test_analysis_contracts.py"),
    "encoding": ("encoding",),
    # the ladder's pairings, seeds and resume, through the CLI in process
    "arena.experiments.ladder": ("cli/test_ladder.py", "arena/test_ladder_records.py"),
    "arena.gamelog": ("arena/test_review.py", "cli/test_review.py"),
    # the posterior's tests (test_opponent_auto.py) with one seed of its largest cases
    "agents.inference": (
        "agents/test_inference.py",
        "agents/test_particles_property.py",
        "agents/test_opponents.py",
        "agents/test_opponent_specs.py",
        "agents/test_opponent_auto.py",
        "agents/test_respond.py",
        "agents/test_model_parts.py",
        "agents/test_inferring_parts.py",
        "agents/test_particles_parts.py",
    ),
    "dataset": (
        "cli/test_dataset.py",
        "cli/test_dataset_policy.py",
        "cli/test_dataset_returns.py",
        "test_dataset_store.py",
        "test_dataset_format.py",
        "test_dataset_tables.py",
        "test_dataset_parts.py",
    ),
    # the web's hints and reviews (the browser's and the schema's fuzzing are too slow
    # here; so is test_server.py's hint leak check, below)
    "web": (
        "web/test_hints.py",
        "web/test_hint_parts.py",
        "web/test_review.py",
        "web/test_review_jobs.py",
        "web/test_server.py",
    ),
}
TESTS = Path(__file__).resolve().parent
#: Left out of mutation runs: the largest cases of checks whose smaller cases stay (each
#: takes 10-20 s, and a surviving mutant runs every test that reaches its function), and
#: the web's hint leak check (5 min traced: two games hinted at every decision, each hint
#: computed again on a twin world), whose part in ``durak.web.hints`` (the view of an
#: analysis and the observation only) ``web/test_hint_parts.py`` checks in milliseconds.
HEAVY_CASES = frozenset(
    {
        "web/test_server.py::test_no_payload_depends_on_a_hidden_card",
        *(
            f"agents/test_opponent_auto.py::test_a_scripted_{who}[{seed}]"
            for who in (
                "greedy_is_found_within_the_documented_moves",
                "lowest_is_found_within_half_of_them",
            )
            for seed in range(32, 36)
        ),
        "rules/test_exhaustive.py::test_every_reachable_state[2p-8c-h2-capped-transfer-seed1]",
        "rules/test_exhaustive.py::test_every_reachable_state[2p-8c-h2-transfer-seed1]",
        "rules/test_exhaustive.py::test_every_state_to_a_depth[2p-12c-h3-transfer-seed0-depth12]",
        "rules/test_sampling.py::test_odds_equal_the_count_over_every_deck_order[rules6-6-6]",
        "rules/test_sampling.py::test_odds_equal_the_count_over_every_deck_order[rules7-21-6]",
        "rules/test_sampling.py::test_odds_equal_the_count_over_every_deck_order[rules8-23-6]",
    }
)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``DURAK_MUTATION_MODULE``, never collect (nor import) a file or folder of
    ``tests/`` outside the run's suites: mutmut's selection is every test, and some test
    modules read files that a run's copy of the project lacks."""
    suites = SUITES.get(os.environ.get("DURAK_MUTATION_MODULE", ""))
    if suites is None or not collection_path.is_relative_to(TESTS):
        return None
    for suite in suites:
        path = TESTS / suite
        if collection_path.is_relative_to(path) or path.is_relative_to(collection_path):
            return None
    return True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``DURAK_MUTATION_MODULE``, keep only that module's suites (:data:`SUITES`)
    without the heavy cases."""
    module = os.environ.get("DURAK_MUTATION_MODULE")
    if module is None:
        return
    if module not in SUITES:
        raise pytest.UsageError(
            f"DURAK_MUTATION_MODULE must be one of {', '.join(SUITES)}, not {module!r}"
        )
    keep = [
        item
        for item in items
        if _in_suites(item, SUITES[module]) and _case(item) not in HEAVY_CASES
    ]
    config.hook.pytest_deselected(items=[item for item in items if item not in keep])
    items[:] = fastest_first(keep, recorded_durations(config.rootpath / "mutmut-stats.json"))


def recorded_durations(stats: Path) -> dict[str, float]:
    """The seconds mutmut recorded for each test (by node id) in ``stats``, if it exists."""
    if not stats.is_file():
        return {}
    return dict(json.loads(stats.read_text(encoding="utf-8")).get("duration_by_test", {}))


def fastest_first(items: list[pytest.Item], durations: dict[str, float]) -> list[pytest.Item]:
    """``items`` by their recorded duration, a test without one first, ties in their
    order.  mutmut hands a mutant's tests over as a set, in no order; with ``-x`` a killed
    mutant then costs only the tests up to the first that fails, seconds rather than the
    minutes of the slow exact checks run first."""
    return sorted(items, key=lambda item: durations.get(item.nodeid, 0.0))


def _in_suites(item: pytest.Item, suites: tuple[str, ...]) -> bool:
    """Whether ``item`` is in one of ``suites`` (folders or files under ``tests/``)."""
    return any(item.path.is_relative_to(TESTS / suite) for suite in suites)


def _case(item: pytest.Item) -> str:
    """``FOLDER/FILE::NAME`` of a test under ``tests/`` (any other item: its full path)."""
    path = item.path.relative_to(TESTS) if item.path.is_relative_to(TESTS) else item.path
    return f"{path.as_posix()}::{item.name}"
