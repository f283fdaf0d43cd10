"""NIC congestion-control rules: RT311 dcqcn-rp, RT312 dcqcn-np, RT314 cnp-priority,
RT316 nic-firmware-cc (roce-knowledge.md §2.8, §3.8, R-NIC-06/07/08/10/20).

All four follow the intent: the lossless priorities, the CNP DSCP and priority, and the
congestion-control mode (``congestion_control: none`` turns them off, as in Meta's PFC-only
design, §3.8). Firmware parameters are bit tests and number comparisons on the ``mlxconfig``
values of the port's own ``_P<n>`` parameters.
"""

from __future__ import annotations

from collections.abc import Iterator

from rocetune.checks.base import (
    CheckContext,
    Issue,
    Missing,
    PortRule,
    Result,
    RuleMeta,
    fmt_set,
    port_path,
)
from rocetune.checks.helpers import missing, missing_pfc
from rocetune.model import Device, NicPort, Severity


def _dcqcn(dev: Device, nic: NicPort, ctx: CheckContext, field: str, what: str) -> Iterator[Result]:
    if ctx.intent.congestion_control == "none":
        return
    table: dict[int, bool] | None = getattr(nic, field)
    if table is None:
        yield missing(dev.name, nic, field, f"DCQCN {what} enable files")
        return
    want = ctx.intent.lossless_priorities
    for prio in want:
        if prio not in table:
            item = f"{nic.name}: DCQCN {what} state of priority {prio} not in snapshot"
            yield Missing(device=dev.name, item=item, path=port_path(nic, field))
    off = [p for p in want if table.get(p) is False]
    if not off:
        return
    point = "roce_rp" if field == "dcqcn_rp" else "roce_np"
    yield Issue(
        message=_dcqcn_message(what, off),
        device=dev.name,
        port=nic.name,
        observed=f"enabled on {fmt_set(p for p, on in table.items() if on)}",
        expected=f"enabled on {fmt_set(want)} (intent lossless_priorities; ecn/{point}/enable)",
        path=port_path(nic, field),
    )


def _dcqcn_message(what: str, off: list[int]) -> str:
    if what == "reaction point":
        return (
            f"DCQCN reaction point is off on lossless priorities {fmt_set(off)}: this NIC"
            " ignores the CNPs it receives (rp_cnp_ignored grows) and never slows down, so"
            " congestion is left to PFC alone (pause storms, head-of-line blocking)"
        )
    return (
        f"DCQCN notification point is off on lossless priorities {fmt_set(off)}: this NIC"
        " sends no CNP for CE-marked packets it receives, so ECN marking by the switches"
        " never reaches the senders and congestion is left to PFC alone"
    )


class DcqcnRp(PortRule):
    """RT311: DCQCN reaction point on every lossless priority."""

    meta = RuleMeta(
        code="RT311",
        name="dcqcn-rp",
        severity=Severity.ERROR,
        scope="port",
        summary="NIC reaction point enabled on every lossless priority (unless intent cc = none)",
        tags=("dcqcn", "ecn", "nic"),
        features=("dcqcn",),
        asserts_absence=True,
    )

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Check ``ecn/roce_rp/enable/<p>`` of one NIC port."""
        return _dcqcn(dev, nic, ctx, "dcqcn_rp", "reaction point")


class DcqcnNp(PortRule):
    """RT312: DCQCN notification point on every lossless priority."""

    meta = RuleMeta(
        code="RT312",
        name="dcqcn-np",
        severity=Severity.ERROR,
        scope="port",
        summary="NIC notification point enabled on every lossless priority (unless intent cc"
        " = none)",
        tags=("dcqcn", "ecn", "nic"),
        features=("dcqcn",),
        asserts_absence=True,
    )

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Check ``ecn/roce_np/enable/<p>`` of one NIC port."""
        return _dcqcn(dev, nic, ctx, "dcqcn_np", "notification point")


class CnpPriority(PortRule):
    """RT314: the NIC sends CNPs on the intent CNP priority, which has no PFC."""

    meta = RuleMeta(
        code="RT314",
        name="cnp-priority",
        severity=Severity.WARNING,
        scope="port",
        summary="NIC CNP 802.1p priority equals the intent CNP priority, and that priority"
        " is not PFC-enabled",
        tags=("cnp", "dcqcn", "nic"),
        features=(
            "cnp",
            "pfc",
        ),
    )

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Compare ``cnp_802p_prio`` with the intent and the PFC vector."""
        if ctx.intent.congestion_control == "none":
            return
        if nic.cnp_priority is None:
            yield missing(dev.name, nic, "cnp_priority", "CNP 802.1p priority")
            return
        want = ctx.intent.cnp.priority
        if nic.cnp_priority == want:
            return  # PFC on the intent CNP priority is RT403's finding
        yield Issue(
            message=f"the NIC sends CNPs with 802.1p priority {nic.cnp_priority}, not the"
            f" intent CNP priority {want}: on an L2 hop the CNPs miss the strict CNP class"
            " and queue behind data, so senders slow down late",
            device=dev.name,
            port=nic.name,
            observed=nic.cnp_priority,
            expected=f"{want} (intent cnp.priority)",
            path=port_path(nic, "cnp_priority"),
        )
        enabled = nic.pfc_priorities
        if enabled is None:
            yield from missing_pfc(dev.name, nic)
        elif nic.cnp_priority in enabled:
            yield Issue(
                message=f"the NIC's CNP priority {nic.cnp_priority} has PFC enabled: CNPs can"
                " be paused together with the traffic they should slow down",
                device=dev.name,
                port=nic.name,
                observed=f"PFC on {fmt_set(enabled)}",
                expected=f"no PFC on CNP priority {nic.cnp_priority}",
                path=port_path(nic, "pfc_priorities"),
            )


def fw_int(value: str | None) -> int | None:
    """A firmware value as an integer (decimal as the parser normalised it), or None."""
    if value is None or not value.strip().isdigit():
        return None
    return int(value)


class NicFirmwareCc(PortRule):
    """RT316: mlxconfig CC settings agree with the intent and the runtime values."""

    meta = RuleMeta(
        code="RT316",
        name="nic-firmware-cc",
        severity=Severity.WARNING,
        scope="port",
        summary="firmware CC settings (ROCE_CC_PRIO_MASK, CNP_DSCP, CNP_802P_PRIO) agree with"
        " runtime and intent",
        tags=("dcqcn", "cnp", "firmware", "nic"),
        features=(
            "cnp",
            "dcqcn",
        ),
    )

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Check the port's ``_P<n>`` firmware parameters."""
        if ctx.intent.congestion_control == "none":
            return
        if nic.firmware is None:
            yield missing(dev.name, nic, "firmware", "firmware configuration (mlxconfig q)")
            return
        port = nic.firmware_port or 1
        yield from _mask(dev, nic, ctx, port)
        cnp = ctx.intent.cnp
        yield from _value(
            dev, nic, f"CNP_DSCP_P{port}", cnp.dscp, source="cnp.dscp", runtime=nic.cnp_dscp
        )
        yield from _value(
            dev,
            nic,
            f"CNP_802P_PRIO_P{port}",
            cnp.priority,
            source="cnp.priority",
            runtime=nic.cnp_priority,
        )


def _fw_value(dev: Device, nic: NicPort, key: str) -> int | Missing:
    value = fw_int((nic.firmware or {}).get(key))
    if value is None:
        item = f"{nic.name}: firmware {key} not in snapshot"
        return Missing(device=dev.name, item=item, path=port_path(nic, "firmware"))
    return value


def _mask(dev: Device, nic: NicPort, ctx: CheckContext, port: int) -> Iterator[Result]:
    key = f"ROCE_CC_PRIO_MASK_P{port}"
    mask = _fw_value(dev, nic, key)
    if isinstance(mask, Missing):
        yield mask
        return
    want = ctx.intent.lossless_priorities
    off = [p for p in want if not (mask >> p) & 1]
    if not off:
        return
    yield Issue(
        message=f"firmware {key} = {mask} (bits {mask & 0xFF:08b}, bit n = priority n) has no"
        f" bit for lossless priorities {fmt_set(off)}: the firmware runs no DCQCN on them,"
        " whatever the runtime ecn files say",
        device=dev.name,
        port=nic.name,
        observed=f"{key}={mask}",
        expected=f"bits {fmt_set(want)} set (intent lossless_priorities; e.g. 255)",
        path=port_path(nic, "firmware"),
    )


def _value(
    dev: Device, nic: NicPort, key: str, want: int, *, source: str, runtime: int | None
) -> Iterator[Result]:
    value = _fw_value(dev, nic, key)
    if isinstance(value, Missing):
        yield value
        return
    if value != want:
        message = (
            f"firmware {key} = {value}, not the intent {want}: after the next reset the NIC"
            " marks CNPs differently from what the switches classify as CNP"
        )
    elif runtime is not None and runtime != value:
        message = (
            f"firmware {key} = {value} (the intent) but the runtime value is {runtime}: the"
            " NIC marks CNPs with the runtime value now and reverts at the next reset"
        )
    else:
        return
    yield Issue(
        message=message,
        device=dev.name,
        port=nic.name,
        observed=f"{key}={value}" + ("" if runtime is None else f", runtime {runtime}"),
        expected=f"{want} (intent {source}) in firmware and at runtime",
        path=port_path(nic, "firmware"),
    )
