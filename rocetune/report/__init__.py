"""Reporters: pure functions of (findings, device status) to text. One module per format."""

from __future__ import annotations

import importlib
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rocetune.model import AuditResult

FORMATS: dict[str, str] = {
    "text": "rocetune.report.text",
    "json": "rocetune.report.json",
    "sarif": "rocetune.report.sarif",
    "junit": "rocetune.report.junit",
    "github": "rocetune.report.github",
    "html": "rocetune.report.html",
    "markdown": "rocetune.report.markdown",
}
"""Output format name -> module. Each module has ``render(result, colour=False) -> str``."""


class Reporter(Protocol):
    """A format module."""

    def render(self, result: AuditResult, colour: bool = False) -> str:
        """Render ``result`` as this format."""
        ...


def render(fmt: str, result: AuditResult, colour: bool = False, text: object = None) -> str:
    """Render ``result`` with the reporter registered for ``fmt``; ``text`` is the text
    report's layout (a :class:`rocetune.report.text.TextOptions`), ignored by other formats.
    (Loaded by name: the text module imports this package, so no import edge back to it.)"""
    from rocetune.report.safe_text import neutralise_result

    safe = neutralise_result(result)
    module = importlib.import_module(FORMATS[fmt])
    if fmt == "text" and text is not None:
        shown: str = module.render(safe, colour=colour, options=text)
        return shown
    body: str = module.render(safe, colour=colour)
    return body


def display_path(file: str | None, base: Path | None = None) -> str | None:
    """Show ``file`` relative to ``base`` (default: the working directory) when inside it."""
    if file is None:
        return None
    return _display(file, str(base or Path.cwd()))


@lru_cache(maxsize=1 << 16)
def _display(file: str, base: str) -> str:
    """:func:`display_path` (memoised: a report of a big fleet names the same few thousand
    files in tens of thousands of findings, and resolving a path stats each component)."""
    try:
        rel = Path(file).resolve().relative_to(_resolved(base))
    except ValueError:
        return file
    return rel.as_posix() if os.sep == "/" else str(rel).replace(os.sep, "/")


@lru_cache(maxsize=64)
def _resolved(base: str) -> Path:
    return Path(base).resolve()
