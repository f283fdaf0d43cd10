"""Step 3 (device): normalised SONiC tables -> :class:`~rocetune.model.Device`.

Decisions:

* Ports come from PORT. Without a PORT table (QoS or buffer fragments) the port names are
  taken from the keys of PORT_QOS_MAP, QUEUE, BUFFER_PG, BUFFER_QUEUE, CABLE_LENGTH and
  PFC_WD, with speed/mtu/admin state unknown. With a PORT table, other tables naming a
  port that PORT lacks are reported (orchagent skips such entries).
* ``hostname`` from DEVICE_METADATA; ``asic`` from platform/hwsku (:mod:`.asic`); facts:
  hwsku, platform, buffer_model, default_pfcwd_status, device type, the CONFIG_DB
  version and the LOSSLESS_TRAFFIC_PATTERN / DEFAULT_LOSSLESS_BUFFER_PARAMETER values.
* ``watchdog_poll_ms`` from PFC_WD|GLOBAL POLL_INTERVAL; when that is absent and
  default_pfcwd_status is ``enable``, the value ``pfcwd start_default`` writes:
  200 ms x ceil(ports/32), at most 1000 ms.
* ``buffer_pools`` from BUFFER_POOL (None without that table): direction = ``type``,
  ``mode``, ``size``, ``percentage`` (dynamic model), ``xoff`` -> shared headroom.
  ``lossless`` is True for a pool named ``*lossless*`` or used by a profile with ``xoff``
  (only lossless PG profiles have one); False otherwise when BUFFER_PROFILE is in the file
  (SONiC pool names say lossy/lossless by convention), None when it is not.
* ``tunnel_lossless_priorities``: the dual-ToR tunnel's extra lossless priorities
  (:func:`build_tunnel_priorities`).
* ``tunnel_dscp_rewrite`` from TUNNEL: ``encap_tc_to_dscp_map`` -> that TC_TO_DSCP_MAP (the
  outer DSCP per TC); without it ``dscp_mode uniform`` -> {} (the outer DSCP copies the
  inner one) and ``pipe`` or no mode -> None (the tunnel sets an outer DSCP CONFIG_DB does
  not hold). Without a TUNNEL table: {} when the file has a PORT table (a whole running
  config has no tunnels then), else None (a fragment).
"""

from __future__ import annotations

import re
from functools import lru_cache

from rocetune.model import BufferPool, Port
from rocetune.platforms.sonic.alike import PortMemo
from rocetune.platforms.sonic.asic import asic_family
from rocetune.platforms.sonic.build_port import (
    DEFAULT_WD_MS,
    DEFAULT_WD_PORTS,
    WatchdogDefault,
)
from rocetune.platforms.sonic.resolve import Ctx, int_of, value_of
from rocetune.platforms.sonic.shape import PoolCfg, QosMapDef, SonicConfig

MAX_POLL_MS = 1000
_DIGITS = re.compile(r"(\d+)")
_FACT_FIELDS = {
    "hwsku": "hwsku",
    "platform": "platform",
    "buffer_model": "buffer_model",
    "default_pfcwd_status": "default_pfcwd_status",
    "type": "device_type",
}


@lru_cache(maxsize=8192)
def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort Ethernet2 before Ethernet10 (cached: the same port names on every switch)."""
    return tuple((0, int(t)) if t.isdigit() else (1, t) for t in _DIGITS.split(text) if t)


def port_names(ctx: Ctx) -> list[str]:
    """The ports of the device, naturally sorted (see the module docstring)."""
    cfg = ctx.cfg
    if "PORT" not in cfg.present:
        return sorted(cfg.port_refs, key=natural_key)
    for name, (table, line) in cfg.port_refs.items():
        if name not in cfg.ports:
            ctx.pr.add(f"{table}|{name}", "port is not in the PORT table", line, ports=(name,))
    return sorted(cfg.ports, key=natural_key)


def watchdog_default(ctx: Ctx, port_count: int, *, running: bool = False) -> WatchdogDefault:
    """Read default_pfcwd_status and the start_default multiplier."""
    item = ctx.cfg.metadata.get("default_pfcwd_status")
    status = None
    if item is not None and item.value is not None:
        status = item.value.lower()
        if status not in {"enable", "disable"}:
            ctx.pr.add(
                f"DEVICE_METADATA|localhost default_pfcwd_status={item.value}",
                "expected enable or disable",
                item.line,
            )
            status = None
    multiplier = max(1, (port_count - 1) // DEFAULT_WD_PORTS + 1)
    return WatchdogDefault(status, item.line if item else None, multiplier, running)


def poll_ms(ctx: Ctx, default: WatchdogDefault) -> float | None:
    """PFC watchdog polling interval of the device."""
    poll = ctx.cfg.poll_interval
    if poll is not None:
        ctx.ref("watchdog_poll_ms", poll.line)
        return value_of(poll)
    if default.status == "enable":
        ctx.ref("watchdog_poll_ms", default.line)
        return float(min(DEFAULT_WD_MS * default.multiplier, MAX_POLL_MS))
    return None


def build_ports(ctx: Ctx, *, running: bool = False) -> tuple[dict[str, Port], float | None]:
    """All ports of one namespace and its watchdog polling interval (``running``: the
    file is the running CONFIG_DB, see :func:`~.build_port.build_port`)."""
    names = port_names(ctx)
    count = len(ctx.cfg.ports) if "PORT" in ctx.cfg.present else len(names)
    default = watchdog_default(ctx, count, running=running)
    # No per-port rocetune.model.share.built: build_port makes no copies to free (it hands
    # every port of the device the same objects, rocetune.platforms.common.construct); the
    # run shares the device's values once it is parsed. Ports configured alike are built
    # from the first of their kind (.alike).
    memo = PortMemo(ctx, default)
    ports = {name: memo.port(name) for name in names}
    return ports, poll_ms(ctx, default)


def build_pools(ctx: Ctx) -> dict[str, BufferPool] | None:
    """Buffer pools of one namespace (names prefixed in multi-ASIC outputs)."""
    cfg = ctx.cfg
    if "BUFFER_POOL" not in cfg.present:
        return None
    lossless_refs = {
        p.pool.value
        for p in cfg.profiles.values()
        if p.pool is not None and p.xoff is not None and p.xoff.value is not None
    }
    out: dict[str, BufferPool] = {}
    for name, pool in cfg.pools.items():
        full = ctx.pool_prefix + name
        out[full] = _pool(pool, full, _lossless(name, lossless_refs, cfg))
        ctx.ref(f"buffer_pools.{full}", pool.line)
    return out


def _lossless(name: str, lossless_refs: set[str | None], cfg: SonicConfig) -> bool | None:
    if "lossless" in name.lower() or name in lossless_refs:
        return True
    return False if "BUFFER_PROFILE" in cfg.present else None


def _pool(pool: PoolCfg, name: str, lossless: bool | None) -> BufferPool:
    """A BUFFER_POOL entry. An ingress pool without ``xoff`` has no shared headroom pool:
    every lossless PG then carries its own headroom in its profile size (S9)."""
    direction = pool.direction.value if pool.direction else None
    mode = pool.mode.value if pool.mode else None
    shared = int_of(pool.xoff)
    if pool.xoff is None and direction in ("ingress", "both"):
        shared = 0
    return BufferPool(
        name=name,
        direction="ingress"
        if direction == "ingress"
        else "egress"
        if direction == "egress"
        else None,
        mode="static" if mode == "static" else "dynamic" if mode else None,
        size_bytes=int_of(pool.size),
        percent=value_of(pool.percentage),
        shared_headroom_bytes=shared,
        lossless=lossless,
    )


def device_facts(ctx: Ctx) -> tuple[str | None, str | None, dict[str, str]]:
    """(hostname, asic, facts) from DEVICE_METADATA and the fact tables."""
    meta = ctx.cfg.metadata
    facts = dict(ctx.cfg.facts)
    for src, dst in _FACT_FIELDS.items():
        item = meta.get(src)
        if item is not None and item.value is not None:
            facts[dst] = item.value
    hostname = meta.get("hostname")
    if hostname is not None:
        ctx.ref("hostname", hostname.line)
    platform, hwsku = facts.get("platform"), facts.get("hwsku")
    asic = asic_family(platform, hwsku)
    if asic is not None:
        platform_item = meta.get("platform") or meta.get("hwsku")
        ctx.ref("asic", platform_item.line if platform_item else None)
    return (hostname.value if hostname else None), asic, facts


def build_tunnels(ctx: Ctx) -> dict[str, dict[int, int] | None] | None:
    """Outer-DSCP rewrite of every tunnel of one namespace (see the module docstring)."""
    cfg = ctx.cfg
    if "TUNNEL" not in cfg.present:
        return {} if "PORT" in cfg.present else None
    out: dict[str, dict[int, int] | None] = {}
    for name, tunnel in cfg.tunnels.items():
        full = ctx.pool_prefix + name
        ctx.ref(f"tunnel_dscp_rewrite.{full}", tunnel.line)
        ref = tunnel.encap_tc_to_dscp_map
        mode = tunnel.dscp_mode.value if tunnel.dscp_mode else None
        if ref is not None:
            found = cfg.maps.get("TC_TO_DSCP_MAP", {}).get(ref.value or "")
            if found is None and ref.value is not None:
                ctx.missing("TC_TO_DSCP_MAP", ref.value, ref.line)
            out[full] = None if found is None else dict(found.values)
        else:
            out[full] = {} if mode == "uniform" else None
    return out


def build_tunnel_priorities(ctx: Ctx) -> tuple[int, ...] | None:
    """The dual-ToR tunnel's extra lossless priorities of one namespace.

    SONiC's dual-ToR design (``DEVICE_METADATA`` ``subtype: DualToR``, with
    ``SYSTEM_DEFAULTS tunnel_qos_remap`` enabled) re-queues the lossless traffic the standby
    ToR bounces back to the T1 through its IPinIP tunnel onto other queues, so the bounce
    cannot close a PFC deadlock (sonic-net/SONiC ``doc/qos/tunnel_dscp_remapping.md``), and
    enables PFC on them: qos_config.j2 renders ``pfc_enable: 2,3,4,6`` on the T1-facing ports
    with ``TC_TO_QUEUE_MAP|AZURE_TUNNEL`` 3 -> 2, 4 -> 6 (sonic-buildimage
    ``files/build_templates/qos_config.j2``). The remap maps are the tunnels'
    ``encap_tc_to_queue_map`` / ``decap_tc_to_pg_map``; a file without a TUNNEL table (the
    rendered qos.json: minigraph adds TUNNEL separately) falls back to the maps the template
    names ``*TUNNEL*``. The priorities are the targets of those maps for a TC that has PFC on
    some port, when the target has PFC too and differs from the TC. () when there is no
    remap (or DEVICE_METADATA names another subtype); None for a file with neither
    DEVICE_METADATA nor PORT_QOS_MAP.
    """
    cfg = ctx.cfg
    if "DEVICE_METADATA" not in cfg.present and "PORT_QOS_MAP" not in cfg.present:
        return None
    subtype = cfg.metadata.get("subtype")
    if subtype is not None and (subtype.value or "").lower() != "dualtor":
        return ()
    pfc = {p for qos in cfg.port_qos.values() if qos.pfc_enable for p in qos.pfc_enable.value or ()}
    out: set[int] = set()
    line = subtype.line if subtype is not None else None
    for _table, found in _tunnel_maps(cfg):
        pairs = {q for t, q in found.values.items() if t in pfc and q in pfc and q != t}
        if pairs:
            out |= pairs
            line = line or found.line
    if out:
        ctx.ref("tunnel_lossless_priorities", line)
    return tuple(sorted(out))


def _tunnel_maps(cfg: SonicConfig) -> list[tuple[str, QosMapDef]]:
    """The tunnel remap maps: the TUNNEL table's, else the maps named ``*TUNNEL*``."""
    tables = (
        ("encap_tc_to_queue_map", "TC_TO_QUEUE_MAP"),
        ("decap_tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP"),
    )
    out: list[tuple[str, QosMapDef]] = []
    for tunnel in cfg.tunnels.values():
        for attr, table in tables:
            ref = getattr(tunnel, attr)
            found = cfg.maps.get(table, {}).get(ref.value or "") if ref is not None else None
            if found is not None:
                out.append((table, found))
    if out or cfg.tunnels:
        return out
    for _, table in tables:
        out += [
            (table, m) for name, m in cfg.maps.get(table, {}).items() if "TUNNEL" in name.upper()
        ]
    return out
