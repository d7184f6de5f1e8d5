"""The run: the suites against one mutant at a time, in a snapshot of the repository.

A mutant is judged by its run's suites (``[tool.mutmut]``'s
``pytest_add_cli_args_test_selection`` is every test, of which ``DURAK_MUTATION_MODULE``
keeps the run's suites without the heavy cases, ``tests/conftest.py``), with ``-x`` and
the ``mutation`` hypothesis profile, against a snapshot of ``src`` and ``tests`` taken
when the run starts: only the tests that reach the mutant's function, fastest first,
stopped after their time in the traced baseline run (which the tracing at least doubles)
plus 15 s.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Sequence
from pathlib import Path

from mutation import target
from mutation.operators import ROOT, Mutant, apply

#: The folder holding the ``mutation`` package, put on the runs' ``PYTHONPATH``.
TOOLS = Path(__file__).resolve().parents[1]


def suites(root: Path = ROOT) -> list[str]:
    """``[tool.mutmut]``'s ``pytest_add_cli_args_test_selection``: what the runs collect,
    of which ``tests/conftest.py`` keeps each run's suites."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    selection: list[str] = config["tool"]["mutmut"]["pytest_add_cli_args_test_selection"]
    return selection


class Runner:
    """Runs the suites against one mutant at a time in a snapshot of the repository.

    The baseline run, with no mutant, records which tests reach each function of the
    rules and how long each takes (with the plugin ``-p mutation.plugin``); a mutant is
    judged by the tests that reach its function, fastest first, as mutmut does (every test
    for module- and class-level code, which runs at import).

    Attributes:
      root: the repository.
      work: the run's folder: the snapshot and the baseline's trace.
      snapshot: the copy of ``src``, ``tests`` and ``pyproject.toml`` the tests run in.
      files: what the baseline collects (:func:`suites`).
      commit: the commit judged, ``+dirty`` when ``src`` or ``tests`` had changes.
      durations: each test's time in the baseline (empty before :meth:`baseline`).
      reaching: for each function's scope, the tests that reach it.
      at_import: the scopes run while the rules are imported (:func:`import_scopes`).
    """

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

    def baseline(self, reach: Path | None = None) -> tuple[bool, float]:
        """Run every suite once, unmutated and traced: whether all passed, and the time.
        With ``reach`` (a ``mutmut-stats.json``), the run is only timed, and which tests
        reach each function is mutmut's record (:func:`mutmut_reach`)."""
        trace = self.work / "trace.json"
        trace.unlink(missing_ok=True)
        env = {"DURAK_MUTATION_TRACE": str(trace),
               "PYTHONPATH": f"{self.snapshot / 'src'}{os.pathsep}{TOOLS}"}  # fmt: skip
        if reach is not None:
            env["DURAK_MUTATION_UNTRACED"] = "1"
        code, seconds = self._pytest(self.files, ["-p", "mutation.plugin"], env, None)
        if code != 0 or not trace.exists():
            return False, seconds
        for test, (duration, scopes) in json.loads(trace.read_text(encoding="utf-8")).items():
            self.durations[test] = duration
            for scope in scopes:
                self.reaching.setdefault(scope, set()).add(test)
        if reach is not None:
            self.reaching = {
                scope: tests & self.durations.keys() for scope, tests in mutmut_reach(reach).items()
            }
        self.at_import = import_scopes(self.snapshot / "src")
        return True, seconds

    def tests_for(self, mutant: Mutant) -> list[str]:
        """The tests that reach the mutant's function, fastest first (all for code run at
        import: module and class bodies, and the functions they call); a function no test
        is recorded reaching is judged by those of the function it is nested in, if any
        (mutmut records only the outer one)."""
        key = mutant.id.rsplit(":", 2)[0]
        at_import = mutant.imported or key in self.at_import
        while key not in self.reaching and "." in key.partition(":")[2]:
            key = key.rsplit(".", 1)[0]
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
            "DURAK_MUTATION_MODULE": target.name(),
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


def mutmut_scope(mangled: str) -> str:
    """The scope, as the mutator names it, of a function as mutmut's stats name it:
    ``durak.web.hints:Hinter.hint`` for ``durak.web.hints.xǁHinterǁhint``,
    ``durak.web.hints:hint_seed`` for ``durak.web.hints.x_hint_seed``."""
    module, _, key = mangled.rpartition(".")
    if key.startswith("xǁ"):
        owner, _, function = key[2:].partition("ǁ")
        return f"{module}:{owner}.{function}"
    return f"{module}:{key.removeprefix('x_')}"


def mutmut_reach(stats: Path) -> dict[str, set[str]]:
    """For each function's scope, the tests ``stats`` (the ``mutmut-stats.json`` of a
    ``make mutation`` run) records reaching it.  mutmut counts a call from its code, in
    any thread, where this pass's profiler sees only the threads it is set in."""
    data = json.loads(stats.read_text(encoding="utf-8"))
    reach: dict[str, set[str]] = {}
    for mangled, tests in data["tests_by_mangled_function_name"].items():
        reach.setdefault(mutmut_scope(mangled), set()).update(tests)
    return reach


def import_scopes(src: Path) -> frozenset[str]:
    """The mutated functions (as the mutator names their scopes) that run while the code
    mutated is imported from ``src``, in a fresh interpreter: the tests run after the
    import, so their trace never credits any test with these (``cards._beaters`` builds
    ``BEATERS``), and a mutant of one must be judged by every test, each of which imports
    the mutated module afresh."""
    env = {
        **os.environ,
        "PYTHONPATH": f"{src}{os.pathsep}{TOOLS}",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    modules = sorted(
        ".".join(f.relative_to(src).with_suffix("").parts).removesuffix(".__init__")
        for f in target.files(src.parent)
    )
    code = f"from mutation.trace import trace_import; trace_import({modules!r})"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return frozenset(json.loads(done.stdout))


def _commit(root: Path) -> str:
    """The short hash of ``root``'s HEAD, with ``+dirty`` if ``src`` or ``tests`` changed."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, check=False
        ).stdout.strip()

    head = git("rev-parse", "--short", "HEAD")
    return head + ("+dirty" if git("status", "--porcelain", "--", "src", "tests") else "")
