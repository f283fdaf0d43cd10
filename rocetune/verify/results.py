"""Per-test perftest results of ``rocetune verify``, as report data (JSON, HTML).

One :class:`PairResult` per test (a pair runs a ``bw`` and/or a ``lat`` test): the numbers
the results table shows plus a verdict against the intent's thresholds
(``intent.verify.min_bandwidth_fraction``, ``intent.verify.max_latency_us``).
"""

from __future__ import annotations

from collections.abc import Iterable

from rocetune.model import Intent, PairResult, PerftestResult, Verdict


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
