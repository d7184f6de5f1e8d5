"""Every ``console`` and ``python`` block of the README and the docs is run, and every
output they show is compared with a fresh run (the markers are explained in
tests/support/doc_blocks.py; ``make docs-outputs`` regenerates the outputs)."""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.core import TyperGroup

from durak.agents import registry
from durak.agents.inference.inferring import Inferring
from durak.agents.specs import params_of
from durak.cli.app import app
from durak.learn.registry import learners as registered_learners
from durak.rules import Rules
from tests.support.doc_blocks import (
    ROOT,
    RUN_LANGUAGES,
    Block,
    all_blocks,
    commands,
    normalise,
    output_marker,
    run_command,
    run_python,
)

BLOCKS = all_blocks()
RUN = [b for b in BLOCKS if b.language in RUN_LANGUAGES]
RUNNABLE = [b for b in RUN if b.marker is None or b.marker.kind != "skip"]
OUTPUTS = [b for b in BLOCKS if b.marker is not None and b.marker.kind == "output of"]
_OPTION = re.compile(r"(?<![\w-])--?[a-zA-Z][\w-]*")


def test_the_docs_have_blocks_to_run() -> None:
    assert len(RUNNABLE) >= 20, [b.name for b in RUNNABLE]
    assert len(OUTPUTS) >= 3, [b.name for b in OUTPUTS]


def test_every_block_is_run_or_plainly_not_code_to_run() -> None:
    # A shell block in another spelling (```sh, ```bash) would be skipped without a word:
    # commands go in console blocks, which run; listings and records in plain blocks.
    known = {*RUN_LANGUAGES, "", "json", "toml", "nginx"}
    assert [b.name for b in BLOCKS if b.language not in known] == []


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


@dataclass(frozen=True)
class Ran:
    """One command of a block, run (``result`` is ``None`` for a synopsis)."""

    where: str
    argv: list[str]
    result: subprocess.CompletedProcess[str] | None
    shown: list[str]
    cwd: Path


def run_block(block: Block, cwd: Path) -> list[Ran]:
    """Run ``block`` (scaled) in ``cwd``: a python block as a script, a console block's
    commands one after another."""
    text = block.scaled()
    if block.language == "python":
        return [Ran(block.name, [], run_python(text, cwd), [], cwd)]
    ran = []
    for command in commands(text):
        where = f"{block.name}: $ {command.line}"
        result = None if command.synopsis else run_command(command.argv, cwd)
        ran.append(Ran(where, command.argv, result, command.output, cwd))
    return ran


def run_output(block: Block, cwd: Path) -> Ran:
    """Run the command of an ``output of:`` block (scaled, for a shape comparison)."""
    command, scale, _ = output_marker(block)
    for old, new in scale:
        assert old in command, f"{block.name}: {old!r} is not in {command!r}"
        command = command.replace(old, new)
    argv = shlex.split(command)
    return Ran(f"{block.name}: {command}", argv, run_command(argv, cwd), [], cwd)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Future[Any]]]:
    """Every block, run two at a time (each in a directory of its own, so they are
    independent): the blocks' commands mostly wait on process start-up and imports."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures: dict[str, Future[Any]] = {}
        for b in RUNNABLE:
            futures[b.name] = pool.submit(run_block, b, tmp_path_factory.mktemp("doc"))
        for b in OUTPUTS:
            futures[b.name] = pool.submit(run_output, b, tmp_path_factory.mktemp("out"))
        yield futures
        for f in futures.values():
            f.cancel()


@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: b.name)
def test_a_block_runs(block: Block, runs: dict[str, Future[list[Ran]]]) -> None:
    for ran in runs[block.name].result():
        if ran.result is None:
            check_synopsis(ran.argv, ran.where)
            continue
        result = ran.result
        assert result.returncode == 0, f"{ran.where}\n{result.stderr[-3000:]}"
        got = normalise(result.stdout + result.stderr, ran.cwd)
        for line in normalise("\n".join(ran.shown)):
            assert line in got, f"{ran.where}: does not print {line!r}; it prints:\n" + "\n".join(
                got
            )


@pytest.mark.parametrize("block", OUTPUTS, ids=lambda b: b.name)
def test_a_shown_output_is_what_the_command_prints(
    block: Block, runs: dict[str, Future[Ran]]
) -> None:
    ran = runs[block.name].result()
    assert ran.result is not None
    assert ran.result.returncode == 0, f"{ran.where}\n{ran.result.stderr[-3000:]}"
    _, _, shape = output_marker(block)
    got = normalise(ran.result.stdout, ran.cwd, shape)
    shown = normalise(block.text, shape=shape)
    assert got == shown, f"{ran.where}: run make docs-outputs"


def test_the_command_table_of_the_cli_doc_lists_every_command() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    table = text[
        text.index("| command | what it does |") : text.index("\n\n", text.index("| command |"))
    ]
    listed = set(re.findall(r"\[`durak (\w+)`\]", table))
    assert listed == set(cli_commands())
    train = next(line for line in table.splitlines() if "durak train`]" in line)
    for learner in registered_learners():
        assert f"`{learner}`" in train, train


def test_the_agent_table_names_every_parameter_of_every_agent() -> None:
    text = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    rows: dict[str, str] = {}
    for m in re.finditer(r"^\| `(\w+)` \|.*$", text, re.MULTILINE):
        rows.setdefault(m[1], m[0])  # the agent table comes first; later tables reuse names
    # Below the table: "Every search agent ... takes `seconds=`, a time budget per decision".
    assert "takes\n`seconds=`" in text or "takes `seconds=`" in text
    common = {"seconds"}
    # Below the table too: the inference options that four search agents share.
    inference = [p.name for p in params_of(Inferring)]
    shared = re.search(r"also take the inference options\s+((?:`\w+=`[,\s]*(?:and\s+)?)+)", text)
    assert shared is not None
    assert re.findall(r"`(\w+)=`", shared[1]) == list(inference)
    common |= set(inference)
    for name, info in registry().items():
        if name not in rows:
            continue  # agents documented elsewhere (the learners', in learning.md)
        missing = [
            p.name
            for p in info.params
            if p.name not in common and not re.search(rf"[`:,]{p.name}\b", rows[name])
        ]
        assert not missing, f"docs/agents.md's {name} row omits {missing}"


def test_the_observation_sizes_in_the_encoding_doc_are_built_as_stated() -> None:
    from durak.encoding import observation_size  # noqa: PLC0415 - needs numpy (the rl extra)

    text = (ROOT / "docs" / "encoding.md").read_text(encoding="utf-8")
    start = text.index("| players | 24 cards | 36 cards | 52 cards |")
    rows = text[start : text.index("\n\n", start)].splitlines()[2:]
    assert len(rows) >= 2
    for row in rows:
        players, *cells = (c.strip() for c in row.strip("|").split("|"))
        for lowest, cell in zip((9, 6, 2), cells, strict=True):
            size = int(cell.split()[0])
            extra = re.search(r"`hand_size=(\d+)`", cell)
            hand = Rules().hand_size if extra is None else int(extra[1])
            rules = Rules(players=int(players), lowest_rank=lowest, hand_size=hand)
            assert observation_size(rules) == size, row
