"""``rocetune verify``: plan perftest pairs, run them over SSH, audit with the results.

The sessions come from :mod:`rocetune.collect` (same credentials, host-key trust, timeouts
and transport choice as ``rocetune collect``: exec channels for Linux hosts). After the run,
the audit's fabric gets ``counters`` and ``perftest`` and every selected rule runs again
(the normal audit plus RT801-RT810 and RT901-RT904), then the policy is applied as
``rocetune audit`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from rocetune.api.audits import audit_inventory
from rocetune.checks.base import RuleOptions
from rocetune.checks.registry import all_rules
from rocetune.collect import CollectOptions
from rocetune.collect.credentials import CredentialSource
from rocetune.collect.reasons import classify
from rocetune.engine import MISSING_CODE, Selection, run_checks, select_rules
from rocetune.errors import RocetuneError
from rocetune.inventory import Inventory, load_inventory
from rocetune.model import AuditResult
from rocetune.session import Session
from rocetune.shard import Shard
from rocetune.suppress import Policy, apply_to_result
from rocetune.verify.live import plan_hosts
from rocetune.verify.plan import Endpoint, PairMode, Plan, Settings, build_plan, choose_pairs
from rocetune.verify.results import pair_results
from rocetune.verify.runner import PlanRunner, RunOptions, Verification


def verify_plan(
    inventory: Path | str,
    pairs: PairMode | list[tuple[Endpoint, Endpoint]],
    settings: Settings,
    selection: Selection | None = None,
    options: dict[str, RuleOptions] | None = None,
    *,
    collector: Callable[[Inventory], Mapping[str, Path | str]] | None = None,
    shard: Shard | None = None,
) -> tuple[AuditResult, Inventory, Plan]:
    """Audit ``inventory`` (no policy yet) and plan the perftest rounds between its hosts.

    ``shard``: only the pairs whose client host belongs to it (rocetune.shard); the shards
    of one fabric together run every pair once.
    """
    inv = load_inventory(inventory)
    base = audit_inventory(inv, selection, options, collector=collector)
    base.inventory = str(inventory)
    addresses = {d.name: d.host for d in inv.devices.values() if d.host is not None}
    if shard is not None:
        chosen = choose_pairs(base.fabric, pairs) if isinstance(pairs, str) else list(pairs)
        pairs = [(a, b) for a, b in chosen if shard.owns(a.host)]
    return base, inv, build_plan(base.fabric, pairs, addresses, settings)


def verify(
    base: AuditResult,
    inv: Inventory,
    plan: Plan,
    collect_options: CollectOptions,
    *,
    test_timeout: int,
    selection: Selection,
    options: dict[str, RuleOptions] | None,
    policy: Policy | None,
) -> tuple[AuditResult, Verification]:
    """Run ``plan`` (sessions always closed) and audit again with its counters and results."""
    sessions = open_sessions(inv, plan_hosts(plan), collect_options)
    try:
        runner = PlanRunner(base.fabric, sessions, RunOptions(test_timeout_s=test_timeout))
        found = runner.run(plan)
    finally:
        close_all(sessions.values())
    result = with_verification(
        base, found, selection=selection, options=options, policy=policy, inv=inv
    )
    return result, found


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
