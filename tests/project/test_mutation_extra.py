"""The second mutation pass (``tools/mutation/``): which mutants the mutator makes, that
each changes exactly its node, which mutants a rerun judges again, and the records of the
mutants named equivalent, read and checked."""

from __future__ import annotations

import ast
import json
import tomllib
import types
from pathlib import Path

import pytest
from mutation import cli, equivalents, target
from mutation.equivalents import (
    Equivalent,
    EquivalentsError,
    load_equivalents,
    stale_equivalents,
)
from mutation.operators import Mutant, apply, mutants, package_mutants
from mutation.results import Verdict, load, select
from mutation.runner import Runner, import_scopes, suites
from mutation.trace import scope_name

import durak.rules
from tests.conftest import SUITES

SNIPPET = '''\
"""Doc."""

LIMIT = [x for x in range(9) if x > 2]


def f(a: int, b: int, out: list[int]) -> int:
    if a < b and b >= 0 or a == 1:
        raise ValueError("négatif ♠")
    while a > b:
        a -= 1
        out.append(a)
    return min(a, b) if a <= b else 0


class C:
    def g(self, x: list[int], y: bool = any([])) -> None:
        x[0] = 1
        print(x)
'''

#: (id, the text replaced, its replacement), in order.
EXPECTED = [
    ("<snippet>:<module>:condition-true:0", "x > 2", "True"),
    ("<snippet>:<module>:condition-false:0", "x > 2", "False"),
    ("<snippet>:<module>:comparison:0", "x > 2", "(x >= 2)"),
    ("<snippet>:f:condition-true:0", "a < b and b >= 0 or a == 1", "True"),
    ("<snippet>:f:condition-false:0", "a < b and b >= 0 or a == 1", "False"),
    ("<snippet>:f:drop-operand:0", "a < b and b >= 0 or a == 1", "(a == 1)"),
    ("<snippet>:f:drop-operand:1", "a < b and b >= 0 or a == 1", "(a < b and b >= 0)"),
    ("<snippet>:f:drop-operand:2", "a < b and b >= 0", "(b >= 0)"),
    ("<snippet>:f:drop-operand:3", "a < b and b >= 0", "(a < b)"),
    ("<snippet>:f:comparison:0", "a < b", "(a <= b)"),
    ("<snippet>:f:comparison:1", "b >= 0", "(b > 0)"),
    ("<snippet>:f:remove-raise:0", 'raise ValueError("négatif ♠")', "pass"),
    ("<snippet>:f:condition-true:1", "a > b", "True"),
    ("<snippet>:f:condition-false:1", "a > b", "False"),
    ("<snippet>:f:comparison:2", "a > b", "(a >= b)"),
    ("<snippet>:f:remove-statement:0", "a -= 1", "pass"),
    ("<snippet>:f:remove-statement:1", "out.append(a)", "pass"),
    ("<snippet>:f:condition-true:2", "a <= b", "True"),
    ("<snippet>:f:condition-false:2", "a <= b", "False"),
    ("<snippet>:f:comparison:3", "a <= b", "(a < b)"),
    ("<snippet>:f:dual:0", "min", "max"),
    # A default is evaluated in the enclosing scope, here the class body.
    ("<snippet>:C:dual:0", "any", "all"),
    ("<snippet>:C.g:remove-statement:0", "x[0] = 1", "pass"),
    ("<snippet>:C.g:remove-statement:1", "print(x)", "pass"),
]


def test_the_mutator_makes_the_expected_mutants_of_a_snippet() -> None:
    data = SNIPPET.encode()
    found = [(m.id, data[m.start : m.end].decode(), m.replacement) for m in mutants(SNIPPET)]
    assert found == EXPECTED


class _Replace(ast.NodeTransformer):
    """Replaces the outermost node of the given kind and span (line, column, end line,
    end column) by ``new``."""

    def __init__(self, kind: type[ast.AST], span: tuple[int, int, int, int], new: ast.AST):
        self.kind, self.span, self.new, self.done = kind, span, new, 0

    def visit(self, node: ast.AST) -> ast.AST:
        here = tuple(getattr(node, a, None) for a in _SPAN)
        if isinstance(node, self.kind) and here == self.span and not self.done:
            self.done += 1
            return self.new
        return self.generic_visit(node)


_SPAN = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _span_of(source: str, m: Mutant) -> tuple[int, int, int, int]:
    """The (line, byte column) of the mutant's start and end, as ``ast`` counts them."""
    data = source.encode()
    before, text = data[: m.start], data[m.start : m.end]
    line = before.count(b"\n") + 1
    col = len(before) - (before.rfind(b"\n") + 1)
    end_line = line + text.count(b"\n")
    end_col = len(text) - (text.rfind(b"\n") + 1) if b"\n" in text else col + len(text)
    return line, col, end_line, end_col


def _changes_only_its_node(source: str, m: Mutant) -> bool:
    statement = m.operator.startswith("remove-")
    new: ast.AST = ast.Pass() if statement else ast.parse(m.replacement, mode="eval").body
    replace = _Replace(ast.stmt if statement else ast.expr, _span_of(source, m), new)
    expected = replace.visit(ast.parse(source))
    got = ast.parse(apply(source, m))
    return replace.done == 1 and ast.dump(got) == ast.dump(expected)


def test_applying_a_mutant_changes_only_its_node() -> None:
    for m in mutants(SNIPPET):
        assert _changes_only_its_node(SNIPPET, m), m.id


def test_every_mutant_of_the_rules_changes_only_its_node() -> None:
    root = Path(__file__).resolve().parents[2]
    every = package_mutants(root)
    assert len({m.id for m in every}) == len(every) > 500
    sources = {m.path: (root / m.path).read_text(encoding="utf-8") for m in every}
    for m in every:
        assert _changes_only_its_node(sources[m.path], m), m.id


def test_a_rerun_judges_only_new_changed_or_chosen_mutants(tmp_path: Path) -> None:
    a, b, c = (m for m in mutants(SNIPPET) if m.id.endswith(":f:comparison:0") or
               m.id.endswith(":f:comparison:1") or m.id.endswith(":f:comparison:2"))  # fmt: skip
    results = tmp_path / "results.jsonl"
    lines = [
        Verdict(a.id, a.fingerprint, "killed", 1.0, "abc"),
        Verdict(b.id, "0" * 16, "killed", 1.0, "abc"),  # its function has changed since
        Verdict(c.id, c.fingerprint, "timeout", 9.0, "abc"),
        Verdict(c.id, c.fingerprint, "survived", 9.0, "abd"),  # the last verdict counts
    ]
    results.write_text("".join(json.dumps(v.__dict__) + "\n" for v in lines), encoding="utf-8")
    recorded = load(results)
    assert recorded[c.id].verdict == "survived" and len(recorded) == 3
    every = [a, b, c]
    assert select(every, recorded, "", frozenset()) == [b]
    assert select(every, recorded, "", frozenset({"survived"})) == [b, c]
    assert select(every, recorded, "comparison:0", frozenset({"survived"})) == []
    assert select(every, {}, "", frozenset()) == every
    assert select(every, {}, "comparison:2,comparison:0,", frozenset()) == [c, a, b]


def test_a_change_to_a_function_changes_only_its_mutants_fingerprints() -> None:
    changed = SNIPPET.replace("out.append(a)", "out.append(b)")
    before = {m.id: m.fingerprint for m in mutants(SNIPPET)}
    after = {m.id: m.fingerprint for m in mutants(changed)}
    assert before.keys() == after.keys()
    assert {i for i in before if before[i] != after[i]} == {i for i in before if ":f:" in i}


def test_mutmuts_selection_is_every_test_and_never_changes_with_a_suite() -> None:
    # mutmut judges every mutant of a run again when its selection changes: the runs'
    # suites are chosen in tests/conftest.py, so that adding one resets no run.
    assert suites(Path(__file__).resolve().parents[2]) == ["tests"]


def test_code_run_at_import_is_told_from_code_run_when_called() -> None:
    imported = {m.id.split(":")[1] for m in mutants(SNIPPET) if m.imported}
    called = {m.id.split(":")[1] for m in mutants(SNIPPET) if not m.imported}
    assert imported == {"<module>", "C"} and called == {"f", "C.g"}


def test_a_function_run_at_import_is_judged_by_every_test(tmp_path: Path) -> None:
    # The tests run after the import, so their trace never credits one with `_beaters`
    # (it builds BEATERS): its mutants were judged by no test and "survived" in 0 s.
    root = Path(__file__).resolve().parents[2]
    runner = Runner(root, tmp_path)
    runner.durations = {"fast": 1.0, "slow": 2.0, "steps": 0.5}
    runner.reaching = {"durak.rules.engine:step": {"steps"}}
    runner.at_import = import_scopes(runner.snapshot / "src")
    assert "durak.rules.cards:_beaters" in runner.at_import
    assert "durak.rules.engine:step" not in runner.at_import
    every = package_mutants(root)
    beaters = [m for m in every if m.id.startswith("durak.rules.cards:_beaters:")]
    steps = [m for m in every if m.id.startswith("durak.rules.engine:step:")]
    assert len(beaters) == 6 and steps
    assert all(runner.tests_for(m) == ["steps", "fast", "slow"] for m in beaters)
    assert all(runner.tests_for(m) == ["steps"] for m in steps)


@pytest.mark.parametrize(
    ("qualname", "scope"),
    [
        ("_split_weights.<locals>.walk", "_split_weights.walk"),
        ("end_bout.<locals>.<listcomp>", "end_bout"),
        ("History.add", "History.add"),
        ("<module>", "<module>"),
    ],
)
def test_a_traced_code_object_is_named_as_the_mutator_names_its_scope(
    qualname: str, scope: str
) -> None:
    assert scope_name("/x/src/durak/rules/origins.py", qualname) == f"durak.rules.origins:{scope}"
    nested = "/x/src/durak/rules/knowledge/sampler.py"
    assert scope_name(nested, qualname) == f"durak.rules.knowledge.sampler:{scope}"


def test_every_function_with_mutants_is_named_alike_by_the_tracer() -> None:
    # A function whose traced name differs from its mutants' scope is reached by no test
    # in the run's eyes, and all its mutants "survive" in 0 s (the knowledge subpackage's,
    # until the tracer named modules by their path below durak/rules).
    traced = set()
    root = Path(durak.rules.__file__).parent
    for file in root.rglob("*.py"):
        todo = [compile(file.read_text(encoding="utf-8"), str(file), "exec")]
        while todo:
            code = todo.pop()
            traced.add(scope_name(code.co_filename, code.co_qualname))
            todo += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    called = {m.id.rsplit(":", 2)[0] for m in package_mutants() if not m.imported}
    assert "durak.rules.knowledge.sampler:odds" in called
    assert called - traced == set()


def test_an_equivalent_entry_is_trusted_only_for_the_change_it_names() -> None:
    every = mutants(SNIPPET)
    m = next(m for m in every if m.id.endswith(":f:comparison:0"))
    assert m.change == "a < b => (a <= b)"
    right = {m.id: Equivalent("a < b => (a <= b)", "why")}
    assert stale_equivalents(every, {}, right) == []
    survived = {m.id: Verdict(m.id, m.fingerprint, "survived", 1.0, "abc")}
    assert stale_equivalents(every, survived, right) == []
    # The function was edited: the id now names another change.
    moved = {m.id: Equivalent("b >= 0 => (b > 0)", "why")}
    assert stale_equivalents(every, {}, moved) == [
        f"stale equivalent: {m.id} names `b >= 0 => (b > 0)`, now `a < b => (a <= b)`"
    ]
    killed = {m.id: Verdict(m.id, m.fingerprint, "killed", 1.0, "abc")}
    assert stale_equivalents(every, killed, right) == [
        f"stale equivalent: {m.id} was killed (a < b => (a <= b))"
    ]
    # A verdict for an older source of the function says nothing about this one.
    old = {m.id: Verdict(m.id, "0" * 16, "killed", 1.0, "abc")}
    assert stale_equivalents(every, old, right) == []
    gone = {"<snippet>:f:comparison:9": Equivalent("x => y", "why")}
    assert stale_equivalents(every, {}, gone) == [
        "stale equivalent: <snippet>:f:comparison:9 names no mutant"
    ]


@pytest.mark.parametrize("run", sorted(target.TARGETS))
def test_every_equivalent_named_matches_its_mutant_in_its_runs_source(
    run: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Fails when an edit to a function shifts the mutants an entry names: read it again.
    monkeypatch.setenv("DURAK_MUTATION_TARGET", run)
    mine = {k: v for k, v in load_equivalents().items() if target.covers(k.split(":")[0])}
    assert stale_equivalents(package_mutants(), {}, mine) == []


def test_every_equivalent_names_a_module_of_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    covered = set()
    for run in target.TARGETS:
        monkeypatch.setenv("DURAK_MUTATION_TARGET", run)
        covered |= {k for k in load_equivalents() if target.covers(k.split(":")[0])}
    assert set(load_equivalents()) - covered == set()


_GOOD = '''\
[[equivalent]]
id = "<snippet>:f:comparison:0"
change = "a < b => (a <= b)"
reason = """\\
    a reason \\
    on two lines"""
'''


def test_the_equivalents_file_is_read_in_order_as_written(tmp_path: Path) -> None:
    second = _GOOD.replace("f:comparison:0", "f:comparison:1").replace(
        "a < b => (a <= b)", "b >= 0 => (b > 0)"
    )
    path = tmp_path / "equivalents.toml"
    path.write_text(second + "\n" + _GOOD, encoding="utf-8")
    assert list(load_equivalents(path).items()) == [
        ("<snippet>:f:comparison:1", Equivalent("b >= 0 => (b > 0)", "a reason on two lines")),
        ("<snippet>:f:comparison:0", Equivalent("a < b => (a <= b)", "a reason on two lines")),
    ]


_ENTRY = "entry 1 (<snippet>:f:comparison:0)"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (_GOOD + _GOOD, "entry 2 (<snippet>:f:comparison:0): the id of entry 1 again"),
        (_GOOD.split("reason", maxsplit=1)[0], f"{_ENTRY}: lacks the field 'reason'"),
        (
            _GOOD.replace('change = "a < b => (a <= b)"', "change = 3"),
            f"{_ENTRY}: change must be a non-empty string, not int",
        ),
        (
            _GOOD.replace('"a < b => (a <= b)"', '" "'),
            f"{_ENTRY}: change must be a non-empty string, not an empty string",
        ),
        (_GOOD.replace(" => ", " -> "), f"{_ENTRY}: change is not `original => replacement`"),
        (_GOOD.replace("a < b =>", " =>"), f"{_ENTRY}: change is not `original => replacement`"),
        (_GOOD + 'why = "x"\n', f"{_ENTRY}: unknown field 'why'"),
        (
            _GOOD.replace(":comparison:0", ":comparison"),
            "entry 1 (<snippet>:f:comparison): id is not module:scope:operator:n",
        ),
        (
            _GOOD.replace('"<snippet>:f:comparison:0"', "[1]"),
            "entry 1: id must be a non-empty string, not list",
        ),
        (
            _GOOD.replace('"<snippet>:f:comparison:0"', '""'),
            "entry 1: id must be a non-empty string, not an empty string",
        ),
        ("equivalent = [1]\n", "entry 1: not a table"),
        ("equivalent = 1\n", "`equivalent` must be a list of [[equivalent]] tables"),
        ("", "`equivalent` must be a list of [[equivalent]] tables"),
        (
            _GOOD.replace("[[equivalent]]", "[[equivalents]]"),
            "unknown key 'equivalents' (only [[equivalent]])",
        ),
    ],
)
def test_a_malformed_equivalents_file_is_refused_with_one_line_naming_the_entry(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = tmp_path / "equivalents.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(EquivalentsError) as caught:
        load_equivalents(path)
    assert str(caught.value) == f"{path}: {problem}"


def test_the_report_refuses_a_malformed_equivalents_file_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "equivalents.toml"
    path.write_text(_GOOD + _GOOD, encoding="utf-8")
    monkeypatch.setattr(equivalents, "EQUIVALENTS", path)
    assert cli.main(["report", "--results", str(tmp_path / "results.jsonl")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"{path}: entry 2 (<snippet>:f:comparison:0): the id of entry 1 again\n"
    missing = tmp_path / "none.toml"
    monkeypatch.setattr(equivalents, "EQUIVALENTS", missing)
    assert cli.main(["report"]) == 2
    assert capsys.readouterr().err == f"{missing}: cannot be read: No such file or directory\n"


def test_a_file_that_is_not_toml_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "equivalents.toml"
    path.write_text(_GOOD.replace("id =", "id"), encoding="utf-8")
    with pytest.raises(EquivalentsError) as caught:
        load_equivalents(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: not TOML: ") and "line 2" in message
    assert "\n" not in message


def test_another_target_mutates_its_own_files_and_names_its_scopes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DURAK_MUTATION_TARGET", "agents.analysis")
    every = package_mutants()
    assert every and {m.path for m in every} == {"src/durak/agents/interface/analysis.py"}
    assert target.results(Path("/r")) == Path("/r/.mutants/extra-agents.analysis/results.jsonl")
    assert target.covers("durak.agents.interface.analysis")
    assert not target.covers("durak.agents.interface.analysisx")
    assert not target.covers("durak.rules.cards")
    assert target.label() == "durak.agents.interface.analysis"
    path = "/x/src/durak/agents/interface/analysis.py"
    assert scope_name(path, "Analysis.loss") == "durak.agents.interface.analysis:Analysis.loss"
    monkeypatch.setenv("DURAK_MUTATION_TARGET", "arena.scores")
    assert {Path(m.path).name for m in package_mutants()} >= {"ratings.py", "wilson.py"}
    monkeypatch.setenv("DURAK_MUTATION_TARGET", "nothing")
    with pytest.raises(SystemExit, match=r"^DURAK_MUTATION_TARGET must be one of rules, "):
        target.name()
    monkeypatch.delenv("DURAK_MUTATION_TARGET")
    assert target.results(Path("/r")) == Path("/r/.mutants/extra/results.jsonl")
    assert target.label() == "durak.rules"


def test_every_run_of_the_table_has_its_suites_and_its_files_for_mutmut() -> None:
    # tools/mutation/target.py is the one table of the runs: the suites of tests/conftest.py
    # and mutmut's files in pyproject.toml name the same runs, and every suite exists.
    root = Path(__file__).resolve().parents[2]
    assert set(SUITES) == set(target.TARGETS)
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    files = set()
    for modules in target.TARGETS.values():
        for dotted in modules:
            base = Path("src", *dotted.split("."))
            files.add(f"{base}/*" if (root / base).is_dir() else f"{base}.py")
    assert set(config["tool"]["mutmut"]["only_mutate"]) == files
    for run in SUITES.values():
        for suite in run:
            assert (root / "tests" / suite).exists(), suite


def test_make_mutation_is_given_mutmut_s_names_of_the_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DURAK_MUTATION_TARGET", "web")
    assert cli.main(["names"]) == 0
    assert capsys.readouterr().out == "durak.web.hints.* durak.web.reviews.*\n"
    monkeypatch.setenv("DURAK_MUTATION_TARGET", "arena.experiments.ladder")
    assert target.mutmut_names() == ["durak.arena.experiments.ladder.*"]
