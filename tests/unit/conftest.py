"""Fixtures shared by the unit tests of the parse cache."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from rocetune import load


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
