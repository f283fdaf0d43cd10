"""Shape an audit result into the plain data the HTML report templates lay out.

Every value a template prints is built (and formatted) here; escaping is left to the
template engine (autoescape). The output depends only on the result, the rule docs and the
optional ``generated_at`` text, so the report is deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rocetune.model import Fabric, Finding, Severity
from rocetune.report import display_path
from rocetune.report.html_common import (
    SEVERITY_LEVEL,
    Level,
    dom_id,
    fmt_set,
    natural_key,
    worst_level,
)
from rocetune.report.html_diagram import Diagram, EdgeSpec, NodeSpec, build_diagram
from rocetune.report.html_tables import (
    MATRIX_COLUMNS,
    HeadroomRow,
    LinkRow,
    headroom_rows,
    link_rows,
)
from rocetune.report.html_verify import VerifyView, build_verify

if TYPE_CHECKING:
    from rocetune.model import AuditResult

FixText = Callable[[str], str]
"""Rule code -> the markdown of its "How to fix" section ("" when there is none)."""


@dataclass(frozen=True)
class Segment:
    """A run of text; ``code`` for an inline code span."""

    text: str
    code: bool


@dataclass(frozen=True)
class DocBlock:
    """A paragraph (one item) or a bullet list (one item per bullet)."""

    kind: Literal["p", "ul"]
    items: tuple[tuple[Segment, ...], ...]


@dataclass(frozen=True)
class Counts:
    """Findings by severity."""

    error: int = 0
    warning: int = 0
    info: int = 0

    @property
    def total(self) -> int:
        """All findings."""
        return self.error + self.warning + self.info


@dataclass(frozen=True)
class FindingView:
    """One finding, ready to print."""

    code: str
    name: str
    level: Level
    where: str
    message: str
    observed: str | None
    expected: str | None
    location: str | None
    fix: tuple[DocBlock, ...]


@dataclass(frozen=True)
class DeviceView:
    """A row of the device table with its findings."""

    name: str
    dom_id: str
    role: str
    platform: str
    asic: str
    ports: int
    checked: bool
    status: str
    level: Level
    counts: Counts
    findings: tuple[FindingView, ...]


@dataclass(frozen=True)
class Summary:
    """The counts at the top of the report."""

    counts: Counts
    devices: int
    devices_checked: int
    devices_clean: int
    links: int
    links_inconsistent: int
    headroom_pgs: int
    headroom_short: int


@dataclass(frozen=True)
class ReportContext:
    """Everything ``templates/report/report.html.j2`` shows."""

    title: str
    generated_at: str | None
    intent: tuple[tuple[str, str], ...]
    summary: Summary
    diagram: Diagram
    devices: tuple[DeviceView, ...]
    fabric_findings: tuple[FindingView, ...]
    matrix_columns: tuple[str, ...]
    links: tuple[LinkRow, ...]
    headroom: tuple[HeadroomRow, ...]
    verify: VerifyView | None = None
    """The Verification section (None: no verification ran, the section is left out)."""


_CODE_SPAN = re.compile(r"`([^`]*)`")


def segments(text: str) -> tuple[Segment, ...]:
    """Split markdown text into plain runs and inline code spans."""
    parts = _CODE_SPAN.split(" ".join(text.split()))
    return tuple(Segment(p, i % 2 == 1) for i, p in enumerate(parts) if p)


def doc_blocks(markdown: str) -> tuple[DocBlock, ...]:
    """Paragraphs and bullet lists of a rule doc section (other markdown stays text)."""
    blocks: list[DocBlock] = []
    for chunk in re.split(r"\n\s*\n", markdown.strip()):
        lines = chunk.splitlines()
        if lines and lines[0].lstrip().startswith("- "):
            items: list[str] = []
            for line in lines:
                if line.lstrip().startswith("- "):
                    items.append(line.lstrip()[2:])
                elif items:
                    items[-1] += " " + line.strip()
            blocks.append(DocBlock("ul", tuple(segments(i) for i in items)))
        elif lines:
            blocks.append(DocBlock("p", (segments(" ".join(lines)),)))
    return tuple(blocks)


def _rank(f: Finding) -> int:
    return -f.severity.rank


def finding_view(f: Finding, fixes: dict[str, tuple[DocBlock, ...]]) -> FindingView:
    """One finding with its rule's fix text."""
    path = display_path(f.file)
    return FindingView(
        code=f.code,
        name=f.name,
        level=SEVERITY_LEVEL[f.severity],
        where=f.link or f.port or "",
        message=f.message,
        observed=f.observed,
        expected=f.expected,
        location=None if path is None else (f"{path}:{f.line}" if f.line else path),
        fix=fixes.get(f.code, ()),
    )


def count(findings: Iterable[Finding]) -> Counts:
    """Findings by severity."""
    n = dict.fromkeys(Severity, 0)
    for f in findings:
        n[f.severity] += 1
    return Counts(n[Severity.ERROR], n[Severity.WARNING], n[Severity.INFO])


def _device_names(result: AuditResult) -> list[str]:
    names = set(result.devices) | set(result.fabric.devices)
    names |= {e.device for lk in result.fabric.links for e in (lk.a, lk.b)}
    names |= {f.device for f in result.findings if f.device is not None}
    return sorted(names, key=natural_key)


def _device_view(
    name: str, result: AuditResult, found: Sequence[Finding], fixes: dict[str, tuple[DocBlock, ...]]
) -> DeviceView:
    dev = result.fabric.devices.get(name)
    st = result.devices.get(name)
    if dev is not None:
        status = "checked"
    elif st is not None:
        status = f"not checked: {st.error or st.status}"
    else:
        status = "not in the inventory (link peer)"
    ordered = sorted(found, key=_rank)
    level: Level = worst_level(found) if found or dev is not None else "unknown"
    return DeviceView(
        name=name,
        dom_id=dom_id("device", name),
        role=(dev.role if dev else None) or "-",
        platform=(dev.platform if dev else (st.platform if st else None)) or "-",
        asic=(dev.asic if dev else None) or "-",
        ports=len(dev.ports) + len(dev.nics) if dev else 0,
        checked=dev is not None,
        status=status,
        level=level,
        counts=count(found),
        findings=tuple(finding_view(f, fixes) for f in ordered),
    )


def _node(view: DeviceView, fabric: Fabric) -> NodeSpec:
    dev = fabric.devices.get(view.name)
    c = view.counts
    parts = [f"{n} {w}" for n, w in ((c.error, "err"), (c.warning, "warn"), (c.info, "info")) if n]
    what = " · ".join(parts) if parts else "no findings"
    tooltip = f"{view.name} ({view.role}, {view.platform}): {what.replace(' · ', ', ')}"
    if not view.checked:
        what, tooltip = "not checked", f"{view.name}: {view.status}"
    platform = view.platform if view.asic == "-" else f"{view.platform} · {view.asic}"
    return NodeSpec(
        name=view.name,
        role=dev.role if dev else None,
        kind=dev.kind if dev else None,
        level=view.level,
        subtitle=platform,
        counts=what,
        tooltip=tooltip,
    )


def _edges(result: AuditResult, rows: Sequence[LinkRow]) -> list[EdgeSpec]:
    """Links coloured by the worst finding that names the link (RT7xx)."""
    out = []
    for link, row in zip(result.fabric.links, rows, strict=True):
        tip = f"{row.a} — {row.b}" + (f", {row.length}" if row.length != "-" else "")
        if row.mismatches:
            tip += f": {row.mismatches} setting(s) differ between the ends"
        out.append(
            EdgeSpec(
                a=link.a.device, b=link.b.device, label=row.label, level=row.level, tooltip=tip
            )
        )
    return out


def _intent_lines(fabric: Fabric) -> tuple[tuple[str, str], ...]:
    i = fabric.intent
    return (
        ("Lossless priorities", fmt_set(i.lossless_priorities)),
        ("RoCE DSCP", fmt_set(i.roce_dscp)),
        ("CNP", f"DSCP {i.cnp.dscp} → priority {i.cnp.priority}"),
        (
            "MTU",
            f"host {i.mtu.host}, switch {i.mtu.switch or 'platform maximum'}, RoCE {i.mtu.roce}",
        ),
        ("Congestion control", i.congestion_control),
    )


def build_context(
    result: AuditResult, fix_text: FixText, generated_at: str | None = None
) -> ReportContext:
    """Shape ``result`` for the templates; ``fix_text`` gives each rule's "How to fix"."""
    fixes = {code: doc_blocks(fix_text(code)) for code in sorted({f.code for f in result.findings})}
    by_device: dict[str | None, list[Finding]] = {}
    for f in result.findings:
        by_device.setdefault(f.device, []).append(f)
    devices = tuple(
        _device_view(n, result, by_device.get(n, []), fixes) for n in _device_names(result)
    )
    links = link_rows(result.fabric, result.findings)
    headroom = headroom_rows(result.fabric)
    diagram = build_diagram([_node(d, result.fabric) for d in devices], _edges(result, links))
    summary = Summary(
        counts=count(result.findings),
        devices=len(devices),
        devices_checked=sum(1 for d in devices if d.checked),
        devices_clean=sum(1 for d in devices if d.checked and d.counts.total == 0),
        links=len(links),
        links_inconsistent=sum(1 for r in links if r.mismatches),
        headroom_pgs=len(headroom),
        headroom_short=sum(1 for r in headroom if r.state == "short"),
    )
    loose = sorted(by_device.get(None, []), key=_rank)
    return ReportContext(
        title="rocetune audit report",
        generated_at=generated_at,
        intent=_intent_lines(result.fabric),
        summary=summary,
        diagram=diagram,
        devices=devices,
        fabric_findings=tuple(finding_view(f, fixes) for f in loose),
        matrix_columns=MATRIX_COLUMNS,
        links=links,
        headroom=headroom,
        verify=build_verify(
            result.verify,
            result.fabric.intent.verify.min_bandwidth_fraction,
            result.fabric.intent.verify.max_latency_us,
        ),
    )
