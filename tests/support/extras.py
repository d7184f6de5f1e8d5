"""Optional dependencies in the tests: skipped where they are missing, except under
``make test``, which installs every extra and sets ``DURAK_REQUIRE_EXTRAS=1`` so that a
missing one fails the run instead of silently skipping its tests."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def require_extra(module: str) -> ModuleType:
    """``module`` imported; without it a skip, or a failure when extras are required."""
    if os.environ.get("DURAK_REQUIRE_EXTRAS") == "1":
        try:
            return importlib.import_module(module)
        except ImportError as e:
            pytest.fail(f"{module} is required here (DURAK_REQUIRE_EXTRAS=1): {e}", pytrace=False)
    skipped: ModuleType = pytest.importorskip(module)
    return skipped
