"""The command line of the second mutation pass: ``run``, ``count``, ``show`` and
``report`` (``python -m mutation``, with ``tools`` on ``PYTHONPATH``); ``names`` prints
mutmut's patterns of a run for ``make mutation``.

Exit status: 0 when done; 1 when ``run``'s unmutated suites fail, or ``report`` lists a
survivor or a stale record; 2 on a malformed records file or bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import mutation
from mutation import target
from mutation.equivalents import EquivalentsError, load_equivalents
from mutation.operators import ROOT, package_mutants
from mutation.report import report
from mutation.results import RESULTS, Verdict, load, select
from mutation.runner import Runner


def command_run(args: argparse.Namespace) -> int:
    """Judge the mutants still to judge, appending each verdict as it comes."""
    results: Path = args.results
    results.parent.mkdir(parents=True, exist_ok=True)
    todo = select(package_mutants(), load(results), args.only, frozenset(args.rejudge))
    todo = todo[: args.limit] if args.limit is not None else todo
    print(f"{len(todo)} mutants to judge", flush=True)
    if not todo:
        return 0
    reach = None
    if args.reach == "mutmut":
        reach = ROOT / ".mutants" / target.name() / "mutmut-stats.json"
        if not reach.is_file():
            print(f"no mutmut stats at {reach}: run make mutation first", file=sys.stderr)
            return 2
    runner = Runner(ROOT, results.parent)
    passed, seconds = runner.baseline(reach)
    if not passed:
        print("the suites fail without any mutant: fix them first", file=sys.stderr)
        return 1
    how = "traced" if reach is None else "timed (the reach: mutmut's stats)"
    print(f"{how} baseline {seconds:.0f} s, {len(runner.durations)} tests, at {runner.commit}")
    with results.open("a", encoding="utf-8") as out:
        for i, m in enumerate(todo, 1):
            verdict, seconds = runner.run(m, args.factor, args.constant)
            v = Verdict(m.id, m.fingerprint, verdict, round(seconds, 2), runner.commit)
            out.write(json.dumps(v.__dict__) + "\n")
            out.flush()
            print(f"[{i}/{len(todo)}] {verdict:8} {seconds:6.1f} s  {m.id}", flush=True)
    return 0


def command_count(args: argparse.Namespace) -> int:
    """Print the number of mutants per module and per operator."""
    every = [m for m in package_mutants() if args.only in m.id]
    for name, counter in (
        ("module", Counter(m.id.split(":")[0] for m in every)),
        ("operator", Counter(m.operator for m in every)),
    ):
        print(f"by {name}:")
        for key, count in sorted(counter.items()):
            print(f"  {key:32} {count:5}")
    print(f"total {len(every)}")
    return 0


def command_show(args: argparse.Namespace) -> int:
    """Print the mutants whose id contains ``only`` with the line they change."""
    for m in package_mutants():
        if args.only in m.id:
            print(f"{m.id}  ({m.path}:{m.line})\n    {m.original}\n => {m.replacement}")
    return 0


def command_report(args: argparse.Namespace) -> int:
    """Print the verdicts of the current mutants as the table of ``docs/verification.md``
    (one row per module, then the package), the survivors not named equivalent, and the
    stale records of ``equivalents.toml``; exit 1 if there is any survivor or stale
    record, 2 if the records file is malformed."""
    try:
        equivalent = load_equivalents()
    except EquivalentsError as e:
        print(e, file=sys.stderr)
        return 2
    # Only this run's records: another target's are neither used nor stale here.
    mine = {k: v for k, v in equivalent.items() if target.covers(k.split(":")[0])}
    done = report(package_mutants(), load(args.results), mine)
    for line in done.lines():
        print(line)
    return 0 if done.clean else 1


def command_names(args: argparse.Namespace) -> int:
    """Print mutmut's patterns of the run's mutants, one line, for ``make mutation``."""
    print(" ".join(target.mutmut_names()))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``run``, ``count``, ``show``, ``report`` or ``names``."""
    description = (mutation.__doc__ or "").split("\n")[0]
    parser = argparse.ArgumentParser(prog="python -m mutation", description=description)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("names", help="mutmut's patterns of the run's mutants (make mutation)")
    for name in ("run", "count", "show", "report"):
        p = sub.add_parser(name)
        p.add_argument(
            "--only", default="", help="only ids containing one of these texts (a,b: a first)"
        )
        p.add_argument("--results", type=Path, default=RESULTS)
        if name == "run":
            p.add_argument("--limit", type=int, default=None, help="judge at most this many")
            p.add_argument(
                "--rejudge",
                action="append",
                default=[],
                choices=("survived", "timeout", "killed"),
                help="judge again the mutants with this verdict (repeatable)",
            )
            p.add_argument(
                "--reach",
                choices=("trace", "mutmut"),
                default="trace",
                help="which tests reach a function: traced here, or mutmut's stats of the run",
            )
            p.add_argument("--factor", type=float, default=1.0, help="time limit: factor")
            p.add_argument("--constant", type=float, default=15.0, help="... x tests' time + s")
    args = parser.parse_args(argv)
    commands = {
        "run": command_run,
        "count": command_count,
        "show": command_show,
        "report": command_report,
        "names": command_names,
    }
    return commands[args.command](args)
