"""The mutator: the mutants of a module's source, with the operators mutmut 3.8.1 lacks.

mutmut (``make mutation``) swaps operators and literals inside function bodies.  It never
drops one operand of an ``and``/``or``, forces an ``if``/``while`` or comprehension
condition, removes a ``raise`` or a statement, or swaps ``min``/``max`` and
``any``/``all``; and it cannot mutate code that runs only at import (the tables).  These
operators do, on the source text, so module-level code is mutated too.  Mutation analysis
as in DeMillo, Lipton & Sayward, "Hints on Test Data Selection" (IEEE Computer, 1978); the
operators are the classic "conditional operator replacement" and "statement deletion"
kinds of Offutt et al. (ACM TOSEM 5(2), 1996).

Invariants: a mutant replaces exactly one node of the tree
(``tests/project/test_mutation_extra.py`` checks it for every mutant of the rules); its id,
``module:scope:operator:n``, counts the mutants of one operator within one scope in source
order, so it is stable while the scope's source keeps its order.
"""

from __future__ import annotations

import ast
import hashlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

from mutation.target import files as target_files

#: The repository root.
ROOT = Path(__file__).resolve().parents[2]

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
class Mutant:
    """One change of one node: the source bytes ``[start, end)`` of ``path`` replaced by
    ``replacement``.

    Attributes:
      path: the module's file, relative to the repository root (``<snippet>`` for text).
      scope: the qualified name of the function or class whose code holds the node
        (``<module>`` for module-level code).
      operator: the operator's name (``drop-operand``, ``condition-true``, ...).
      ordinal: how many mutants of this operator precede this one in its scope.
      line: the node's first line.
      start, end: byte offsets into the UTF-8 text, since ``ast`` counts bytes.
      replacement: the text put in place of the node.
      fingerprint: a digest of the scope's source: a verdict holds while it is unchanged.
      imported: whether the scope runs at import (module or class body), not when called.
      original: the source text replaced (``source[start:end]``).
    """

    path: str
    scope: str
    operator: str
    ordinal: int
    line: int
    start: int
    end: int
    replacement: str
    fingerprint: str
    imported: bool = False
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
    """Every mutant of the code mutated (``durak.rules`` or another target,
    :mod:`mutation.target`), module by module (in file-name order)."""
    out: list[Mutant] = []
    for file in target_files(root):
        out += mutants(file.read_text(encoding="utf-8"), file.relative_to(root).as_posix())
    return out
