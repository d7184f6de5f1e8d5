"""The code blocks of ``README.md`` and ``docs/*.md``: found, run, and compared with the
output the docs show (tests/project/test_docs.py runs them; ``make docs-outputs`` rewrites the
shown outputs from fresh runs: ``python tests/support/doc_blocks.py --write``).

A block is steered by an HTML comment on the line just before it, invisible on GitHub:

* ``<!-- doctest: skip: REASON -->``: the block is not run, for the reason given;
* ``<!-- doctest: scale: OLD => NEW; OLD2 => NEW2 -->``: the block is run with each
  ``OLD`` text replaced by ``NEW`` (fewer games, say); every ``OLD`` must occur;
* ``<!-- doctest: output of: COMMAND -->`` before a plain block: the block is what
  ``COMMAND`` prints, compared after :func:`normalise` (times, paths and the columns
  that depend on the machine are masked, and table borders ignored); ``... [shape]`` at
  the end of the marker compares only the shape (every number masked), for runs too
  long for the test, which are then run with ``scale:`` pairs given after ``|``.

In a ``console`` block every ``$ durak ...`` line is a command; its ``# comment`` is
dropped.  A line with a placeholder (``SPEC``, ``FILE.jsonl``, ``[options]``) is a
synopsis: it is not run, but its command and options must exist.  The lines after a
command that do not start with ``$`` are (part of) its output.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
RUN_LANGUAGES = ("console", "python")
_MARKER = re.compile(r"^<!-- doctest: (?P<kind>skip|scale|output of): ?(?P<body>.*?) ?-->$")
_PLACEHOLDER = re.compile(r"(?<![\w$={])[A-Z][A-Z_-]*[A-Z](?:\.\w+)?\b|\[|\.\.\.")


@dataclass(frozen=True)
class Marker:
    """A ``<!-- doctest: KIND: BODY -->`` comment."""

    kind: str
    body: str

    def substitutions(self) -> list[tuple[str, str]]:
        """The ``OLD => NEW`` pairs of a ``scale:`` body."""
        pairs = []
        for part in self.body.split(";"):
            old, sep, new = part.partition("=>")
            if not sep:
                raise ValueError(f"scale marker {self.body!r}: {part!r} has no '=>'")
            pairs.append((old.strip(), new.strip()))
        return pairs


@dataclass(frozen=True)
class Block:
    """A fenced code block of a doc, with the marker just before it."""

    path: Path
    line: int  # of the opening fence, 1-based
    language: str
    text: str
    marker: Marker | None

    @property
    def name(self) -> str:
        """``docs/cli.md:141``."""
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    def scaled(self) -> str:
        """The text to run: with the ``scale:`` substitutions made."""
        text = self.text
        if self.marker is not None and self.marker.kind == "scale":
            for old, new in self.marker.substitutions():
                if old not in text:
                    raise ValueError(f"{self.name}: the scale marker's {old!r} is not in the block")
                text = text.replace(old, new)
        return text


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of ``path`` in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        language = lines[i][3:].strip()
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        marker = None
        before = lines[i - 1].strip() if i > 0 else ""
        match = _MARKER.match(before)
        if match:
            marker = Marker(match["kind"], match["body"])
        elif before.startswith("<!-- doctest"):
            raise ValueError(f"{path}:{i}: malformed doctest marker {before!r}")
        found.append(Block(path, i + 1, language, "\n".join(lines[i + 1 : end]) + "\n", marker))
        i = end + 1
    return found


def all_blocks() -> list[Block]:
    """Every block of the README and the docs."""
    return [b for path in DOCS for b in blocks(path)]


@dataclass
class Command:
    """One ``$`` line of a console block and the output lines shown after it."""

    line: str
    output: list[str] = field(default_factory=list)

    @property
    def argv(self) -> list[str]:
        """The words, without the comment."""
        return shlex.split(self.line, comments=True)

    @property
    def synopsis(self) -> bool:
        """A usage line with placeholders, not a command to run."""
        return bool(_PLACEHOLDER.search(" ".join(self.argv)))


def commands(text: str) -> list[Command]:
    """The ``$`` commands of a console block; indented lines continue a synopsis."""
    found: list[Command] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            found.append(Command(line[2:]))
        elif found and line.startswith(" ") and found[-1].synopsis and not found[-1].output:
            found[-1].line += " " + line.strip()
        elif found and line.strip():
            found[-1].output.append(line)
    return found


def environment() -> dict[str, str]:
    """The environment of a doc command: this checkout's code, no terminal, no colour."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), env.get("PYTHONPATH")) if p)
    env["COLUMNS"] = "200"
    env.pop("RAY_ADDRESS", None)
    return env


def durak_script() -> str:
    """The ``durak`` script of this interpreter's environment."""
    return str(Path(sys.executable).parent / "durak")


def run(argv: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in ``cwd`` with the docs' environment and no input."""
    return subprocess.run(
        argv,
        cwd=cwd,
        env=environment(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def run_command(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a ``durak ...`` command in ``cwd``."""
    if argv[0] != "durak":
        raise ValueError(f"only durak commands run in the docs, not {argv[0]!r}")
    return run([durak_script(), *argv[1:]], cwd)


def run_python(source: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``source`` as a script (``python doc_block.py``) in ``cwd``."""
    script = cwd / "doc_block.py"
    script.write_text(source, encoding="utf-8")
    return run([sys.executable, script.name], cwd)


# Machine-dependent table columns, masked by normalise().
_MACHINE_COLUMNS = ("ms/move", "max ms")
_BORDER = re.compile(r"^[\s━─┏┓┗┛┡┩└┘┌┐╇┳┻┼┬┴╋├┤┣┫+=|-]*$")
_CELLS = re.compile(r"[│┃]")
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def normalise(text: str, cwd: Path | None = None, shape: bool = False) -> list[str]:
    """The lines of a command's output that do not depend on the machine: table rows as
    their stripped cells (borders dropped, the ``ms/move`` and ``max ms`` cells masked),
    the ``time:`` line masked after its label, ``cwd`` removed from paths; with ``shape``,
    every number masked too."""
    out: list[str] = []
    masked: set[int] = set()
    for raw in text.splitlines():
        line = raw.rstrip()
        if cwd is not None:
            line = line.replace(f"{cwd}{os.sep}", "")
        if not line.strip() or _BORDER.match(line):
            continue
        if _CELLS.search(line):
            cells = [c.strip() for c in _CELLS.split(line)[1:-1]]
            if any(c in _MACHINE_COLUMNS for c in cells):
                masked = {i for i, c in enumerate(cells) if c in _MACHINE_COLUMNS}
            else:
                cells = ["*" if i in masked else c for i, c in enumerate(cells)]
            line = " | ".join(cells)
        else:
            masked = set()
        if line.startswith(("time:", "trained:")):
            line = line.split(":")[0] + ": *"
        elif line.startswith("runs on: local pool,"):
            line = "runs on: local pool, * processes"  # the machine's cores
        if shape:
            line = _NUMBER.sub("#", line)
        out.append(line)
    return out


def output_marker(block: Block) -> tuple[str, list[tuple[str, str]], bool]:
    """The command of an ``output of:`` marker, its scale pairs and whether only the shape
    is compared."""
    assert block.marker is not None
    body, _, scale = block.marker.body.partition("|")
    body = body.strip().strip("`")
    shape = body.endswith("[shape]")
    command = body.removesuffix("[shape]").strip().strip("`")
    pairs = Marker("scale", scale).substitutions() if scale.strip() else []
    return command, pairs, shape


def write_outputs(cwd: Path) -> None:
    """Rewrite every ``output of:`` block from a fresh, full run of its command."""
    for path in DOCS:
        lines = path.read_text(encoding="utf-8").splitlines()
        for block in reversed(blocks(path)):
            if block.marker is None or block.marker.kind != "output of":
                continue
            command, _, _ = output_marker(block)
            result = run_command(shlex.split(command), cwd)
            if result.returncode != 0:
                raise SystemExit(f"{block.name}: {command} failed:\n{result.stderr}")
            shown = [
                line.rstrip().replace(f"{cwd}{os.sep}", "") for line in result.stdout.splitlines()
            ]
            end = block.line + len(block.text.splitlines())
            lines[block.line : end] = shown
            print(f"{block.name}: {command}")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    import tempfile

    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python tests/support/doc_blocks.py --write")
    with tempfile.TemporaryDirectory() as tmp:
        write_outputs(Path(tmp))
