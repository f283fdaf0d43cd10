"""Helpers to run the real CLI in a subprocess (as a user would)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Run:
    code: int
    out: str
    err: str


def run_cli(*args: str | Path, cwd: Path = ROOT) -> Run:
    proc = subprocess.run(
        [sys.executable, "-m", "rocetune", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
        timeout=120,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def cli() -> type[Run]:
    return Run
