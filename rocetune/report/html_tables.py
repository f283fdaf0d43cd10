"""The HTML report's two data tables: the per-link consistency matrix and the headroom table.

Both are plain data (strings preformatted here) so the templates only lay them out.

Link matrix: for every link of ``Fabric.links`` both ends side by side for trust, the RoCE
DSCP -> priority mapping, the lossless (PFC rx and tx) priorities, MTU, the CNP DSCP ->
priority mapping and speed. Cells are judged the way the link rules judge them: a cell is
``mismatch`` when the ends disagree (for MTU on a host-switch link: the host's MTU is above
the switch's, RT703; a host below its switch is the intent), ``unknown`` when an end is not
known, ``intent`` when the ends agree but miss the intent, else ``ok``.

Headroom: every switch port in use (RoCE scope) whose intent lossless priority lands in a PG
with a lossless buffer profile; configured xoff against
:func:`rocetune.tune.headroom.compute_headroom` for the port's speed, MTU and cable length
(the fabric link's length when that is longer), with the ASIC constants of ``Device.asic``
and RT501's default traffic pattern and tolerance.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Literal

from rocetune.checks.base import CheckContext, RuleOptions
from rocetune.checks.buffers import HeadroomOptions, lossless_pgs
from rocetune.checks.helpers import DSCP_TRUST, PortLike, lossless_priorities, profile_is_lossless
from rocetune.checks.nic_port import ROCE_HEADERS_BYTES
from rocetune.checks.scope import roce_scope
from rocetune.model import Device, Fabric, Finding, Intent, LinkEnd, Port
from rocetune.report.html_common import (
    Level,
    dom_id,
    fmt_bytes,
    fmt_set,
    fmt_speed,
    natural_key,
    worst_level,
)
from rocetune.tune.headroom import HeadroomResult, asic_constants
from rocetune.tune.port_headroom import port_headroom

CellState = Literal["ok", "intent", "mismatch", "unknown"]
HeadroomState = Literal["ok", "tolerance", "short", "runtime", "unknown"]

MATRIX_COLUMNS = (
    "Trust",
    "RoCE DSCP → priority",
    "PFC priorities",
    "MTU",
    "CNP DSCP → priority",
    "Speed",
)


@dataclass(frozen=True)
class MatrixCell:
    """One attribute of a link: end a's value, end b's value and how they compare."""

    a: str
    b: str
    state: CellState


@dataclass(frozen=True)
class LinkRow:
    """One row of the link consistency matrix."""

    label: str
    dom_id: str
    a: str
    b: str
    length: str
    source: str
    cells: tuple[MatrixCell, ...]
    level: Level
    """Worst finding that names this link (RT7xx); ``unknown`` for none with an end unknown."""
    codes: tuple[str, ...] = ()
    """Rule codes of the findings that name this link."""

    @property
    def mismatches(self) -> int:
        """Cells whose two ends differ."""
        return sum(1 for c in self.cells if c.state == "mismatch")

    @property
    def unknowns(self) -> int:
        """Cells with an end not known (neither consistent nor not)."""
        return sum(1 for c in self.cells if c.state == "unknown")


# An attribute: (display text, comparable value or None when unknown).
Value = tuple[str, Hashable | None]


def _trust(port: PortLike, intent: Intent) -> Value:
    t = port.trust
    return ("?", None) if t is None else (t, "L3" if t in DSCP_TRUST else t)


def _dscp_map(port: PortLike, dscps: Iterable[int]) -> Value:
    dmap = port.dscp_to_priority
    if dmap is None:
        return "?", None
    pairs = [(d, dmap.get(d)) for d in dscps]
    text = ", ".join(f"{d}→{'-' if p is None else p}" for d, p in pairs)
    return text, tuple(p for _, p in pairs)


def _roce(port: PortLike, intent: Intent) -> Value:
    return _dscp_map(port, intent.roce_dscp)


def _cnp(port: PortLike, intent: Intent) -> Value:
    return _dscp_map(port, (intent.cnp.dscp,))


def _pfc(port: PortLike, intent: Intent) -> Value:
    have = lossless_priorities(port)
    if have is None:
        return "?", None
    if isinstance(port, Port) and set(port.pfc_rx or ()) != set(port.pfc_tx or ()):
        return f"rx{fmt_set(port.pfc_rx)} tx{fmt_set(port.pfc_tx)}", have
    return fmt_set(have), have


def _mtu(port: PortLike, intent: Intent) -> Value:
    return ("?", None) if port.mtu is None else (str(port.mtu), port.mtu)


def _speed(port: PortLike, intent: Intent) -> Value:
    s = port.speed_mbps
    return (fmt_speed(s), s) if s is not None else ("?", None)


@dataclass(frozen=True)
class End:
    """One known end of a link under comparison: its value and whether it is a switch port."""

    value: Hashable
    switch: bool


def _equal(a: End, b: End, intent: Intent) -> bool:
    return a.value == b.value


def _mtu_agree(a: End, b: End, intent: Intent) -> bool:
    """RT703: equal on switch-switch (and host-host) links; on a host-switch link the host's
    MTU may be below the switch's (host 9000 under switch 9214 is the intent)."""
    if a.switch == b.switch:
        return a.value == b.value
    host, switch = (b, a) if a.switch else (a, b)
    return (
        isinstance(host.value, int) and isinstance(switch.value, int) and host.value <= switch.value
    )


def _mtu_intent(end: End, intent: Intent) -> bool:
    """RT601 (a switch port carries the host MTU) and RT602 (a NIC carries RoCE frames)."""
    if not isinstance(end.value, int):
        return False
    if end.switch:
        return end.value >= intent.mtu.host
    return end.value >= intent.mtu.roce + ROCE_HEADERS_BYTES


@dataclass(frozen=True)
class Attribute:
    """A column of the matrix: an end's value, whether two ends agree, whether an end meets
    the intent (None: the intent says nothing about it)."""

    get: Callable[[PortLike, Intent], Value]
    agree: Callable[[End, End, Intent], bool] = _equal
    meets: Callable[[End, Intent], bool] | None = None


ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute(_trust, meets=lambda e, i: e.value == "L3"),
    Attribute(
        _roce,
        meets=lambda e, i: (
            isinstance(e.value, tuple) and all(p in i.lossless_priorities for p in e.value)
        ),
    ),
    Attribute(_pfc, meets=lambda e, i: e.value == frozenset(i.lossless_priorities)),
    Attribute(_mtu, agree=_mtu_agree, meets=_mtu_intent),
    Attribute(_cnp, meets=lambda e, i: e.value == (i.cnp.priority,)),
    Attribute(_speed),
)
"""One per :data:`MATRIX_COLUMNS`."""


def end_port(fabric: Fabric, end: LinkEnd) -> PortLike | None:
    """The model port (or NIC port) at a link end, None when not in the model."""
    dev = fabric.devices.get(end.device)
    if dev is None:
        return None
    return dev.ports.get(end.port) or dev.nics.get(end.port)


def _cell(attr: Attribute, a: PortLike | None, b: PortLike | None, intent: Intent) -> MatrixCell:
    ta, va = attr.get(a, intent) if a is not None else ("not in model", None)
    tb, vb = attr.get(b, intent) if b is not None else ("not in model", None)
    if va is None or vb is None:
        return MatrixCell(ta, tb, "unknown")
    ea, eb = End(va, isinstance(a, Port)), End(vb, isinstance(b, Port))
    if not attr.agree(ea, eb, intent):
        return MatrixCell(ta, tb, "mismatch")
    if attr.meets is not None and not (attr.meets(ea, intent) and attr.meets(eb, intent)):
        return MatrixCell(ta, tb, "intent")
    return MatrixCell(ta, tb, "ok")


def _link_level(found: Iterable[Finding], cells: Iterable[MatrixCell]) -> Level:
    """The worst finding naming the link; ``unknown`` (never ``ok``) when it has none but
    a setting of an end is not known (an end not read, data not in a snapshot)."""
    level = worst_level(found)
    if level == "ok" and any(c.state == "unknown" for c in cells):
        return "unknown"
    return level


def link_rows(fabric: Fabric, findings: Iterable[Finding]) -> tuple[LinkRow, ...]:
    """The consistency matrix, one row per link in fabric order."""
    by_link: dict[str, list[Finding]] = {}
    for f in findings:
        if f.link is not None:
            by_link.setdefault(f.link, []).append(f)
    rows = []
    for link in fabric.links:
        a, b = end_port(fabric, link.a), end_port(fabric, link.b)
        cells = tuple(_cell(attr, a, b, fabric.intent) for attr in ATTRIBUTES)
        rows.append(
            LinkRow(
                label=link.label,
                dom_id=dom_id("link", link.label),
                a=str(link.a),
                b=str(link.b),
                length="-" if link.length_m is None else f"{link.length_m:g} m",
                source=link.source,
                cells=cells,
                level=_link_level(by_link.get(link.label, ()), cells),
                codes=tuple(sorted({f.code for f in by_link.get(link.label, ())})),
            )
        )
    return tuple(rows)


@dataclass(frozen=True)
class HeadroomRow:
    """One lossless PG of a switch port: configured xoff against the formula."""

    device: str
    port: str
    pg: int
    priorities: str
    profile: str
    speed: str
    cable: str
    mtu: str
    asic: str
    configured: int | None
    """Configured xoff in bytes; None when the switch computes it or it is not known."""
    configured_text: str
    required: int | None
    """The formula's requirement (``HeadroomResult.required_xoff``), None without inputs."""
    allocated: int | None
    """The requirement rounded to the allocation unit (``HeadroomResult.xoff``)."""
    margin_text: str
    state: HeadroomState
    note: str

    @property
    def status(self) -> str:
        """The state in words."""
        return _STATUS[self.state]

    @property
    def required_text(self) -> str:
        """``268,036 B`` or ``-``."""
        return fmt_bytes(self.required)

    @property
    def allocated_text(self) -> str:
        """``268,288 B`` or ``-``."""
        return fmt_bytes(self.allocated)


_STATUS: dict[HeadroomState, str] = {
    "ok": "ok",
    "tolerance": "ok (within tolerance)",
    "short": "short",
    "runtime": "? switch-computed",
    "unknown": "? not computed",
}


def _link_length(fabric: Fabric, device: str, port: str) -> float | None:
    lengths = [
        lk.length_m
        for lk in fabric.links
        if lk.length_m is not None
        and any(e.device == device and e.port == port for e in (lk.a, lk.b))
    ]
    return max(lengths) if lengths else None


def _cable(fabric: Fabric, dev: Device, port: Port) -> tuple[float | None, str]:
    configured, linked = port.cable_length_m, _link_length(fabric, dev.name, port.name)
    if linked is not None and (configured is None or linked > configured):
        return linked, f"{linked:g} m (link)"
    return configured, "?" if configured is None else f"{configured:g} m"


def requirement(fabric: Fabric, dev: Device, port: Port) -> HeadroomResult | str:
    """The headroom formula for ``port``, or why it cannot be computed."""
    cable, _ = _cable(fabric, dev, port)
    gaps = [
        w for w, v in (("speed", port.speed_mbps), ("MTU", port.mtu), ("cable", cable)) if v is None
    ]
    if gaps or port.speed_mbps is None or port.mtu is None or cable is None:
        return "not computed: " + ", ".join(gaps) + " unknown"
    try:
        return port_headroom(dev, port.speed_mbps, cable, port.mtu, lanes=port.lanes)
    except ValueError as exc:
        return f"not computed: {exc}"


def _judge(
    xoff: int | None, runtime: bool, need: HeadroomResult | str
) -> tuple[HeadroomState, str]:
    if runtime:
        return "runtime", "-"
    if isinstance(need, str) or xoff is None:
        return "unknown", "-"
    margin = xoff - need.required_xoff
    text = f"{margin:+,} B"
    if margin >= 0:
        return "ok", text
    tolerance = HeadroomOptions().tolerance_pct
    if xoff >= need.xoff_raw * (1 - tolerance / 100):
        return "tolerance", f"{text} (within {tolerance:g} %)"
    return "short", text


def _asic_text(dev: Device) -> str:
    consts = asic_constants(dev.asic)
    if not consts.estimate:
        return consts.name
    return f"estimate ({dev.asic})" if dev.asic else "estimate (no ASIC)"


def _port_rows(fabric: Fabric, dev: Device, port: Port, ctx: CheckContext) -> list[HeadroomRow]:
    pgs, _ = lossless_pgs(dev, port, ctx)
    rows = []
    for lpg in pgs:
        prof = lpg.profile
        if prof is None or not profile_is_lossless(prof):
            continue
        need = requirement(fabric, dev, port)
        xoff = None if prof.computed_at_runtime else prof.xoff_bytes
        state, margin = _judge(xoff, prof.computed_at_runtime, need)
        configured = "computed by switch" if prof.computed_at_runtime else fmt_bytes(xoff)
        rows.append(
            HeadroomRow(
                device=dev.name,
                port=port.name,
                pg=lpg.pg,
                priorities=fmt_set(lpg.priorities),
                profile=prof.name or "-",
                speed=fmt_speed(port.speed_mbps),
                cable=_cable(fabric, dev, port)[1],
                mtu="?" if port.mtu is None else str(port.mtu),
                asic=_asic_text(dev),
                configured=xoff,
                configured_text=configured,
                required=None if isinstance(need, str) else need.required_xoff,
                allocated=None if isinstance(need, str) else need.xoff,
                margin_text=margin,
                state=state,
                note=need if isinstance(need, str) else need.summary(),
            )
        )
    return rows


def ports_in_use(fabric: Fabric, dev: Device) -> tuple[Port, ...]:
    """The switch ports that carry RoCE, as the rules scope them
    (:func:`rocetune.checks.scope.roce_scope`: declared ``roce_ports``, else the linked
    ports, else the ports with lossless configuration); unused and admin-down ports are left
    out."""
    return roce_scope(dev, fabric.links).roce


def headroom_rows(fabric: Fabric) -> tuple[HeadroomRow, ...]:
    """Every lossless PG of every switch port in use, devices and ports in natural order."""
    ctx = CheckContext(fabric=fabric, options=RuleOptions())
    rows: list[HeadroomRow] = []
    for name in sorted(fabric.devices, key=natural_key):
        dev = fabric.devices[name]
        if dev.kind != "switch":
            continue
        for port in sorted(ports_in_use(fabric, dev), key=lambda p: natural_key(p.name)):
            rows.extend(_port_rows(fabric, dev, port, ctx))
    return tuple(rows)
