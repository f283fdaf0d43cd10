"""Fixtures shared by the unit tests of the parse cache."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rocetune import load
from tests.paths import ROOT


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The device names parsed (cache misses reach the platform parser)."""
    seen: list[str] = []
    real: Callable[..., Any] = load._parse

    def counting(driver: Any, snap: Any, name: str, role: str | None) -> Any:
        seen.append(name)
        return real(driver, snap, name, role)

    monkeypatch.setattr(load, "_parse", counting)
    return seen


@pytest.fixture
def no_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No usable cache key (a directory where the key file would be): JSON entries."""
    from rocetune import cacheauth

    (tmp_path / "key-is-a-directory").mkdir()
    monkeypatch.setenv(cacheauth.ENV_KEY_FILE, str(tmp_path / "key-is-a-directory"))
    cacheauth.secret.cache_clear()
    yield
    cacheauth.secret.cache_clear()


@pytest.fixture
def lab(tmp_path: Path) -> Path:
    """A copy of the lab whose files the test may change (its inventory)."""
    shutil.copytree(ROOT / "inventories" / "lab", tmp_path / "lab")
    return tmp_path / "lab" / "inventory.yaml"
