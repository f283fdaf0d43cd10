"""Test-wide settings: the lab and fuzz suites are marked ``slow``.

The inner loop is ``pytest -m "not slow"``; CI (``.ci/run``) runs everything.
"""

from __future__ import annotations

from pathlib import Path

import pytest

_SLOW_DIRS = ("lab", "fuzz")
_TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test under tests/lab and tests/fuzz as slow."""
    for item in items:
        parts = item.path.resolve().relative_to(_TESTS).parts if item.path else ()
        if parts and parts[0] in _SLOW_DIRS:
            item.add_marker(pytest.mark.slow)
