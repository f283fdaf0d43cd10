"""Reporters: pure functions of (findings, device status) to text. One module per format."""

from __future__ import annotations

import os
from pathlib import Path


def display_path(file: str | None, base: Path | None = None) -> str | None:
    """Show ``file`` relative to ``base`` (default: the working directory) when inside it."""
    if file is None:
        return None
    base = base or Path.cwd()
    try:
        rel = Path(file).resolve().relative_to(base.resolve())
    except ValueError:
        return file
    return rel.as_posix() if os.sep == "/" else str(rel).replace(os.sep, "/")
