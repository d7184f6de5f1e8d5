"""Which functions of ``durak.rules`` run: a profiler of the rules' calls, and the names it
gives them, the mutator's scope names.

Invariant: :func:`scope_name` names a code object as the mutator names the scope of its
mutants (``tests/project/test_mutation_extra.py`` checks it for every function with mutants): a
function named otherwise would be reached by no test in the run's eyes.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

#: A fragment of every path below the rules package.
RULES = os.sep + os.path.join("durak", "rules") + os.sep


@contextmanager
def rules_calls() -> Iterator[set[tuple[str, str]]]:
    """Within the block, the set of ``(file name, qualified name)`` of the rules' code
    objects called in this thread (filled as they are called)."""
    seen: set[tuple[str, str]] = set()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and RULES in frame.f_code.co_filename:
            seen.add((frame.f_code.co_filename, frame.f_code.co_qualname))

    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(None)


def scope_name(filename: str, qualname: str) -> str:
    """``durak.rules.module:scope`` as the mutator names it, for a code object: nested
    functions are ``outer.inner``; comprehensions and lambdas belong to their function."""
    inner = Path(filename).as_posix().rsplit("/durak/rules/", 1)[1]
    module = "durak.rules." + inner.removesuffix(".py").replace("/", ".")
    parts = [p for p in qualname.split(".") if p != "<locals>"]
    while len(parts) > 1 and parts[-1].startswith("<"):
        parts.pop()
    return f"{module}:{'.'.join(parts)}"


def trace_import(modules: list[str]) -> None:
    """Import ``modules`` under the profiler and print the rules' scopes called, as JSON
    (run in a fresh interpreter by :func:`mutation.runner.import_scopes`)."""
    with rules_calls() as seen:
        for name in modules:
            importlib.import_module(name)
    print(json.dumps(sorted({scope_name(filename, qualname) for filename, qualname in seen})))
