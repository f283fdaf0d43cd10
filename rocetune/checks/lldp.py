"""RT709 lldp-app-tlv: DCBX application TLVs a switch advertises agree with its maps.

A NIC in DCBX "willing"/firmware mode takes the priority of RoCE traffic from the switch's
application priority TLVs (roce-knowledge.md §3.9: UDP 4791 -> priority 3, DSCP 26 -> 3;
S1, S4, S16 niccli ``Sel 3 UDP 4791`` / ``Sel 5 DSCP 26/48``). Checked TLVs:

- RoCE v2 (selector ``udp`` or ``tcp_udp``, port 4791): the priority must be one the
  device's RoCE ports give the intent RoCE DSCP, and lossless (PFC on) on those ports;
- DSCP (selector ``dscp``): the priority must be the one the device's ports map that DSCP to.

Other selectors (EtherType, TCP) say nothing about the RoCE plan and are not checked. The
priorities a DSCP gets come from the ``dscp_to_priority`` maps of the RoCE ports that
trust DSCP. Hosts are not checked (their NICs receive these TLVs).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rocetune.checks.base import (
    CheckContext,
    DeviceRule,
    Issue,
    Missing,
    Result,
    RuleMeta,
    fmt_set,
)
from rocetune.checks.helpers import DSCP_TRUST, lossless_priorities, missing
from rocetune.model import Device, Port, Severity
from rocetune.model.device import AppTlv

ROCE_V2_UDP_PORT = 4791
"""IANA UDP destination port of RoCE v2."""


def _dscp_priorities(ports: list[Port], dscp: int) -> set[int]:
    return {
        p.dscp_to_priority[dscp]
        for p in ports
        if p.dscp_to_priority is not None and dscp in p.dscp_to_priority
    }


def _tlv_text(tlv: AppTlv) -> str:
    return f"{tlv.selector} {tlv.protocol} -> priority {tlv.priority}"


class LldpAppTlv(DeviceRule):
    """RT709: advertised DCBX application TLVs agree with the configured maps."""

    meta = RuleMeta(
        code="RT709",
        name="lldp-app-tlv",
        severity=Severity.INFO,
        scope="device",
        summary="advertised DCBX application TLVs agree with the configured maps",
        tags=("lldp", "dcbx", "classification"),
        features=(
            "lldp",
            "dscp_map",
        ),
    )

    def check_device(self, dev: Device, ctx: CheckContext) -> Iterable[Result]:
        """Compare each advertised TLV with the RoCE ports' DSCP maps and PFC."""
        if dev.kind != "switch" or not dev.ports:
            return
        if dev.lldp_app_tlvs is None:
            yield Missing(dev.name, "advertised LLDP application TLVs not in snapshot")
            return
        if not dev.lldp_app_tlvs:
            return
        ports: list[Port] = []
        for port in ctx.roce_ports(dev):
            if port.trust is None or port.dscp_to_priority is None:
                field = "trust" if port.trust is None else "dscp_to_priority"
                yield missing(dev.name, port, field, "trust mode and DSCP map")
            elif port.trust in DSCP_TRUST:
                ports.append(port)
        if not ports:
            return
        for tlv in dev.lldp_app_tlvs:
            yield from _check(dev, tlv, ports, ctx)


def _check(dev: Device, tlv: AppTlv, ports: list[Port], ctx: CheckContext) -> Iterator[Result]:
    roce = tlv.selector in ("udp", "tcp_udp") and tlv.protocol == ROCE_V2_UDP_PORT
    if roce:
        want = set().union(*(_dscp_priorities(ports, d) for d in ctx.intent.roce_dscp))
        what = f"the RoCE DSCP {fmt_set(ctx.intent.roce_dscp)}"
    elif tlv.selector == "dscp":
        want = _dscp_priorities(ports, tlv.protocol)
        what = f"DSCP {tlv.protocol}"
    else:
        return
    if want and tlv.priority not in want:
        yield _issue(dev, tlv, f"the ports map {what} to priority {fmt_set(want)}", want)
    if roce:
        yield from _lossless(dev, tlv, ports)


def _lossless(dev: Device, tlv: AppTlv, ports: list[Port]) -> Iterator[Result]:
    lossy = []
    for port in ports:
        have = lossless_priorities(port)
        if have is None:
            yield missing(dev.name, port, "pfc_tx", "PFC priorities")
        elif tlv.priority not in have:
            lossy.append(port.name)
    if lossy:
        where = ", ".join(lossy[:4]) + (f" and {len(lossy) - 4} more" if len(lossy) > 4 else "")
        yield _issue(dev, tlv, f"priority {tlv.priority} is not lossless on {where}", None)


def _issue(dev: Device, tlv: AppTlv, why: str, want: set[int] | None) -> Issue:
    expected = (
        f"priority {fmt_set(want)} (the configured maps)"
        if want is not None
        else f"priority {tlv.priority} lossless (PFC rx and tx) on every RoCE port"
    )
    return Issue(
        message=(
            f"the switch advertises the DCBX application TLV {_tlv_text(tlv)}, but {why}: a NIC"
            " that takes its QoS from DCBX (willing/firmware mode) sends RoCE on a priority"
            " the switch does not treat as planned"
        ),
        device=dev.name,
        observed=_tlv_text(tlv),
        expected=expected,
        path="lldp_app_tlvs",
    )
