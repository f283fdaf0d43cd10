"""Coverage apart from findings: RT000 notes say what was *not* checked, not what is wrong.

The engine reports one RT000 per device and set of missing items ("RT208 pfc-oper-state could
not run: Ethernet0: operational PFC priorities ... not in snapshot; ...") and one per line
not understood ("could not verify: f:12 not understood (...); RT201 ... not reported").
Reporters keep these out of the findings stream and its counts: text prints a per-device
coverage block after the findings, JSON adds a ``coverage`` list, SARIF turns them into
tool notifications, GitHub annotations leave them out, JUnit keeps them as skipped cases.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from rocetune.model import Finding, Severity

MISSING_CODE = "RT000"
_CODE = re.compile(r"RT\d{3}")
_COULD_NOT_RUN = " could not run: "
_PORT_ITEM = re.compile(r"^(?P<port>[^:;\s]+): (?P<what>.+)$")

Kind = Literal["missing-data", "not-understood"]


def is_coverage(f: Finding) -> bool:
    """True for an RT000 note (coverage), False for a real finding."""
    return f.code == MISSING_CODE


def real_findings(findings: Iterable[Finding]) -> list[Finding]:
    """The findings that are not coverage notes, in their order."""
    return [f for f in findings if not is_coverage(f)]


def coverage_findings(findings: Iterable[Finding]) -> list[Finding]:
    """The RT000 coverage notes, in their order."""
    return [f for f in findings if is_coverage(f)]


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    """Real findings by severity (``error``, ``warning``, ``info``); RT000 is not counted."""
    out = {s.value: 0 for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)}
    for f in real_findings(findings):
        out[f.severity.value] += 1
    return out


class CoverageNote(NamedTuple):
    """One RT000 note in a form reporters can show apart from the findings (a named tuple:
    a fleet's audit has one per host and missing item set, tens of thousands)."""

    device: str | None
    port: str | None
    kind: Kind
    rules: tuple[str, ...]
    """Codes of the rules that could not run or whose verdict was withheld."""
    who: str
    """The rules as the engine named them ("RT208 pfc-oper-state, RT504 headroom-limits")."""
    detail: str
    """What was missing, items about the same data merged across ports."""
    message: str
    """The engine's message, unchanged."""
    file: str | None
    line: int | None

    def to_data(self, file: str | None) -> dict[str, Any]:
        """The JSON form (``coverage`` list of the JSON report); ``file`` as displayed."""
        return {
            "device": self.device,
            "port": self.port,
            "kind": self.kind,
            "rules": list(self.rules),
            "message": self.message,
            "file": file,
            "line": self.line,
        }


@lru_cache(maxsize=4096)
def merge_items(text: str) -> str:
    """``"E0: x not in snapshot; E8: x not in snapshot; y"`` -> ``"x not in snapshot (E0, E8); y"``.

    Items keep their first-seen order; a trailing ``and N more`` stays last. (Remembered:
    every host of a fleet misses the same items in the same words.)
    """
    parts = [p.strip() for p in text.split("; ") if p.strip()]
    more = parts.pop() if parts and re.fullmatch(r"and \d+ more", parts[-1]) else None
    ports: dict[str, list[str]] = {}
    for part in parts:
        m = _PORT_ITEM.match(part)
        what, port = (m["what"], m["port"]) if m else (part, None)
        listed = ports.setdefault(what, [])
        if port is not None and port not in listed:
            listed.append(port)
    out = [f"{what} ({', '.join(where)})" if where else what for what, where in ports.items()]
    if more is not None:
        out.append(f"{more} not listed")
    return "; ".join(out)


@lru_cache(maxsize=4096)
def _rules(expected: str) -> tuple[str, ...]:
    """The rule codes an RT000 finding's ``expected`` names, each once, in order."""
    return tuple(dict.fromkeys(_CODE.findall(expected)))


def note(f: Finding) -> CoverageNote:
    """The coverage view of one RT000 finding."""
    kind, rules, who, detail = _view(f.message, f.expected or "", f.observed)
    return CoverageNote(f.device, f.port, kind, rules, who, detail, f.message, f.file, f.line)


@lru_cache(maxsize=4096)
def _view(
    message: str, expected: str, observed: str | None
) -> tuple[Kind, tuple[str, ...], str, str]:
    """Kind, rules, who and detail of an RT000 finding's words (every host of a fleet
    missing the same items has the same words)."""
    rules = _rules(expected)
    if observed == "not understood" or message.startswith("could not verify:"):
        return "not-understood", rules, ", ".join(rules), message
    who, sep, rest = message.partition(_COULD_NOT_RUN)
    if not sep:
        return "missing-data", rules, ", ".join(rules), message
    return "missing-data", rules, who, merge_items(rest)


def notes(findings: Iterable[Finding]) -> list[CoverageNote]:
    """Coverage notes of ``findings``, by device (fabric-level last), in report order."""
    found = [note(f) for f in coverage_findings(findings)]
    return sorted(found, key=lambda n: (n.device is None, n.device or ""))


def headline(items: list[CoverageNote]) -> str:
    """``"17 rules not checked on 8 devices"`` (empty when everything was checked)."""
    if not items:
        return ""
    rules = {code for n in items for code in n.rules}
    devices = {n.device or "fabric" for n in items}
    r, d = len(rules), len(devices)
    return f"{r} rule{'s' * (r != 1)} not checked on {d} device{'s' * (d != 1)}"


__all__ = [
    "MISSING_CODE",
    "CoverageNote",
    "counts",
    "coverage_findings",
    "headline",
    "is_coverage",
    "merge_items",
    "note",
    "notes",
    "real_findings",
]
