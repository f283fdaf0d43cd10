"""RT6xx: MTU (see rules/ and docs/rule-catalogue.md; units in docs/mtu.md).

Every MTU in the model is an IP (L3) MTU: the largest IP packet, without the Ethernet
header, FCS and VLAN tag (22 B) the port adds on top. SONiC ``PORT.mtu``, NVUE ``link mtu``,
EOS and NX-OS ``mtu`` and the Linux netdev MTU all count this way, so a switch port carries
the hosts' full-size frames when its MTU is at least the host MTU: both ends add the same
L2 overhead.
"""

from __future__ import annotations

from collections.abc import Iterator

from rocetune.checks.base import CheckContext, Issue, PortRule, Result, RuleMeta, port_path
from rocetune.checks.helpers import missing
from rocetune.model import Device, Port, Severity

UNIT = "IP MTU, without the 22 B Ethernet header, FCS and VLAN tag"


class SwitchMtu(PortRule):
    """RT601: port MTU and lossless class MTU >= intent host MTU, within platform limits."""

    meta = RuleMeta(
        code="RT601",
        name="switch-mtu",
        severity=Severity.ERROR,
        scope="port",
        summary="switch port MTU ≥ host MTU + L2 overhead",
        tags=("mtu",),
        features=("mtu",),
        asserts_absence=True,
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterator[Result]:
        """Compare one switch port's MTU (and its lossless class MTU) with the host MTU."""
        host = ctx.intent.mtu.host
        frame = host + ctx.intent.l2_overhead_bytes
        if port.mtu is None:
            yield missing(dev.name, port, "mtu", "MTU")
            # The class MTU is read on its own (NX-OS network-qos): check it even so.
            yield from _class_mtu(dev, port, host, frame, "")
            return
        if dev.mtu_max is not None and port.mtu > dev.mtu_max:
            yield Issue(
                message=f"port MTU {port.mtu} B is above the {dev.platform} maximum"
                f" {dev.mtu_max} B ({UNIT}): the switch rejects the setting, so the port keeps"
                " its previous MTU",
                device=dev.name,
                port=port.name,
                observed=f"mtu {port.mtu}",
                expected=f"<= {dev.mtu_max} (the {dev.platform} range; docs/mtu.md)",
                path=port_path(port, "mtu"),
                asserts_absence=False,
            )
        if port.mtu < host:
            yield Issue(
                message=f"port MTU {port.mtu} B is below the host MTU {host} B (both {UNIT}):"
                f" the hosts' full-size frames ({frame} B on the wire) are dropped as oversize"
                " on this port",
                device=dev.name,
                port=port.name,
                observed=f"mtu {port.mtu} B (IP MTU)",
                expected=f">= {host} B (intent mtu.host)",
                path=port_path(port, "mtu"),
            )
        port_ok = f" even though the port MTU is {port.mtu} B" if port.mtu >= host else ""
        yield from _class_mtu(dev, port, host, frame, port_ok)


def _class_mtu(dev: Device, port: Port, host: int, frame: int, port_ok: str) -> Iterator[Issue]:
    if port.class_mtu is None or port.class_mtu >= host:
        return
    yield Issue(
        message=f"the traffic class carrying the lossless priorities has MTU"
        f" {port.class_mtu} B, below the host MTU {host} B (both {UNIT}): RoCE frames"
        f" up to {frame} B on the wire are dropped in that class{port_ok}",
        device=dev.name,
        port=port.name,
        observed=f"class mtu {port.class_mtu} B (IP MTU)",
        expected=f">= {host} B (intent mtu.host)",
        path=port_path(port, "class_mtu"),
        asserts_absence=False,
    )
