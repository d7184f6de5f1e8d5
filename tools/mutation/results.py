"""The results file: one verdict per line (JSON), appended as each mutant is judged.

Invariants: the last line for an id is its verdict; a verdict holds only while its
``fingerprint`` equals the mutant's (its function's source is unchanged), so a rerun skips
what is judged and unchanged and judges the rest.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mutation import target
from mutation.operators import ROOT, Mutant

#: The results file of this work tree's run (not in git; :func:`mutation.target.results`).
RESULTS = target.results(ROOT)


@dataclass(frozen=True)
class Verdict:
    """How a mutant fared.

    Attributes:
      id: the mutant's id (:attr:`Mutant.id`).
      fingerprint: the mutant's fingerprint when it was judged.
      verdict: ``killed``, ``timeout`` or ``survived``.
      seconds: the time its tests ran.
      commit: the commit judged (``+dirty`` when ``src`` or ``tests`` had changes).
    """

    id: str
    fingerprint: str
    verdict: str
    seconds: float
    commit: str


def load(results: Path) -> dict[str, Verdict]:
    """The verdicts recorded in ``results`` (the last one per id wins)."""
    out: dict[str, Verdict] = {}
    if results.exists():
        for line in results.read_text(encoding="utf-8").splitlines():
            if line.strip():
                v = Verdict(**json.loads(line))
                out[v.id] = v
    return out


def select(
    every: Sequence[Mutant], recorded: dict[str, Verdict], only: str, rejudge: frozenset[str]
) -> list[Mutant]:
    """The mutants still to judge: those whose id contains a part of ``only`` (texts
    separated by commas, judged in that order; empty: every mutant) with no verdict for
    their function's current source, or a verdict in ``rejudge``."""
    out: list[Mutant] = []
    for part in only.split(","):
        for m in every:
            if part not in m.id or m in out:
                continue
            v = recorded.get(m.id)
            if v is None or v.fingerprint != m.fingerprint or v.verdict in rejudge:
                out.append(m)
    return out
