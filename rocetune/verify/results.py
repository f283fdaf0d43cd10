"""Per-test perftest results of ``rocetune verify``, as report data (JSON, HTML).

One :class:`PairResult` per test (a pair runs a ``bw`` and/or a ``lat`` test): the numbers
the results table shows plus a verdict against the intent's thresholds
(``intent.verify.min_bandwidth_fraction``, ``intent.verify.max_latency_us``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from rocetune.model import Intent, PerftestResult

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


def _bandwidth(r: PerftestResult) -> float | None:
    values = [row.average_gbps for row in r.bandwidth if row.average_gbps is not None]
    return max(values) if values else None


def _verdict(r: PerftestResult, bw: float | None, lat: float | None, intent: Intent) -> Verdict:
    if r.errors or not r.complete:
        return "failed"
    if r.kind == "bw":
        if bw is None:
            return "no result"
        if r.line_rate_gbps:
            share = bw / r.line_rate_gbps
            if share < intent.verify.min_bandwidth_fraction:
                return "low"
            if share > 1:
                return "impossible"
        return "pass"
    if lat is None:
        return "no result"
    return "high" if lat > intent.verify.max_latency_us else "pass"


def pair_result(client: str, server: str, r: PerftestResult, intent: Intent) -> PairResult:
    """The row of one client result."""
    bw = _bandwidth(r) if r.kind == "bw" else None
    row = r.latency[-1] if r.kind == "lat" and r.latency else None
    typical = row.t_typical_us if row is not None else None
    avg = row.t_avg_us if row is not None else None
    lat = typical if typical is not None else avg
    return PairResult(
        client=client,
        server=server,
        test=r.kind or "?",
        tool=r.tool,
        bandwidth_gbps=bw,
        line_rate_gbps=r.line_rate_gbps,
        t_typical_us=typical,
        t_avg_us=avg,
        verdict=_verdict(r, bw, lat, intent),
        error=r.errors[0].text if r.errors else None,
    )


def pair_results(
    tests: Iterable[tuple[str, str, PerftestResult]], intent: Intent
) -> tuple[PairResult, ...]:
    """One row per (client, server, client result), in run order."""
    return tuple(pair_result(c, s, r, intent) for c, s, r in tests)
