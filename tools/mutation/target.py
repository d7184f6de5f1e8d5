"""What the pass mutates: ``durak.rules``, or the package or module of another run named
by ``DURAK_MUTATION_TARGET`` (``make mutation-extra MODULE=...``), by the name of its
mutmut run (``make mutation MODULE=...``), whose suites judge it (``tests/conftest.py``).

Invariant: every other part of the tool asks this module which files, modules and
results file belong to the run, so that a rules run is exactly what it was before the
other targets existed (its results file included).
"""

from __future__ import annotations

import os
from pathlib import Path

#: Each run's name and the durak packages or modules it mutates: the one table of the
#: runs (``make mutation`` asks :func:`mutmut_names`; ``tests/conftest.py`` holds each
#: run's suites and ``pyproject.toml`` mutmut's files, both checked against this table).
TARGETS: dict[str, tuple[str, ...]] = {
    "rules": ("durak.rules",),
    "search": ("durak.search",),
    "arena.scores": ("durak.arena.scores",),
    "arena.experiments": ("durak.arena.experiments.exploit",),
    "arena.experiments.ladder": ("durak.arena.experiments.ladder",),
    "arena.gamelog": ("durak.arena.gamelog.review",),
    "agents.analysis": ("durak.agents.interface.analysis",),
    "agents.inference": ("durak.agents.inference",),
    "encoding": ("durak.encoding",),
    "dataset": ("durak.dataset",),
    "web": ("durak.web.hints", "durak.web.reviews"),
}


def name() -> str:
    """The run's name: ``DURAK_MUTATION_TARGET``, ``rules`` by default; ``SystemExit``
    with one line for a name that is not a key of :data:`TARGETS`."""
    chosen = os.environ.get("DURAK_MUTATION_TARGET") or "rules"
    if chosen not in TARGETS:
        known = ", ".join(TARGETS)
        raise SystemExit(f"DURAK_MUTATION_TARGET must be one of {known}, not {chosen!r}")
    return chosen


def modules() -> tuple[str, ...]:
    """The dotted names of the packages or modules mutated."""
    return TARGETS[name()]


def mutmut_names() -> list[str]:
    """mutmut's patterns of the run's mutants (``module.function``), for ``mutmut run``."""
    return [f"{m}.*" for m in modules()]


def label() -> str:
    """The report's row of the whole run: its one package or module, else its name."""
    mods = modules()
    return mods[0] if len(mods) == 1 else name()


def files(root: Path) -> list[Path]:
    """Every Python file mutated, under ``root``'s ``src``, in path order."""
    out: list[Path] = []
    for dotted in modules():
        base = root / "src" / Path(*dotted.split("."))
        out += sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]
    return out


def covers(module: str) -> bool:
    """Whether the dotted ``module`` is (in) one of the run's packages or modules."""
    return any(module == m or module.startswith(m + ".") for m in modules())


def results(root: Path) -> Path:
    """The run's results file (not in git): the rules' where it always was."""
    folder = "extra" if name() == "rules" else f"extra-{name()}"
    return root / ".mutants" / folder / "results.jsonl"
