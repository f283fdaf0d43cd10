"""Reporters: pure functions of (findings, device status) to text. One module per format."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rocetune.model import AuditResult
    from rocetune.report.text import TextOptions

FORMATS: dict[str, str] = {
    "text": "rocetune.report.text",
    "json": "rocetune.report.json",
    "sarif": "rocetune.report.sarif",
    "junit": "rocetune.report.junit",
    "github": "rocetune.report.github",
    "html": "rocetune.report.html",
}
"""Output format name -> module. Each module has ``render(result, colour=False) -> str``."""


class Reporter(Protocol):
    """A format module."""

    def render(self, result: AuditResult, colour: bool = False) -> str:
        """Render ``result`` as this format."""
        ...


def render(
    fmt: str, result: AuditResult, colour: bool = False, text: TextOptions | None = None
) -> str:
    """Render ``result`` with the reporter registered for ``fmt`` (``text``: the text
    report's layout options, ignored by the other formats)."""
    from rocetune.report.safe_text import neutralise_result

    safe = neutralise_result(result)
    if fmt == "text" and text is not None:
        from rocetune.report.text import render as render_text

        return render_text(safe, colour=colour, options=text)
    module = importlib.import_module(FORMATS[fmt])
    body: str = module.render(safe, colour=colour)
    return body


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
