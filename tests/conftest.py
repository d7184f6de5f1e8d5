"""Hypothesis profiles for the verification suites.

* ``default`` (CI): 200 examples per property; every suite together takes about a minute
  on a two-core machine.
* ``thorough``: thousands of examples per property, for a long local or nightly run.

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
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
