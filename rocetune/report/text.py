"""Human text report: findings grouped by device, then link findings, then a summary."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import click

from rocetune.model import Finding, Severity
from rocetune.report import display_path

if TYPE_CHECKING:
    from rocetune.model import AuditResult

_COLOURS = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def _style(text: str, colour: bool, **kw: object) -> str:
    return click.style(text, **kw) if colour else text  # type: ignore[arg-type]


def _finding(f: Finding, colour: bool) -> list[str]:
    sev = _style(f"{f.severity.value:<7}", colour, fg=_COLOURS[f.severity], bold=True)
    code = _style(f"{f.code} {f.name}", colour, bold=True)
    where = f.link or f.port or ""
    lines = [f"  {sev} {code}  {where}".rstrip(), f"          {f.message}"]
    if f.observed is not None or f.expected is not None:
        lines.append(f"          observed: {f.observed}   expected: {f.expected}")
    path = display_path(f.file)
    if path:
        loc = f"{path}:{f.line}" if f.line else path
        lines.append("          " + _style(f"--> {loc}", colour, dim=True))
    return lines


def _group_key(f: Finding) -> str:
    if f.link is not None:
        return "links"
    return f.device or "fabric"


def render(result: AuditResult, colour: bool = False) -> str:
    """Render the text report."""
    groups: dict[str, list[Finding]] = defaultdict(list)
    for f in result.findings:
        groups[_group_key(f)].append(f)
    out: list[str] = []
    order = sorted(k for k in groups if k not in {"links", "fabric"})
    order += [k for k in ("links", "fabric") if k in groups]
    for key in order:
        status = result.devices.get(key)
        title = key if status is None or status.platform is None else f"{key} ({status.platform})"
        counts = _counts(groups[key])
        out.append(_style(title, colour, bold=True, underline=True) + f"  {counts}")
        for f in groups[key]:
            out.extend(_finding(f, colour))
        out.append("")
    out.extend(_device_problems(result, colour))
    out.append(_summary(result))
    return "\n".join(out) + "\n"


def _counts(findings: list[Finding]) -> str:
    n = dict.fromkeys(Severity, 0)
    for f in findings:
        n[f.severity] += 1
    parts = [f"{n[s]} {s.value}" for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)]
    return ", ".join(p for p in parts if not p.startswith("0 "))


def _device_problems(result: AuditResult, colour: bool) -> list[str]:
    bad = [st for st in result.devices.values() if st.status == "error"]
    if not bad:
        return []
    lines = [_style("Devices not checked", colour, bold=True)]
    lines += [f"  {st.name}: {st.error}" for st in sorted(bad, key=lambda s: s.name)]
    lines.append("")
    return lines


def _summary(result: AuditResult) -> str:
    s = result.summary()
    checked = sum(1 for st in result.devices.values() if st.status == "ok")
    total = len(result.devices)
    head = f"{s['error']} error(s), {s['warning']} warning(s), {s['info']} info"
    return f"{head} in {checked} of {total} device(s) checked."
