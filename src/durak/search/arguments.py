"""A search's arguments: the error a bad one raises, and the ``rng`` every search takes.

* :class:`SearchError`: bad input to any search of :mod:`durak.search` (a terminal root,
  a missing evaluator, a bad setting or budget); a ``ValueError``.
* :func:`as_rng`: the ``rng`` argument (a ``random.Random``, or an int seed) as a
  generator; never Python's global random state, so a search is reproducible from its seed.
"""

from __future__ import annotations

import random


class SearchError(ValueError):
    """Bad input to a search: a terminal root, a missing evaluator, a bad setting."""


def as_rng(rng: random.Random | int) -> random.Random:
    """``rng`` itself, or a new generator seeded with the int ``rng``; never global state."""
    if isinstance(rng, random.Random):
        return rng
    if isinstance(rng, int) and not isinstance(rng, bool):
        return random.Random(rng)
    raise SearchError(f"rng must be a random.Random or an int seed, got {rng!r}")
