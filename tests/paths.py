"""Where the tests' data lives, relative to this checkout (never an absolute machine path)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The repository root."""
CORPUS = ROOT / "tests" / "corpus"
"""Real configs and command outputs written by others; provenance in ``SOURCES.md`` there."""
