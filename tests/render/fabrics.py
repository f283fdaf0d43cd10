"""Synthetic devices for render tests: one switch of a platform with ports of one speed."""

from __future__ import annotations

from collections.abc import Container
from pathlib import Path

from rocetune import api
from rocetune.model import (
    AuditResult,
    BufferPool,
    Device,
    Fabric,
    Intent,
    Link,
    LinkEnd,
    Port,
    Severity,
)
from rocetune.platforms import drivers
from rocetune.render.run import RenderReport, write_report

SONIC_POOLS = {
    "ingress_lossless_pool": BufferPool(
        name="ingress_lossless_pool", direction="ingress", mode="dynamic", size_bytes=47218432
    ),
    "egress_lossless_pool": BufferPool(
        name="egress_lossless_pool", direction="egress", mode="dynamic", size_bytes=60817392
    ),
    "egress_lossy_pool": BufferPool(
        name="egress_lossy_pool", direction="egress", mode="dynamic", size_bytes=47218432
    ),
}
PORT_NAMES = {
    "sonic": ("Ethernet0", "Ethernet8"),
    "cumulus": ("swp1", "swp2"),
    "eos": ("Ethernet1/1", "Ethernet2/1"),
    "nxos": ("Ethernet1/1", "Ethernet1/2"),
    "onyx": ("Eth1/1", "Eth1/2/1"),
    "enterprise_sonic": ("Eth1/1", "Eth1/2"),
}


def switch(platform: str, speed_mbps: int, *, asic: str | None = None, name: str = "sw1") -> Device:
    """A switch with two ports of ``speed_mbps`` (SONiC keeps Spectrum-sized pools) and its
    platform's limits."""
    ports = {p: Port(name=p, speed_mbps=speed_mbps, mtu=9100) for p in PORT_NAMES[platform]}
    dev = Device(
        name=name,
        kind="switch",
        platform=platform,
        hostname=name,
        asic=asic,
        ports=ports,
        buffer_pools=dict(SONIC_POOLS) if platform == "sonic" else None,
    )
    return drivers()[platform].stamp(dev)  # the platform's limits, as parsing sets them


def fabric(dev: Device, cable_m: float, intent: Intent | None = None) -> Fabric:
    """``dev`` with every port cabled ``cable_m`` metres to a peer outside the fabric."""
    links = tuple(
        Link(a=LinkEnd(device=dev.name, port=p), b=LinkEnd(device="peer", port=p), length_m=cable_m)
        for p in dev.ports
    )
    return Fabric(intent=intent or Intent(), devices={dev.name: dev}, links=links)


def lint_rendered(report: RenderReport, out: Path, intent: Intent) -> AuditResult:
    """Write the rendered files to ``out`` and lint the lintable ones against ``intent``."""
    write_report(report, out)
    files = [out / f.path for d in report.devices for f in d.files if f.lintable]
    assert files
    return api.lint(files, intent=intent)


def loud(
    result: AuditResult, at_least: Severity = Severity.WARNING, allowed: Container[str] = ()
) -> list[str]:
    """The findings at ``at_least`` or above, except the ``allowed`` codes, one line each."""
    return [
        f"{f.code} {f.device} {f.port or f.link or ''}: {f.message}"
        for f in result.findings
        if f.severity.rank >= at_least.rank and f.code not in allowed
    ]
