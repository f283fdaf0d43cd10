"""Shared helpers for the Onyx driver tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

from rocetune.platforms.base import ParseResult
from rocetune.platforms.onyx import PLATFORM as ONYX
from rocetune.platforms.onyx.commands import RUNNING_CONFIG
from rocetune.snapshot import Snapshot, SourceFile

REALWORLD = Path(__file__).resolve().parents[2] / "realworld" / "configs" / "onyx"
DRIVER = ONYX


def parse_text(text: str, name: str = "run.txt") -> ParseResult:
    """Parse running-config text (dedented; its first line is line 1)."""
    body = textwrap.dedent(text).lstrip("\n")
    files = {RUNNING_CONFIG.filename: SourceFile(path=name, text=body)}
    return DRIVER.parse(Snapshot(files=files), "sw1", "leaf")
