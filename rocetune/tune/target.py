"""The vendor-neutral target state of a device: what every port and NIC should be set to.

Pure: a function of the parsed :class:`~rocetune.model.Device`, the fabric's links and the
intent (no I/O, no platform knowledge). Every value carries a
:class:`~rocetune.tune.reason.Reason`. Inputs per port:

- speed: the port's speed (from its snapshot); a port whose speed is unknown cannot be sized
  and is left out with a problem note;
- cable: the longest fabric link at the port (inventory ``length_m`` or the intent's
  ``cable_length_m`` default, see :mod:`rocetune.topology`), else the port's configured cable
  length, else the port is left out with a problem note (rocetune never guesses a length);
- MTU: ``intent.mtu.switch_for(dev.mtu_max)`` for switch ports (the platform's largest MTU
  unless the intent sets one: 9214 on EOS), ``intent.mtu.host`` for NICs;
- ASIC: ``Device.asic`` picks the headroom constants
  (:func:`~rocetune.tune.headroom.asic_constants`).

Headroom: :func:`~rocetune.tune.port_headroom.port_headroom`, the computation RT501 checks
against (the device's LOSSLESS_TRAFFIC_PATTERN, else SONiC's defaults of a 1024 B lossless MTU
and 50 % small packets; docs/buffers.md). When the ASIC constants are unknown the formula
gives xoff only (an estimate); xon is then set to two port MTUs, a rocetune default stated
in the reason. ECN: Kmin/Kmax = the intent's envelope edges scaled to the port speed
(:func:`~rocetune.tune.ecn.scaled_thresholds`), Pmax 20 % (HPCC's DCQCN setting,
roce-knowledge.md §3.4, S38).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from rocetune.model import BufferPool, Device, Intent, Link
from rocetune.tune.classes import ClassPlan, TargetError, class_plan
from rocetune.tune.ecn import scaled_thresholds
from rocetune.tune.headroom import HeadroomResult
from rocetune.tune.nic import NicTarget, nic_target
from rocetune.tune.port_headroom import port_headroom
from rocetune.tune.reason import Reason

ROCE_HEADER_BYTES = 96
"""Headers on top of the RoCE path MTU (Ethernet, VLAN, IP, UDP, BTH, ICRC, FCS; RT602)."""
ECN_MAX_PROBABILITY_PCT = 20
"""Pmax of the marking ramp: HPCC's DCQCN setting (S38)."""
DEFAULT_POLL_MS = 100.0
"""Watchdog polling interval when the detection/restoration times allow it (SONiC default)."""

__all__ = [
    "ClassPlan",
    "DeviceTarget",
    "EcnTarget",
    "HeadroomTarget",
    "NicTarget",
    "PortTarget",
    "TargetError",
    "WatchdogTarget",
    "device_target",
]


@dataclass(frozen=True)
class HeadroomTarget:
    """The lossless PG buffer of one port, in bytes, with the calculator's result."""

    xoff: int
    xon: int
    size: int
    result: HeadroomResult


@dataclass(frozen=True)
class EcnTarget:
    """The ECN marking ramp of the lossless queues of one port."""

    kmin_bytes: int
    kmax_bytes: int
    probability_pct: int


@dataclass(frozen=True)
class WatchdogTarget:
    """The PFC watchdog of a device (every PFC-enabled port and priority)."""

    detection_ms: float
    restoration_ms: float
    action: str
    poll_ms: float


@dataclass(frozen=True)
class PortTarget:
    """One switch port's target."""

    name: str
    speed_mbps: int
    mtu: int
    cable_m: float
    headroom: HeadroomTarget
    ecn: EcnTarget
    reasons: tuple[Reason, ...]


@dataclass(frozen=True)
class DeviceTarget:
    """Everything a renderer needs for one device."""

    name: str
    platform: str
    kind: str
    hostname: str | None
    asic: str | None
    classes: ClassPlan
    watchdog: WatchdogTarget
    ports: dict[str, PortTarget]
    nics: dict[str, NicTarget]
    problems: tuple[str, ...]
    """Ports or NICs left out, and why."""
    reasons: tuple[Reason, ...]
    role: str | None = None
    buffer_pools: dict[str, BufferPool] | None = None
    """The device's own shared-buffer pools (sizes are ASIC facts; renderers keep them)."""
    facts: dict[str, str] | None = None
    """The device's free-form facts (platform, hwsku, OS version) for renderers' headers."""
    left_out: tuple[str, ...] = ()
    """Names of the ports left out (see ``problems``)."""

    def all_reasons(self) -> list[Reason]:
        """Device reasons first, then every port's and NIC's, in name order."""
        out = list(self.reasons)
        for port in self.ports.values():
            out.extend(port.reasons)
        for nic in self.nics.values():
            out.extend(nic.reasons)
        return out


def link_lengths(device: str, links: Iterable[Link]) -> dict[str, float]:
    """Port -> the longest known cable length of the links ending at it.

    A fabric's links are indexed once (:func:`lengths_by_device`), so rendering every device
    of a fabric reads each link once, not once per device."""
    if isinstance(links, tuple):
        return dict(lengths_by_device(links).get(device, {}))
    return dict(_index(links).get(device, {}))


_last: list[tuple[tuple[Link, ...], dict[str, dict[str, float]]]] = []
"""The index of the last links tuple asked for (render and plan ask for one fabric's)."""


def lengths_by_device(links: tuple[Link, ...]) -> dict[str, dict[str, float]]:
    """Device -> port -> the longest known cable length of the links ending there; the
    index of the same tuple object is reused (a fabric's ``links`` are immutable)."""
    last = _last[0] if _last else None  # one read: another thread may replace it
    if last is not None and last[0] is links:
        return last[1]
    index = _index(links)
    _last[:] = [(links, index)]
    return index


def _index(links: Iterable[Link]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for link in links:
        if link.length_m is None:
            continue
        for end in (link.a, link.b):
            ports = out.setdefault(end.device, {})
            ports[end.port] = max(ports.get(end.port, 0.0), link.length_m)
    return out


def watchdog_target(intent: Intent) -> WatchdogTarget:
    """The intent's watchdog with a polling interval no longer than either timer."""
    wd = intent.pfc_watchdog
    poll = min(DEFAULT_POLL_MS, wd.detection_ms, wd.restoration_ms)
    return WatchdogTarget(wd.detection_ms, wd.restoration_ms, wd.action, poll)


def _watchdog_reason(wd: WatchdogTarget) -> Reason:
    return Reason(
        "device",
        "PFC watchdog",
        f"detection {wd.detection_ms:g} ms, restoration {wd.restoration_ms:g} ms, "
        f"action {wd.action}, poll {wd.poll_ms:g} ms",
        "intent.pfc_watchdog; poll = min(100 ms, detection, restoration)",
    )


def headroom_target(
    speed: int,
    cable_m: float,
    mtu: int,
    intent: Intent,
    asic: str | None,
    *,
    dev: Device | None = None,
    lanes: int | None = None,
) -> HeadroomTarget:
    """xoff/xon/size of the lossless PG of one port (see the module docstring).

    The same computation as RT501 (:func:`~rocetune.tune.port_headroom.port_headroom`): the
    device's traffic pattern, gearbox and headroom model, else SONiC's defaults."""
    del intent  # the lossless traffic pattern is the switch's, not the intent's
    base = dev if dev is not None else Device(name="-", kind="switch", platform="-")
    res = port_headroom(base, speed, cable_m, mtu, asic=asic, lanes=lanes)
    xon = res.xon if not res.estimate else 2 * mtu
    size = res.size if not res.estimate else res.xoff + xon
    return HeadroomTarget(xoff=res.xoff, xon=xon, size=size, result=res)


def ecn_target(speed: int, intent: Intent) -> EcnTarget:
    """The intent envelope's edges at ``speed``, Pmax 20 %."""
    kmin, kmax = scaled_thresholds(speed, intent.ecn.min_kb_per_25g, intent.ecn.max_kb_per_25g)
    return EcnTarget(kmin, kmax, ECN_MAX_PROBABILITY_PCT)


def _port_reasons(
    name: str,
    *,
    speed: int,
    cable: tuple[float, str],
    hr: HeadroomTarget,
    ecn: EcnTarget,
    intent: Intent,
) -> tuple[Reason, ...]:
    res = hr.result
    lanes = " (8-lane: 2 x latency)" if res.eight_lane else ""
    xon_why = (
        f"{res.asic.name} pipeline latency {res.asic.pipeline_latency_bytes:.0f} B{lanes}, "
        "rounded up to 1 KiB"
        if not res.estimate
        else f"ASIC pipeline latency unknown: 2 x port MTU {res.inputs.port_mtu} (rocetune default)"
    )
    e = intent.ecn
    scale = f"x {speed} Mb/s / 25000"
    return (
        Reason(name, "cable length", f"{cable[0]:g} m", cable[1]),
        Reason(name, "MTU", f"{res.inputs.port_mtu} B", "intent.mtu.switch"),
        Reason(name, "lossless PG xoff", f"{hr.xoff} B", res.summary()),
        Reason(name, "lossless PG xon", f"{hr.xon} B", xon_why),
        Reason(
            name,
            "lossless PG size",
            f"{hr.size} B",
            f"xoff {hr.xoff} + xon {hr.xon}"
            + (" + port MTU (8-lane)" if res.eight_lane and not res.estimate else ""),
        ),
        Reason(
            name,
            "ECN Kmin",
            f"{ecn.kmin_bytes} B",
            f"intent.ecn.min_kb_per_25g {e.min_kb_per_25g:g} KB {scale}",
        ),
        Reason(
            name,
            "ECN Kmax",
            f"{ecn.kmax_bytes} B",
            f"intent.ecn.max_kb_per_25g {e.max_kb_per_25g:g} KB {scale}",
        ),
        Reason(name, "ECN Pmax", f"{ecn.probability_pct} %", "HPCC DCQCN setting (S38)"),
    )


def _cable(
    port: str, configured: float | None, linked: dict[str, float]
) -> tuple[float, str] | None:
    if port in linked:
        return math.ceil(linked[port]), "the fabric link's length (inventory links / intent)"
    if configured is not None:
        return math.ceil(configured), "the port's configured cable length (no fabric link)"
    return None


def _ports(
    dev: Device, intent: Intent, links: Iterable[Link]
) -> tuple[dict[str, PortTarget], list[str]]:
    linked = link_lengths(dev.name, links)
    out: dict[str, PortTarget] = {}
    problems: list[str] = []
    mtu = intent.mtu.switch_for(dev.mtu_max)
    for name, port in sorted(dev.ports.items()):
        cable = _cable(name, port.cable_length_m, linked)
        if port.speed_mbps is None or cable is None:
            what = "speed" if port.speed_mbps is None else "cable length"
            problems.append(f"port {name} left out: its {what} is not known")
            continue
        hr = headroom_target(
            port.speed_mbps, cable[0], mtu, intent, dev.asic, dev=dev, lanes=port.lanes
        )
        ecn = ecn_target(port.speed_mbps, intent)
        reasons = _port_reasons(
            name, speed=port.speed_mbps, cable=cable, hr=hr, ecn=ecn, intent=intent
        )
        out[name] = PortTarget(name, port.speed_mbps, mtu, cable[0], hr, ecn, reasons)
    return out, problems


def device_target(dev: Device, intent: Intent, links: Iterable[Link] = ()) -> DeviceTarget:
    """The target of one device; raises TargetError when the intent contradicts itself."""
    links = tuple(links)
    classes = class_plan(intent)
    wd = watchdog_target(intent)
    ports, problems = _ports(dev, intent, links)
    linked = link_lengths(dev.name, links)
    nics = {
        name: nic_target(nic, intent, classes, linked.get(name))
        for name, nic in sorted(dev.nics.items())
    }
    return DeviceTarget(
        name=dev.name,
        platform=dev.platform,
        kind=dev.kind,
        hostname=dev.hostname,
        asic=dev.asic,
        classes=classes,
        watchdog=wd,
        ports=ports,
        nics=nics,
        problems=tuple(problems),
        reasons=(*classes.reasons, _watchdog_reason(wd)),
        role=dev.role,
        buffer_pools=dict(dev.buffer_pools) if dev.buffer_pools is not None else None,
        facts=dict(dev.facts),
        left_out=tuple(sorted(set(dev.ports) - set(ports))),
    )
