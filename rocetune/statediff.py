"""What RoCE-relevant state changed between two fabrics, per device and port, in words.

Vendor neutral: it compares the models, so a SONiC ``pfc_enable`` edit and an NVUE
``switch-priority`` edit read the same ("leaf2 Ethernet8: PFC priorities {3} → {}").
Compared per switch port: admin state, speed, MTU, trust, PFC priorities, link pause, the
DSCP map entries of the intent DSCPs (RoCE and CNP), priority → TC of the intent priorities,
ECN/WRED per queue, scheduler per queue, PFC watchdog, ingress PG and egress queue buffers,
cable length. Per NIC port the host-side equivalents; per device the platform, buffer pools and
the watchdog poll interval; devices and ports added or removed. ``unknown`` = not in the
snapshot; ``unset`` = a field of a known object that is not set; ``none`` = known absent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from rocetune.model import Device, Fabric, Model, NicPort, Port, Watchdog

Row = tuple[str, str, str]
"""(field, before, after) of one change."""
Fmt = Callable[[Any], str]
Fields = tuple[tuple[str, str, Fmt], ...]


@dataclass(frozen=True)
class Change:
    """One difference: a field of a device or port changed, or a device or port came or went."""

    device: str
    port: str | None
    field: str
    before: str | None = None
    after: str | None = None
    kind: Literal["changed", "added", "removed"] = "changed"

    def __str__(self) -> str:
        where = self.device if self.port is None else f"{self.device} {self.port}"
        if self.kind != "changed":
            return f"{where}: {self.field} {self.kind}"
        return f"{where}: {self.field} {self.before} → {self.after}"


def _plain(v: Any) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _set(v: Iterable[int]) -> str:
    return "{" + ",".join(str(x) for x in sorted(set(v))) + "}"


def _bytes(v: Any) -> str:
    return f"{v} B"


def _unit(unit: str) -> Fmt:
    return lambda v: f"{_plain(v)} {unit}"


def _speed(mbps: Any) -> str:
    return f"{mbps // 1000}G" if mbps % 1000 == 0 else f"{mbps} Mb/s"


def _updown(v: Any) -> str:
    return "up" if v else "down"


ECN_FIELDS: Fields = (
    ("ecn_mark", "marking", _plain),
    ("red_drop", "early drop", _plain),
    ("min_threshold_bytes", "min threshold", _bytes),
    ("max_threshold_bytes", "max threshold", _bytes),
    ("max_probability_pct", "max probability", _unit("%")),
)
SCHEDULER_FIELDS: Fields = (("kind", "kind", _plain), ("weight", "weight", _plain))
BUFFER_FIELDS: Fields = (
    ("pool", "pool", _plain),
    ("size_bytes", "size", _bytes),
    ("xon_bytes", "xon", _bytes),
    ("xoff_bytes", "xoff", _bytes),
    ("xon_offset_bytes", "xon offset", _bytes),
    ("dynamic_th", "dynamic threshold", _plain),
    ("alpha", "alpha", _plain),
    ("static_th_bytes", "static threshold", _bytes),
    ("computed_at_runtime", "computed at runtime", _plain),
)
WATCHDOG_FIELDS: Fields = (
    ("enabled", "", _plain),
    ("detection_ms", "detection", _unit("ms")),
    ("restoration_ms", "restoration", _unit("ms")),
    ("action", "action", _plain),
    ("priorities", "priorities", _set),
)
POOL_FIELDS: Fields = (
    ("direction", "direction", _plain),
    ("mode", "mode", _plain),
    ("size_bytes", "size", _bytes),
    ("percent", "share", _unit("%")),
    ("shared_headroom_bytes", "shared headroom", _bytes),
    ("lossless", "lossless", _plain),
)


def _show(v: Any, fmt: Fmt) -> str:
    return "unknown" if v is None else fmt(v)


def scalar(label: str, a: Any, b: Any, fmt: Fmt = _plain) -> list[Row]:
    """A row when two values differ (None shows as ``unknown``)."""
    return [] if a == b else [(label, _show(a, fmt), _show(b, fmt))]


def entries(
    label: str, a: Mapping[int, Any] | None, b: Mapping[int, Any] | None, keys: Iterable[int]
) -> list[Row]:
    """Rows for the map entries ``keys`` (``label`` has a ``{k}`` slot); absent = unmapped."""

    def get(m: Mapping[int, Any] | None, k: int) -> str:
        return "unknown" if m is None else _plain(m[k]) if k in m else "unmapped"

    rows = []
    for k in keys:
        before, after = get(a, k), get(b, k)
        if before != after:
            rows.append((label.format(k=k), before, after))
    return rows


def describe(obj: Model, fields: Fields) -> str:
    """The set fields of an object in a few words."""
    parts = []
    for attr, name, fmt in fields:
        v = getattr(obj, attr)
        if v is not None:
            parts.append(f"{name} {fmt(v)}".strip())
    return ", ".join(parts) or "set"


def obj(label: str, a: Model | None, b: Model | None, fields: Fields) -> list[Row]:
    """Rows for the fields that differ between two objects (None = unknown)."""
    if a is None or b is None:
        if a is None and b is None:
            return []
        return [
            (
                label,
                "unknown" if a is None else describe(a, fields),
                "unknown" if b is None else describe(b, fields),
            )
        ]
    rows = []
    for attr, name, fmt in fields:
        va, vb = getattr(a, attr), getattr(b, attr)
        if va != vb:
            sub = f"{label} {name}".strip()
            rows.append(
                (sub, "unset" if va is None else fmt(va), "unset" if vb is None else fmt(vb))
            )
    return rows


def objects(
    label: str, a: Mapping[Any, Model] | None, b: Mapping[Any, Model] | None, fields: Fields
) -> list[Row]:
    """Rows per key of two maps of objects (``label`` has a ``{k}`` slot); absent = none."""
    if a is None and b is None:
        return []
    rows = []
    for k in sorted(set(a or {}) | set(b or {}), key=str):
        va = (a or {}).get(k)
        vb = (b or {}).get(k)
        name = label.format(k=k)
        if a is not None and b is not None and (va is None or vb is None):
            rows.append(
                (
                    name,
                    "none" if va is None else describe(va, fields),
                    "none" if vb is None else describe(vb, fields),
                )
            )
        else:
            rows.extend(obj(name, va, vb, fields))
    return rows


def watchdog(a: Watchdog | None, b: Watchdog | None) -> list[Row]:
    """Watchdog rows; switching it on or off is one row with the whole setting."""
    if a is not None and b is not None and a.enabled != b.enabled:
        return [("PFC watchdog", describe(a, WATCHDOG_FIELDS), describe(b, WATCHDOG_FIELDS))]
    return obj("PFC watchdog", a, b, WATCHDOG_FIELDS)


@dataclass(frozen=True)
class Focus:
    """The intent values whose map entries are compared (from both sides' intents)."""

    dscps: tuple[int, ...]
    priorities: tuple[int, ...]
    lossless: tuple[int, ...]

    @classmethod
    def of(cls, *fabrics: Fabric) -> Focus:
        """Union of the RoCE/CNP DSCPs and lossless/CNP priorities of the fabrics' intents."""
        dscps = {d for f in fabrics for d in (*f.intent.roce_dscp, f.intent.cnp.dscp)}
        lossless = {p for f in fabrics for p in f.intent.lossless_priorities}
        prios = lossless | {f.intent.cnp.priority for f in fabrics}
        return cls(tuple(sorted(dscps)), tuple(sorted(prios)), tuple(sorted(lossless)))


def _pfc(port: Port) -> str | None:
    if port.pfc_rx is None or port.pfc_tx is None:
        return None
    if set(port.pfc_rx) == set(port.pfc_tx):
        return _set(port.pfc_rx)
    return f"rx {_set(port.pfc_rx)} tx {_set(port.pfc_tx)}"


def compare_ports(a: Port, b: Port, focus: Focus) -> list[Row]:
    """Rows for what changed on one switch port."""
    return [
        *scalar("admin state", a.admin_up, b.admin_up, _updown),
        *scalar("speed", a.speed_mbps, b.speed_mbps, _speed),
        *scalar("MTU", a.mtu, b.mtu),
        *scalar("trust", a.trust, b.trust),
        *scalar("PFC priorities", _pfc(a), _pfc(b)),
        *scalar("link pause", a.link_pause, b.link_pause),
        *entries("DSCP {k} → priority", a.dscp_to_priority, b.dscp_to_priority, focus.dscps),
        *entries("priority {k} → TC", a.priority_to_tc, b.priority_to_tc, focus.priorities),
        *objects("ECN queue {k}", a.ecn, b.ecn, ECN_FIELDS),
        *objects("scheduler queue {k}", a.schedulers, b.schedulers, SCHEDULER_FIELDS),
        *watchdog(a.watchdog, b.watchdog),
        *objects("buffer PG {k}", a.pg_buffers, b.pg_buffers, BUFFER_FIELDS),
        *objects("buffer queue {k}", a.queue_buffers, b.queue_buffers, BUFFER_FIELDS),
        *scalar("cable length", a.cable_length_m, b.cable_length_m, _unit("m")),
    ]


def compare_nics(a: NicPort, b: NicPort, focus: Focus) -> list[Row]:
    """Rows for what changed on one host NIC port."""
    pfc_a = None if a.pfc_priorities is None else _set(a.pfc_priorities)
    pfc_b = None if b.pfc_priorities is None else _set(b.pfc_priorities)
    return [
        *scalar("speed", a.speed_mbps, b.speed_mbps, _speed),
        *scalar("MTU", a.mtu, b.mtu),
        *scalar("trust", a.trust, b.trust),
        *scalar("PFC priorities", pfc_a, pfc_b),
        *scalar("global pause rx", a.global_pause_rx, b.global_pause_rx),
        *scalar("global pause tx", a.global_pause_tx, b.global_pause_tx),
        *entries("DSCP {k} → priority", a.dscp_to_priority, b.dscp_to_priority, focus.dscps),
        *entries("priority {k} → TC", a.priority_to_tc, b.priority_to_tc, focus.priorities),
        *entries("DCQCN RP priority {k}", a.dcqcn_rp, b.dcqcn_rp, focus.lossless),
        *entries("DCQCN NP priority {k}", a.dcqcn_np, b.dcqcn_np, focus.lossless),
        *scalar("CNP DSCP", a.cnp_dscp, b.cnp_dscp),
        *scalar("CNP priority", a.cnp_priority, b.cnp_priority),
        *scalar("RoCE ToS", a.roce_tos, b.roce_tos),
        *scalar("traffic class", a.traffic_class, b.traffic_class),
        *scalar("RoCE mode", a.roce_mode, b.roce_mode),
        *objects("scheduler TC {k}", a.tc_scheduler, b.tc_scheduler, SCHEDULER_FIELDS),
        *scalar("cable length", a.cable_length_m, b.cable_length_m, _unit("m")),
    ]


def natural(text: str) -> tuple[Any, ...]:
    """Sort key that orders Ethernet2 before Ethernet10."""
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def _members(device: str, a: Mapping[str, Any], b: Mapping[str, Any], what: str) -> list[Change]:
    gone = [Change(device, n, what, kind="removed") for n in a if n not in b]
    new = [Change(device, n, what, kind="added") for n in b if n not in a]
    return sorted(gone + new, key=lambda c: natural(c.port or ""))


def compare_devices(a: Device, b: Device, focus: Focus) -> list[Change]:
    """Changes of one device present on both sides."""
    name = b.name
    rows = [
        *scalar("platform", a.platform, b.platform),
        *objects("buffer pool {k}", a.buffer_pools, b.buffer_pools, POOL_FIELDS),
        *scalar("PFC watchdog poll interval", a.watchdog_poll_ms, b.watchdog_poll_ms, _unit("ms")),
    ]
    out = [Change(name, None, f, x, y) for f, x, y in rows]
    out += _members(name, a.ports, b.ports, "port")
    out += _members(name, a.nics, b.nics, "NIC port")
    for port in sorted(set(a.ports) & set(b.ports), key=natural):
        rows = compare_ports(a.ports[port], b.ports[port], focus)
        out += [Change(name, port, f, x, y) for f, x, y in rows]
    for nic in sorted(set(a.nics) & set(b.nics), key=natural):
        rows = compare_nics(a.nics[nic], b.nics[nic], focus)
        out += [Change(name, nic, f, x, y) for f, x, y in rows]
    return out


def compare_fabrics(base: Fabric, head: Fabric) -> list[Change]:
    """Every RoCE-relevant change from ``base`` to ``head``, by device then port."""
    focus = Focus.of(base, head)
    out: list[Change] = []
    for name in sorted(set(base.devices) | set(head.devices), key=natural):
        a, b = base.devices.get(name), head.devices.get(name)
        if a is None:
            out.append(Change(name, None, "device", kind="added"))
        elif b is None:
            out.append(Change(name, None, "device", kind="removed"))
        else:
            out += compare_devices(a, b, focus)
    return out
