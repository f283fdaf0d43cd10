"""Test-wide settings: the lab and fuzz suites are marked ``slow``.

The inner loop is ``pytest -m "not slow"``; CI (``.ci/run``) runs everything.
"""

from __future__ import annotations

import itertools
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


_CACHES = itertools.count()


@pytest.fixture(autouse=True)
def _own_parse_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Each test's CLI runs get a parse cache of their own (rocetune.parsecache), so a test
    never reads another test's entries (e.g. one that replaced a parser) and the source
    tree gets no ``.rocetune_cache``. The directory is created only when a run writes."""
    path = tmp_path_factory.getbasetemp() / f"rocetune-cache-{next(_CACHES)}"
    monkeypatch.setenv("ROCETUNE_CACHE_DIR", str(path))
    # the key that authenticates pickled entries (rocetune.cacheauth): not the user's own
    key = tmp_path_factory.getbasetemp() / "rocetune-cache-key" / "key"
    monkeypatch.setenv("ROCETUNE_CACHE_KEY_FILE", str(key))
