"""The headroom of one port of a device: the single entry point of rules and renderer.

Both RT501/RT502 and the tuner call :func:`port_headroom`, so they size the same port with
the same traffic pattern, gearbox delay, ASIC and headroom model:

- traffic pattern: the device's (SONiC ``LOSSLESS_TRAFFIC_PATTERN``), else SONiC's defaults
  (lossless MTU 1024 B, 50 % small packets), unless the caller overrides them;
- gearbox delay: the device's platform value, else none;
- shared headroom pool: a lossless ingress pool with an xoff size, or an over-subscribe
  ratio > 0 (both mean buffermgrd sizes the PG as xon only);
- lanes: the port's lane count (SONiC ``PORT.lanes``) when known, else 8 from 400G up;
- ASIC: the caller's override, else ``Device.asic``; unknown -> the vendor-neutral estimate.
"""

from __future__ import annotations

from rocetune.model import Device
from rocetune.tune.asics import asic_constants
from rocetune.tune.headroom import (
    SONIC_LOSSLESS_MTU,
    SONIC_SMALL_PACKET_PCT,
    HeadroomInputs,
    HeadroomResult,
    compute_headroom,
)


def shared_headroom_pool(dev: Device) -> bool:
    """True when the device sizes lossless PGs against a shared headroom pool."""
    params = dev.headroom_params
    if params is not None and (params.over_subscribe_ratio or 0) > 0:
        return True
    pools = dev.buffer_pools or {}
    return any(
        (p.shared_headroom_bytes or 0) > 0 and p.direction != "egress" and p.lossless is not False
        for p in pools.values()
    )


def port_inputs(
    dev: Device,
    speed_mbps: int,
    cable_m: float,
    port_mtu: int,
    *,
    lossless_mtu: int | None = None,
    small_packet_pct: float | None = None,
    gearbox_delay_ns: float | None = None,
    lanes: int | None = None,
) -> HeadroomInputs:
    """The inputs of the computation for one port (see the module docstring)."""
    params = dev.headroom_params
    mtu = lossless_mtu or (params.lossless_mtu_bytes if params else None) or SONIC_LOSSLESS_MTU
    pct = small_packet_pct
    if pct is None:
        pct = params.small_packet_pct if params and params.small_packet_pct is not None else None
    gearbox = gearbox_delay_ns
    if gearbox is None:
        gearbox = params.gearbox_delay_ns if params and params.gearbox_delay_ns else 0.0
    return HeadroomInputs(
        speed_mbps=speed_mbps,
        cable_m=cable_m,
        port_mtu=port_mtu,
        lossless_mtu=mtu,
        small_packet_pct=SONIC_SMALL_PACKET_PCT if pct is None else pct,
        gearbox_delay_ns=gearbox,
        lanes=lanes,
        shared_headroom_pool=shared_headroom_pool(dev),
    )


def port_headroom(
    dev: Device,
    speed_mbps: int,
    cable_m: float,
    port_mtu: int,
    *,
    asic: str | None = None,
    lossless_mtu: int | None = None,
    small_packet_pct: float | None = None,
    gearbox_delay_ns: float | None = None,
    lanes: int | None = None,
) -> HeadroomResult:
    """xoff/xon/size of a lossless PG of ``dev`` at this speed, cable length and MTU."""
    inputs = port_inputs(
        dev,
        speed_mbps,
        cable_m,
        port_mtu,
        lossless_mtu=lossless_mtu,
        small_packet_pct=small_packet_pct,
        gearbox_delay_ns=gearbox_delay_ns,
        lanes=lanes,
    )
    return compute_headroom(inputs, asic_constants(asic or dev.asic))
