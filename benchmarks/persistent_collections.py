"""What growing a small set or sequence costs: the figures behind the state's plain
``frozenset``/tuple fields and its :class:`~durak.rules.history.History` (``docs/rules.md``,
"What the state holds").

    .venv/bin/python benchmarks/persistent_collections.py

``pyrsistent`` is not a dependency: its rows are printed only if it is installed (for
example ``pip install pyrsistent`` in a throwaway environment).
"""

from __future__ import annotations

import functools
import importlib
import timeit
from collections.abc import Callable

from durak.rules.history import History

NUMBER = 100_000


def nanoseconds(fn: Callable[[], object]) -> float:
    """The best of five timings of ``fn``, in nanoseconds per call."""
    return min(timeit.repeat(fn, number=NUMBER, repeat=5)) / NUMBER * 1e9


def grow_history(n: int) -> History:
    """A history of ``n`` keys, each added at the tip."""
    h = History()
    for i in range(n):
        h = h.add((i,))
    return h


def grow_frozenset(n: int) -> frozenset[tuple[int]]:
    """A frozenset of ``n`` keys, copied at each addition."""
    s: frozenset[tuple[int]] = frozenset()
    for i in range(n):
        s = s | {(i,)}
    return s


def main() -> None:
    """Print the cost of one addition to an 8-element collection, and of growing one record
    to 8 and to 2,000 keys."""
    eight = frozenset(range(8))
    row = tuple(range(8))
    print(f"frozenset | {{x}} (8 elements): {nanoseconds(lambda: eight | {99}):.0f} ns")
    print(f"tuple + (x,) (8 elements): {nanoseconds(lambda: (*row, 99)):.0f} ns")
    try:
        pyrsistent = importlib.import_module("pyrsistent")
    except ImportError:
        print("pyrsistent: not installed (its rows are skipped)")
    else:
        pset, pvector = pyrsistent.pset(range(8)), pyrsistent.pvector(range(8))
        print(f"pset.add (8 elements): {nanoseconds(lambda: pset.add(99)):.0f} ns")
        print(f"pvector.append (8 elements): {nanoseconds(lambda: pvector.append(99)):.0f} ns")
    for n in (8, 2000):
        history = min(timeit.repeat(functools.partial(grow_history, n), number=20, repeat=3)) / 20
        copied = min(timeit.repeat(functools.partial(grow_frozenset, n), number=20, repeat=3)) / 20
        print(
            f"a record of {n:,} keys: History {history * 1e6:,.0f} µs, "
            f"frozenset copied at each bout {copied * 1e6:,.0f} µs"
        )


if __name__ == "__main__":
    main()
