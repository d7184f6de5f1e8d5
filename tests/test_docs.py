"""Every ``console`` and ``python`` block of the README and the docs is run, and every
output they show is compared with a fresh run (the markers are explained in
tests/doc_blocks.py; ``make docs-outputs`` regenerates the outputs)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.core import TyperGroup

from doc_blocks import (
    RUN_LANGUAGES,
    Block,
    all_blocks,
    commands,
    normalise,
    output_marker,
    run_command,
    run_python,
)
from durak.cli.app import app

BLOCKS = all_blocks()
RUN = [b for b in BLOCKS if b.language in RUN_LANGUAGES]
RUNNABLE = [b for b in RUN if b.marker is None or b.marker.kind != "skip"]
OUTPUTS = [b for b in BLOCKS if b.marker is not None and b.marker.kind == "output of"]
_OPTION = re.compile(r"(?<![\w-])--?[a-zA-Z][\w-]*")


def test_the_docs_have_blocks_to_run() -> None:
    assert len(RUNNABLE) >= 20, [b.name for b in RUNNABLE]
    assert len(OUTPUTS) >= 3, [b.name for b in OUTPUTS]


@pytest.mark.parametrize("block", RUN, ids=lambda b: b.name)
def test_a_block_not_run_says_why(block: Block) -> None:
    if block.marker is not None and block.marker.kind == "skip":
        assert len(block.marker.body.split()) >= 3, f"{block.name}: skipped without a reason"
    elif block.language == "console":
        assert commands(block.text), f"{block.name}: a console block without a $ command"


def cli_commands() -> dict[str, Any]:
    """The click commands of ``durak``, by name."""
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    return dict(group.commands)


def check_synopsis(argv: list[str], where: str) -> None:
    """The command of a synopsis exists and takes every option it names."""
    assert argv[0] == "durak", where
    command = cli_commands().get(argv[1])
    assert command is not None, f"{where}: no command durak {argv[1]}"
    known = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
    named = set(_OPTION.findall(" ".join(argv[2:])))
    assert named <= known, f"{where}: durak {argv[1]} has no {sorted(named - known)}"


@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: b.name)
def test_a_block_runs(block: Block, tmp_path: Path) -> None:
    text = block.scaled()
    if block.language == "python":
        result = run_python(text, tmp_path)
        assert result.returncode == 0, f"{block.name}:\n{result.stderr[-3000:]}"
        return
    for command in commands(text):
        where = f"{block.name}: $ {command.line}"
        if command.synopsis:
            check_synopsis(command.argv, where)
            continue
        result = run_command(command.argv, tmp_path)
        assert result.returncode == 0, f"{where}\n{result.stderr[-3000:]}"
        got = normalise(result.stdout + result.stderr, tmp_path)
        for line in normalise("\n".join(command.output)):
            assert line in got, f"{where}: does not print {line!r}; it prints:\n" + "\n".join(got)


@pytest.mark.parametrize("block", OUTPUTS, ids=lambda b: b.name)
def test_a_shown_output_is_what_the_command_prints(block: Block, tmp_path: Path) -> None:
    command, scale, shape = output_marker(block)
    for old, new in scale:
        assert old in command, f"{block.name}: {old!r} is not in {command!r}"
        command = command.replace(old, new)
    result = run_command(shlex.split(command), tmp_path)
    assert result.returncode == 0, f"{block.name}: {command}\n{result.stderr[-3000:]}"
    got = normalise(result.stdout, tmp_path, shape)
    shown = normalise(block.text, shape=shape)
    assert got == shown, f"{block.name}: run make docs-outputs ({command})"
