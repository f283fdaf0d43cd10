"""The HTML report's findings: one entry per root cause, its consequences nested under it.

Built from :func:`rocetune.report.rootcause.root_causes`, the same entries the text report
prints: a fault found at several places is one entry naming them (``4 ports: swp1-4``), the
RT701/RT702/RT703/RT705/RT706/RT707 findings it explains are nested under it, and the native
change of the remediation plan (``AuditResult.fixes``) is its ``fix:`` text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rocetune.report.html_common import SEVERITY_LEVEL, Level
from rocetune.report.html_groups import file_href, location
from rocetune.report.html_sources import DocBlock, Source
from rocetune.report.rootcause import RootCause, compact
from rocetune.rules_docs import doc_url


@dataclass(frozen=True)
class Docs:
    """Per rule code: its fix text and cited sources; ``base`` resolves relative files."""

    fixes: dict[str, tuple[DocBlock, ...]]
    sources: dict[str, tuple[Source, ...]]
    base: Path | None


@dataclass(frozen=True)
class FindingView:
    """One root cause (or a consequence under one), ready to print."""

    code: str
    name: str
    level: Level
    where: str
    """Where it shows: ``Ethernet8``, ``4 ports: swp1-4``, a link, or ""."""
    message: str
    observed: str | None
    expected: str | None
    location: str | None
    href: str | None
    """``file:`` address of the source file (None without one)."""
    doc_url: str
    fix: tuple[DocBlock, ...]
    """The rule doc's "How to fix"."""
    sources: tuple[Source, ...]
    changes: tuple[str, ...] = ()
    """The native change(s) of the remediation plan (``fix:`` lines), when planned."""
    consequences: tuple[FindingView, ...] = ()
    findings: int = 1
    """How many per-location findings this entry stands for (consequences included)."""


def places(rc: RootCause) -> str:
    """``Ethernet8``, or ``4 ports: swp1-4`` (links likewise), "" when it names none."""
    shown = rc.places
    if len(shown) <= 1:
        return shown[0] if shown else ""
    kind = "links" if rc.links else "ports"
    return f"{len(shown)} {kind}: {compact(shown)}"


def cause_view(rc: RootCause, docs: Docs) -> FindingView:
    """The entry of one root cause (its consequences nested)."""
    f = rc.finding
    return FindingView(
        code=f.code,
        name=f.name,
        level=SEVERITY_LEVEL[f.severity],
        where=places(rc),
        message=f.message,
        observed=f.observed,
        expected=f.expected,
        location=location(f.file, f.line),
        href=file_href(f.file, docs.base),
        doc_url=doc_url(f.code),
        fix=docs.fixes.get(f.code, ()),
        sources=docs.sources.get(f.code, ()),
        changes=rc.fix,
        consequences=tuple(cause_view(sub, docs) for sub in rc.consequences),
        findings=len(rc.all_findings()),
    )
