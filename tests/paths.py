"""Where the tests' data lives, relative to this checkout (never an absolute machine path)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The repository root."""
CORPUS = ROOT / "tests" / "corpus"
"""Real configs and command outputs written by others; provenance in ``SOURCES.md`` there."""


def bundles(cache_dir: Path) -> Path:
    """Where a parse cache keeps its audits' bundles (rocetune.parsebundle): a test of the
    entries themselves removes them, so that the entries answer."""
    from rocetune.parsecache import CACHE_VERSION

    return cache_dir / CACHE_VERSION / "bundles"
