"""PFC, link-pause, congestion-control (ECN) and egress-scheduler profiles.

Layering (documented defaults first, then the applied configuration):

- ``qos pfc <profile>``: ``switch-priority`` (a collection; a configured collection replaces
  the default one), ``rx``/``tx`` (default enable), ``cable-length`` (default 10 m; with
  ``qos roce`` the default-global profile uses ``qos roce cable-length``, default 100 m),
  ``port-buffer``/``xoff-threshold``/``xon-threshold`` (bytes; absent = derived by the
  switch). With ``qos roce`` in a lossless mode, ``default-global`` starts as PFC rx+tx on SP3.
- ``qos link-pause <profile>``: on unless both ``rx`` and ``tx`` are ``disable``.
- ``qos congestion-control <profile> traffic-class <tc>``: ``ecn`` (default enable), ``red``
  (default disable), ``min-threshold``/``max-threshold`` (bytes), ``probability`` (%).
  default-global starts with TC0 (150000-1500000 B); ``qos roce`` adds TC3. A configured
  ``traffic-class`` collection replaces NVUE's own TC0 entry (the Linux file behind it,
  ``default_ecn_red_conf.egress_queue_list``, is one list: S2 shows 4,5,7 only after setting
  4,5,7) but keeps the entries ``qos roce`` adds; a configured TC starts from the entry it
  replaces (so ``traffic-class 0 ecn disable`` keeps the default thresholds); a new TC starts
  with ECN on, RED off, probability 100 and unknown thresholds (S2 show output).
  **[unverified on a switch]**
- ``qos egress-scheduler <profile> traffic-class <tc>``: ``mode`` dwrr|strict and
  ``bw-percent``; default-global starts from the NVUE default (DWRR 12/13 %) or the RoCE
  ETS (TC0/TC3 DWRR 50 %, TC6 strict) and is changed per TC (the Linux file has one line per
  queue). A custom profile holds only its own TCs (S2: "schedules the other queues on a
  best-effort basis"); DWRR without ``bw-percent`` is weight 0 (S2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rocetune.model import EcnProfile, Scheduler
from rocetune.platforms.cumulus import defaults
from rocetune.platforms.cumulus.defaults import EcnDefault, SchedKind
from rocetune.platforms.cumulus.qos_common import Ctx, Line, Part
from rocetune.platforms.cumulus.tree import KeyPath

MAX_TC = 15
DEFAULT_GLOBAL = "default-global"
_PFC_KEYS = frozenset(
    {
        "switch-priority",
        "rx",
        "tx",
        "cable-length",
        "port-buffer",
        "xoff-threshold",
        "xon-threshold",
        "small-packet-probability",
    }
)
_PAUSE_KEYS = _PFC_KEYS - {"switch-priority", "small-packet-probability"}
_ECN_KEYS = frozenset({"ecn", "red", "min-threshold", "max-threshold", "probability"})
_SCHED_KEYS = frozenset({"mode", "bw-percent"})
Entry = tuple[SchedKind | None, float | None]


@dataclass
class PfcProfile:
    """A resolved PFC profile; ``lines`` keys: priorities, rx, tx, cable, buffer."""

    name: str
    line: Line
    priorities: tuple[int, ...] | None = ()
    rx: bool | None = defaults.PFC_RX_TX_DEFAULT
    tx: bool | None = defaults.PFC_RX_TX_DEFAULT
    cable_m: float | None = defaults.PFC_CABLE_LENGTH_M
    port_buffer: int | None = None
    xoff: int | None = None
    xon: int | None = None
    lines: dict[str, Line] = field(default_factory=dict)


def resolve_pfc(ctx: Ctx, roce_cable_m: float | None) -> dict[str, PfcProfile]:
    """Resolve every PFC profile (plus the RoCE default-global one)."""
    out: dict[str, PfcProfile] = {}
    if ctx.roce is not None and ctx.roce.pfc_priorities:
        line = ctx.roce_line
        out[DEFAULT_GLOBAL] = PfcProfile(
            name=DEFAULT_GLOBAL,
            line=line,
            priorities=ctx.roce.pfc_priorities,
            cable_m=roce_cable_m,
            lines=dict.fromkeys(("priorities", "rx", "tx", "cable"), line),
        )
    for name, node, path in ctx.profiles("pfc"):
        profile = out.get(name) or PfcProfile(name=name, line=ctx.line(path))
        profile.line = ctx.line(path)
        ctx.unknown_keys(path, node, _PFC_KEYS)
        _apply_pfc(ctx, profile, node, path)
        out[name] = profile
    return out


def _apply_pfc(ctx: Ctx, profile: PfcProfile, node: dict[str, Any], path: KeyPath) -> None:
    for key, value in node.items():
        where = (*path, key)
        line = ctx.line(where)
        if key == "switch-priority":
            profile.priorities = ctx.id_set(where, 7)
            profile.lines["priorities"] = line
        elif key in ("rx", "tx"):
            setattr(profile, key, ctx.switch(where, value))
            profile.lines[key] = line
        elif key == "cable-length":
            profile.cable_m = ctx.number(where, value, 100_000)
            profile.lines["cable"] = line
        elif key in ("port-buffer", "xoff-threshold", "xon-threshold"):
            attr = {"port-buffer": "port_buffer", "xoff-threshold": "xoff"}.get(key, "xon")
            setattr(profile, attr, ctx.integer(where, value))
            profile.lines.setdefault("buffer", line)
        elif key == "small-packet-probability":
            ctx.integer(where, value, 0, 100)


def resolve_link_pause(ctx: Ctx) -> dict[str, Part]:
    """Resolve every link-pause profile into ``link_pause`` (True unless rx and tx are off)."""
    out: dict[str, Part] = {}
    for name, node, path in ctx.profiles("link-pause"):
        ctx.unknown_keys(path, node, _PAUSE_KEYS)
        rx = tx = True
        unknown = False
        for key, value in node.items():
            where = (*path, key)
            if key in ("rx", "tx"):
                flag = ctx.switch(where, value)
                unknown = unknown or flag is None
                rx, tx = (flag is not False, tx) if key == "rx" else (rx, flag is not False)
            elif key == "cable-length":
                ctx.number(where, value, 100_000)
            elif key in _PAUSE_KEYS:
                ctx.integer(where, value)
        part = Part()
        part.put("link_pause", None if unknown else (rx or tx), ctx.line(path))
        out[name] = part
    return out


def resolve_ecn(ctx: Ctx) -> dict[str, Part]:
    """Resolve every congestion-control profile into ``ecn`` (queue -> EcnProfile)."""
    base = dict(ctx.roce.ecn) if ctx.roce is not None else dict(defaults.DEFAULT_ECN)
    found = {name: node for name, node, _path in ctx.profiles("congestion-control")}
    out: dict[str, Part] = {}
    for name in sorted({DEFAULT_GLOBAL, *found}):
        node = found.get(name, {})
        path = ("qos", "congestion-control", name)
        ctx.unknown_keys(path, node, frozenset({"traffic-class"}))
        out[name] = _ecn_part(ctx, name, node, path, base if name == DEFAULT_GLOBAL else {})
    return out


def _ecn_part(
    ctx: Ctx, name: str, node: dict[str, Any], path: KeyPath, base: dict[int, EcnDefault]
) -> Part:
    part = Part()
    if "traffic-class" not in node:
        entries = dict(base)
        line = ctx.roce_line if name == DEFAULT_GLOBAL else ctx.line(path)
    else:
        where = (*path, "traffic-class")
        entries = {tc: e for tc, e in base.items() if tc not in defaults.DEFAULT_ECN}
        line = ctx.line(where)
        _apply_ecn(ctx, where, entries, base)
        if not ctx.valid_ids(where, MAX_TC):
            part.put("ecn", None, line)
            return part
    part.put("ecn", {tc: _ecn_profile(name, e) for tc, e in sorted(entries.items())}, line)
    return part


def _apply_ecn(
    ctx: Ctx, path: KeyPath, entries: dict[int, EcnDefault], base: dict[int, EcnDefault]
) -> None:
    for tcs, node, where in ctx.members(path, MAX_TC):
        ctx.unknown_keys(where, node, _ECN_KEYS)
        for tc in tcs:
            start = entries.get(tc) or base.get(tc) or defaults.ECN_NEW_ENTRY
            entries[tc] = _ecn_entry(ctx, where, node, start)


def _ecn_entry(ctx: Ctx, path: KeyPath, node: dict[str, Any], start: EcnDefault) -> EcnDefault:
    """Apply one ``traffic-class`` entry; an unreadable value leaves its field unknown."""
    fields: dict[str, Any] = {
        "ecn": start.ecn,
        "red": start.red,
        "min_bytes": start.min_bytes,
        "max_bytes": start.max_bytes,
        "probability": start.probability,
    }
    for key, value in node.items():
        where = (*path, key)
        read: Any
        if key in ("ecn", "red"):
            read = ctx.switch(where, value)
        elif key in ("min-threshold", "max-threshold"):
            read = ctx.integer(where, value)
        elif key == "probability":
            read = ctx.number(where, value, 100)
        else:
            continue
        name = {"min-threshold": "min_bytes", "max-threshold": "max_bytes"}.get(key, key)
        fields[name] = read
    return EcnDefault(**fields)


def _ecn_profile(name: str, entry: EcnDefault) -> EcnProfile:
    return EcnProfile(
        name=name,
        ecn_mark=entry.ecn,
        red_drop=entry.red,
        min_threshold_bytes=entry.min_bytes,
        max_threshold_bytes=entry.max_bytes,
        max_probability_pct=entry.probability,
    )


def resolve_schedulers(ctx: Ctx) -> dict[str, Part]:
    """Resolve every egress-scheduler profile into ``schedulers`` (queue -> Scheduler)."""
    base = ctx.roce.schedulers if ctx.roce is not None else defaults.DEFAULT_SCHEDULERS
    found = {name: node for name, node, _path in ctx.profiles("egress-scheduler")}
    out: dict[str, Part] = {}
    for name in sorted({DEFAULT_GLOBAL, *found}):
        is_global = name == DEFAULT_GLOBAL
        node = found.get(name, {})
        path = ("qos", "egress-scheduler", name)
        where = (*path, "traffic-class")
        ctx.unknown_keys(path, node, frozenset({"traffic-class"}))
        entries: dict[int, Entry] = dict(base) if is_global else {}
        for tcs, settings, member in ctx.members(where, MAX_TC):
            ctx.unknown_keys(member, settings, _SCHED_KEYS)
            for tc in tcs:
                entries[tc] = _sched_entry(ctx, member, settings, entries.get(tc))
        scheds = {
            tc: Scheduler(name=name, kind=kind, weight=weight)
            for tc, (kind, weight) in sorted(entries.items())
        }
        line = ctx.line(where) if "traffic-class" in node else None
        line = line or (ctx.roce_line if is_global else ctx.line(path))
        part = Part()
        part.put("schedulers", scheds if ctx.valid_ids(where, MAX_TC) else None, line)
        out[name] = part
    return out


def _sched_entry(ctx: Ctx, path: KeyPath, node: dict[str, Any], start: Entry | None) -> Entry:
    """Apply one ``traffic-class`` entry; an unreadable value leaves the entry unknown."""
    kind: SchedKind | None = start[0] if start else None
    weight = start[1] if start else None
    if "mode" in node:
        mode = str(node["mode"]).strip().lower()
        if mode not in ("dwrr", "strict"):
            where = (*path, "mode")
            ctx.issues.invalid(where, node["mode"], "dwrr or strict", ctx.line(where))
            return (None, None)
        kind = "dwrr" if mode == "dwrr" else "strict"
    if "bw-percent" in node:
        weight = ctx.number((*path, "bw-percent"), node["bw-percent"], 100)
        if weight is None:
            return (kind, None)
        kind = kind or "dwrr"
    if kind == "strict":
        return ("strict", None)
    if kind is None:
        return (None, None)
    return ("dwrr", weight if weight is not None else 0.0)
