"""NIC port rules: RT105 roce-tos, RT506 nic-rx-buffer, RT602 roce-mtu-fits, RT603 roce-v2
(roce-knowledge.md §1.2 N6/N9-N11/N20-N22, §3.7, R-NIC-03/04/11/14/17).

ToS arithmetic: DSCP = ToS >> 2, ECN bits = ToS & 3 (RFC 3168: 00 Not-ECT, 01 ECT(1),
10 ECT(0), 11 CE); 106 = DSCP 26 << 2 | ECT(0). RoCE MTU: the largest IB MTU not above the
netdev MTU minus 96 B of RoCE v2 headers (GRH 40, UDP 8, BTH 12, XRC 4, AtomicETH 28, ICRC 4;
``iboe_get_mtu``, S29). NIC lossless buffer: at least max(2 x MTU, XOFF), the XOFF estimate
being the mlx5 driver's ``calculate_xoff`` (:mod:`rocetune.tune.nic_buffer`).
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import Field

from rocetune.checks._chain import options_of
from rocetune.checks.base import (
    CheckContext,
    Issue,
    Missing,
    PortRule,
    Result,
    RuleMeta,
    RuleOptions,
    fmt_set,
    port_path,
)
from rocetune.checks.helpers import missing
from rocetune.model import Device, NicPort, Severity
from rocetune.tune.nic_buffer import mlx5_xoff_bytes, nic_buffer_need

__all__ = ["mlx5_xoff_bytes"]

ROCE_HEADERS_BYTES = 96
"""GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4 (S29)."""
IB_MTUS = (256, 512, 1024, 2048, 4096)
_ECN = {0: "00 (Not-ECT)", 1: "01 (ECT(1))", 2: "10 (ECT(0))", 3: "11 (CE)"}


def _tos_expected(roce: tuple[int, ...]) -> str:
    if len(roce) == 1:
        return f"ToS {roce[0] << 2 | 2} (DSCP {roce[0]} << 2 | ECT(0)) (intent roce_dscp)"
    return f"ToS with DSCP (ToS >> 2) in {fmt_set(roce)} and ECN bits ECT (intent roce_dscp)"


class RoceTos(PortRule):
    """RT105: the NIC's default ToS carries the intent RoCE DSCP, with ECT ECN bits."""

    meta = RuleMeta(
        code="RT105",
        name="roce-tos",
        severity=Severity.ERROR,
        scope="port",
        summary="NIC default RoCE ToS (rdma_cm default ToS, traffic_class) carries the intent"
        " RoCE DSCP (ToS >> 2); warning when its ECN bits are not ECT",
        tags=("classification", "dscp", "nic"),
        features=("roce_mode",),
        asserts_absence=True,
    )

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Check the rdma_cm default ToS and, where set, the verbs traffic class."""
        if nic.roce_tos is None:
            yield missing(dev.name, nic, "roce_tos", "rdma_cm default ToS (cma_roce_tos)")
        else:
            yield from _tos(dev, nic, ctx, "roce_tos", nic.roce_tos)
        if nic.traffic_class is not None:
            yield from _tos(dev, nic, ctx, "traffic_class", nic.traffic_class)


def _tos(dev: Device, nic: NicPort, ctx: CheckContext, field: str, tos: int) -> Iterator[Issue]:
    label = "rdma_cm default ToS" if field == "roce_tos" else "verbs traffic class"
    dscp, ecn = tos >> 2, tos & 3
    roce = ctx.intent.roce_dscp
    observed = f"ToS {tos} (DSCP {dscp}, ECN {ecn:02b})"
    if dscp not in roce:
        yield Issue(
            message=_dscp_message(nic, ctx, label, tos, dscp),
            device=dev.name,
            port=nic.name,
            observed=observed,
            expected=_tos_expected(roce),
            path=port_path(nic, field),
        )
        return
    if ctx.intent.congestion_control == "none" or ecn in (1, 2):
        return
    why = (
        "switches cannot CE-mark these packets (they drop them instead), so DCQCN gets no"
        " congestion signal"
        if ecn == 0
        else "every packet arrives marked as congested, so receivers send CNPs for all of"
        " them and senders keep cutting their rate"
    )
    yield Issue(
        message=f"{label} {tos} carries the RoCE DSCP {dscp} but ECN bits {_ECN[ecn]}: {why}",
        device=dev.name,
        port=nic.name,
        observed=observed,
        expected=f"ECN bits ECT: ToS {dscp << 2 | 2} (ECT(0)) or {dscp << 2 | 1} (ECT(1))",
        path=port_path(nic, field),
        severity=Severity.WARNING,
    )


def _dscp_message(nic: NicPort, ctx: CheckContext, label: str, tos: int, dscp: int) -> str:
    roce = fmt_set(ctx.intent.roce_dscp)
    prio = None if nic.dscp_to_priority is None else nic.dscp_to_priority.get(dscp)
    lossless = prio in ctx.intent.lossless_priorities
    where = "" if prio is None else f", which maps to priority {prio}"
    head = f"{label} {tos} carries DSCP {dscp} (ToS >> 2){where}, not the intent RoCE DSCP {roce}"
    if tos == 0:
        head = f"{label} is 0 (unset): RoCE packets leave with DSCP 0{where}, not DSCP {roce}"
    tail = (
        "; they still reach a lossless priority here, but every switch classifies them by DSCP"
        " and puts them in another class"
        if lossless
        else "; RoCE connections that use this default travel in a lossy class"
    )
    return head + tail


class NicRxBuffer(PortRule):
    """RT506: each lossless priority has its own receive buffer, larger than its XOFF."""

    meta = RuleMeta(
        code="RT506",
        name="nic-rx-buffer",
        severity=Severity.WARNING,
        scope="port",
        summary="NIC lossless priority has its own receive buffer, larger than its XOFF",
        tags=("buffers", "pfc", "nic"),
        features=("buffers",),
    )

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Check ``prio2buffer`` and the receive buffer sizes of one NIC port."""
        if nic.priority_to_buffer is None:
            yield missing(dev.name, nic, "priority_to_buffer", "priority-to-buffer map")
            return
        lossless = ctx.intent.lossless_priorities
        for prio in lossless:
            buf = nic.priority_to_buffer.get(prio)
            if buf is None:
                item = f"{nic.name}: receive buffer of priority {prio} not in snapshot"
                yield Missing(dev.name, item, port_path(nic, "priority_to_buffer"))
                continue
            yield from _sharing(dev, nic, prio, buf, lossless)
            yield from _size(dev, nic, prio, buf)


def _sharing(
    dev: Device, nic: NicPort, prio: int, buf: int, lossless: tuple[int, ...]
) -> Iterator[Issue]:
    p2b = nic.priority_to_buffer or {}
    lossy = sorted(p for p, b in p2b.items() if b == buf and p not in lossless)
    if not lossy:
        return
    yield Issue(
        message=f"lossless priority {prio} shares receive buffer {buf} with lossy priorities"
        f" {fmt_set(lossy)}: their traffic fills the buffer the lossless priority needs, so"
        " the NIC pauses the lossless priority for lossy traffic or runs out of headroom",
        device=dev.name,
        port=nic.name,
        observed=f"buffer {buf}: priorities {fmt_set([prio, *lossy])}",
        expected=f"priority {prio} alone (with lossless priorities only) in its buffer",
        path=port_path(nic, "priority_to_buffer"),
    )


def _size(dev: Device, nic: NicPort, prio: int, buf: int) -> Iterator[Result]:
    if nic.buffer_sizes_bytes is None or buf not in nic.buffer_sizes_bytes:
        yield missing(dev.name, nic, "buffer_sizes_bytes", "receive buffer sizes")
        return
    size = nic.buffer_sizes_bytes[buf]
    if size == 0:
        yield _size_issue(dev, nic, prio, buf, "has no space (0 B)", expected="> 0 B")
        return
    if nic.mtu is None:
        yield missing(dev.name, nic, "mtu", "mtu (for the buffer size needed)")
        return
    need = nic_buffer_need(nic.mtu, nic.speed_mbps, nic.cable_length_m)
    frames = f"2 x MTU {nic.mtu} = {need.frames_bytes} B"
    if size < need.frames_bytes:
        detail = f"is {size} B, less than two full frames ({frames})"
        yield _size_issue(
            dev, nic, prio, buf, detail, expected=f">= {need.frames_bytes} B ({frames})"
        )
        return
    if need.xoff_bytes is None:
        for field in ("speed_mbps", "cable_length_m"):
            if getattr(nic, field) is None:
                yield missing(dev.name, nic, field, f"{field} (for the XOFF estimate)")
        return
    if size >= need.bytes:
        return
    detail = (
        f"is {size} B, below its XOFF threshold ~(301 + 2.16 x {nic.cable_length_m:g}"
        f" m) x {max(nic.speed_mbps or 0, 40_000) // 1000} Gb/s + 2.72 x MTU {nic.mtu}"
        f" = {need.xoff_bytes} B (mlx5 calculate_xoff)"
    )
    expected = f">= {need.bytes} B (max({frames}, XOFF {need.xoff_bytes} B))"
    yield _size_issue(dev, nic, prio, buf, detail, expected=expected)


def _size_issue(
    dev: Device, nic: NicPort, prio: int, buf: int, detail: str, *, expected: str
) -> Issue:
    size = (nic.buffer_sizes_bytes or {}).get(buf, 0)
    return Issue(
        message=f"receive buffer {buf} of lossless priority {prio} {detail}: the NIC cannot"
        " absorb what is in flight after it sends pause, so it drops lossless frames",
        device=dev.name,
        port=nic.name,
        observed=f"buffer {buf}: {size} B",
        expected=expected,
        path=port_path(nic, "buffer_sizes_bytes"),
    )


def roce_mtu(netdev_mtu: int) -> int | None:
    """The RoCE path MTU a netdev MTU gives (largest IB MTU <= MTU - 96), or None."""
    fits = [m for m in IB_MTUS if m <= netdev_mtu - ROCE_HEADERS_BYTES]
    return max(fits) if fits else None


class RoceMtuFits(PortRule):
    """RT602: the netdev MTU leaves room for the intent RoCE MTU plus RoCE headers."""

    meta = RuleMeta(
        code="RT602",
        name="roce-mtu-fits",
        severity=Severity.ERROR,
        scope="port",
        summary="NIC netdev MTU >= intent RoCE MTU + 96 B (4192 for 4096)",
        tags=("mtu", "nic"),
        features=("mtu",),
        asserts_absence=True,
    )

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Compare the netdev MTU with the intent RoCE MTU + 96 B."""
        want = ctx.intent.mtu.roce
        need = want + ROCE_HEADERS_BYTES
        if nic.mtu is None:
            yield missing(dev.name, nic, "mtu", "netdev MTU")
            return
        if nic.mtu >= need:
            return
        got = roce_mtu(nic.mtu)
        result = "no RoCE MTU at all" if got is None else f"RoCE path MTU {got}"
        yield Issue(
            message=f"netdev MTU {nic.mtu} gives {result} (largest IB MTU <= {nic.mtu} - 96 B"
            f" of RoCE v2 headers), not the intent RoCE MTU {want}: RDMA messages are cut into"
            " smaller packets and bandwidth drops",
            device=dev.name,
            port=nic.name,
            observed=nic.mtu,
            expected=f">= {need} (intent mtu.roce {want} + {ROCE_HEADERS_BYTES} B)",
            path=port_path(nic, "mtu"),
        )


class RoceV2Options(RuleOptions):
    """Options of RT603."""

    gid_index: int | None = Field(default=None, ge=0)
    """The GID index the applications use (``NCCL_IB_GID_INDEX``, perftest ``-x``); None =
    any IPv4-mapped RoCE v2 GID of the port will do."""


class RoceV2(PortRule):
    """RT603: rdma_cm defaults to RoCE v2 and an IPv4 RoCE v2 GID exists (at the index used)."""

    meta = RuleMeta(
        code="RT603",
        name="roce-v2",
        severity=Severity.ERROR,
        scope="port",
        summary="rdma_cm default mode is RoCE v2; the configured GID index is an IPv4-mapped"
        " RoCE v2 entry",
        tags=("roce", "gid", "nic"),
        features=("roce_mode",),
    )
    options_model = RoceV2Options

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Check ``cma_roce_mode`` and the GID table of one NIC port."""
        if nic.roce_mode is None:
            yield missing(dev.name, nic, "roce_mode", "rdma_cm default RoCE mode")
        elif nic.roce_mode != "v2":
            yield Issue(
                message=f"rdma_cm uses RoCE {nic.roce_mode} by default: RoCE v1 frames are not"
                " routable (no IP header), so they never cross a routed (L3) fabric and get no"
                " DSCP-based class",
                device=dev.name,
                port=nic.name,
                observed=f"RoCE {nic.roce_mode}",
                expected="RoCE v2 (cma_roce_mode -m 2)",
                path=port_path(nic, "roce_mode"),
            )
        yield from _gids(dev, nic, options_of(ctx, RoceV2Options).gid_index)


def _gids(dev: Device, nic: NicPort, index: int | None) -> Iterator[Result]:
    gids = nic.gid_index_v2_ipv4
    if gids is None:
        yield missing(dev.name, nic, "gid_index_v2_ipv4", "RoCE v2 GID table")
        return
    if not gids:
        message = (
            "the port has no IPv4-mapped RoCE v2 GID (no IPv4 address on the netdev, or RoCE"
            " v1 only): routed RoCE v2 connections cannot be set up from it"
        )
    elif index is not None and index not in gids:
        message = (
            f"applications use GID index {index} (option gid_index), which is not an"
            f" IPv4-mapped RoCE v2 entry (those are {fmt_set(gids)}): they send RoCE v1 or"
            " link-local traffic that the routed fabric does not carry"
        )
    else:
        return
    yield Issue(
        message=message,
        device=dev.name,
        port=nic.name,
        observed=fmt_set(gids),
        expected="an IPv4-mapped RoCE v2 GID" + ("" if index is None else f" at index {index}"),
        path=port_path(nic, "gid_index_v2_ipv4"),
    )
