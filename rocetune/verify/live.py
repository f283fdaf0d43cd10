"""``rocetune verify`` helpers below the API: the hosts of a plan, the results table.

The run itself (sessions, the audit with the results) is :mod:`rocetune.api.verification`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rocetune.model import Intent, PerftestResult
from rocetune.verify.plan import Plan
from rocetune.verify.runner import Verification


def plan_hosts(plan: Plan) -> list[str]:
    """Every host taking part, sorted."""
    return sorted({e.host for r in plan.rounds for t in r for e in (t.client, t.server)})


def _bw(r: PerftestResult) -> float | None:
    values = [row.average_gbps for row in r.bandwidth if row.average_gbps is not None]
    return max(values) if values else None


def _lat(r: PerftestResult) -> float | None:
    row = r.latency[-1] if r.latency else None
    if row is None:
        return None
    return row.t_typical_us if row.t_typical_us is not None else row.t_avg_us


def _cells(results: Sequence[PerftestResult], intent: Intent) -> tuple[str, str, str, str]:
    bw = lat = pct = "-"
    verdicts = []
    for r in results:
        if r.errors or not r.complete:
            verdicts.append(f"{r.kind} failed")
            continue
        if r.kind == "bw" and (value := _bw(r)) is not None:
            bw = f"{value:.2f} Gb/s"
            if r.line_rate_gbps:
                share = value / r.line_rate_gbps
                pct = f"{share:.1%}"
                if share < intent.verify.min_bandwidth_fraction:
                    verdicts.append("bw low")
                elif share > 1:
                    verdicts.append("bw impossible")
        if r.kind == "lat" and (value := _lat(r)) is not None:
            lat = f"{value:.2f} us"
            if value > intent.verify.max_latency_us:
                verdicts.append("lat high")
    return bw, pct, lat, ", ".join(verdicts) or "pass"


def results_table(found: Verification, intent: Intent) -> str:
    """One line per pair: bandwidth, % of line rate, latency, verdict (text report)."""
    pairs: dict[tuple[str, str], list[PerftestResult]] = {}
    for _, test, result in found.tests:
        pairs.setdefault((str(test.client), str(test.server)), []).append(result)
    if not pairs:
        return "perftest: no test ran\n"
    head = ("client", "server", "bandwidth", "line rate", "latency", "result")
    rows = [head] + [(c, s, *_cells(rs, intent)) for (c, s), rs in pairs.items()]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    problems = [f"  note: {p}" for p in found.problems]
    return (
        "perftest results per pair:\n"
        + "\n".join(["  " + line.rstrip() for line in lines] + problems)
        + "\n\n"
    )
