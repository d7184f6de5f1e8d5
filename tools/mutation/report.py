"""The report: the verdicts of the current mutants as the table of
``docs/verification.md``, the survivors not named equivalent, and the stale records.

Invariants: a verdict counts only while its function's source is unchanged (otherwise
the mutant is ``not judged``); a survivor counts as ``equivalent`` only when a record
names its id and the change it makes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from mutation import target
from mutation.equivalents import Equivalent, stale_equivalents
from mutation.operators import Mutant
from mutation.results import Verdict

#: The report's columns after the count of mutants, as :func:`verdict_of` names them.
COLUMNS = ("killed", "timeout", "equivalent", "survived", "not judged")


def verdict_of(m: Mutant, recorded: dict[str, Verdict], equivalent: dict[str, Equivalent]) -> str:
    """The mutant's verdict for its function's current source, one of :data:`COLUMNS`: a
    survivor named in ``equivalent`` for the change it makes is ``equivalent``."""
    v = recorded.get(m.id)
    if v is None or v.fingerprint != m.fingerprint:
        return "not judged"
    entry = equivalent.get(m.id)
    if v.verdict == "survived" and entry is not None and entry.change == m.change:
        return "equivalent"
    return v.verdict


@dataclass(frozen=True)
class Report:
    """The report of one results file against the current source.

    Attributes:
      table: the Markdown table (one row per module, then the package in bold) and the
        line of the minutes run and the commits judged.
      survivors: the mutants that survived and are not named equivalent, in id order of
        the mutator.
      stale: one line per record that cannot be trusted (:func:`stale_equivalents`).
    """

    table: tuple[str, ...]
    survivors: tuple[Mutant, ...]
    stale: tuple[str, ...]

    @property
    def clean(self) -> bool:
        """Whether every mutant is killed, timed out, equivalent or not judged, and every
        record holds."""
        return not self.survivors and not self.stale

    def lines(self) -> list[str]:
        """The table, then one line per survivor, then the stale records."""
        survived = [f"survived: {m.id} ({m.path}:{m.line}) {m.change}" for m in self.survivors]
        return [*self.table, *survived, *self.stale]


def report(
    every: Sequence[Mutant], recorded: dict[str, Verdict], equivalent: dict[str, Equivalent]
) -> Report:
    """The report of the verdicts ``recorded`` for the mutants ``every``."""
    whole = target.label()  # the table's last row: the whole run
    by_module: dict[str, Counter[str]] = {}
    survivors = []
    for m in every:
        verdict = verdict_of(m, recorded, equivalent)
        module = m.id.split(":")[0].removeprefix(whole + ".")
        by_module.setdefault(module, Counter())[verdict] += 1
        if verdict == "survived":
            survivors.append(m)
    total: Counter[str] = sum(by_module.values(), Counter())
    table = [
        "| module | mutants | killed | timed out | equivalent | survived | not judged |",
        "|---|---|---|---|---|---|---|",
    ]
    for k, (module, tally) in enumerate([*sorted(by_module.items()), (whole, total)]):
        cells = [f"`{module}`", str(sum(tally.values())), *(str(tally[c]) for c in COLUMNS)]
        if k == len(by_module):
            cells = [f"**{c}**" for c in cells]
        table.append(f"| {' | '.join(cells)} |")
    seconds = sum(v.seconds for v in recorded.values())
    commits = sorted({v.commit for v in recorded.values()})
    table.append(f"{seconds / 60:.1f} min of mutant runs, at {', '.join(commits)}")
    stale = stale_equivalents(every, recorded, equivalent)
    return Report(tuple(table), tuple(survivors), tuple(stale))
