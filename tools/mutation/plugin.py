"""The pytest plugin of the traced baseline run (``-p mutation.plugin``): which of the
mutated functions (:mod:`mutation.target`) each test reaches, and how long it takes.

It records only while ``DURAK_MUTATION_TRACE`` names a file, and writes there at the end
of the session a JSON object ``{test id: [seconds, [scope, ...]]}``, scopes named as by
:func:`mutation.trace.scope_name` (none under ``DURAK_MUTATION_UNTRACED``: the tests are
only timed).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mutation import target
from mutation.trace import rules_calls, scope_name

_TRACE: dict[str, tuple[float, list[str]]] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """Record the mutated functions each test calls (in setup, call and teardown)."""
    if not os.environ.get("DURAK_MUTATION_TRACE"):
        yield
        return
    # A cached function runs only for the first test that calls it with given arguments:
    # start each test with empty caches, so that every test that reaches one is recorded.
    for name, module in list(sys.modules.items()):
        if target.covers(name):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()
    began = time.perf_counter()
    if os.environ.get("DURAK_MUTATION_UNTRACED"):  # timed only: the reach is mutmut's
        yield
        _TRACE[item.nodeid] = (time.perf_counter() - began, [])
        return
    with rules_calls() as seen:
        yield
    scopes = {scope_name(filename, qualname) for filename, qualname in seen}
    _TRACE[item.nodeid] = (time.perf_counter() - began, sorted(scopes))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the trace of the baseline run."""
    path = os.environ.get("DURAK_MUTATION_TRACE")
    if path:
        Path(path).write_text(json.dumps(_TRACE), encoding="utf-8")
