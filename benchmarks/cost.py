"""The deterministic cost of fixed, seeded workloads: Python function calls, counted by
cProfile (issue 37).

Wall-clock speed is never asserted in a test, so a slower engine used to pass unnoticed.
Call counts are deterministic for a seeded workload on one Python version (the same calls in
the same order, whatever the machine's load or the hash seed), so
``tests/project/test_cost.py`` compares them with the committed budget
``benchmarks/cost_budget.json`` and fails when a workload's calls grow by more than 3%,
naming the functions that grew.

    .venv/bin/python benchmarks/cost.py                   # print every workload's counts
    .venv/bin/python benchmarks/cost.py --write benchmarks/cost_budget.json   # make cost-budget

An intended increase updates the budget in the same commit (``make cost-budget``) and the
commit message says why.  The budget is pinned to the Python minor version it was made on:
another version's interpreter and standard library make other calls.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from durak.agents import evals
from durak.rules import DurakGame, Rules, legal_actions, new_game, observe, step, step_unchecked
from durak.search import Budget, TreeSettings, ismcts

#: A workload's growth beyond which the check fails (3%).
TOLERANCE = 0.03
#: A function is named as grown when it grew by more than 3% and by this share of the
#: workload's budget (so that a function called twice more in 600,000 calls is no news).
NOTABLE = 0.001

Counts = dict[str, int]


def _games(rules: Rules, games: int, advance: Callable[..., Any]) -> None:
    """``games`` uniformly random games from seeds ``0..games-1``, one choice stream."""
    rng = random.Random(0)
    for seed in range(games):
        state = new_game(rules, seed)
        while state.turn >= 0:
            state = advance(state, rng.choice(legal_actions(state)))


def readme() -> None:
    """200 two-player games through the README's loop (``legal_actions`` + ``step``)."""
    _games(Rules(), 200, step)


def unchecked() -> None:
    """The same 200 games through ``step_unchecked``."""
    _games(Rules(), 200, step_unchecked)


def four_players() -> None:
    """100 four-player games through ``step_unchecked``."""
    _games(Rules(players=4), 100, step_unchecked)


def ismcts_iterations() -> None:
    """500 SO-ISMCTS iterations with the ``ismcts`` agent's greedy rollouts and bias, from
    the opening of deal 0."""
    rules = Rules()
    state = new_game(rules, 0)
    ismcts(
        DurakGame(rules),
        observe(state, state.turn),
        player=state.turn,
        budget=Budget(iterations=500),
        rng=0,
        settings=TreeSettings(
            rollout=evals.greedy_rollout, heuristic=evals.greedy_heuristic, bias=20.0
        ),
    )


WORKLOADS: dict[str, Callable[[], None]] = {
    "readme": readme,
    "unchecked": unchecked,
    "four_players": four_players,
    "ismcts": ismcts_iterations,
}


#: An object's address in a builtin's name (``<built-in method __new__ of type object at
#: 0x7f..>``): it changes from run to run.
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _where(path: str) -> str:
    """A function's file as the same name on every machine: from ``durak/`` on for the
    project, the file name for the standard library, as cProfile names the rest."""
    if path.startswith(("~", "<")):
        return path
    parts = Path(path).parts
    if "durak" in parts:
        return "/".join(parts[len(parts) - 1 - parts[::-1].index("durak") :])
    return parts[-1]


def count_calls(workload: Callable[[], None]) -> Counts:
    """Calls per function (``file:name``; functions of one name in one file summed) while
    ``workload`` runs."""
    profile = cProfile.Profile()
    profile.enable()
    workload()
    profile.disable()
    counts: Counter[str] = Counter()
    raw: dict[tuple[str, int, str], tuple[Any, ...]] = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    for (path, _, name), (_, calls, *_) in raw.items():
        counts[f"{_where(path)}:{_ADDRESS.sub('', name)}"] += calls
    counts.pop("~:<method 'disable' of '_lsprof.Profiler' objects>", None)
    return dict(sorted(counts.items()))


def compare(budget: Counts, counts: Counts, tolerance: float = TOLERANCE) -> list[str]:
    """Why ``counts`` exceed ``budget`` (empty when they do not): the total's growth beyond
    ``tolerance``, then each function that grew by more than ``tolerance`` of its budgeted
    calls and by a notable share of the total, largest growth first."""
    total, allowed = sum(counts.values()), sum(budget.values())
    if total <= allowed * (1 + tolerance):
        return []
    grown = [
        (n - budget.get(name, 0), name, budget.get(name, 0), n)
        for name, n in counts.items()
        if n > budget.get(name, 0) * (1 + tolerance) and n - budget.get(name, 0) > allowed * NOTABLE
    ]
    lines = [f"{total:,} calls against a budget of {allowed:,} (+{total / allowed - 1:.1%})"]
    lines += [
        f"  {name}: {was:,} -> {now:,} (+{more:,})" for more, name, was, now in sorted(grown)[::-1]
    ]
    return lines


def budget_record(names: list[str]) -> dict[str, Any]:
    """The budget file's content for the workloads ``names``: counts and the Python version."""
    return {
        "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
        "tolerance": TOLERANCE,
        "workloads": {name: count_calls(WORKLOADS[name]) for name in names},
    }


def main() -> None:
    """Print the workloads' call counts as JSON, or write them as the budget."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", action="append", choices=sorted(WORKLOADS))
    parser.add_argument("--write", type=Path, help="write the budget file here")
    args = parser.parse_args()
    record = budget_record(args.workload or list(WORKLOADS))
    text = json.dumps(record, indent=1, sort_keys=True) + "\n"
    if args.write is None:
        sys.stdout.write(text)
    else:
        args.write.write_text(text)


if __name__ == "__main__":
    main()
