"""JUnit XML report for CI test-result viewers.

One ``testsuite`` per device (plus ``links`` for link rules and ``fabric`` for fabric-wide
rules), one ``testcase`` per rule run on it, named ``RTxxx name``. A rule with findings gets
one ``failure`` (type = the highest severity) listing all of them. RT000 (missing data) is a
``skipped`` test case carrying its message, and so is every rule it names that found
nothing. A device that could not be checked gets an ``error`` test case named ``snapshot``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rocetune.model import Finding
from rocetune.report import display_path

if TYPE_CHECKING:
    from rocetune.checks.base import Rule
    from rocetune.model import AuditResult

MISSING = "RT000"
DEVICE_SCOPES = frozenset({"port", "device", "counters", "verify"})
LINKS, FABRIC = "links", "fabric"


@dataclass
class _Suite:
    name: str
    rules: list[type[Rule]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None


def _suite_name(f: Finding) -> str:
    if f.link is not None:
        return LINKS
    return f.device or FABRIC


def _selected(result: AuditResult) -> list[type[Rule]]:
    from rocetune.checks.registry import all_rules

    rules = all_rules()
    if not result.rules:
        return list(rules)
    wanted = set(result.rules)
    return [r for r in rules if r.meta.code in wanted]


def _suites(result: AuditResult) -> list[_Suite]:
    rules = _selected(result)
    by_name: dict[str, list[Finding]] = defaultdict(list)
    for f in result.findings:
        by_name[_suite_name(f)].append(f)
    devices = sorted((set(result.devices) | set(by_name)) - {LINKS, FABRIC})
    suites = []
    for name in devices:
        status = result.devices.get(name)
        error = status.error if status is not None and status.status == "error" else None
        scoped = [] if error else [r for r in rules if r.meta.scope in DEVICE_SCOPES]
        suites.append(_Suite(name, scoped, by_name.get(name, []), error or None))
    link_rules = [r for r in rules if r.meta.scope == "link"]
    if by_name.get(LINKS) or (result.fabric.links and link_rules):
        suites.append(_Suite(LINKS, link_rules, by_name.get(LINKS, [])))
    fabric_rules = [r for r in rules if r.meta.scope == "fabric"]
    if by_name.get(FABRIC) or fabric_rules:
        suites.append(_Suite(FABRIC, fabric_rules, by_name.get(FABRIC, [])))
    return suites


def _finding_text(f: Finding) -> str:
    where = f.link or f.port or f.device or "fabric"
    lines = [f"[{f.severity.value}] {where}: {f.message}"]
    if f.observed is not None or f.expected is not None:
        lines.append(f"    observed: {f.observed}; expected: {f.expected}")
    path = display_path(f.file)
    if path:
        lines.append(f"    at {path}:{f.line}" if f.line else f"    at {path}")
    return "\n".join(lines)


def _not_run(findings: list[Finding]) -> set[str]:
    """Codes of the rules an RT000 finding says could not run."""
    codes: set[str] = set()
    for f in findings:
        head = f.message.split(" could not run", 1)[0]
        codes.update(re.findall(r"\bRT\d{3}\b", head))
    return codes


def _case(suite: ET.Element, classname: str, name: str) -> ET.Element:
    return ET.SubElement(suite, "testcase", name=name, classname=classname, time="0")


def _fill_case(case: ET.Element, mine: list[Finding]) -> str | None:
    """Add a failure for ``mine``; return the outcome ("failure" or None for a pass)."""
    if not mine:
        return None
    worst = max(mine, key=lambda f: f.severity.rank).severity.value
    msg = f"{len(mine)} finding(s): {mine[0].message}"
    node = ET.SubElement(case, "failure", message=msg, type=worst)
    node.text = "\n\n".join(_finding_text(f) for f in mine)
    return "failure"


def _skip(case: ET.Element, missing: list[Finding]) -> str:
    node = ET.SubElement(case, "skipped", message=missing[0].message)
    node.text = "\n".join(f.message for f in missing)
    return "skipped"


def _suite_element(suite: _Suite) -> ET.Element:
    el = ET.Element("testsuite", name=suite.name)
    classname = f"rocetune.{suite.name}"
    outcomes: list[str | None] = []
    if suite.error is not None:
        case = _case(el, classname, "snapshot")
        ET.SubElement(case, "error", message=suite.error, type="not-checked").text = suite.error
        outcomes.append("error")
    missing = [f for f in suite.findings if f.code == MISSING]
    skipped = _not_run(missing)
    names = {r.meta.code: r.meta.name for r in suite.rules}
    for f in suite.findings:
        names.setdefault(f.code, f.name)
    for code in sorted(names):
        case = _case(el, classname, f"{code} {names[code]}")
        mine = [f for f in suite.findings if f.code == code and code != MISSING]
        outcome = _fill_case(case, mine)
        if outcome is None and missing and (code == MISSING or code in skipped):
            outcome = _skip(case, missing)
        outcomes.append(outcome)
    counts = {k: sum(1 for o in outcomes if o == k) for k in ("failure", "error", "skipped")}
    el.set("tests", str(len(outcomes)))
    el.set("failures", str(counts["failure"]))
    el.set("errors", str(counts["error"]))
    el.set("skipped", str(counts["skipped"]))
    el.set("time", "0")
    return el


def to_xml(result: AuditResult) -> ET.Element:
    """The ``testsuites`` element."""
    root = ET.Element("testsuites", name="rocetune")
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for suite in _suites(result):
        el = _suite_element(suite)
        root.append(el)
        for key in totals:
            totals[key] += int(el.get(key, "0"))
    for key, value in totals.items():
        if key != "skipped":  # not an attribute of <testsuites> in Jenkins' junit-10.xsd
            root.set(key, str(value))
    return root


def render(result: AuditResult, colour: bool = False) -> str:
    """Render the JUnit XML report (UTF-8 declaration, indented, trailing newline)."""
    root = to_xml(result)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
