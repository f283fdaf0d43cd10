"""Shared fixtures for the SONiC driver tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rocetune.platforms.base import ParseResult
from rocetune.platforms.sonic import PLATFORM as SONIC
from rocetune.platforms.sonic.commands import CONFIG_DB
from rocetune.snapshot import Snapshot, SourceFile

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sonic"


def snapshot_of(text: str, path: str = "config_db.json") -> Snapshot:
    """A snapshot holding ``text`` as the config_db output."""
    return Snapshot(files={CONFIG_DB.filename: SourceFile(path=path, text=text)}, origin=path)


@pytest.fixture
def parse_config() -> Callable[[str], ParseResult]:
    """Parse CONFIG_DB text through the driver (file name ``config_db.json``)."""

    def run(text: str) -> ParseResult:
        return SONIC.parse(snapshot_of(text), "sw1", "leaf")

    return run


@pytest.fixture
def parse_fixture() -> Callable[[str], ParseResult]:
    """Parse a file of tests/fixtures/sonic through the driver."""

    def run(name: str) -> ParseResult:
        path = FIXTURES / name
        return SONIC.parse(snapshot_of(path.read_text(), str(path)), "sw1", "leaf")

    return run
