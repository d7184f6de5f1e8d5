"""Plugins and ``--agent-module`` cannot hijack or break agents (issue 47, item 5).

Entry-point plugins are fake distributions (a ``*.dist-info`` folder with
``entry_points.txt``) in a temporary folder on the ``PYTHONPATH`` of a ``durak``
subprocess; nothing is installed.  An impostor ``greedy`` plays the last legal action, so
it loses every game against ``random`` where the built-in wins them all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from durak.agents import base, make_agent, register, registry
from durak.agents.base import SpecError
from durak.agents.plugins import PluginError
from tests.support.doc_blocks import ROOT, durak_script, environment

IMPOSTOR = """
from durak.agents import register


class Impostor:
    name = "greedy"

    def act(self, observation, rng):
        return observation.legal_actions[-1]


register("greedy", Impostor, "plays its last legal action"{replace})
"""
BROKEN = """
from durak.agents import register
from durak.agents.heuristics.simple import RandomAgent

register("half-made", RandomAgent, "registered before the plugin fails")
raise RuntimeError("boom in the plugin")
"""
MATCH = ["match", "greedy", "random", "-n", "10", "--seed", "1"]


def plugin(site: Path, module: str, source: str) -> None:
    """A fake distribution ``module`` in ``site`` whose ``durak.agents`` entry point is the
    module ``module`` with ``source``."""
    info = site / f"{module}-0.1.dist-info"
    info.mkdir(parents=True)
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[durak.agents]\n{module} = {module}\n", encoding="utf-8"
    )


def durak(cwd: Path, *args: str, site: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``durak ARGS`` in ``cwd``, with the fake distributions of ``site`` installed."""
    return python(cwd, [durak_script(), *args], site)


def python(cwd: Path, argv: list[str], site: Path | None) -> subprocess.CompletedProcess[str]:
    env = environment()
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
    return subprocess.run(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip


def row(stdout: str, agent: str) -> list[str]:
    """The cells ``agent``, wins, win rate of the results table."""
    [line] = [line for line in stdout.splitlines() if f"│ {agent} " in line]
    return [cell.strip() for cell in line.split("│")[2:5]]


def one_line(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """Exit 2 with one ``error:`` line holding ``words`` and nothing else on stderr."""
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def test_an_entry_point_cannot_replace_a_built_in_at_any_jobs(tmp_path: Path) -> None:
    plugin(tmp_path / "site", "impostor_ep", IMPOSTOR.format(replace=""))
    plain = durak(tmp_path, *MATCH, "-j", "1")
    assert row(plain.stdout, "greedy") == ["greedy", "10", "100.0%"], plain.stdout
    for jobs in ("1", "2"):
        result = durak(tmp_path, *MATCH, "-j", jobs, site=tmp_path / "site")
        assert result.returncode == 0, result.stderr
        assert row(result.stdout, "greedy") == row(plain.stdout, "greedy"), (jobs, result.stdout)
        [warning] = result.stderr.splitlines()
        assert warning.startswith("warning: plugin impostor_ep"), warning
        assert "skipped" in warning and "durak.agents.heuristics.simple" in warning, warning


def test_an_agent_module_cannot_replace_a_built_in(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(IMPOSTOR.format(replace=""), encoding="utf-8")
    result = durak(tmp_path, *MATCH, "--agent-module", "mine")
    line = one_line(result, "--agent-module mine", "'greedy'", "durak.agents.heuristics.simple")
    assert "replace=True" in line
    shown = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    assert f"\n{line}\n" in shown  # the line docs/agents.md shows is the one printed


def test_a_replacement_meant_plays_at_any_jobs_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "meant.py").write_text(IMPOSTOR.format(replace=", replace=True"), "utf-8")
    for jobs in ("1", "2"):
        result = durak(tmp_path, *MATCH, "-j", jobs, "--agent-module", "meant")
        assert result.returncode == 0, result.stderr
        assert row(result.stdout, "greedy") == ["greedy", "0", "0.0%"], (jobs, result.stdout)
        [note] = result.stderr.splitlines()
        assert note == (
            "note: agent 'greedy' is the one meant (--agent-module) registers, replacing "
            "the agent of durak.agents.heuristics.simple"
        )
    listed = durak(tmp_path, "agents", "greedy", "--json", "--agent-module", "meant")
    assert "replacing the agent of durak.agents.heuristics.simple" in listed.stdout, listed.stdout


def test_a_broken_plugin_is_one_line_and_the_rest_still_loads(tmp_path: Path) -> None:
    site = tmp_path / "site"
    plugin(site, "broken_ep", BROKEN)
    warning = "warning: plugin broken_ep (entry point 'broken_ep' of broken_ep) skipped: "
    warning += "RuntimeError: boom in the plugin"
    listed = durak(tmp_path, "agents", "--json", site=site)
    assert listed.returncode == 0, listed.stderr
    assert listed.stderr.splitlines() == [warning]
    names = {a["name"] for a in json.loads(listed.stdout)}
    assert {"dmc", "qlearn", "openspiel-mcts", "greedy"} <= names
    assert "half-made" not in names  # the failed plugin's registrations are undone
    match = durak(tmp_path, *MATCH, "-j", "2", site=site)
    assert match.returncode == 0 and match.stderr.splitlines() == [warning], match.stderr
    serve = durak(tmp_path, "serve", "--port", "0", "--allow-agent", "nosuch", site=site)
    assert serve.stderr.splitlines()[0] == warning, serve.stderr
    one_line(subprocess.CompletedProcess([], 2, "", serve.stderr.split("\n", 1)[1]), "nosuch")
    verbose = durak(tmp_path, *MATCH, "-n", "2", "-v", site=site)
    assert verbose.stderr.splitlines()[:3] == [
        warning,
        f'  File "{site / "broken_ep.py"}", line 6, in <module>',
        '    raise RuntimeError("boom in the plugin")',
    ], verbose.stderr


def test_the_library_skips_a_broken_plugin_and_keeps_the_others(tmp_path: Path) -> None:
    plugin(tmp_path / "site", "broken_ep", BROKEN)
    script = (
        "import warnings\n"
        "from durak.agents import make_agent, registry\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    for name in ('dmc', 'dmc', 'openspiel-mcts'):\n"
        "        print(name, type(make_agent(name)).__name__)\n"
        "print('qlearn' in registry(), 'half-made' in registry())\n"
        "print([str(w.message) for w in caught])\n"
    )
    result = python(tmp_path, [sys.executable, "-c", script], tmp_path / "site")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    dmc = "dmc ShippedDmcAgent"  # the shipped model of the rules it is bound to
    assert lines[:3] == [dmc, dmc, "openspiel-mcts OpenSpielMctsAgent"]
    assert lines[3] == "True False"
    assert lines[4].count("boom in the plugin") == 1, lines[4]


@pytest.mark.parametrize(
    ("module", "source", "words"),
    [
        ("raiser", 'raise RuntimeError("oops")\n', ["RuntimeError: oops"]),
        ("quitter", "import sys\nsys.exit(0)\n", ["sys.exit(0)"]),
        ("numbered", "from durak.agents import register\nregister(123, object, 'x')\n",
         ["TypeError", "must be a string, got int"]),
        ("missing", None, ["No module named 'missing'"]),
        (".", None, ["'.' is not a module name"]),
        ("..", None, ["'..' is not a module name"]),
        ("../x", None, ["'../x' is not a module name", "not a file's path"]),
    ],
)  # fmt: skip
def test_an_agent_module_that_fails_is_one_line(
    tmp_path: Path, module: str, source: str | None, words: list[str]
) -> None:
    if source is not None:
        (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
    result = durak(tmp_path, *MATCH, "--agent-module", module)
    one_line(result, f"--agent-module {module}: ", *words)
    assert result.stdout == ""  # not a game played, not a header printed


def test_an_agent_module_s_own_frames_follow_under_verbose(tmp_path: Path) -> None:
    (tmp_path / "raiser.py").write_text('x = 1\nraise RuntimeError("oops")\n', "utf-8")
    result = durak(tmp_path, *MATCH, "--agent-module", "raiser", "-v")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "error: --agent-module raiser: RuntimeError: oops",
        f'  File "{tmp_path / "raiser.py"}", line 2, in <module>',
        '    raise RuntimeError("oops")',
    ]


def test_a_constructor_that_raises_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "builder.py").write_text(
        "from durak.agents import register\n\n\n"
        "class Fails:\n"
        "    def __init__(self):\n"
        "        raise RuntimeError('cannot build')\n\n\n"
        "register('fails', Fails, 'raises when built')\n",
        encoding="utf-8",
    )
    result = durak(tmp_path, "match", "fails", "random", "-n", "2", "--agent-module", "builder")
    one_line(result, "fails: the agent could not be built: RuntimeError: cannot build")


class _Mine:
    name = "test-plugins-mine"

    def act(self, observation: object, rng: object) -> object:
        raise AssertionError("never played")


@pytest.fixture
def own_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry as it is, given back after the test: the agents a test registers or
    replaces never reach the tests that run after it in this process."""
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))


@pytest.mark.usefixtures("own_registry")
def test_register_refuses_a_taken_name_naming_both_sources() -> None:
    with pytest.raises(
        PluginError, match=r"'greedy' is already registered by durak\.agents\.heuristics\.simple"
    ):
        register("greedy", _Mine, "an impostor")  # type: ignore[arg-type]
    assert registry()["greedy"].source == "durak.agents.heuristics.simple"
    with pytest.raises(TypeError, match="an agent name must be a string, got int"):
        register(123, _Mine, "a number")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a spec name"):
        register("a:b", _Mine, "a colon")  # type: ignore[arg-type]


@pytest.mark.usefixtures("own_registry")
def test_register_replaces_only_when_asked_and_marks_it() -> None:
    register("test-plugins-mine", _Mine, "the first")  # type: ignore[arg-type]
    register("test-plugins-mine", _Mine, "the first")  # type: ignore[arg-type]  # the same: no-op
    with pytest.raises(PluginError, match=f"registered by {__name__}; {__name__} cannot"):
        register("test-plugins-mine", _Fails, "another")  # type: ignore[arg-type]
    register("test-plugins-mine", _Mine, "the second", replace=True)  # type: ignore[arg-type]
    info = registry()["test-plugins-mine"]
    assert (info.description, info.replaced) == ("the second", __name__)
    assert "replacing the agent of" in info.usage()


class _Fails:
    name = "test-plugins-fails"

    def __init__(self) -> None:
        raise RuntimeError("cannot build")

    def act(self, observation: object, rng: object) -> object:
        raise AssertionError("never played")


@pytest.mark.usefixtures("own_registry")
def test_make_agent_names_a_raising_constructor() -> None:
    register("test-plugins-fails", _Fails, "raises when built")  # type: ignore[arg-type]
    with pytest.raises(SpecError, match="test-plugins-fails: the agent could not be built: Runt"):
        make_agent("test-plugins-fails")


def test_the_log_marks_a_replaced_agent_and_resume_tells_the_runs_apart(tmp_path: Path) -> None:
    (tmp_path / "meant.py").write_text(IMPOSTOR.format(replace=", replace=True"), "utf-8")
    log, plain = tmp_path / "meant.jsonl", tmp_path / "plain.jsonl"
    nested = ["match", "solver:fallback=greedy", "random", "-n", "2", "--seed", "1"]
    result = durak(tmp_path, *nested, "--log", str(log), "--agent-module", "meant")
    assert result.returncode == 0, result.stderr
    entries = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    assert len(entries) == 2  # the replaced greedy plays inside the solver's fallback
    assert all(e["replaced"] == {"greedy": "meant (--agent-module)"} for e in entries)
    shown = durak(tmp_path, "replay", str(log), "--game", "0")
    assert "replaced: greedy is the agent registered by meant (--agent-module)" in shown.stdout
    assert durak(tmp_path, *nested, "--log", str(plain)).returncode == 0
    assert all("replaced" not in json.loads(x) for x in plain.read_text("utf-8").splitlines())
    # A log of one implementation is never resumed by a run of the other, either way.
    for path, extra in ((log, ()), (plain, ("--agent-module", "meant"))):
        again = durak(
            tmp_path, *nested[:-4], "-n", "4", "--seed", "1", "--log", str(path), "--resume", *extra
        )
        assert again.returncode == 2, again.stderr
        [line] = [x for x in again.stderr.splitlines() if not x.startswith("note: ")]
        assert line.startswith("error: ") and "refusing to resume" in line, line
        assert "replaced" in line, line


def test_a_tampered_replaced_mark_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "plain.jsonl"
    assert durak(tmp_path, *MATCH[:-4], "-n", "1", "--log", str(log)).returncode == 0
    entry = json.loads(log.read_text("utf-8"))
    for bad in ({}, {"greedy": 3}, ["greedy"], "greedy"):
        log.write_text(json.dumps({**entry, "replaced": bad}) + "\n", "utf-8")
        one_line(durak(tmp_path, "replay", str(log)), "replaced")
