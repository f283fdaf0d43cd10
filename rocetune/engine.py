"""Run the selected rules over a fabric and turn their results into findings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rocetune.checks.base import CheckContext, Issue, Missing, Rule, RuleOptions
from rocetune.errors import ConfigError
from rocetune.model import Fabric, Finding, Provenance, Severity

MISSING_CODE = "RT000"
_MAX_LISTED = 5


@dataclass(frozen=True)
class Selection:
    """Which rules run: ruff-style select/ignore by code, code prefix, name or ``ALL``."""

    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()


def _matches(rule: type[Rule], selector: str) -> bool:
    sel = selector.strip()
    if sel.upper() == "ALL":
        return True
    meta = rule.meta
    return meta.code.upper().startswith(sel.upper()) or meta.name == sel.lower()


def select_rules(rules: Sequence[type[Rule]], selection: Selection) -> list[type[Rule]]:
    """Return the rules selected and not ignored; unknown selectors are a ConfigError."""
    for sel in (*selection.select, *selection.ignore):
        if not any(_matches(r, sel) for r in rules):
            known = ", ".join(r.meta.code for r in rules[:3])
            msg = f"unknown rule selector {sel!r} (use a code like {known}..., a prefix, or a name)"
            raise ConfigError(msg)
    chosen = [r for r in rules if any(_matches(r, s) for s in selection.select)]
    return [r for r in chosen if not any(_matches(r, s) for s in selection.ignore)]


def format_value(value: object) -> str | None:
    """Render an observed/expected value for humans and JSON (stable, compact)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, frozenset | set | tuple | list):
        items = sorted(value) if all(isinstance(v, int) for v in value) else list(value)
        return "{" + ",".join(str(v) for v in items) + "}"
    if isinstance(value, dict):
        return ", ".join(f"{k}->{v}" for k, v in sorted(value.items()))
    return str(value)


def _finding(rule: type[Rule], issue: Issue, prov: Mapping[str, Provenance]) -> Finding:
    ref = None
    if issue.device is not None and issue.device in prov:
        ref = prov[issue.device].lookup(issue.path)
    return Finding(
        code=rule.meta.code,
        name=rule.meta.name,
        severity=issue.severity or rule.meta.severity,
        device=issue.device,
        port=issue.port,
        link=issue.link,
        message=issue.message,
        observed=format_value(issue.observed),
        expected=format_value(issue.expected),
        file=ref.file if ref else None,
        line=ref.line if ref else None,
        path=issue.path,
    )


def _missing_findings(
    missing: Mapping[type[Rule], Iterable[Missing]], prov: Mapping[str, Provenance]
) -> list[Finding]:
    """One RT000 per device and set of missing items; rules missing the same items share it."""
    groups: dict[tuple[str, tuple[str, ...]], list[type[Rule]]] = {}
    first_path: dict[tuple[str, tuple[str, ...]], str | None] = {}
    for rule, items in missing.items():
        by_device: dict[str, list[Missing]] = {}
        for m in items:
            by_device.setdefault(m.device, []).append(m)
        for device, ms in by_device.items():
            key = (device, tuple(dict.fromkeys(m.item for m in ms)))
            groups.setdefault(key, []).append(rule)
            first_path.setdefault(key, ms[0].path)
    out = []
    for (device, names), rules in groups.items():
        listed = "; ".join(names[:_MAX_LISTED])
        if len(names) > _MAX_LISTED:
            listed += f"; and {len(names) - _MAX_LISTED} more"
        who = ", ".join(f"{r.meta.code} {r.meta.name}" for r in rules)
        path = first_path[(device, names)]
        ref = prov[device].lookup(path) if device in prov else None
        out.append(
            Finding(
                code=MISSING_CODE,
                name="missing-data",
                severity=Severity.INFO,
                device=device,
                message=f"{who} could not run: {listed}",
                observed="not in snapshot",
                expected="data for " + ", ".join(r.meta.code for r in rules),
                file=ref.file if ref else None,
                line=ref.line if ref else None,
                path=path,
            )
        )
    return out


def run_checks(
    fabric: Fabric,
    rules: Sequence[type[Rule]],
    options: Mapping[str, RuleOptions] | None = None,
    provenance: Mapping[str, Provenance] | None = None,
    *,
    report_missing: bool = True,
) -> list[Finding]:
    """Run ``rules`` over ``fabric``; return findings sorted by device, port, code."""
    options = options or {}
    prov = provenance or {}
    findings: list[Finding] = []
    missing: dict[type[Rule], list[Missing]] = {}
    for rule_cls in rules:
        if rule_cls.meta.code == MISSING_CODE:
            continue
        opts = options.get(rule_cls.meta.code) or rule_cls.options_model()
        ctx = CheckContext(fabric=fabric, options=opts)
        for result in rule_cls().run(ctx):
            if isinstance(result, Missing):
                missing.setdefault(rule_cls, []).append(result)
            else:
                findings.append(_finding(rule_cls, result, prov))
    if report_missing:
        findings.extend(_missing_findings(missing, prov))
    return sort_findings(findings)


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Sort by device, link, port (natural order), code, message."""

    def key(f: Finding) -> tuple[object, ...]:
        return (f.device or "", f.link or "", _natural(f.port or ""), f.code, f.message)

    return sorted(findings, key=key)


def _natural(text: str) -> tuple[object, ...]:
    import re

    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))
