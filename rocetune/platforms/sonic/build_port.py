"""Step 3 (ports): normalised SONiC tables -> :class:`~rocetune.model.Port`.

Decisions (None = the tables that would say are not in the file; empty = they are, and
nothing applies to the port):

* Classification, from PORT_QOS_MAP (None for all of it when PORT_QOS_MAP is absent):
  ``trust`` is ``dscp`` when a dscp_to_tc_map applies (the port's own, else
  ``PORT_QOS_MAP|global``), ``pcp`` when only a dot1p_to_tc_map does, ``both`` when both
  do (IP traffic is then classified by DSCP), and ``port`` when none does.
  ``dscp_to_priority`` is the DSCP_TO_TC_MAP (the TC number is SONiC's switch priority) and
  ``priority_to_tc`` the identity (0..7 plus any higher TC the DSCP map uses); for
  ``pcp`` trust the dot1p map is ``priority_to_tc`` and ``dscp_to_priority`` is empty;
  for ``port`` trust both are empty.
  ``tc_to_pg``, ``tc_to_queue`` and ``pfc_priority_to_queue`` are the bound maps, empty
  when unbound. ``pfc_priority_to_pg`` defaults to the identity when no pfc_to_pg_map is
  bound: only Mellanox/Barefoot configs bind one, and without it the PFC priority and the
  PG are the same number (SAI "default no map").
* PFC: ``pfc_rx = pfc_tx = pfc_enable``; a port without pfc_enable has () for both. With
  ``PORT pfc_asym=on`` orchagent sets PFC RX to all priorities (0xff) and TX to
  pfc_enable (sonic-swss portsorch setPortPfcAsym), so pfc_rx is 0..7.
* ``link_pause`` is False: CONFIG_DB has no 802.3x setting, orchagent never sets
  SAI_PORT_ATTR_GLOBAL_FLOW_CONTROL_MODE (sonic-net/sonic-swss@e6b0c5b5), and its SAI
  default is SAI_PORT_FLOW_CONTROL_MODE_DISABLE (opencomputeproject/SAI inc/saiport.h).
* Watchdog: a ``PFC_WD|<port>`` entry -> enabled with its timers and action (``drop`` when
  absent, the pfcwdorch default). Without one, in the **running** CONFIG_DB (a snapshot
  collected from the switch, ``Device.config_source`` ``running``) the watchdog is off:
  pfcwdorch watches only ports with a PFC_WD entry, and ``pfcwd start_default`` writes
  those entries into CONFIG_DB when it runs. In any other file (``rendered``: a saved or
  generated file) the load-time default applies (``Watchdog.runtime_default``): when
  DEVICE_METADATA default_pfcwd_status is ``enable``, ``pfcwd start_default``
  (sonic-utilities pfcwd/main.py) enables it on ports with pfc_enable at 200 ms x
  ceil(ports/32) for detection and restoration, action drop (it also limits itself to
  ports with a DEVICE_NEIGHBOR; rocetune does not, which is the conservative reading);
  ``disable`` leaves it off. Otherwise, if PFC_WD is in the file, the watchdog is off; if
  neither is, it is unknown (None). ``priorities`` is pfcwd_sw_enable when set (orchagent
  since sonic-swss #2171 watches exactly those; PFC priorities outside it are unwatched),
  else None.
* ``ecn``/``schedulers``: None without a QUEUE table, else the queues that name a
  wred_profile/scheduler. ``pg_buffers``/``queue_buffers``: None without BUFFER_PG/
  BUFFER_QUEUE, else the bound PGs/queues. ``cable_length_m`` from CABLE_LENGTH.
* ``admin_up``: a PORT entry without ``admin_status`` is down in the **running** CONFIG_DB
  (portmgrd's default, ``DEFAULT_ADMIN_STATUS_STR "down"`` in sonic-swss cfgmgr/portmgr.h);
  in a saved or rendered file it is None, because such a file may be merged into a running
  config whose admin state it does not say.
* ``dscp_rewrite`` is the TC_TO_DSCP_MAP bound by the port's ``tc_to_dscp_map`` ({} when
  unbound, None without PORT_QOS_MAP); ``dscp_rewrite_on_ingress`` is True because the SAI
  port map rewrites every packet the port sends, whatever its ingress port.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rocetune.model import BufferProfile, EcnProfile, Port, Scheduler, Trust, Watchdog
from rocetune.platforms.common.construct import construct
from rocetune.platforms.sonic.resolve import Bound, Ctx, Lined, value_of
from rocetune.platforms.sonic.shape import BindingCfg
from rocetune.platforms.sonic.values import At

IDENTITY: dict[int, int] = {i: i for i in range(8)}
ALL_PRIORITIES: tuple[int, ...] = tuple(range(8))
DEFAULT_WD_MS = 200
DEFAULT_WD_PORTS = 32


@dataclass
class Classification:
    """The classification fields of one port."""

    trust: Trust | None = None
    dscp_to_priority: dict[int, int] | None = None
    priority_to_tc: dict[int, int] | None = None
    tc_to_pg: dict[int, int] | None = None
    tc_to_queue: dict[int, int] | None = None
    pfc_priority_to_queue: dict[int, int] | None = None
    pfc_priority_to_pg: dict[int, int] | None = None


@dataclass(frozen=True)
class WatchdogDefault:
    """What DEVICE_METADATA default_pfcwd_status says, resolved once per device."""

    status: str | None
    line: int | None
    multiplier: int
    running: bool = False
    """The file is the running CONFIG_DB (``Device.config_source`` ``running``)."""


def build_port(ctx: Ctx, name: str, wd_default: WatchdogDefault) -> Port:
    """Assemble one model Port and record its provenance."""
    return construct(Port, port_values(ctx, name, wd_default))


def port_values(ctx: Ctx, name: str, wd_default: WatchdogDefault) -> dict[str, Any]:
    """The field values of one model Port (its provenance recorded).

    Reads the port's own data only from the tables of :mod:`.shape` keyed by its name
    (``ports``, ``port_refs``, ``port_qos``, ``queues``, ``pg_bindings``,
    ``queue_bindings``, ``watchdogs``, ``cable``) and gives :meth:`Ctx.leaf` the entry or
    field each line is read from: :mod:`.alike` builds the ports configured alike from one
    of them by that (tests/platforms/sonic/test_alike.py)."""
    cfg = ctx.cfg
    port_cfg = cfg.ports.get(name)
    ctx.port_ref(name, port_cfg.line if port_cfg else cfg.port_refs.get(name, ("", None))[1])
    cls = classify(ctx, name)
    pfc_rx, pfc_tx = _pfc(ctx, name)
    speed = port_cfg.speed if port_cfg else None
    mtu = port_cfg.mtu if port_cfg else None
    admin = port_cfg.admin_up if port_cfg else None
    admin_src: Lined | None = admin
    if port_cfg is not None and admin is None and wd_default.running:
        admin, admin_src = At(False, port_cfg.line), port_cfg
    fec = port_cfg.fec if port_cfg else None
    for fname, item in (("speed_mbps", speed), ("mtu", mtu), ("admin_up", admin_src), ("fec", fec)):
        ctx.leaf(fname, item)
    cable = cfg.cable.get(name)
    ctx.leaf("cable_length_m", cable)
    values = {
        "name": name,
        "speed_mbps": speed.value if speed else None,
        "mtu": mtu.value if mtu else None,
        "admin_up": admin.value if admin else None,
        "trust": cls.trust,
        "dscp_to_priority": cls.dscp_to_priority,
        "priority_to_tc": cls.priority_to_tc,
        "tc_to_pg": cls.tc_to_pg,
        "tc_to_queue": cls.tc_to_queue,
        "pfc_priority_to_queue": cls.pfc_priority_to_queue,
        "pfc_priority_to_pg": cls.pfc_priority_to_pg,
        "pfc_rx": pfc_rx,
        "pfc_tx": pfc_tx,
        "link_pause": False,
        "watchdog": _watchdog(ctx, name, pfc_tx, wd_default),
        "ecn": _ecn(ctx, name),
        "schedulers": _schedulers(ctx, name),
        "pg_buffers": _buffers(ctx, name, "pg_buffers", "BUFFER_PG", ctx.cfg.pg_bindings),
        "queue_buffers": _buffers(
            ctx, name, "queue_buffers", "BUFFER_QUEUE", ctx.cfg.queue_bindings
        ),
        "cable_length_m": cable.value if cable else None,
        "lanes": port_cfg.lanes.value if port_cfg and port_cfg.lanes else None,
        "fec": fec.value if fec else None,
        "alias": port_cfg.alias.value if port_cfg and port_cfg.alias else None,
        "dscp_rewrite": _dscp_rewrite(ctx, name),
        "dscp_rewrite_on_ingress": True,
    }
    ctx.port_done(name)
    return values


def _dscp_rewrite(ctx: Ctx, name: str) -> dict[int, int] | None:
    if "PORT_QOS_MAP" not in ctx.cfg.present:
        return None
    return _bound_map(ctx, name, "dscp_rewrite", "tc_to_dscp_map", {})


def _map_field(
    ctx: Ctx, name: str, attr: str, bound: Bound, unbound: dict[int, int]
) -> dict[int, int] | None:
    ctx.leaf(attr, bound.src)
    if not bound.bound:
        return ctx.same.value(("unbound", *unbound.items()), dict(unbound))
    ctx.ref_map(f"ports.{name}.{attr}", bound.lines)
    return bound.values  # the table's own dict, read only: every port bound to it holds it


def classify(ctx: Ctx, name: str) -> Classification:
    """Trust and the QoS maps of one port."""
    out = Classification()
    if "PORT_QOS_MAP" not in ctx.cfg.present:
        return out
    dscp = ctx.qos_map(name, "dscp_to_tc_map")
    dot1p = ctx.qos_map(name, "dot1p_to_tc_map")
    out.trust = _trust(dscp.bound, dot1p.bound)
    ctx.leaf("trust", dscp.src if dscp.bound else dot1p.src)
    out.dscp_to_priority = _map_field(ctx, name, "dscp_to_priority", dscp, {})
    if dscp.bound:
        identity = _identity_for(dscp.values)
        out.priority_to_tc = ctx.same.value(("identity", id(dscp.values)), identity)  # cfg's map
        ctx.leaf("priority_to_tc", dscp.src)
    else:
        out.priority_to_tc = _map_field(ctx, name, "priority_to_tc", dot1p, {})
    out.tc_to_pg = _bound_map(ctx, name, "tc_to_pg", "tc_to_pg_map", {})
    out.tc_to_queue = _bound_map(ctx, name, "tc_to_queue", "tc_to_queue_map", {})
    out.pfc_priority_to_queue = _bound_map(
        ctx, name, "pfc_priority_to_queue", "pfc_to_queue_map", {}
    )
    out.pfc_priority_to_pg = _bound_map(ctx, name, "pfc_priority_to_pg", "pfc_to_pg_map", IDENTITY)
    return out


def _bound_map(
    ctx: Ctx, name: str, attr: str, field_name: str, unbound: dict[int, int]
) -> dict[int, int] | None:
    bound = ctx.qos_map(name, field_name)
    return _map_field(ctx, name, attr, bound, unbound)


def _identity_for(dscp_map: dict[int, int] | None) -> dict[int, int] | None:
    """Identity over priorities 0..7 and every TC the DSCP map uses (some use TC 8+)."""
    if dscp_map is None:
        return None
    return {p: p for p in sorted(set(IDENTITY) | set(dscp_map.values()))}


def _trust(dscp: bool, dot1p: bool) -> Trust:
    if dscp and dot1p:
        return "both"
    if dscp:
        return "dscp"
    return "pcp" if dot1p else "port"


def _pfc(ctx: Ctx, name: str) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None]:
    cfg = ctx.cfg
    if "PORT_QOS_MAP" not in cfg.present:
        return None, None
    qos = cfg.port_qos.get(name)
    enable = qos.pfc_enable if qos is not None else None
    tx: tuple[int, ...] | None = () if enable is None else enable.value
    src: Lined | None = enable if enable is not None else qos
    ctx.leaf("pfc_tx", src)
    port_cfg = cfg.ports.get(name)
    asym = port_cfg.pfc_asym if port_cfg is not None else None
    if asym is None or asym.value is False:
        ctx.leaf("pfc_rx", src)
        return tx, tx
    ctx.leaf("pfc_rx", asym)
    return (ALL_PRIORITIES if asym.value else None), tx


def _wd_priorities(ctx: Ctx, name: str) -> tuple[int, ...] | None:
    qos = ctx.cfg.port_qos.get(name)
    if qos is None or qos.pfcwd_sw_enable is None:
        return None
    return qos.pfcwd_sw_enable.value


def _made_watchdog(ctx: Ctx, **values: Any) -> Watchdog:
    """``Watchdog(**values)``, one per distinct set of values on the device, validated once
    (the ports of a switch nearly all have the same watchdog)."""
    return ctx.same.make(("watchdog", *values.items()), lambda: Watchdog(**values))


def _watchdog(
    ctx: Ctx, name: str, pfc_tx: tuple[int, ...] | None, default: WatchdogDefault
) -> Watchdog | None:
    path = "watchdog"
    wd = ctx.cfg.watchdogs.get(name)
    if wd is not None:
        ctx.leaf(path, wd)
        return _made_watchdog(
            ctx,
            enabled=True,
            detection_ms=value_of(wd.detection),
            restoration_ms=value_of(wd.restoration),
            action="drop" if wd.action is None else wd.action.value,
            priorities=_wd_priorities(ctx, name),
        )
    if default.running:
        ctx.leaf_at(path, ctx.cfg.table_lines.get("PFC_WD", default.line))
        return _made_watchdog(ctx, enabled=False)
    if default.status == "enable":
        if pfc_tx is None:
            return None
        ctx.leaf_at(path, default.line)
        if not pfc_tx:
            return _made_watchdog(ctx, enabled=False, runtime_default=True)
        ms = float(DEFAULT_WD_MS * default.multiplier)
        return _made_watchdog(
            ctx,
            enabled=True,
            detection_ms=ms,
            restoration_ms=ms,
            action="drop",
            priorities=_wd_priorities(ctx, name),
            runtime_default=True,
        )
    if default.status == "disable":
        ctx.leaf_at(path, default.line)
        return _made_watchdog(ctx, enabled=False, runtime_default=True)
    if "PFC_WD" in ctx.cfg.present:
        ctx.leaf_at(path, ctx.cfg.table_lines.get("PFC_WD"))
        return _made_watchdog(ctx, enabled=False)
    return None


def _ecn(ctx: Ctx, name: str) -> dict[int, EcnProfile] | None:
    if "QUEUE" not in ctx.cfg.present:
        return None
    out: dict[int, EcnProfile] = {}
    parent = "ecn"
    recorded = False  # the parent's line is its first entry's (the first record wins)
    for q, queue in sorted(ctx.cfg.queues.get(name, {}).items()):
        if queue.wred_profile is not None:
            out[q] = ctx.ecn_profile(queue.wred_profile)
            ctx.leaf(f"{parent}.{q}", queue)
            if not recorded and queue.line is not None:
                ctx.leaf(parent, queue)
                recorded = True
    return ctx.same.table("ecn", out)


def _schedulers(ctx: Ctx, name: str) -> dict[int, Scheduler] | None:
    if "QUEUE" not in ctx.cfg.present:
        return None
    out: dict[int, Scheduler] = {}
    parent = "schedulers"
    recorded = False
    for q, queue in sorted(ctx.cfg.queues.get(name, {}).items()):
        if queue.scheduler is not None:
            out[q] = ctx.scheduler(queue.scheduler)
            ctx.leaf(f"{parent}.{q}", queue)
            if not recorded and queue.line is not None:
                ctx.leaf(parent, queue)
                recorded = True
    return ctx.same.table("schedulers", out)


def _buffers(
    ctx: Ctx, name: str, attr: str, table: str, bindings: dict[str, dict[int, BindingCfg]]
) -> dict[int, BufferProfile] | None:
    if table not in ctx.cfg.present:
        return None
    out: dict[int, BufferProfile] = {}
    parent = attr
    recorded = False
    for i, binding in sorted(bindings.get(name, {}).items()):
        out[i] = ctx.buffer_profile(binding.profile)
        ctx.leaf(f"{parent}.{i}", binding)
        if not recorded and binding.line is not None:
            ctx.leaf(parent, binding)
            recorded = True
    return ctx.same.table(attr, out)
