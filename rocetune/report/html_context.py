"""Shape an audit result into the plain data the HTML report templates lay out.

Every value a template prints is built (and formatted) here; escaping is left to the
template engine (autoescape). The output depends only on the result, the rule docs and the
optional ``generated_at`` text, so the report is deterministic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from rocetune.model import Fabric
from rocetune.report.coverage import headline, notes, real_findings
from rocetune.report.html_causes import Docs, FindingView, cause_view
from rocetune.report.html_common import (
    Level,
    dom_id,
    fmt_set,
    natural_key,
    worst_level,
)
from rocetune.report.html_diagram import Diagram, EdgeSpec, NodeSpec, build_diagram
from rocetune.report.html_groups import FABRIC_GROUP, Counts, CoverageView, coverage_view
from rocetune.report.html_sources import Source, SourcesOf, doc_blocks, rule_sources
from rocetune.report.html_tables import (
    MATRIX_COLUMNS,
    HeadroomRow,
    LinkRow,
    headroom_rows,
    link_rows,
    ports_in_use,
)
from rocetune.report.html_verify import VerifyView, build_verify
from rocetune.report.rootcause import RootCause, affected_ports, root_causes
from rocetune.report.rootcause import counts as rc_counts

if TYPE_CHECKING:
    from rocetune.model import AuditResult

FixText = Callable[[str], str]
"""Rule code -> the markdown of its "How to fix" section ("" when there is none)."""


@dataclass(frozen=True)
class GroupView:
    """A row of the findings table: a device, or the ``fabric`` group of the text report,
    with its root causes and what was not checked."""

    name: str
    dom_id: str
    kind: Literal["device", "fabric"]
    role: str
    platform: str
    asic: str
    ports: str
    """Ports in use (RoCE scope) or NIC ports; ``-`` when not known."""
    ports_note: str
    """Why some ports are not counted (unused or admin down), "" when none is."""
    checked: bool
    status: str
    level: Level
    counts: Counts
    """Root causes by severity (consequences are not counted: they are not faults)."""
    findings: tuple[FindingView, ...]
    """The root causes, most severe first, consequences nested."""
    coverage: tuple[CoverageView, ...] = ()

    @property
    def coverage_rules(self) -> tuple[str, ...]:
        """Codes of the rules not checked here, sorted."""
        return tuple(sorted({code for item in self.coverage for code in item.rules}))


@dataclass(frozen=True)
class RuleOption:
    """A rule of the findings filter: code, name and how many entries it has (root causes
    and consequences, as ``--statistics`` counts them)."""

    code: str
    name: str
    count: int


@dataclass(frozen=True)
class Summary:
    """The counts at the top of the report (coverage notes never count as findings, and
    nothing that was not checked counts as healthy)."""

    counts: Counts
    """Root causes by severity: the text report's headline."""
    root_causes: int
    ports: int
    """Distinct device ports the findings name."""
    findings: int
    """Per-location findings (RT000 not counted)."""
    devices: int
    devices_checked: int
    devices_clean: int
    """Checked, no finding and nothing left unchecked."""
    links: int
    links_inconsistent: int
    links_unknown: int
    """Links with a compared setting not known at an end (neither consistent nor not)."""
    headroom_pgs: int
    headroom_short: int
    headroom_unchecked: int
    """Lossless PGs whose headroom the report could not judge (switch-computed, inputs
    missing)."""
    coverage: str
    """``16 rules not checked on 7 devices`` ("" when everything was checked)."""
    coverage_rules: int
    coverage_devices: int

    @property
    def headroom_checked(self) -> int:
        """Lossless PGs judged against the formula."""
        return self.headroom_pgs - self.headroom_unchecked


@dataclass(frozen=True)
class ReportContext:
    """Everything ``templates/report/report.html.j2`` shows."""

    title: str
    generated_at: str | None
    intent: tuple[tuple[str, str], ...]
    summary: Summary
    diagram: Diagram
    devices: tuple[GroupView, ...]
    """Device rows, then the ``fabric`` group when it has findings or coverage notes."""
    rules: tuple[RuleOption, ...]
    matrix_columns: tuple[str, ...]
    links: tuple[LinkRow, ...]
    headroom: tuple[HeadroomRow, ...]
    verify: VerifyView | None = None
    """The Verification section (None: no verification ran, the section is left out)."""

    @property
    def coverage(self) -> tuple[GroupView, ...]:
        """Devices with something not checked (the Coverage section)."""
        return tuple(d for d in self.devices if d.coverage)


def _device_names(result: AuditResult) -> list[str]:
    names = set(result.devices) | set(result.fabric.devices)
    names |= {e.device for lk in result.fabric.links for e in (lk.a, lk.b)}
    names |= {f.device for f in result.findings if f.device is not None}
    return sorted(names, key=natural_key)


def _ports(result: AuditResult, name: str) -> tuple[str, str]:
    dev = result.fabric.devices.get(name)
    if dev is None:
        return "-", ""
    if dev.kind == "host":
        return str(len(dev.nics)), ""
    used = len(ports_in_use(result.fabric, dev))
    down = sum(1 for p in dev.ports.values() if p.admin_up is False)
    unused = len(dev.ports) - used - down
    notes = [f"{n} {w}" for n, w in ((unused, "unused"), (down, "admin down")) if n]
    return str(used), ("not counted: " + ", ".join(notes)) if notes else ""


def _device_view(
    name: str,
    result: AuditResult,
    causes: Sequence[RootCause],
    gaps: tuple[CoverageView, ...],
    docs: Docs,
) -> GroupView:
    dev = result.fabric.devices.get(name)
    st = result.devices.get(name)
    if dev is not None:
        status = "checked" if not gaps else f"checked; coverage gaps: {len(gaps)}"
    elif st is not None:
        status = f"not checked: {st.error or st.status}"
    else:
        status = "not in the inventory (link peer)"
    level: Level = _worst(causes) if causes or dev is not None else "unknown"
    ports, note = _ports(result, name)
    role = (dev.role if dev else st.role if st else None) or "-"
    return GroupView(
        name=name,
        dom_id=dom_id("device", name),
        kind="device",
        role=role,
        platform=(dev.platform if dev else (st.platform if st else None)) or "-",
        asic=(dev.asic if dev else None) or "-",
        ports=ports,
        ports_note=note,
        checked=dev is not None,
        status=status,
        level=level,
        counts=_counts(causes),
        findings=tuple(cause_view(rc, docs) for rc in causes),
        coverage=gaps,
    )


def _worst(causes: Sequence[RootCause]) -> Level:
    return worst_level(f for rc in causes for f in rc.all_findings())


def _counts(causes: Sequence[RootCause]) -> Counts:
    n = rc_counts(causes)
    return Counts(n["error"], n["warning"], n["info"])


def _fabric_view(
    causes: Sequence[RootCause], gaps: Sequence[CoverageView], docs: Docs
) -> GroupView:
    return GroupView(
        name=FABRIC_GROUP,
        dom_id=dom_id("group", FABRIC_GROUP),
        kind="fabric",
        role="-",
        platform="-",
        asic="-",
        ports="-",
        ports_note="",
        checked=True,
        status="findings about the fabric as a whole",
        level=_worst(causes),
        counts=_counts(causes),
        findings=tuple(cause_view(rc, docs) for rc in causes),
        coverage=tuple(gaps),
    )


def _short_reason(error: str, width: int = 24) -> str:
    """``unreachable: connection timed out`` -> ``not read: unreachable`` (fits a box; the
    whole reason is in the tooltip and the findings table)."""
    head = error.split(":", 1)[0].strip()
    head = head if len(head) <= width else head[: width - 1] + "…"
    return f"not read: {head}"


def _node(view: GroupView, result: AuditResult) -> NodeSpec:
    dev = result.fabric.devices.get(view.name)
    st = result.devices.get(view.name)
    c = view.counts
    parts = [f"{n} {w}" for n, w in ((c.error, "err"), (c.warning, "warn"), (c.info, "info")) if n]
    what = " · ".join(parts) if parts else "no findings"
    tooltip = f"{view.name} ({view.role}, {view.platform}): {what.replace(' · ', ', ')}"
    if view.coverage:
        tooltip += f"; {len(view.coverage)} coverage gap(s): some rules could not run"
    if not view.checked:
        what, tooltip = "not checked", f"{view.name}: {view.status}"
        if st is not None and st.status == "error" and st.error:
            what = _short_reason(st.error)
    platform = view.platform if view.asic == "-" else f"{view.platform} · {view.asic}"
    return NodeSpec(
        name=view.name,
        role=dev.role if dev else (st.role if st else None),
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


def _sources_of(codes: Sequence[str], sources: SourcesOf | None) -> dict[str, tuple[Source, ...]]:
    get = sources if sources is not None else rule_sources
    return {code: get(code) for code in codes}


def build_context(
    result: AuditResult,
    fix_text: FixText,
    generated_at: str | None = None,
    *,
    sources: SourcesOf | None = None,
    base: Path | None = None,
) -> ReportContext:
    """Shape ``result`` for the templates; ``fix_text`` gives each rule's "How to fix",
    ``sources`` the documents its doc cites (default: the shipped docs), ``base`` the
    directory relative file names are resolved against (default: the working directory)."""
    found = real_findings(result.findings)
    codes = sorted({f.code for f in found})
    docs = Docs({c: doc_blocks(fix_text(c)) for c in codes}, _sources_of(codes, sources), base)
    causes = root_causes(result.findings, result.fixes)
    groups: dict[str, list[RootCause]] = {}
    for rc in causes:
        groups.setdefault(rc.device or FABRIC_GROUP, []).append(rc)
    gaps: dict[str, list[CoverageView]] = {}
    items = notes(result.findings)
    for item in items:
        gaps.setdefault(item.device or FABRIC_GROUP, []).append(coverage_view(item, base))
    devices = [
        _device_view(n, result, groups.get(n, []), tuple(gaps.get(n, ())), docs)
        for n in _device_names(result)
        if n != FABRIC_GROUP
    ]
    links = link_rows(result.fabric, result.findings)
    headroom = headroom_rows(result.fabric)
    diagram = build_diagram([_node(d, result) for d in devices], _edges(result, links))
    rows = list(devices)
    if FABRIC_GROUP in groups or FABRIC_GROUP in gaps:
        rows.append(_fabric_view(groups.get(FABRIC_GROUP, []), gaps.get(FABRIC_GROUP, []), docs))
    summary = Summary(
        counts=_counts(causes),
        root_causes=len(causes),
        ports=affected_ports(causes),
        findings=len(found),
        devices=len(devices),
        devices_checked=sum(1 for d in devices if d.checked),
        devices_clean=sum(
            1 for d in devices if d.checked and not d.counts.total and not d.coverage
        ),
        links=len(links),
        links_inconsistent=sum(1 for r in links if r.mismatches),
        links_unknown=sum(1 for r in links if r.unknowns and not r.mismatches),
        headroom_pgs=len(headroom),
        headroom_short=sum(1 for r in headroom if r.state == "short"),
        headroom_unchecked=sum(1 for r in headroom if r.state in ("runtime", "unknown")),
        coverage=headline(items),
        coverage_rules=len({code for n in items for code in n.rules}),
        coverage_devices=len({n.device or FABRIC_GROUP for n in items}),
    )
    entries = [e for rc in causes for e in (rc, *rc.consequences)]
    per_code = Counter(e.code for e in entries)
    names = {e.code: e.finding.name for e in entries}
    return ReportContext(
        title="rocetune audit report",
        generated_at=generated_at,
        intent=_intent_lines(result.fabric),
        summary=summary,
        diagram=diagram,
        devices=tuple(rows),
        rules=tuple(RuleOption(c, names[c], per_code[c]) for c in sorted(per_code)),
        matrix_columns=MATRIX_COLUMNS,
        links=links,
        headroom=headroom,
        verify=build_verify(
            result.verify,
            result.fabric.intent.verify.min_bandwidth_fraction,
            result.fabric.intent.verify.max_latency_us,
        ),
    )
