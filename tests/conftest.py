"""Hypothesis profiles for the verification suites.

* ``default`` (CI): 200 examples per property; every suite together takes about a minute
  on a two-core machine.
* ``thorough``: thousands of examples per property, for a long local or nightly run.
* ``mutation``: 40 derandomized examples per property, for ``make mutation``.

Select one with the environment variable ``HYPOTHESIS_PROFILE`` (default ``default``), e.g.
``HYPOTHESIS_PROFILE=thorough .venv/bin/pytest tests/test_properties.py``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=2500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# Mutation runs (`make mutation`): the same examples every time, so that whether a mutant
# is killed never depends on luck, and few enough for thousands of runs.
settings.register_profile(
    "mutation",
    max_examples=40,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
