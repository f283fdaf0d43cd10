"""What a run returns: the audit result, per-device status and per-test perftest results.

These are plain data that the API builds and the reporters read; they sit in the model so that
``report``, ``verify`` and ``render`` need not import :mod:`rocetune.api`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from rocetune.model.fabric import Fabric
from rocetune.model.finding import Finding, Severity
from rocetune.model.provenance import Provenance

if TYPE_CHECKING:
    from rocetune.errors import RocetuneError

Verdict = Literal["pass", "failed", "low", "impossible", "high", "no result"]
"""``failed``: errors or cut short; ``low``: bandwidth under the intent's fraction of line
rate; ``impossible``: above line rate; ``high``: latency above the intent's maximum;
``no result``: complete output without a usable number."""


@dataclass(frozen=True)
class PairResult:
    """One test of one pair (client -> server)."""

    client: str
    server: str
    test: str
    """``bw`` or ``lat``."""
    tool: str | None
    bandwidth_gbps: float | None
    """Best average bandwidth over the message sizes (bw tests)."""
    line_rate_gbps: float | None
    """The slower end's line rate; None: unknown."""
    t_typical_us: float | None
    t_avg_us: float | None
    verdict: Verdict
    error: str | None = None
    """The first error perftest printed (failed tests)."""

    @property
    def percent_of_line_rate(self) -> float | None:
        """Bandwidth as a percentage of the line rate (None: either unknown)."""
        if self.bandwidth_gbps is None or not self.line_rate_gbps:
            return None
        return 100 * self.bandwidth_gbps / self.line_rate_gbps

    def to_data(self) -> dict[str, Any]:
        """The JSON form (``verify`` list of the JSON report)."""
        pct = self.percent_of_line_rate
        latency = None
        if self.t_typical_us is not None or self.t_avg_us is not None:
            latency = {"t_typical": self.t_typical_us, "t_avg": self.t_avg_us}
        return {
            "pair": {"client": self.client, "server": self.server},
            "test": self.test,
            "tool": self.tool,
            "bandwidth_gbps": self.bandwidth_gbps,
            "line_rate_gbps": self.line_rate_gbps,
            "percent_of_line_rate": None if pct is None else round(pct, 2),
            "latency_us": latency,
            "verdict": self.verdict,
            "error": self.error,
        }


class PolicyOutcome(Protocol):
    """What applying a policy did (:class:`rocetune.suppress.PolicyReport`)."""

    def notes(self) -> list[str]:
        """One line per noteworthy item, for standard error."""
        ...


@dataclass(frozen=True)
class DeviceStatus:
    """Whether a device made it into the model."""

    name: str
    platform: str | None
    status: Literal["ok", "error"]
    error: str | None = None
    role: str | None = None
    """The inventory's role of the device (reports keep a device that could not be read in
    its tier); None when not declared."""


@dataclass
class AuditResult:
    """Findings plus everything needed to pick an exit code and report device status."""

    fabric: Fabric
    findings: list[Finding]
    devices: dict[str, DeviceStatus]
    errors: list[RocetuneError] = field(default_factory=list)
    provenance: dict[str, Provenance] = field(default_factory=dict)
    rules: tuple[str, ...] = ()
    """Codes of the rules that were run (the selection); empty when not recorded."""
    inventory: str | None = None
    """The inventory file of an audit (reports point fabric-level findings at it)."""
    policy: PolicyOutcome | None = None
    """What severity overrides, suppressions and the baseline did (None: no policy given)."""
    verify: tuple[PairResult, ...] | None = None
    """Per-test perftest results of ``rocetune verify`` (None: no verification ran)."""
    fixes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Finding fingerprint -> the native change(s) of the remediation plan made for it
    (``rocetune plan``'s changes; reporters print them as ``fix:``). Empty: not planned."""
    content: dict[str, str] = field(default_factory=dict)
    """Device -> its parse cache entry key (the content of its snapshot), for the devices an
    audit read through the parse cache (the fix cache keys each device's plan by it)."""

    @property
    def not_collected(self) -> list[str]:
        """Devices that have no snapshot and could not be collected."""
        return [p.device for p in self.fabric.problems if p.kind == "not-collected"]

    def summary(self) -> dict[str, int]:
        """Finding counts by severity."""
        out = {s.value: 0 for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)}
        for f in self.findings:
            out[f.severity.value] += 1
        return out

    def exit_code(self, fail_on: Severity = Severity.ERROR) -> int:
        """0 clean, 1 findings at or above ``fail_on``, 2 input errors, 3 not collected."""
        if self.errors:
            return 2
        if self.not_collected:
            return 3
        if any(f.severity.rank >= fail_on.rank for f in self.findings):
            return 1
        return 0
