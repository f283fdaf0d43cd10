"""Resolve the global ``qos`` subtree into effective profiles (step 1 of 2: vendor semantics).

Order of precedence for every value: the applied configuration, then the ``qos roce``
expansion of its mode (``enable: on``/``state: enabled``, or ``roce`` present without
``enable: off``; mode default ``lossless``), then NVUE's documented defaults
(:mod:`.defaults`). Profiles named ``default-global`` apply to every swp port; an interface
that binds another profile (``interface <swp> qos <feature> profile <name>``) uses that one
instead, whole (S2 "Port Groups": "Configurations with a profile override the global
settings ... Ports not in a profile use the global settings").

Keys under ``qos`` that are understood but not modelled (``egress-shaper``, most of
``advance-buffer-config``) and keys not understood at all become Unparsed items, one per
leaf, so RT001 reports them. ``remark`` profiles are resolved by :mod:`.remark`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rocetune.model.device import Trust
from rocetune.platforms.common.construct import Same
from rocetune.platforms.cumulus import defaults, values
from rocetune.platforms.cumulus.qos_common import UNKNOWN_KEY, Ctx, Line, Part
from rocetune.platforms.cumulus.qos_queues import (
    DEFAULT_GLOBAL,
    PfcProfile,
    resolve_ecn,
    resolve_link_pause,
    resolve_pfc,
    resolve_schedulers,
)
from rocetune.platforms.cumulus.remark import resolve_remarks
from rocetune.platforms.cumulus.tree import ConfigTree, Issues

_TRUST: dict[str, Trust] = {"l2": "pcp", "l3": "dscp", "both": "both", "port": "port"}
_HANDLED = frozenset(
    {
        "roce",
        "mapping",
        "egress-queue-mapping",
        "pfc",
        "link-pause",
        "congestion-control",
        "egress-scheduler",
        "pfc-watchdog",
        "traffic-pool",
        "advance-buffer-config",
        "remark",
    }
)
_NOT_MODELLED = {
    "egress-shaper": "egress shaping is not modelled",
}
_ROCE_KEYS = frozenset({"enable", "state", "mode", "cable-length"})
_MAPPING_KEYS = frozenset({"trust", "dscp", "pcp", "port-default-sp"})
_ALPHA_PATH = ("qos", "advance-buffer-config", DEFAULT_GLOBAL, "ingress-lossless-buffer")


@dataclass
class Pool:
    """A traffic pool: memory percent, member switch priorities, lossless or not."""

    percent: float | None
    priorities: tuple[int, ...] | None
    lossless: bool
    line: Line = None


@dataclass
class QosPlan:
    """Every effective global QoS profile, ready to bind to ports."""

    roce_mode: str | None = None
    roce_line: Line = None
    mappings: dict[str, Part] = field(default_factory=dict)
    sp_to_tc: Part = field(default_factory=Part)
    pfc: dict[str, PfcProfile] = field(default_factory=dict)
    link_pause: dict[str, Part] = field(default_factory=dict)
    ecn: dict[str, Part] = field(default_factory=dict)
    schedulers: dict[str, Part] = field(default_factory=dict)
    poll_ms: float | None = defaults.WATCHDOG_POLL_MS
    robustness: int | None = defaults.WATCHDOG_ROBUSTNESS
    watchdog_line: Line = None
    pools: dict[str, Pool] = field(default_factory=dict)
    lossless_alpha: float | None = defaults.LOSSLESS_PG_ALPHA
    alpha_line: Line = None
    remarks: dict[str, Part] = field(default_factory=dict)
    same: Same = field(default_factory=Same, repr=False, compare=False)
    """One object per distinct value the plan hands to ports (ports are built with
    :func:`~rocetune.platforms.common.construct.construct`: the run's sharer finds them by
    identity)."""


def resolve_qos(tree: ConfigTree, issues: Issues) -> QosPlan:
    """Resolve ``qos`` of the applied configuration into a :class:`QosPlan`."""
    ctx = Ctx(tree=tree, issues=issues)
    qos = ctx.mapping(("qos",)) or {}
    for key in qos:
        if key in _NOT_MODELLED:
            issues.subtree(tree, ("qos", key), _NOT_MODELLED[key])
        elif key not in _HANDLED:
            issues.subtree(tree, ("qos", key), UNKNOWN_KEY)
    plan = QosPlan()
    roce_cable = _roce(ctx, plan)
    plan.mappings = _mappings(ctx)
    plan.sp_to_tc = _sp_to_tc(ctx)
    plan.pfc = resolve_pfc(ctx, roce_cable)
    plan.link_pause = resolve_link_pause(ctx)
    plan.ecn = resolve_ecn(ctx)
    plan.schedulers = resolve_schedulers(ctx)
    _watchdog(ctx, plan)
    plan.pools = _pools(ctx)
    _advanced(ctx, plan)
    plan.remarks = resolve_remarks(ctx)
    return plan


def _roce(ctx: Ctx, plan: QosPlan) -> float | None:
    """Read ``qos roce``; set the expansion in ``ctx``; return the RoCE cable length."""
    path = ("qos", "roce")
    node = ctx.mapping(path)
    if node is None:
        return defaults.ROCE_CABLE_LENGTH_M
    ctx.unknown_keys(path, node, _ROCE_KEYS)
    for key in ("enable", "state"):
        if key in node and ctx.switch((*path, key), node[key]) is False:
            return defaults.ROCE_CABLE_LENGTH_M
    cable: float | None = defaults.ROCE_CABLE_LENGTH_M
    if "cable-length" in node:
        cable = ctx.number((*path, "cable-length"), node["cable-length"], 100_000)
    mode = str(node.get("mode", defaults.ROCE_MODE_DEFAULT)).strip().lower()
    expansion = defaults.ROCE_MODES.get(mode)
    if expansion is None:
        ctx.issues.invalid((*path, "mode"), node["mode"], "a RoCE mode", ctx.line((*path, "mode")))
        return cable
    ctx.roce, ctx.roce_line = expansion, ctx.line(path)
    plan.roce_mode, plan.roce_line = mode, ctx.roce_line
    return cable


def _mappings(ctx: Ctx) -> dict[str, Part]:
    found = {name: node for name, node, _path in ctx.profiles("mapping")}
    out: dict[str, Part] = {}
    for name in sorted({DEFAULT_GLOBAL, *found}):
        part = Part()
        trust = ctx.roce.trust if ctx.roce is not None else defaults.DEFAULT_TRUST
        dscp = ctx.roce.dscp_to_sp if ctx.roce is not None else defaults.DEFAULT_DSCP_TO_SP
        part.put("trust", trust, ctx.roce_line)
        part.put("dscp_to_priority", dict(dscp), ctx.roce_line)
        if name in found:
            _apply_mapping(ctx, part, found[name], ("qos", "mapping", name))
        out[name] = part
    return out


def _apply_mapping(ctx: Ctx, part: Part, node: dict[str, Any], path: tuple[str, ...]) -> None:
    ctx.unknown_keys(path, node, _MAPPING_KEYS)
    if "trust" in node:
        where = (*path, "trust")
        trust = _TRUST.get(str(node["trust"]).strip().lower())
        if trust is None:
            ctx.issues.invalid(where, node["trust"], "l2, l3, both or port", ctx.line(where))
        part.put("trust", trust, ctx.line(where))
    if "port-default-sp" in node:
        ctx.integer((*path, "port-default-sp"), node["port-default-sp"], 0, 7)
    if "dscp" in node:
        where = (*path, "dscp")
        table = _sp_table(ctx, where, 63, dict(part.values["dscp_to_priority"] or {}))
        part.put("dscp_to_priority", table, ctx.line(where))
    if "pcp" in node:
        _sp_table(ctx, (*path, "pcp"), 7, {})


def _sp_table(
    ctx: Ctx, path: tuple[str, ...], high: int, table: dict[int, int]
) -> dict[int, int] | None:
    """Apply ``<id>: {switch-priority: n}`` members; None when any member is unreadable."""
    good = ctx.valid_ids(path, high)
    for ids, settings, member in ctx.members(path, high):
        ctx.unknown_keys(member, settings, frozenset({"switch-priority"}))
        sp = ctx.integer((*member, "switch-priority"), settings.get("switch-priority"), 0, 7)
        if sp is None:
            good = False
            continue
        table.update(dict.fromkeys(ids, sp))
    return table if good else None


def _sp_to_tc(ctx: Ctx) -> Part:
    part = Part()
    base = ctx.roce.sp_to_tc if ctx.roce is not None else defaults.DEFAULT_SP_TO_TC
    part.put("priority_to_tc", dict(base), ctx.roce_line)
    for name, node, path in ctx.profiles("egress-queue-mapping"):
        if name != DEFAULT_GLOBAL:
            reason = "NVUE supports only the default-global egress-queue-mapping profile"
            ctx.issues.subtree(ctx.tree, path, reason)
            continue
        ctx.unknown_keys(path, node, frozenset({"switch-priority"}))
        where = (*path, "switch-priority")
        table: dict[int, int] | None = dict(base)
        for sps, settings, member in ctx.members(where, 7):
            ctx.unknown_keys(member, settings, frozenset({"traffic-class"}))
            tc = ctx.integer((*member, "traffic-class"), settings.get("traffic-class"), 0, 15)
            if tc is None or table is None:
                table = None
                continue
            table.update(dict.fromkeys(sps, tc))
        part.put("priority_to_tc", table if ctx.valid_ids(where, 7) else None, ctx.line(where))
    return part


def _watchdog(ctx: Ctx, plan: QosPlan) -> None:
    path = ("qos", "pfc-watchdog")
    node = ctx.mapping(path)
    if node is None:
        return
    plan.watchdog_line = ctx.line(path)
    ctx.unknown_keys(path, node, frozenset({"polling-interval", "robustness"}))
    if "polling-interval" in node:
        where = (*path, "polling-interval")
        interval = ctx.integer(where, node["polling-interval"], 1, 3_600_000)
        plan.poll_ms = float(interval) if interval is not None else None
        plan.watchdog_line = ctx.line(where)
    if "robustness" in node:
        plan.robustness = ctx.integer((*path, "robustness"), node["robustness"], 1, 1000)


def _pools(ctx: Ctx) -> dict[str, Pool]:
    base = ctx.roce.pools if ctx.roce is not None else defaults.DEFAULT_POOLS
    pools = {
        name: Pool(pct, sps, name in defaults.LOSSLESS_POOLS, ctx.roce_line)
        for name, (pct, sps) in base.items()
    }
    for name, node, path in ctx.profiles("traffic-pool"):
        ctx.unknown_keys(path, node, frozenset({"memory-percent", "switch-priority"}))
        pool = pools.setdefault(name, Pool(None, (), name in defaults.LOSSLESS_POOLS))
        pool.line = ctx.line(path)
        if "memory-percent" in node:
            where = (*path, "memory-percent")
            pool.percent = ctx.number(where, node["memory-percent"], 100)
        if "switch-priority" in node:
            pool.priorities = ctx.id_set((*path, "switch-priority"), 7)
    return pools


def _advanced(ctx: Ctx, plan: QosPlan) -> None:
    node = ctx.tree.get(("qos", "advance-buffer-config"))
    if node is None:
        return
    reason = "advanced buffer setting is not modelled"
    for _name, settings, path in ctx.profiles("advance-buffer-config"):
        for key, child in settings.items():
            if (*path, key) != _ALPHA_PATH or not isinstance(child, dict):
                ctx.issues.subtree(ctx.tree, (*path, key), reason)
                continue
            for leaf in child:
                if leaf != "shared-alpha":
                    ctx.issues.subtree(ctx.tree, (*path, key, leaf), reason)
    alpha = ctx.tree.get((*_ALPHA_PATH, "shared-alpha"))
    if alpha is not None:
        where = (*_ALPHA_PATH, "shared-alpha")
        plan.lossless_alpha = values.as_alpha(alpha)
        plan.alpha_line = ctx.line(where)
        if plan.lossless_alpha is None:
            ctx.issues.invalid(where, alpha, "alpha_0 ... alpha_infinity", ctx.line(where))
