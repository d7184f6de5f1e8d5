"""Checks shared by the command-line tests."""

from __future__ import annotations

from typer.testing import Result


def one_error(result: Result, *words: str) -> None:
    """Exit 2, one ``error:`` line naming the problem (every one of ``words``), no
    traceback."""
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    for word in words:
        assert word in errors[0], errors[0]
    assert "Traceback" not in result.output
