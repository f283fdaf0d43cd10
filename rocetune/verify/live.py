"""Glue for ``rocetune verify``: host sessions, the audit with the results, the results table.

The sessions come from :mod:`rocetune.collect` (same credentials, host-key trust, timeouts
and transport choice as ``rocetune collect``: exec channels for Linux hosts). After the run,
the audit's fabric gets ``counters`` and ``perftest`` and every selected rule runs again
(the normal audit plus RT801-RT810 and RT901-RT904), then the policy is applied as
``rocetune audit`` does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from rocetune.checks.base import RuleOptions
from rocetune.checks.registry import all_rules
from rocetune.collect import CollectOptions
from rocetune.collect.credentials import CredentialSource
from rocetune.collect.reasons import classify
from rocetune.collect.transport import Session
from rocetune.engine import MISSING_CODE, Selection, run_checks, select_rules
from rocetune.errors import RocetuneError
from rocetune.inventory import Inventory
from rocetune.model import AuditResult, Intent, PerftestResult
from rocetune.suppress import Policy, apply_to_result
from rocetune.verify.plan import Plan
from rocetune.verify.results import pair_results
from rocetune.verify.runner import Verification


def plan_hosts(plan: Plan) -> list[str]:
    """Every host taking part, sorted."""
    return sorted({e.host for r in plan.rounds for t in r for e in (t.client, t.server)})


def open_sessions(
    inv: Inventory,
    hosts: Sequence[str],
    options: CollectOptions,
    creds: CredentialSource | None = None,
) -> dict[str, Session]:
    """One open session per host; RocetuneError naming every host that cannot be reached."""
    from rocetune.collect.runner import plan as collect_plan

    jobs, failed = collect_plan(inv, hosts, options, creds)
    problems = [f"{o.name}: {o.failure}" for o in failed]
    sessions: dict[str, Session] = {}
    for job in jobs:
        try:
            sessions[job.target.name] = job.transport.open(job.target)
        except Exception as exc:
            problems.append(f"{job.target.name}: {classify(exc)}")
    if problems:
        close_all(sessions.values())
        raise RocetuneError("cannot reach host(s) for verification: " + "; ".join(problems))
    return sessions


def close_all(sessions: Iterable[Session]) -> None:
    """Close every session (each close never raises)."""
    for session in sessions:
        session.close()


def with_verification(
    base: AuditResult,
    found: Verification,
    *,
    selection: Selection,
    options: dict[str, RuleOptions] | None,
    policy: Policy | None,
    inv: Inventory,
) -> AuditResult:
    """The audit result again, its fabric carrying the counters and perftest results."""
    fabric = base.fabric.model_copy(
        update={"counters": tuple(found.counters), "perftest": tuple(found.perftest)}
    )
    rules = select_rules(all_rules(), selection)
    report_missing = any(r.meta.code == MISSING_CODE for r in rules)
    findings = run_checks(fabric, rules, options, base.provenance, report_missing=report_missing)
    tests = [(str(t.client), str(t.server), r) for _, t, r in found.tests]
    result = replace(
        base,
        fabric=fabric,
        findings=findings,
        rules=tuple(r.meta.code for r in rules),
        verify=pair_results(tests, fabric.intent),
    )
    if policy is not None or inv.suppressions:
        apply_to_result(result, policy or Policy(), inv.suppressions)
    return result


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
