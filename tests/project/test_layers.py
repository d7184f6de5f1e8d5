"""The layers of ``durak``, checked on every module's imports (function-level ones too).

One table says which packages each package may import: ``rules`` <- ``search`` (which
imports nothing of durak: it sees a game only through its protocol) <- ``agents`` <-
``arena`` <- ``web`` <- ``cli``; ``encoding``, ``envs``, ``learn`` and ``interop`` sit beside
them (``interop``'s agents reach the others through the agent registry's entry points);
``seeding``, ``files`` and ``extras`` (the optional imports) are neutral.  Nothing but the
entry point ``durak.__main__`` imports ``cli``, and nothing imports ``testing`` (the checks
shipped for researchers' suites, above the agents).
A few modules are *open*: packages beyond their package's reach may import them
(``learn`` the dataset format, :mod:`durak.dataset.format`, to read a dataset for expert
iteration), because an open module imports nothing of durak but the neutral modules, and
importing it imports nothing else of its package (no pyarrow, no arena).  And no import
cycle joins two modules, counting every import: at module level, inside functions and
under ``TYPE_CHECKING`` (a function-level import only hides a cycle until the function
runs, a type-only one until a checker or a tool resolves the names), and an explicit import
of the module's own package (whose ``__init__`` may import it back).  None is allowed.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import durak

ROOT = Path(durak.__file__).parent

#: The durak packages each package may import (besides itself).
ALLOWED: dict[str, frozenset[str]] = {
    "seeding": frozenset(),
    "files": frozenset(),
    "extras": frozenset(),
    "rules": frozenset(),
    "search": frozenset(),
    "agents": frozenset({"rules", "search", "extras"}),
    "arena": frozenset({"rules", "search", "agents", "seeding", "files", "extras"}),
    "encoding": frozenset({"rules", "extras"}),
    "envs": frozenset({"rules", "agents", "encoding", "seeding", "extras"}),
    "learn": frozenset(
        {"rules", "search", "agents", "encoding", "envs", "seeding", "files", "extras"}
    ),
    "interop": frozenset({"rules", "search", "agents", "encoding", "extras"}),
    "web": frozenset({"rules", "agents", "arena", "seeding", "extras"}),
    "dataset": frozenset({"rules", "agents", "arena", "encoding", "seeding", "files", "extras"}),
    # The checks shipped for researchers' suites: nothing in src imports them.
    "testing": frozenset({"rules", "search", "agents", "seeding", "extras"}),
    "__main__": frozenset({"cli"}),  # the entry point: the command line above all
    "cli": frozenset(
        {
            "rules",
            "search",
            "agents",
            "arena",
            "encoding",
            "envs",
            "learn",
            "dataset",
            "seeding",
            "files",
            "web",
            "extras",
        }
    ),
}


#: The open modules, and the packages (beyond those of ALLOWED) that may import them.
OPEN: dict[str, frozenset[str]] = {"durak.dataset.format": frozenset({"learn"})}
NEUTRAL = frozenset({"seeding", "files", "extras"})


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path = ROOT) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def imports(path: Path, root: Path = ROOT) -> Iterator[tuple[int, str]]:
    """(line, imported module or name) for every import in ``path`` (of ``root``'s
    package), wherever it is: at module level, in a function, under ``TYPE_CHECKING``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = path if path.name == "__init__.py" else path.parent
                package = module_name(here, root)
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def package_of(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if parts[0] == "durak" and len(parts) > 1 else None


def test_every_package_is_in_the_table() -> None:
    found = {package_of(m) for m in modules()} - {None}
    assert found == set(ALLOWED), f"add {found - set(ALLOWED)} to the table"


def module_of(imported: str, known: dict[str, Path]) -> str:
    """The module an import names: itself, or the module it takes a name from."""
    return imported if imported in known else imported.rpartition(".")[0]


def test_nothing_in_the_package_imports_the_shipped_checks() -> None:
    users = [
        f"{name} imports {imported}"
        for name, path in modules().items()
        if package_of(name) != "testing"
        for _, imported in imports(path)
        if package_of(imported) == "testing"
    ]
    assert not users


def test_every_import_follows_the_layers() -> None:
    bad: list[str] = []
    known = modules()
    for name, path in known.items():
        mine = package_of(name)
        if mine is None:
            continue
        for line, imported in imports(path):
            theirs = package_of(imported)
            if theirs is None or theirs == mine or theirs in ALLOWED[mine]:
                continue
            if mine not in OPEN.get(module_of(imported, known), frozenset()):
                bad.append(f"{path.relative_to(ROOT)}:{line} ({mine}) imports {imported}")
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


@pytest.mark.parametrize("module", sorted(OPEN))
def test_an_open_module_imports_only_neutral_modules(module: str) -> None:
    known = modules()
    found = {package_of(imported) for _, imported in imports(known[module])} - {None}
    assert found <= NEUTRAL, f"{module} imports {found - NEUTRAL}"
    # and importing it runs its package's __init__ only, which must import nothing more
    code = f"import sys, {module}; print(' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = {m for m in done.stdout.split() if m.startswith("durak") or "arrow" in m}
    package = module.rpartition(".")[0]
    assert loaded <= {"durak", package, module, *(f"durak.{n}" for n in NEUTRAL)}, loaded


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """The modules of ``root``'s package each module imports: every import, function-level
    and type-only ones too, its own package's included (the implicit import of a module's
    packages, which Python runs first, is no edge: every package ``__init__`` would close a
    cycle with any submodule it imports)."""
    known = modules(root)
    graph: dict[str, set[str]] = {m: set() for m in known}
    for name, path in known.items():
        for _, imported in imports(path, root):
            # ``from pkg import mod`` imports the module; ``from mod import name`` the module.
            target = imported if imported in known else imported.rpartition(".")[0]
            if target in known and target != name:
                graph[name].add(target)
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle a depth-first walk of ``graph`` meets, as the list of its nodes."""
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                cycles.append([*stack[stack.index(n) :], n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return cycles


def test_no_import_cycle_joins_two_modules() -> None:
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_cycle_check_sees_a_function_level_import(tmp_path: Path) -> None:
    package = tmp_path / "planted"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "pool.py").write_text("from planted.backend import Task\n", encoding="utf-8")
    backend = "Task = int\n\n\ndef open_backend() -> object:\n"
    backend += "    from planted.pool import LocalPool\n\n    return LocalPool\n"
    (package / "backend.py").write_text(backend, encoding="utf-8")
    assert find_cycles(import_graph(package)) == [
        ["planted.backend", "planted.pool", "planted.backend"]
    ]
    (package / "backend.py").write_text("Task = int\n", encoding="utf-8")
    assert find_cycles(import_graph(package)) == []


def _plant(tmp_path: Path, files: dict[str, str]) -> dict[str, set[str]]:
    """The import graph of the package ``planted`` made of ``files`` (path: source)."""
    for name, source in {"planted/__init__.py": "", **files}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(source, encoding="utf-8")
    return import_graph(tmp_path / "planted")


def test_the_cycle_check_sees_a_type_only_import(tmp_path: Path) -> None:
    # The game and its observers, before issue 49: the observer annotated the game's state.
    observers = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
    observers += "    from planted.game import State\n\n\ndef show(s: State) -> str:\n"
    observers += "    return str(s)\n"
    game = "from planted.observers import show\n\n\nclass State:\n    pass\n"
    graph = _plant(tmp_path, {"planted/observers.py": observers, "planted/game.py": game})
    assert find_cycles(graph) == [["planted.game", "planted.observers", "planted.game"]]


def test_the_cycle_check_sees_an_import_of_the_own_package(tmp_path: Path) -> None:
    init = "from planted.sub.game import Game\n"
    files = {"planted/sub/__init__.py": init, "planted/sub/game.py": "Game = int\n"}
    assert find_cycles(_plant(tmp_path, files)) == []  # a package that re-exports: no cycle
    files["planted/sub/game.py"] = "from planted.sub import helper\n\nGame = int\n"
    files["planted/sub/__init__.py"] = init + "\nhelper = 1\n"
    assert find_cycles(_plant(tmp_path, files)) == [
        ["planted.sub", "planted.sub.game", "planted.sub"]
    ]


@pytest.mark.parametrize(
    "module", ["durak.arena.runs.run", "durak.cli.driver", "durak.cli.run_options"]
)
def test_the_run_and_the_cli_know_no_backend_but_through_the_interface(module: str) -> None:
    # They reach a backend only through runs/interface and runs/backends.
    assert not import_graph()[module] & {"durak.arena.runs.pool", "durak.arena.runs.ray_cluster"}


def test_the_cycle_check_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_the_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    source = "def f() -> None:\n    from durak.rules import Rules\n"
    found = list(imports(_write(tmp_path, source)))
    assert found == [(2, "durak.rules.Rules")]
    assert package_of(found[0][1]) not in ALLOWED["search"]


def _write(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    return path
