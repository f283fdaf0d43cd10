"""Counts, coverage lines and source links of the HTML report, shaped like the text report's.

The text report lists root causes by device (``fabric`` for those of no device); RT000 notes
are coverage, apart from the findings and never counted. The HTML report uses the same
groups so that its per-device counts are the text output's (tests compare the two).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from rocetune.report import display_path
from rocetune.report.coverage import CoverageNote

FABRIC_GROUP: Final = "fabric"


@dataclass(frozen=True)
class Counts:
    """Findings by severity (coverage notes are never counted)."""

    error: int = 0
    warning: int = 0
    info: int = 0

    @property
    def total(self) -> int:
        """All findings."""
        return self.error + self.warning + self.info


@dataclass(frozen=True)
class CoverageView:
    """One coverage line: what was not checked on a device, and the data it lacked."""

    kind: str
    rules: tuple[str, ...]
    text: str
    location: str | None
    href: str | None


def file_href(file: str | None, base: Path | None = None) -> str | None:
    """A ``file:`` address of a snapshot file (relative paths against ``base``, default the
    working directory), so the report's sources open with a click; None without a file."""
    if not file:
        return None
    path = Path(file)
    if not path.is_absolute():
        path = (base or Path.cwd()) / path
    return path.as_uri()


def location(file: str | None, line: int | None) -> str | None:
    """``file:line`` as displayed (relative to the working directory when inside it)."""
    path = display_path(file)
    if path is None:
        return None
    return f"{path}:{line}" if line else path


def coverage_view(item: CoverageNote, base: Path | None = None) -> CoverageView:
    """The coverage line the text report prints for ``item``."""
    plain = item.kind == "not-understood" or not item.who
    text = item.detail if plain else f"{item.who}: {item.detail}"
    return CoverageView(
        kind=item.kind,
        rules=item.rules,
        text=text,
        location=location(item.file, item.line),
        href=file_href(item.file, base),
    )
