"""A second mutation pass over ``durak.rules`` with operators mutmut 3.8.1 lacks.

mutmut (``make mutation``) swaps operators and literals inside function bodies.  It never
drops one operand of an ``and``/``or``, forces an ``if``/``while`` or comprehension
condition, removes a ``raise`` or a statement, or swaps ``min``/``max`` and
``any``/``all``; and it cannot mutate code that runs only at import (the tables).  This
pass does, on the source text, so module-level code is mutated too.  Mutation analysis as
in DeMillo, Lipton & Sayward, "Hints on Test Data Selection" (IEEE Computer, 1978); the
operators are the classic "conditional operator replacement" and "statement deletion"
kinds of Offutt et al. (ACM TOSEM 5(2), 1996).

Each mutant is judged by the rules suites of ``[tool.mutmut]``'s
``pytest_add_cli_args_test_selection`` (``DURAK_MUTATION_MODULE=rules`` deselects the
search suites and the heavy cases, ``tests/conftest.py``), with ``-x`` and the ``mutation``
hypothesis profile, against a snapshot of ``src`` and ``tests`` taken when the run starts:
only the tests that reach the mutant's function, fastest first, stopped after their time in
the traced baseline run (which the tracing at least doubles) plus 15 s.  Verdicts go to a
JSON-lines file, one per mutant id with a fingerprint of its function's source: a rerun
skips every mutant already judged whose function is unchanged.

``make mutation-extra`` runs it; ``python tools/mutation_extra.py count`` lists the mutants
and ``report`` prints the table of ``docs/verification.md``.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TypeGuard

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The package mutated, relative to the repository root.
PACKAGE = Path("src/durak/rules")
RESULTS = ROOT / ".mutants" / "extra" / "results.jsonl"

#: Comparison widened or narrowed.
_COMPARISONS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
}
#: Builtins swapped with their dual.
_DUALS = {"min": "max", "max": "min", "any": "all", "all": "any"}


@dataclass(frozen=True)
class Equivalent:
    """A surviving mutant named equivalent: the ``change`` it makes (as
    :attr:`Mutant.change` prints it) and the ``reason`` it changes nothing a caller can
    observe.  The change is part of the entry because an id counts mutants within a
    function: once the function is edited, its id may name another change, and an entry
    that does not match is stale, never trusted (:func:`stale_equivalents`)."""

    change: str
    reason: str


#: Mutants that survive and change nothing a caller can observe, by id
#: (``docs/verification.md`` gives the longer argument).
EQUIVALENT: dict[str, Equivalent] = {
    "durak.rules.actions:_Ordered.sort_key:remove-raise:0": Equivalent(
        "raise NotImplementedError => pass",
        "the abstract property is never called: every action class overrides it",
    ),
    "durak.rules.bout:with_hand:condition-false:0": Equivalent(
        "len(hands) == 2 => False",
        "the two-player fast path builds the same tuple as the general one",
    ),
    "durak.rules.bout:_asking:condition-false:0": Equivalent(
        "not s.players_out => False",
        "the table holds asking_order's own answer for nobody out",
    ),
    "durak.rules.bout:first_asked:condition-false:1": Equivalent(
        "len(hands) == 2 => False",
        "with two players the asking order is the attacker alone, whose hand was just found "
        "empty: None either way",
    ),
    "durak.rules.bout:next_asked:condition-false:0": Equivalent(
        "len(hands) == 2 => False",
        "with two players nobody follows the attacker in the asking order: None either way",
    ),
    "durak.rules.bout:next_asked:condition-true:1": Equivalent(
        "s.players_out => True",
        "the rest of the asking order sliced from asking_order is the table's, for nobody out",
    ),
    "durak.rules.bout:<module>:condition-true:0": Equivalent(
        "n >= 2 => True",
        "the tables' rows for 0 and 1 players are never read: Rules.players is at least 2",
    ),
    "durak.rules.bout:<module>:comparison:0": Equivalent(
        "n >= 2 => (n > 2)",
        "the asking tables' two-player rows are never read: with two players first_asked and "
        "next_asked return before any lookup",
    ),
    "durak.rules.bout:<module>:condition-true:1": Equivalent(
        "n => True",
        "the next-player table's row for 0 players is empty either way",
    ),
    "durak.rules.bout:end_bout:condition-false:2": Equivalent(
        "talon and n == 2 => False",
        "_draw refills two hands as the two-player path does: attacker then defender, the "
        "same cards and the same logged draws",
    ),
    "durak.rules.bout:end_bout:drop-operand:0": Equivalent(
        "talon and n == 2 => (n == 2)",
        "the two-player refill from an empty talon draws nothing",
    ),
    "durak.rules.bout:end_bout:comparison:0": Equivalent(
        "took > 0 => (took >= 0)",
        "a slice of no cards draws nothing",
    ),
    "durak.rules.bout:end_bout:comparison:1": Equivalent(
        "need > 0 => (need >= 0)",
        "a slice of no cards draws nothing",
    ),
    "durak.rules.bout:end_bout:condition-true:6": Equivalent(
        "to_attacker & ~exposed => True",
        "a logged draw of no unseen card works out to the same record (after_draw(w, 0) is w)",
    ),
    "durak.rules.bout:end_bout:condition-true:7": Equivalent(
        "to_defender & ~exposed => True",
        "a logged draw of no unseen card works out to the same record (after_draw(w, 0) is w)",
    ),
    "durak.rules.bout:end_bout:condition-true:9": Equivalent(
        "talon => True",
        "_draw from an empty talon draws nothing and returns the origins it was given",
    ),
    "durak.rules.bout:end_bout:condition-true:10": Equivalent(
        "origins is not kept or played & ( knowledge.from_talon.mask | (exposed if success "
        "else ~exposed) ) => True",
        "the test is a shortcut: _settle_knowledge of a bout that changed nothing builds an "
        "equal knowledge (a checked state has origins only while from_talon is not empty)",
    ),
    "durak.rules.bout:end_bout:drop-operand:4": Equivalent(
        "not talon and hands.count(0) > len(out) => (hands.count(0) > len(out))",
        "a talon left after the refill means every player in the game holds hand_size cards, "
        "and players out hold none: the count equals len(out)",
    ),
    "durak.rules.bout:end_bout:condition-false:15": Equivalent(
        "n == 2 => False",
        "the next-player table gives the two-player fast path's roles",
    ),
    "durak.rules.bout:end_bout:condition-false:17": Equivalent(
        "not out => False",
        "next_active with nobody out gives the table's next player",
    ),
    "durak.rules.bout:end_bout:comparison:5": Equivalent(
        "cap < held => (cap <= held)",
        "min of equal numbers: cap and held are the same when they tie",
    ),
    "durak.rules.bout:_settle_knowledge:condition-false:1": Equivalent(
        "exposed == old_exposed => False",
        "keeping the old CardSet is a shortcut: a new one of the same mask is equal",
    ),
    "durak.rules.bout:_settle_knowledge:condition-false:2": Equivalent(
        "from_talon == old_from_talon => False",
        "keeping the old CardSet is a shortcut: a new one of the same mask is equal",
    ),
    "durak.rules.bout:_draw:comparison:0": Equivalent(
        "need > 0 => (need >= 0)",
        "a player who needs no card draws an empty slice, and the talon cannot be used up "
        "at it (the loop would have stopped at the player before)",
    ),
    "durak.rules.bout:_draw:drop-operand:1": Equivalent(
        "origins and drawn & ~seen => (origins)",
        "a logged draw of no unseen card works out to the same record (after_draw(w, 0) is w)",
    ),
    "durak.rules.bout:_draw:condition-false:2": Equivalent(
        "top >= len(talon) => False",
        "the loop's exit once the talon is empty is a shortcut: the players left draw nothing",
    ),
    "durak.rules.bout:_draw:comparison:1": Equivalent(
        "top >= len(talon) => (top > len(talon))",
        "the loop's exit once the talon is empty is a shortcut: the players left draw nothing",
    ),
    "durak.rules.bout:_draw:remove-statement:3": Equivalent(
        "break => pass",
        "the loop's exit once the talon is empty is a shortcut: the players left draw nothing",
    ),
    "durak.rules.history:History.__init__:remove-statement:4": Equivalent(
        "self._make = None => pass",
        "a plain History never reads _make: only a deferred one, which sets it, does",
    ),
    "durak.rules.history:_settle:condition-true:0": Equivalent(
        "type(h) is _Deferred => True",
        "only a deferred record's methods call _settle, and a record settled by another thread "
        "meanwhile keeps its _make, so working the key out again stores an equal one",
    ),
    "durak.rules.state:_settle:condition-true:0": Equivalent(
        "type(k) is _PendingKnowledge => True",
        "only a pending record's methods call _settle; a plain Knowledge's origins are records, "
        "not (record, log), so nothing is applied and its class stays",
    ),
    "durak.rules.state:_settle:condition-true:1": Equivalent(
        "type(raw[-1]) is int => True",
        "the test guards a record another thread settled meanwhile; in one thread the origins slot "
        "of a pending record always holds (record, log)",
    ),
    "durak.rules.setup:_check_deck:drop-operand:1": Equivalent(
        "mask != full or len(deck) != rules.deck_size => (mask != full)",
        "a deck without duplicates (checked first) whose cards are the variant's has its size",
    ),
    "durak.rules.knowledge.sampler:_Split.of:condition-true:4": Equivalent(
        "closed => True",
        "the origins are read only to split the talon's trumps among hidden places, and in the "
        "open world no such trump is counted (its mask is 0), so they are never read",
    ),
    "durak.rules.origins:_split_weights:dual:0": Equivalent(
        "min => max",
        "the k past min(u, restricted) have C(j, k) = 0 for every j <= u, or exceed what is left "
        "and are sliced away (as mutmut's `+ 2` there)",
    ),
    "durak.rules.history:History.add:condition-true:1": Equivalent(
        "size == len(keys) => True",
        "appending to a shared list that is not the tip's leaves a key past every view's size, "
        "never read; the add then copies its prefix, as it does unmutated",
    ),
    "durak.rules.knowledge.sampler:_check_places:remove-raise:2": Equivalent(
        "raise AssertionError => pass",
        "the AssertionError is unreachable: the loop above always names a shared card or one "
        "outside the deck first",
    ),
    "durak.rules.engine:legal_actions:drop-operand:1": Equivalent(
        "p == state.defender and not state.taking => (p == state.defender)",
        "while the defender has taken it is never asked (attackers are): p == defender implies not "
        "taking",
    ),
    "durak.rules.engine:is_legal:drop-operand:5": Equivalent(
        "p != state.defender or state.taking => (p != state.defender)",
        "the defender is never asked while it has taken: p == defender implies not taking",
    ),
    "durak.rules.engine:is_legal:drop-operand:7": Equivalent(
        "p != state.defender or state.taking => (p != state.defender)",
        "the defender is never asked while it has taken: p == defender implies not taking",
    ),
    "durak.rules.engine:_after_defence:drop-operand:1": Equivalent(
        "len(table) >= s.cap or not hands[turn] => (len(table) >= s.cap)",
        "a defender left with no cards after beating everything has beaten as many cards as it "
        "held when the cap was set, so the cap is reached too",
    ),
    "durak.rules.engine:_defender_actions:condition-false:1": Equivalent(
        "len(table) == 1 => False",
        "the one-card fast path gives the target the general sort gives",
    ),
    "durak.rules.engine:legal_actions:condition-true:3": Equivalent(
        "throws => True",
        "attacks_for(0) is empty: the tuple built is equal to the pass alone",
    ),
    "durak.rules.engine:_table_ranks:condition-false:0": Equivalent(
        "last[0] is table => False",
        "a one-entry cache of a pure function: the ranks worked out afresh are the ones cached",
    ),
    "durak.rules.engine:step_unchecked:condition-false:1": Equivalent(
        "len(masks) == 2 => False",
        "with two players next_asked returns None at once, as the shortcut does",
    ),
    "durak.rules.engine:step_unchecked:condition-false:5": Equivalent(
        "masks[s.attacker] => False",
        "first_asked asks the main attacker first: its answer is the shortcut's",
    ),
    "durak.rules.engine:step_unchecked:condition-false:7": Equivalent(
        "len(masks) == 2 => False",
        "the two-player fast path builds the same tuple as the general one",
    ),
    "durak.rules.engine:step_unchecked:drop-operand:0": Equivalent(
        "k.from_talon.mask and not k.exposed.mask & bit => (not k.exposed.mask & bit)",
        "with from_talon empty a checked state keeps no origins record, and _played_unknown "
        "returns the knowledge as it is when there is none",
    ),
    "durak.rules.engine:_after_defence:condition-false:0": Equivalent(
        "len(old) == 1 => False",
        "the one-card fast path builds the table and the verdict the general path builds",
    ),
    "durak.rules.engine:_after_defence:remove-statement:0": Equivalent(
        "break => pass",
        "the loop's exit at the first card not beaten is a shortcut: the verdict stays False",
    ),
    "durak.rules.engine:_after_defence:condition-false:5": Equivalent(
        "hands[s.attacker] => False",
        "first_asked asks the main attacker first: its answer is the shortcut's",
    ),
    "durak.rules.origins:_canonical:condition-false:1": Equivalent(
        "g == 1 => False",
        "dividing by a gcd of 1 is a shortcut: the weights are the same",
    ),
    "durak.rules.history:History.__le__:drop-operand:0": Equivalent(
        "self._size <= other._size and all(k in other for k in self) => (all((k in other for k in "
        "self)))",
        "the size test is a shortcut: a larger set always has a key the other lacks",
    ),
    "durak.rules.cards:CardSet.__init__:drop-operand:1": Equivalent(
        "mask >> NUM_CARDS or mask < 0 => (mask >> NUM_CARDS)",
        "a negative mask shifted right stays negative (Python's shift floors), so `mask >> "
        "NUM_CARDS` is already true for it",
    ),
    "durak.rules.history:History.__hash__:condition-true:0": Equivalent(
        "self._hash is None => True",
        "the cache is a speed-up: a value's keys never change, so the hash computed afresh at "
        "every call is the one cached",
    ),
}


@dataclass(frozen=True)
class Mutant:
    """One change of one node: the source bytes ``[start, end)`` of ``path`` replaced by
    ``replacement`` (byte offsets into the UTF-8 text, since ``ast`` counts bytes)."""

    path: str
    scope: str
    operator: str
    ordinal: int
    line: int
    start: int
    end: int
    replacement: str
    fingerprint: str
    #: Whether the scope runs at import (module or class body), not when called.
    imported: bool = False
    #: The source text replaced (``source[start:end]``).
    original: str = ""

    @property
    def id(self) -> str:
        """``module:scope:operator:n``: stable while the scope's source keeps its order."""
        module = Path(self.path).with_suffix("").as_posix().removeprefix("src/").replace("/", ".")
        return f"{module}:{self.scope}:{self.operator}:{self.ordinal}"

    @property
    def change(self) -> str:
        """``original => replacement``, runs of blanks collapsed: what an :class:`Equivalent`
        entry must name, since an id names another change once its function is edited."""
        return f"{' '.join(self.original.split())} => {' '.join(self.replacement.split())}"


def apply(source: str, mutant: Mutant) -> str:
    """``source`` with the mutant's node replaced, and nothing else changed."""
    data = source.encode()
    return (data[: mutant.start] + mutant.replacement.encode() + data[mutant.end :]).decode()


def mutants(source: str, path: str = "<snippet>") -> list[Mutant]:
    """Every mutant of ``source``, in source order within each scope (module, class or
    function, named by its qualified name; ``<module>`` for module-level code)."""
    return _Source(source, path).mutants()


class _Source:
    """One module's text, its tree, and the mutants found so far."""

    def __init__(self, source: str, path: str) -> None:
        self.tree = ast.parse(source)
        self.data = source.encode()
        self.path = path
        self.lines = [0]
        for line in self.data.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line))
        self.found: list[Mutant] = []
        self.counts: Counter[tuple[str, str]] = Counter()

    def mutants(self) -> list[Mutant]:
        # Module-level code: its fingerprint is the text of every top-level statement
        # that is not a definition (a definition's body has its own).
        top = [s for s in self.tree.body if not isinstance(s, _DEFINITIONS)]
        self.visit(self.tree.body, "<module>", self.fingerprint(top), True)
        return self.found

    def start(self, node: ast.expr | ast.stmt) -> int:
        return self.lines[node.lineno - 1] + node.col_offset

    def end(self, node: ast.expr | ast.stmt) -> int:
        assert node.end_lineno is not None and node.end_col_offset is not None
        return self.lines[node.end_lineno - 1] + node.end_col_offset

    def fingerprint(self, nodes: Sequence[ast.expr | ast.stmt]) -> str:
        digest = hashlib.sha256()
        for node in nodes:
            digest.update(self.data[self.start(node) : self.end(node)] + b"\n")
        return digest.hexdigest()[:16]

    def visit(self, nodes: Sequence[ast.AST], scope: str, fingerprint: str, imported: bool) -> None:
        for node in nodes:
            if isinstance(node, _DEFINITIONS):
                # Decorators, defaults and bases run in the enclosing scope; the body in
                # its own, at import for a class body within module or class code.
                outer = [*node.decorator_list, *_defaults(node)]
                self.visit(outer, scope, fingerprint, imported)
                name = node.name if scope == "<module>" else f"{scope}.{node.name}"
                body_imported = imported and isinstance(node, ast.ClassDef)
                self.visit(node.body, name, self.fingerprint([node]), body_imported)
                continue
            self.record(node, scope, fingerprint, imported)
            self.visit(list(ast.iter_child_nodes(node)), scope, fingerprint, imported)

    def record(self, node: ast.AST, scope: str, fingerprint: str, imported: bool) -> None:
        for operator, target, new in _changes(node):
            text = new if isinstance(new, str) else f"({ast.unparse(new)})"
            key = (scope, operator)
            self.found.append(
                Mutant(
                    self.path,
                    scope,
                    operator,
                    self.counts[key],
                    target.lineno,
                    self.start(target),
                    self.end(target),
                    text,
                    fingerprint,
                    imported,
                    self.data[self.start(target) : self.end(target)].decode(),
                )
            )
            self.counts[key] += 1


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _defaults(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[ast.expr]:
    if isinstance(node, ast.ClassDef):
        return [*node.bases, *(k.value for k in node.keywords)]
    args = node.args
    return [*args.defaults, *(d for d in args.kw_defaults if d is not None)]


def _changes(node: ast.AST) -> Iterator[tuple[str, ast.expr | ast.stmt, ast.AST | str]]:
    """``(operator, node replaced, replacement)`` for every mutant rooted at ``node``."""
    if isinstance(node, ast.BoolOp):
        for i in range(len(node.values)):
            rest = node.values[:i] + node.values[i + 1 :]
            yield "drop-operand", node, rest[0] if len(rest) == 1 else ast.BoolOp(node.op, rest)
    if isinstance(node, ast.If | ast.While | ast.IfExp):
        yield from _forced(node.test)
    if isinstance(node, ast.comprehension):
        for test in node.ifs:
            yield from _forced(test)
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            swap = _COMPARISONS.get(type(op))
            if swap is not None:
                ops = [*node.ops[:i], swap(), *node.ops[i + 1 :]]
                yield "comparison", node, ast.Compare(node.left, ops, node.comparators)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _DUALS:
        yield "dual", node.func, _DUALS[node.func.id]
    if isinstance(node, ast.Raise):
        yield "remove-raise", node, "pass"
    if _removable(node):
        yield "remove-statement", node, "pass"


def _forced(test: ast.expr) -> Iterator[tuple[str, ast.expr | ast.stmt, ast.AST | str]]:
    if isinstance(test, ast.Constant) or (
        isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
    ):
        return
    yield "condition-true", test, "True"
    yield "condition-false", test, "False"


def _removable(node: ast.AST) -> TypeGuard[ast.stmt]:
    """A statement whose removal leaves valid code that may still run: a call or other
    expression (not a docstring), an augmented assignment, a store into an item or an
    attribute, ``break`` or ``continue``."""
    if isinstance(node, ast.Expr):
        return not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))
    if isinstance(node, ast.AugAssign | ast.Break | ast.Continue):
        return True
    if isinstance(node, ast.Assign):
        return all(isinstance(t, ast.Subscript | ast.Attribute) for t in node.targets)
    return False


def package_mutants(root: Path = ROOT) -> list[Mutant]:
    """Every mutant of ``durak.rules``, module by module (in file-name order)."""
    out: list[Mutant] = []
    for file in sorted((root / PACKAGE).rglob("*.py")):
        out += mutants(file.read_text(encoding="utf-8"), file.relative_to(root).as_posix())
    return out


# The run --------------------------------------------------------------------------------


def suites(root: Path = ROOT) -> list[str]:
    """The test files of ``[tool.mutmut]``'s ``pytest_add_cli_args_test_selection``."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    selection: list[str] = config["tool"]["mutmut"]["pytest_add_cli_args_test_selection"]
    return selection


@dataclass(frozen=True)
class Verdict:
    """How a mutant fared: ``killed``, ``timeout`` or ``survived``, in ``seconds``."""

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


class Runner:
    """Runs the suites against one mutant at a time in a snapshot of the repository.

    The baseline run, with no mutant, records which tests reach each function of the
    rules and how long each takes (this module is then a pytest plugin, ``-p
    mutation_extra``); a mutant is judged by the tests that reach its function, fastest
    first, as mutmut does (every test for module- and class-level code, which runs at
    import)."""

    def __init__(self, root: Path, work: Path) -> None:
        self.root = root
        self.work = work
        snapshot = work / "snapshot"
        if snapshot.exists():
            shutil.rmtree(snapshot)
        ignore = shutil.ignore_patterns("__pycache__", ".hypothesis")
        shutil.copytree(root / "src", snapshot / "src", ignore=ignore)
        shutil.copytree(root / "tests", snapshot / "tests", ignore=ignore)
        shutil.copy(root / "pyproject.toml", snapshot / "pyproject.toml")
        self.snapshot = snapshot
        self.files = suites(root)
        self.commit = _commit(root)
        self.durations: dict[str, float] = {}
        self.reaching: dict[str, set[str]] = {}
        self.at_import: frozenset[str] = frozenset()

    def baseline(self) -> tuple[bool, float]:
        """Run every suite once, unmutated and traced: whether all passed, and the time."""
        trace = self.work / "trace.json"
        trace.unlink(missing_ok=True)
        env = {"DURAK_MUTATION_TRACE": str(trace), "PYTHONPATH": f"{self.snapshot / 'src'}"
               f"{os.pathsep}{Path(__file__).resolve().parent}"}  # fmt: skip
        code, seconds = self._pytest(self.files, ["-p", "mutation_extra"], env, None)
        if code != 0 or not trace.exists():
            return False, seconds
        for test, (duration, scopes) in json.loads(trace.read_text(encoding="utf-8")).items():
            self.durations[test] = duration
            for scope in scopes:
                self.reaching.setdefault(scope, set()).add(test)
        self.at_import = import_scopes(self.snapshot / "src")
        return True, seconds

    def tests_for(self, mutant: Mutant) -> list[str]:
        """The tests that reach the mutant's function, fastest first (all for code run at
        import: module and class bodies, and the functions they call)."""
        key = mutant.id.rsplit(":", 2)[0]
        at_import = mutant.imported or key in self.at_import
        tests = self.durations.keys() if at_import else self.reaching.get(key, set())
        return sorted(tests, key=lambda t: (self.durations[t], t))

    def run(self, mutant: Mutant, factor: float, constant: float) -> tuple[str, float]:
        """``(verdict, seconds)`` of the mutant's tests with it applied: ``killed``,
        ``timeout`` or ``survived`` (also when no test reaches it)."""
        tests = self.tests_for(mutant)
        if not tests:
            return "survived", 0.0
        target = self.snapshot / mutant.path
        original = target.read_text(encoding="utf-8")
        mutated = apply(original, mutant)
        compile(mutated, str(target), "exec")  # a mutant that does not compile is a bug here
        target.write_text(mutated, encoding="utf-8")
        timeout = factor * sum(self.durations[t] for t in tests) + constant
        try:
            code, seconds = self._pytest(tests, [], {"PYTHONPATH": str(self.snapshot / "src")},
                                         timeout)  # fmt: skip
        finally:
            target.write_text(original, encoding="utf-8")
        if code is None:
            return "timeout", seconds
        # 0: every test passed.  Any other end, a failure, an import or collection error,
        # or a crash, detects the mutant.
        return ("survived" if code == 0 else "killed"), seconds

    def _pytest(
        self, tests: Sequence[str], options: list[str], env: dict[str, str], timeout: float | None
    ) -> tuple[int | None, float]:
        """pytest's exit code on ``tests`` (``None`` if stopped at ``timeout``), and the time."""
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-x", "-q", *options]
        environment = {
            **os.environ,
            **env,
            "PYTHONDONTWRITEBYTECODE": "1",
            "DURAK_MUTATION_MODULE": "rules",
            "HYPOTHESIS_PROFILE": "mutation",
        }
        began = time.monotonic()
        # A new session, so that a run stopped at its time limit is stopped with every child.
        process = subprocess.Popen(
            [*command, *tests],
            cwd=self.snapshot,
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            code: int | None = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            code = None
        return code, time.monotonic() - began


def import_scopes(src: Path) -> frozenset[str]:
    """The functions of ``durak.rules`` (as the mutator names their scopes) that run while
    the package is imported from ``src``, in a fresh interpreter: the tests run after the
    import, so their trace never credits any test with these (``cards._beaters`` builds
    ``BEATERS``), and a mutant of one must be judged by every test, each of which imports
    the mutated module afresh."""
    env = {
        **os.environ,
        "PYTHONPATH": f"{src}{os.pathsep}{Path(__file__).resolve().parent}",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    package = src / "durak" / "rules"
    modules = sorted(
        ".".join(["durak", "rules", *f.relative_to(package).with_suffix("").parts]).removesuffix(
            ".__init__"
        )
        for f in package.rglob("*.py")
    )
    code = f"import mutation_extra; mutation_extra._trace_import({modules!r})"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return frozenset(json.loads(done.stdout))


def _trace_import(modules: list[str]) -> None:
    """Import ``modules`` under a profiler and print the rules' scopes called, as JSON."""
    seen: set[tuple[str, str]] = set()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and _RULES in frame.f_code.co_filename:
            seen.add((frame.f_code.co_filename, frame.f_code.co_qualname))

    sys.setprofile(profile)
    try:
        for name in modules:
            importlib.import_module(name)
    finally:
        sys.setprofile(None)
    print(json.dumps(sorted({_scope(filename, qualname) for filename, qualname in seen})))


# The tracing plugin: loaded by the baseline run with ``-p mutation_extra``.
_TRACE: dict[str, tuple[float, list[str]]] = {}
_RULES = os.sep + os.path.join("durak", "rules") + os.sep


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """Record the rules' functions each test calls (in setup, call and teardown)."""
    if not os.environ.get("DURAK_MUTATION_TRACE"):
        yield
        return
    seen: set[tuple[str, str]] = set()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and _RULES in frame.f_code.co_filename:
            seen.add((frame.f_code.co_filename, frame.f_code.co_qualname))

    # A cached function runs only for the first test that calls it with given arguments:
    # start each test with empty caches, so that every test that reaches one is recorded.
    for name, module in list(sys.modules.items()):
        if name.startswith("durak.rules."):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()
    began = time.perf_counter()
    sys.setprofile(profile)
    try:
        yield
    finally:
        sys.setprofile(None)
    scopes = {_scope(filename, qualname) for filename, qualname in seen}
    _TRACE[item.nodeid] = (time.perf_counter() - began, sorted(scopes))


def _scope(filename: str, qualname: str) -> str:
    """``durak.rules.module:scope`` as the mutator names it, for a code object: nested
    functions are ``outer.inner``; comprehensions and lambdas belong to their function."""
    inner = Path(filename).as_posix().rsplit("/durak/rules/", 1)[1]
    module = "durak.rules." + inner.removesuffix(".py").replace("/", ".")
    parts = [p for p in qualname.split(".") if p != "<locals>"]
    while len(parts) > 1 and parts[-1].startswith("<"):
        parts.pop()
    return f"{module}:{'.'.join(parts)}"


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the trace of the baseline run."""
    path = os.environ.get("DURAK_MUTATION_TRACE")
    if path:
        Path(path).write_text(json.dumps(_TRACE), encoding="utf-8")


def _commit(root: Path) -> str:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, check=False
        ).stdout.strip()

    head = git("rev-parse", "--short", "HEAD")
    return head + ("+dirty" if git("status", "--porcelain", "--", "src", "tests") else "")


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


def command_run(args: argparse.Namespace) -> int:
    """Judge the mutants still to judge, appending each verdict as it comes."""
    results: Path = args.results
    results.parent.mkdir(parents=True, exist_ok=True)
    todo = select(package_mutants(), load(results), args.only, frozenset(args.rejudge))
    todo = todo[: args.limit] if args.limit is not None else todo
    print(f"{len(todo)} mutants to judge", flush=True)
    if not todo:
        return 0
    runner = Runner(ROOT, results.parent)
    passed, seconds = runner.baseline()
    if not passed:
        print("the suites fail without any mutant: fix them first", file=sys.stderr)
        return 1
    print(f"traced baseline {seconds:.0f} s, {len(runner.durations)} tests, at {runner.commit}")
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


def stale_equivalents(
    every: Sequence[Mutant], recorded: dict[str, Verdict], equivalent: dict[str, Equivalent]
) -> list[str]:
    """One line per entry of ``equivalent`` that cannot be trusted: its id names no mutant,
    a mutant making another change (its function was edited since), or a mutant killed or
    timed out at its function's current source (so it is not equivalent)."""
    by_id = {m.id: m for m in every}
    stale = []
    for key, entry in equivalent.items():
        m = by_id.get(key)
        if m is None:
            stale.append(f"stale equivalent: {key} names no mutant")
        elif m.change != entry.change:
            stale.append(f"stale equivalent: {key} names `{entry.change}`, now `{m.change}`")
        else:
            v = recorded.get(key)
            if v is not None and v.fingerprint == m.fingerprint and v.verdict != "survived":
                stale.append(f"stale equivalent: {key} was {v.verdict} ({m.change})")
    return stale


#: The report's columns after the count of mutants, as :func:`verdict_of` names them.
COLUMNS = ("killed", "timeout", "equivalent", "survived", "not judged")


def verdict_of(m: Mutant, recorded: dict[str, Verdict]) -> str:
    """The mutant's verdict for its function's current source, one of :data:`COLUMNS`: a
    survivor named in :data:`EQUIVALENT` for the change it makes is ``equivalent``."""
    v = recorded.get(m.id)
    if v is None or v.fingerprint != m.fingerprint:
        return "not judged"
    entry = EQUIVALENT.get(m.id)
    if v.verdict == "survived" and entry is not None and entry.change == m.change:
        return "equivalent"
    return v.verdict


def command_report(args: argparse.Namespace) -> int:
    """Print the verdicts of the current mutants as the table of ``docs/verification.md``
    (one row per module, then the package), the survivors not named equivalent, and the
    stale entries of :data:`EQUIVALENT`; exit 1 if there is any survivor or stale entry."""
    every = package_mutants()
    recorded = load(args.results)
    by_module: dict[str, Counter[str]] = {}
    survivors = []
    for m in every:
        verdict = verdict_of(m, recorded)
        module = m.id.split(":")[0].removeprefix("durak.rules.")
        by_module.setdefault(module, Counter())[verdict] += 1
        if verdict == "survived":
            survivors.append(m)
    total: Counter[str] = sum(by_module.values(), Counter())
    print("| module | mutants | killed | timed out | equivalent | survived | not judged |")
    print("|---|---|---|---|---|---|---|")
    for module, tally in [*sorted(by_module.items()), ("durak.rules", total)]:
        cells = [f"`{module}`", str(sum(tally.values())), *(str(tally[c]) for c in COLUMNS)]
        if module == "durak.rules":
            cells = [f"**{c}**" for c in cells]
        print(f"| {' | '.join(cells)} |")
    seconds = sum(v.seconds for v in recorded.values())
    commits = sorted({v.commit for v in recorded.values()})
    print(f"{seconds / 60:.1f} min of mutant runs, at {', '.join(commits)}")
    for m in survivors:
        print(f"survived: {m.id} ({m.path}:{m.line}) {m.change}")
    stale = stale_equivalents(every, recorded, EQUIVALENT)
    for line in stale:
        print(line)
    return 1 if survivors or stale else 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``run``, ``count``, ``show`` or ``report``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
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
            p.add_argument("--factor", type=float, default=1.0, help="time limit: factor")
            p.add_argument("--constant", type=float, default=15.0, help="... x tests' time + s")
    args = parser.parse_args(argv)
    commands = {
        "run": command_run,
        "count": command_count,
        "show": command_show,
        "report": command_report,
    }
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
