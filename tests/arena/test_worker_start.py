"""A script that runs a match at import time, without ``if __name__ == "__main__":``, is
started again by every worker process as it imports the script; the run says so in one
line instead of looping (each worker failing on the parent's log lock, forever)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.doc_blocks import run

UNGUARDED = """
from durak.arena.runs.pool import LocalPool
from durak.arena.runs.run import run_match
from durak.rules import Rules

run_match(Rules(), ["greedy", "random"], games=20, seed=1, backend=LocalPool(jobs=2),
          log="run.jsonl")
"""


def test_a_script_without_a_main_guard_is_told_so(tmp_path: Path) -> None:
    (tmp_path / "script.py").write_text(UNGUARDED, encoding="utf-8")
    result = run([sys.executable, "script.py"], tmp_path, timeout=120)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert 'if __name__ == "__main__":' in last, result.stderr[-2000:]
    assert result.stderr.count("Traceback") == 1, result.stderr[-2000:]
    assert "in use by another run" not in result.stderr
