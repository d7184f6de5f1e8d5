"""docs/agents.md, "Write your own agent": the module and pyproject.toml shown there, built
and installed in a temporary directory (never into the test's environment), give an agent
that ``durak match mine greedy`` plays."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.doc_blocks import ROOT, Block, blocks, commands, durak_script, environment, run


def _section_blocks() -> list[Block]:
    doc = ROOT / "docs" / "agents.md"
    text = doc.read_text(encoding="utf-8")
    start = text.index("## Write your own agent")
    end = text.index("\n## ", start + 1)
    first, last = text[:start].count("\n") + 1, text[:end].count("\n") + 1
    return [b for b in blocks(doc) if first <= b.line <= last]


def test_the_documented_agent_installs_and_plays(tmp_path: Path) -> None:
    shown = {b.language: b.text for b in _section_blocks()}
    package = tmp_path / "mine"
    package.mkdir()
    (package / "mine.py").write_text(shown["python"], encoding="utf-8")
    (package / "pyproject.toml").write_text(shown["toml"], encoding="utf-8")
    site = tmp_path / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", "--disable-pip-version-check", "--target", str(site),
         str(package)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr
    env = environment()
    env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
    match = subprocess.run(
        [durak_script(), "match", "mine", "greedy", "-n", "4", "--seed", "1", "-j", "1"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert match.returncode == 0, match.stderr
    assert "match: mine vs greedy" in match.stdout
    rows = [line for line in match.stdout.splitlines() if "│ 0 │ mine" in line]
    assert len(rows) == 1, match.stdout
    listed = subprocess.run(
        [durak_script(), "agents", "mine"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert "plays its last legal action" in listed.stdout, listed.stdout + listed.stderr


def test_the_documented_agent_plays_through_agent_module(tmp_path: Path) -> None:
    shown = _section_blocks()
    (tmp_path / "mine.py").write_text(
        next(b.text for b in shown if b.language == "python"), encoding="utf-8"
    )
    command = next(c for b in shown if b.language == "console" for c in commands(b.text))
    assert "--agent-module mine" in command.line
    # fewer games, on two worker processes: they must find the agent too
    argv = [*command.argv[1:], "-j", "2"]
    argv[argv.index("-n") + 1] = "4"
    match = run([durak_script(), *argv], tmp_path)
    assert match.returncode == 0, match.stderr
    assert "runs on: local pool, 2 processes" in match.stdout
    assert "│ 0 │ mine" in match.stdout
    missing = run([durak_script(), "match", "mine", "greedy", "--agent-module", "nosuch"], tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.splitlines() == ["error: --agent-module nosuch: No module named 'nosuch'"]
