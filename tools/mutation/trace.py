"""Which functions of the code mutated (``durak.rules`` or another target,
:mod:`mutation.target`) run: a profiler of their calls, and the names it gives them, the
mutator's scope names.

Invariant: :func:`scope_name` names a code object as the mutator names the scope of its
mutants (``tests/project/test_mutation_extra.py`` checks it for every function with mutants): a
function named otherwise would be reached by no test in the run's eyes.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from mutation import target

#: The folder of the durak package in a path.
DURAK = "/durak/"


def module_of(filename: str) -> str | None:
    """The dotted module of a file of the durak package (``durak.rules.cards``,
    ``durak.rules.__init__``), ``None`` for any other file."""
    posix = Path(filename).as_posix()
    if DURAK not in posix or not posix.endswith(".py"):
        return None
    return "durak." + posix.rsplit(DURAK, 1)[1].removesuffix(".py").replace("/", ".")


@contextmanager
def rules_calls() -> Iterator[set[tuple[str, str]]]:
    """Within the block, the set of ``(file name, qualified name)`` of the mutated code's
    objects called in this thread (filled as they are called)."""
    seen: set[tuple[str, str]] = set()
    mutated: dict[str, bool] = {}  # by file name: the profiler sees every call

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event != "call":
            return
        filename = frame.f_code.co_filename
        inside = mutated.get(filename)
        if inside is None:
            module = module_of(filename)
            inside = mutated[filename] = module is not None and target.covers(module)
        if inside:
            seen.add((filename, frame.f_code.co_qualname))

    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(None)


def scope_name(filename: str, qualname: str) -> str:
    """``durak.package.module:scope`` as the mutator names it, for a code object of the
    durak package: nested functions are ``outer.inner``; comprehensions and lambdas
    belong to their function."""
    module = module_of(filename)
    assert module is not None, filename
    parts = [p for p in qualname.split(".") if p != "<locals>"]
    while len(parts) > 1 and parts[-1].startswith("<"):
        parts.pop()
    return f"{module}:{'.'.join(parts)}"


def trace_import(modules: list[str]) -> None:
    """Import ``modules`` under the profiler and print the mutated scopes called, as JSON
    (run in a fresh interpreter by :func:`mutation.runner.import_scopes`)."""
    with rules_calls() as seen:
        for name in modules:
            importlib.import_module(name)
    print(json.dumps(sorted({scope_name(filename, qualname) for filename, qualname in seen})))
