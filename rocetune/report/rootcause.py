"""One finding per root cause: the per-location findings of a run grouped for people.

The engine reports a finding per port, link or device (the machine-usable form kept by JSON,
baselines, suppressions, fingerprints and exit codes). A person wants one entry per fault in
the config: a global DSCP map line that puts stray DSCPs in the lossless class is one fault
however many ports use it. :func:`root_causes` groups the findings (RT000 coverage notes left
out) into :class:`RootCause` entries:

- **Same fault, many places**: findings of the same rule on the same device pointing at the
  same config object (file and line; none when the finding has no source) with the same
  observed and expected values are one root cause that lists the affected ports and links.
  Different config lines (one interface block per port) stay different root causes, unless
  the remediation plan fixes them with one and the same change (a global command): then
  they are one root cause too.
- **Consequences**: the comparison rules whose finding follows from a fault elsewhere
  (:data:`CONSEQUENCE_CODES`: the link-end comparisons RT701, RT702, RT703, the fabric
  uniformity RT705, the ECN chain RT706 and the dual-homing symmetry RT707) are nested under
  the root cause on the same device that explains them: one pointing at the same config line
  (else naming the same port), a port-level finding before a link-level one, the cause
  naming the consequence's port first, then the most severe. A consequence is only nested
  under a cause at least as severe (so the headline by root-cause severity never hides an
  error), and one with no such cause is a root cause of its own. Under a cause, the
  consequences of one rule are one entry listing their links/ports.

The text report prints root causes; the HTML report reads the same entries; JSON adds
``fingerprint``/``root_cause`` to each finding and a ``root_causes`` list; SARIF and GitHub
annotations emit one result per root cause. ``fix`` holds the native change(s) of the
remediation plan (:func:`rocetune.api.plan`) labelled with a member's fingerprint, when the
caller attached them to the result (``AuditResult.fixes``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rocetune.fingerprint import fingerprint
from rocetune.model import Finding, Severity
from rocetune.report.coverage import real_findings

CONSEQUENCE_CODES = frozenset({"RT701", "RT702", "RT703", "RT705", "RT706", "RT707"})
"""Rules whose finding is usually the echo of a fault reported by another rule."""


def natural(text: str) -> tuple[object, ...]:
    """Sort key that orders ``swp2`` before ``swp10``."""
    return tuple((0, int(t)) if t.isdigit() else (1, t) for t in re.split(r"(\d+)", text))


_NUMBERED = re.compile(r"^(?P<prefix>.*?)(?P<n>\d+)$")


def compact(names: Iterable[str]) -> str:
    """``swp1, swp2, swp3, swp31`` -> ``swp1-3, swp31`` (runs of three or more consecutive
    numbers with the same prefix; the range form of Cumulus and NX-OS port lists)."""
    out: list[str] = []
    run: list[tuple[str, int, str]] = []

    def flush() -> None:
        if len(run) >= 3:
            out.append(f"{run[0][2]}-{run[-1][1]}")
        else:
            out.extend(name for _, _, name in run)
        run.clear()

    for name in names:
        m = _NUMBERED.match(name)
        if m is None or "-" in name:
            flush()
            out.append(name)
            continue
        prefix, n = m["prefix"], int(m["n"])
        if run and (run[-1][0] != prefix or run[-1][1] + 1 != n):
            flush()
        run.append((prefix, n, name))
    flush()
    return ", ".join(out)


@dataclass(frozen=True)
class RootCause:
    """One fault: the findings it causes at each place, and the findings that follow from it."""

    members: tuple[Finding, ...]
    """The per-location findings of this fault (same rule, device, config line and values),
    in natural port/link order; the first one is shown."""
    consequences: tuple[RootCause, ...] = ()
    """Findings of other rules (:data:`CONSEQUENCE_CODES`) that this fault explains."""
    fix: tuple[str, ...] = ()
    """The native change(s) of the remediation plan that fix it (empty: none attached)."""
    fingerprints: tuple[str, ...] = field(default=())
    """Fingerprint of each member (:func:`rocetune.fingerprint.fingerprint`), same order."""

    @property
    def finding(self) -> Finding:
        """The member shown for the whole group (message, observed, expected, location)."""
        return self.members[0]

    @property
    def id(self) -> str:
        """Stable id: the fingerprint of the shown member."""
        return self.fingerprints[0] if self.fingerprints else fingerprint(self.finding)

    @property
    def code(self) -> str:
        """Rule code."""
        return self.finding.code

    @property
    def severity(self) -> Severity:
        """Severity of the fault (its members share it)."""
        return self.finding.severity

    @property
    def device(self) -> str | None:
        """Device of the fault (None: fabric-wide)."""
        return self.finding.device

    @property
    def ports(self) -> tuple[str, ...]:
        """Ports the members name (natural order, no repeats)."""
        seen = {f.port for f in self.members if f.port}
        return tuple(sorted(seen, key=natural))

    @property
    def links(self) -> tuple[str, ...]:
        """Links the members name (natural order, no repeats)."""
        seen = {f.link for f in self.members if f.link}
        return tuple(sorted(seen, key=natural))

    @property
    def places(self) -> tuple[str, ...]:
        """Where it shows: the links when members name links, else the ports."""
        return self.links or self.ports

    def all_findings(self) -> list[Finding]:
        """Members, then every consequence's members."""
        out = list(self.members)
        for c in self.consequences:
            out += c.all_findings()
        return out

    def port_keys(self) -> set[tuple[str, str]]:
        """(device, port) of every member and consequence member that names a port."""
        return {(f.device or "", f.port) for f in self.all_findings() if f.port}


def distinct(findings: Iterable[Finding]) -> list[Finding]:
    """``findings`` with a repeated object replaced by a copy, so that reporters can key
    their per-finding data (fingerprints) by object identity."""
    seen: set[int] = set()
    out = []
    for f in findings:
        item = f.model_copy() if id(f) in seen else f
        seen.add(id(item))
        out.append(item)
    return out


def _key(f: Finding) -> tuple[object, ...]:
    return (f.code, f.severity, f.device, f.file, f.line, f.observed, f.expected)


def _order(f: Finding) -> tuple[object, ...]:
    return (natural(f.link or ""), natural(f.port or ""))


def _groups(findings: Iterable[Finding]) -> list[list[Finding]]:
    by_key: dict[tuple[object, ...], list[Finding]] = {}
    for f in findings:
        by_key.setdefault(_key(f), []).append(f)
    return [sorted(members, key=_order) for members in by_key.values()]


def _merge_same_fix(
    groups: list[list[Finding]], fixes: Mapping[str, tuple[str, ...]] | None
) -> list[list[Finding]]:
    """Groups of one rule on one device with the same values whose fix is the same change
    (a global command the plan makes once, for findings read at per-port lines) are one."""
    if not fixes:
        return groups
    merged: dict[tuple[object, ...], list[Finding]] = {}
    out: list[list[Finding]] = []
    for g in groups:
        fix = _fix(tuple(fingerprint(f) for f in g), fixes)
        if not fix:
            out.append(g)
            continue
        top = g[0]
        key = (top.code, top.severity, top.device, top.observed, top.expected, fix)
        if key in merged:
            merged[key].extend(g)
        else:
            merged[key] = list(g)
            out.append(merged[key])
    return [sorted(g, key=_order) for g in out]


def _by_code(findings: list[Finding]) -> list[list[Finding]]:
    """Consequences under one cause: one entry per rule (their values differ per place)."""
    by_code: dict[tuple[str, Severity], list[Finding]] = {}
    for f in findings:
        by_code.setdefault((f.code, f.severity), []).append(f)
    return [sorted(members, key=_order) for members in by_code.values()]


def _cause_rank(cause: list[Finding], c: Finding) -> tuple[object, ...] | None:
    """How well ``cause`` explains consequence ``c`` (None: it does not); smaller is better."""
    top = cause[0]
    if top.device is None or top.device != c.device or top.severity.rank < c.severity.rank:
        return None
    same_line = c.file is not None and any(f.file == c.file and f.line == c.line for f in cause)
    names_port = c.port is not None and any(f.port == c.port for f in cause)
    if not same_line and not names_port:
        return None
    covers = c.port is None or names_port
    return (not same_line, top.link is not None, not covers, -top.severity.rank)


def root_causes(
    findings: Iterable[Finding], fixes: Mapping[str, tuple[str, ...]] | None = None
) -> list[RootCause]:
    """Group a run's findings (RT000 left out) into root causes, most severe first.

    ``fixes`` maps a finding fingerprint to the native change text(s) that fix it (the
    remediation plan's changes, see ``AuditResult.fixes``).
    """
    real = real_findings(list(findings))
    causes = _merge_same_fix(_groups(f for f in real if f.code not in CONSEQUENCE_CODES), fixes)
    nested: dict[int, list[Finding]] = {}
    alone: list[Finding] = []
    for c in (f for f in real if f.code in CONSEQUENCE_CODES):
        ranked = [(r, i) for i, g in enumerate(causes) if (r := _cause_rank(g, c)) is not None]
        if ranked:
            nested.setdefault(min(ranked)[1], []).append(c)
        else:
            alone.append(c)
    out = [_build(g, _by_code(nested.get(i, [])), fixes) for i, g in enumerate(causes)]
    out += [_build(g, [], fixes) for g in _groups(alone)]
    return sorted(out, key=order)


def _build(
    members: list[Finding],
    consequences: list[list[Finding]],
    fixes: Mapping[str, tuple[str, ...]] | None,
) -> RootCause:
    prints = tuple(fingerprint(f) for f in members)
    sub = tuple(sorted((_build(g, [], None) for g in consequences), key=order))
    return RootCause(tuple(members), sub, _fix(prints, fixes), prints)


def _fix(prints: tuple[str, ...], fixes: Mapping[str, tuple[str, ...]] | None) -> tuple[str, ...]:
    if not fixes:
        return ()
    out: dict[str, None] = {}
    for fp in prints:
        for text in fixes.get(fp, ()):
            out[text] = None
    return tuple(out)


def order(rc: RootCause) -> tuple[object, ...]:
    """Most severe first, then device, code, link/port (natural order)."""
    f = rc.finding
    return (-f.severity.rank, f.device or "~", f.code, natural(f.link or ""), natural(f.port or ""))


def counts(causes: Iterable[RootCause]) -> dict[str, int]:
    """Root causes by severity (consequences are not counted: they are not faults)."""
    out = {s.value: 0 for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)}
    for rc in causes:
        out[rc.severity.value] += 1
    return out


def affected_ports(causes: Iterable[RootCause]) -> int:
    """Distinct device ports named by the findings of ``causes`` (consequences included)."""
    seen: set[tuple[str, str]] = set()
    for rc in causes:
        seen |= rc.port_keys()
    return len(seen)


def index(causes: Iterable[RootCause]) -> dict[int, tuple[RootCause, RootCause | None]]:
    """``id(finding)`` -> (its entry, the root cause it is nested under or None)."""
    out: dict[int, tuple[RootCause, RootCause | None]] = {}
    for rc in causes:
        for f in rc.members:
            out[id(f)] = (rc, None)
        for sub in rc.consequences:
            for f in sub.members:
                out[id(f)] = (sub, rc)
    return out
