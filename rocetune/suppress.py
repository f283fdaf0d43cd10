"""After the checks: severity overrides, suppressions (ignores) and the baseline.

Order, applied to a run's findings by :func:`apply_policy`:

1. per-rule ``severity`` overrides from the config;
2. suppressions: the config's ``ignores`` and the inventory's ``suppressions:`` (same shape).
   An entry hides the findings of its rule on the devices (and ports/links) its globs match.
   An entry whose ``expires`` date has passed no longer applies and is reported; an entry
   that matched nothing is reported as unused. Both are reported on standard error and kept
   in :class:`PolicyReport` (no finding, no rule code: codes are a contract about the
   fabric, and these are notes about rocetune's own configuration);
3. the baseline: findings whose fingerprint (:mod:`rocetune.fingerprint`, the same as the
   SARIF ``partialFingerprints``) is in the baseline file are hidden and counted.

``--write-baseline`` stores the fingerprints of the findings left after step 2.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from rocetune import inputs
from rocetune.errors import ConfigError
from rocetune.fingerprint import FINGERPRINT_KEY, fingerprint_parts, fingerprints
from rocetune.model import Finding, Model, Severity
from rocetune.outputs import write_atomic

if TYPE_CHECKING:
    from rocetune.model import AuditResult

BASELINE_VERSION = 1


class Suppression(Model):
    """One suppression: hide findings of ``rule`` on matching devices (and ports/links)."""

    rule: str = Field(min_length=1)
    """A rule code (RT201), a code prefix (RT2) or a rule name (pfc-on-lossless)."""
    device: str = Field(min_length=1)
    """Glob on the device name (``leaf*``); ``*`` also matches fabric-level findings."""
    port: str | None = None
    """Optional glob on the port; the finding must name a matching port."""
    link: str | None = None
    """Optional glob on the link label (``leaf1:swp1--*``); the finding must name a link."""
    reason: str = Field(min_length=1)
    """Why this is accepted (required: a suppression without a reason is refused)."""
    expires: date | None = None
    """Last day the suppression applies; after it the finding shows again."""

    @field_validator("reason")
    @classmethod
    def _reason(cls, v: str) -> str:
        if not v.strip():
            msg = "a reason is required"
            raise ValueError(msg)
        return v

    @field_validator("rule")
    @classmethod
    def _rule(cls, v: str) -> str:
        if not rule_selector_known(v):
            msg = f"unknown rule {v!r} (use a code like RT201, a prefix like RT2, or a name)"
            raise ValueError(msg)
        return v

    def describe(self) -> str:
        """``RT201 on leaf* port swp1`` for messages."""
        where = f"{self.rule} on {self.device}"
        if self.port:
            where += f" port {self.port}"
        if self.link:
            where += f" link {self.link}"
        return where

    def matches(self, finding: Finding) -> bool:
        """True when this entry covers ``finding`` (expiry not considered)."""
        if not _rule_matches(self.rule, finding.code, finding.name):
            return False
        if not fnmatchcase(finding.device or "", self.device):
            return False
        if self.port is not None and not _glob(finding.port, self.port):
            return False
        return self.link is None or _glob(finding.link, self.link)


def _glob(value: str | None, pattern: str) -> bool:
    """A port/link glob only matches findings that name a port/link."""
    return value is not None and fnmatchcase(value, pattern)


def _rule_matches(selector: str, code: str, name: str) -> bool:
    sel = selector.strip()
    return code.upper().startswith(sel.upper()) or name == sel.lower()


def rule_selector_known(selector: str) -> bool:
    """True when ``selector`` names at least one registered rule."""
    from rocetune.checks.registry import all_rules

    return any(_rule_matches(selector, r.meta.code, r.meta.name) for r in all_rules())


@dataclass(frozen=True)
class Policy:
    """What to do with a run's findings after the checks."""

    severities: Mapping[str, Severity] = field(default_factory=dict)
    """Rule code -> severity that replaces the rule's own."""
    suppressions: tuple[Suppression, ...] = ()
    baseline: frozenset[str] | None = None
    """Fingerprints to hide (from ``--baseline``)."""
    today: date | None = None
    """The date expiry is judged against (default: today)."""


@dataclass
class PolicyReport:
    """What the policy did: counts and the suppressions to tell the user about."""

    suppressed: int = 0
    baselined: int = 0
    unused: list[Suppression] = field(default_factory=list)
    expired: list[Suppression] = field(default_factory=list)

    def notes(self) -> list[str]:
        """One line per noteworthy item, for standard error."""
        out = [f"expired suppression ({s.expires}): {s.describe()}" for s in self.expired]
        out += [f"unused suppression: {s.describe()} ({s.reason})" for s in self.unused]
        if self.suppressed:
            out.append(f"{self.suppressed} finding(s) suppressed")
        if self.baselined:
            out.append(f"{self.baselined} finding(s) hidden by the baseline")
        return out


def apply_policy(
    findings: list[Finding], policy: Policy, extra: Iterable[Suppression] = ()
) -> tuple[list[Finding], PolicyReport]:
    """Apply severity overrides, suppressions and the baseline; return what is left."""
    report = PolicyReport()
    out = [_override(f, policy.severities) for f in findings]
    today = policy.today or date.today()
    active: list[Suppression] = []
    for s in (*policy.suppressions, *extra):
        if s.expires is not None and s.expires < today:
            report.expired.append(s)
        else:
            active.append(s)
    used = [False] * len(active)
    kept: list[Finding] = []
    for f in out:
        hit = next((i for i, s in enumerate(active) if s.matches(f)), None)
        if hit is None:
            kept.append(f)
        else:
            used[hit] = True
            report.suppressed += 1
    report.unused = [s for s, u in zip(active, used, strict=True) if not u]
    if policy.baseline is not None:
        prints = fingerprints(kept)
        shown = [f for f, p in zip(kept, prints, strict=True) if p not in policy.baseline]
        report.baselined = len(kept) - len(shown)
        kept = shown
    return kept, report


def _override(f: Finding, severities: Mapping[str, Severity]) -> Finding:
    sev = severities.get(f.code)
    return f if sev is None or sev == f.severity else f.model_copy(update={"severity": sev})


def apply_to_result(result: AuditResult, policy: Policy, extra: Iterable[Suppression]) -> None:
    """Apply ``policy`` to an audit result in place (findings and ``result.policy``)."""
    result.findings, result.policy = apply_policy(result.findings, policy, extra)


# --- baseline files ------------------------------------------------------------------


def baseline_data(findings: list[Finding]) -> dict[str, Any]:
    """The baseline document: fingerprints plus the parts they hash, for reviewers."""
    rows = []
    for f, fp in zip(findings, fingerprints(findings), strict=True):
        code, device, port, link, observed = fingerprint_parts(f)
        rows.append(
            {
                "fingerprint": fp,
                "code": code,
                "device": device,
                "port": port,
                "link": link,
                "observed": observed,
            }
        )
    return {"version": BASELINE_VERSION, "fingerprint": FINGERPRINT_KEY, "findings": rows}


def write_baseline(path: Path, findings: list[Finding]) -> int:
    """Write the baseline of ``findings`` to ``path``; return how many it holds."""
    data = baseline_data(findings)
    write_atomic(path, json.dumps(data, indent=2) + "\n")
    return len(data["findings"])


def read_baseline(path: Path) -> frozenset[str]:
    """The fingerprints of a baseline file; ConfigError when it is not one."""
    try:
        data = json.loads(inputs.read_bytes(path))
    except inputs.InputRefused as exc:
        raise ConfigError(f"cannot read baseline: {exc}", file=path) from None
    except OSError as exc:
        raise ConfigError(f"cannot read baseline: {exc.strerror}", file=path) from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"baseline is not JSON: {exc}", file=path) from exc
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION:
        raise ConfigError(f"not a rocetune baseline (version {BASELINE_VERSION})", file=path)
    if data.get("fingerprint") != FINGERPRINT_KEY:
        msg = f"baseline uses fingerprint {data.get('fingerprint')!r}, this rocetune"
        msg += f" {FINGERPRINT_KEY!r}: write it again with --write-baseline"
        raise ConfigError(msg, file=path)
    rows = data.get("findings")
    if not isinstance(rows, list) or not all(
        isinstance(r, dict) and isinstance(r.get("fingerprint"), str) for r in rows
    ):
        raise ConfigError("baseline: findings must be a list of {fingerprint: ...}", file=path)
    return frozenset(r["fingerprint"] for r in rows)
