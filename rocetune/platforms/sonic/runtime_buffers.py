"""What buffermgrd adds to a traditional-model CONFIG_DB at runtime (docs/buffers.md).

In the traditional buffer model, CONFIG_DB templates hold only the lossy PG0; buffermgrd
creates the lossless PGs of every port itself: for the priorities of ``PORT_QOS_MAP
pfc_enable`` it binds ``BUFFER_PG|<port>|<priorities>`` to ``pg_lossless_<speed>_<cable>_profile``
(``<cable>`` as in CABLE_LENGTH, e.g. ``40m``), reusing a BUFFER_PROFILE of that name or
creating it from the SKU's ``pg_profile_lookup.ini`` row. It creates nothing without a cable
length, for ``0m``, or without a row for the speed and cable (an error in its log).

This module adds those PGs to the ports (``BufferProfile.generated_at_runtime`` says so),
marks profiles whose values equal a row of the SKU's table (``BufferProfile.vendor_table``)
and reads the headroom inputs the config holds (:func:`headroom_params`). A PG that
buffermgrd would create from a table rocetune does not have is added with unknown values,
so the rules say "could not verify" rather than "no profile".
"""

from __future__ import annotations

from rocetune.model import BufferProfile, HeadroomParams, Port
from rocetune.platforms.sonic.asic import asic_family, gearbox_delay_ns
from rocetune.platforms.sonic.resolve import Ctx
from rocetune.platforms.sonic.sku_tables import SkuTable, sku_table
from rocetune.platforms.sonic.values import At

LOSSLESS_POOL = "ingress_lossless_pool"
_RUNTIME = "generated at runtime by buffermgrd (traditional buffer model)"


def _number(text: str | None) -> float | None:
    try:
        return None if text is None else float(text)
    except ValueError:
        return None


def headroom_params(facts: dict[str, str]) -> HeadroomParams | None:
    """LOSSLESS_TRAFFIC_PATTERN, over-subscribe ratio and the platform's gearbox delay."""
    mtu = _number(facts.get("lossless_traffic_pattern.mtu"))
    pct = _number(facts.get("lossless_traffic_pattern.small_packet_percentage"))
    osr = _number(facts.get("default_lossless_buffer_parameter.over_subscribe_ratio"))
    gearbox = gearbox_delay_ns(facts.get("platform"), facts.get("hwsku"))
    params = HeadroomParams(
        lossless_mtu_bytes=int(mtu) if mtu is not None and mtu > 0 else None,
        small_packet_pct=pct if pct is not None and 0 <= pct <= 100 else None,
        over_subscribe_ratio=osr if osr is not None and osr >= 0 else None,
        gearbox_delay_ns=gearbox,
    )
    return None if params == HeadroomParams() else params


def with_runtime_pgs(ctx: Ctx, ports: dict[str, Port], facts: dict[str, str]) -> dict[str, Port]:
    """``ports`` with vendor-table marks and the lossless PGs buffermgrd would create."""
    table = sku_table(facts.get("platform"), facts.get("hwsku"))
    traditional = facts.get("buffer_model", "traditional") != "dynamic"
    family = asic_family(facts.get("platform"), facts.get("hwsku")) or ""
    mellanox = family.startswith("spectrum")
    out = {}
    for name, raw in ports.items():
        port = _mark(raw, table)
        if traditional and "BUFFER_PG" in ctx.cfg.present and port.pg_buffers is not None:
            port = _synthesise(ctx, port, table, mellanox)
        out[name] = port
    return out


def _mark(port: Port, table: SkuTable | None) -> Port:
    if table is None or not port.pg_buffers:
        return port
    marked = {}
    for pg, prof in port.pg_buffers.items():
        marked[pg] = _with_vendor(prof, table, port)
    return port.model_copy(update={"pg_buffers": marked})


def _with_vendor(prof: BufferProfile, table: SkuTable, port: Port) -> BufferProfile:
    if prof.xoff_bytes is None or prof.xon_bytes is None or prof.vendor_table:
        return prof
    rows = [
        r
        for r in table.rows
        if (r.xon, r.xoff) == (prof.xon_bytes, prof.xoff_bytes)
        and prof.size_bytes in (None, r.size)
    ]
    if not rows:
        return prof
    own = [r for r in rows if r.speed_mbps == port.speed_mbps and r.cable_m == port.cable_length_m]
    return prof.model_copy(update={"vendor_table": table.label((own or rows)[0])})


def _synthesise(ctx: Ctx, port: Port, table: SkuTable | None, mellanox: bool) -> Port:
    prios = sorted(set(port.pfc_rx or ()) | set(port.pfc_tx or ()))
    pgs = dict(port.pg_buffers or {})
    todo = [p for p in prios if p not in pgs]
    cable = port.cable_length_m
    if not todo or port.speed_mbps is None or cable is None or cable <= 0:
        return port
    cable_text = f"{cable:g}m"
    name = f"pg_lossless_{port.speed_mbps}_{cable_text}_profile"
    when = "; created when the port is admin up" if mellanox and port.admin_up is False else ""
    why = f"{_RUNTIME} from PORT_QOS_MAP pfc_enable, speed and CABLE_LENGTH {cable_text}{when}"
    if name in ctx.cfg.profiles:
        base = ctx.buffer_profile(At(name, None))
        prof = base.model_copy(update={"generated_at_runtime": f"{why}; BUFFER_PROFILE {name}"})
    else:
        row = (
            None
            if table is None or not cable.is_integer()
            else table.row(port.speed_mbps, int(cable))
        )
        if row is None:
            src = (
                f"the SKU table {table.sku} pg_profile_lookup.ini has no row for "
                f"{port.speed_mbps} {cable_text}"
                if table is not None
                else "the SKU's pg_profile_lookup.ini (not shipped with rocetune)"
            )
            prof = BufferProfile(
                name=name,
                pool=ctx.pool_prefix + LOSSLESS_POOL,
                generated_at_runtime=f"{why}; values from {src}",
            )
        else:
            prof = BufferProfile(
                name=name,
                pool=ctx.pool_prefix + LOSSLESS_POOL,
                size_bytes=row.size,
                xon_bytes=row.xon,
                xoff_bytes=row.xoff,
                dynamic_th=row.threshold,
                alpha=2.0**row.threshold,
                vendor_table=table.label(row) if table is not None else None,
                generated_at_runtime=f"{why}; values from {table.label(row) if table else ''}",
            )
    for p in todo:
        pgs[p] = prof
    return port.model_copy(update={"pg_buffers": dict(sorted(pgs.items()))})
