"""The explicit rule registry: every rule rocetune ships, sorted by code."""

from __future__ import annotations

from rocetune.checks import (
    buffer_limits,
    buffers,
    classification,
    counters,
    coverage,
    ecn,
    ecn_fabric,
    ecn_thresholds,
    ets,
    ets_share,
    fabric,
    links,
    lldp,
    mtu,
    nic,
    pfc,
    remark,
    topology,
    verify,
    watchdog,
)
from rocetune.checks.base import Rule


def all_rules() -> tuple[type[Rule], ...]:
    """Return every registered rule class, sorted by code."""
    families = (
        coverage,
        classification,
        pfc,
        watchdog,
        ecn,
        ets,
        ets_share,
        buffers,
        mtu,
        nic,
        links,
        topology,
        fabric,
        remark,
        ecn_thresholds,
        ecn_fabric,
        buffer_limits,
        lldp,
        counters,
        verify,
    )
    rules = [r for fam in families for r in fam.RULES]
    return tuple(sorted(rules, key=lambda r: r.meta.code))


def rule_by_code(code: str) -> type[Rule] | None:
    """Return the rule with ``code`` (or kebab name), or None."""
    for r in all_rules():
        if code.upper() == r.meta.code or code.lower() == r.meta.name:
            return r
    return None
