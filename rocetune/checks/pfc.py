"""RT2xx: PFC placement and link-level pause (see rules/ and docs/rule-catalogue.md).

A priority is lossless on a switch port when PFC is on for it in both directions
(``pfc_rx`` honours received pause, ``pfc_tx`` sends pause); on a NIC port when it is in
``pfc_priorities``. Priorities are compared with the intent's ``lossless_priorities``.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import Field

from rocetune.checks.base import (
    CheckContext,
    Issue,
    PortRule,
    Result,
    RuleMeta,
    RuleOptions,
    fmt_set,
    port_path,
)
from rocetune.checks.helpers import PortLike, missing, missing_pfc, pfc_path, pfc_priorities
from rocetune.model import Device, NicPort, Port, Severity


class PfcOnLossless(PortRule):
    """RT201: PFC rx and tx on every intent lossless priority."""

    meta = RuleMeta(
        code="RT201",
        name="pfc-on-lossless",
        severity=Severity.ERROR,
        scope="port",
        summary="PFC enabled (rx and tx) on every intent lossless priority on every RoCE port",
        tags=("pfc",),
        features=("pfc",),
        asserts_absence=True,
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterator[Result]:
        """Check PFC rx and tx on one switch port."""
        if port.pfc_rx is None or port.pfc_tx is None:
            yield from missing_pfc(dev.name, port)
            return
        want = frozenset(ctx.intent.lossless_priorities)
        no_rx = want - set(port.pfc_rx)
        no_tx = want - set(port.pfc_tx)
        if not (no_rx or no_tx):
            if port.pfc_mode == "auto":
                yield _auto_issue(dev, port, want, ctx)
            return
        yield Issue(
            message=_gap_message(no_rx, no_tx, want),
            device=dev.name,
            port=port.name,
            observed=f"rx {fmt_set(port.pfc_rx)} tx {fmt_set(port.pfc_tx)}",
            expected=f"rx and tx include {fmt_set(want)} (intent lossless_priorities)",
            path=port_path(port, "pfc_rx" if no_rx else "pfc_tx"),
        )

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Check the PFC vector of one NIC port."""
        if nic.pfc_priorities is None:
            yield from missing_pfc(dev.name, nic)
            return
        want = frozenset(ctx.intent.lossless_priorities)
        gap = want - set(nic.pfc_priorities)
        if not gap:
            return
        yield Issue(
            message=f"NIC PFC is off on intent lossless priorities {fmt_set(gap)}: the NIC"
            " neither sends nor honours pause for them, so RoCE traffic there is lossy",
            device=dev.name,
            port=nic.name,
            observed=frozenset(nic.pfc_priorities),
            expected=f"includes {fmt_set(want)} (intent lossless_priorities)",
            path=port_path(nic, "pfc_priorities"),
        )


def _peer_is_switch(dev: Device, port: Port, ctx: CheckContext) -> bool:
    """True when every link at ``port`` ends on a switch port (never for an unlinked port)."""
    peers = []
    for link in ctx.links_of(dev.name):
        for here, there in ((link.a, link.b), (link.b, link.a)):
            if here.device == dev.name and here.port == port.name:
                peers.append(ctx.fabric.devices.get(there.device))
    return bool(peers) and all(p is not None and p.kind == "switch" for p in peers)


def _auto_issue(dev: Device, port: Port, want: frozenset[int], ctx: CheckContext) -> Issue:
    """PFC left to DCBX negotiation (NX-OS ``priority-flow-control mode auto``)."""
    switch_peer = _peer_is_switch(dev, port, ctx)
    peer = (
        "the peer is a switch, which usually negotiates DCBX, but a failed or disabled"
        " negotiation still turns the lossless class lossy"
        if switch_peer
        else "RoCE NICs often do not negotiate DCBX (host LLDP agent off, firmware DCBX"
        " disabled), and then the port runs without PFC and drops RoCE frames like lossy"
        " traffic"
    )
    return Issue(
        message=f"PFC on {fmt_set(want)} is left to DCBX negotiation (priority-flow-control"
        f" mode auto, the NX-OS default): it runs only while the peer agrees over LLDP;"
        f" {peer}. Set the mode to on",
        device=dev.name,
        port=port.name,
        observed="pfc mode auto (DCBX-negotiated)",
        expected=f"PFC forced on for {fmt_set(want)} (priority-flow-control mode on)",
        path=port_path(port, "pfc_mode"),
        severity=Severity.WARNING if switch_peer else None,
    )


def _gap_message(no_rx: frozenset[int], no_tx: frozenset[int], want: frozenset[int]) -> str:
    rx_why = "rx: the port ignores pause from its peer and overruns the peer's buffer"
    tx_why = "tx: the port never sends pause, so its own ingress buffer overflows"
    if no_rx == no_tx:
        head = f"PFC is off in both directions on intent lossless priorities {fmt_set(no_rx)}"
        return f"{head}; RoCE frames on them are dropped like lossy traffic"
    parts = []
    if no_rx:
        parts.append(f"PFC rx is off on {fmt_set(no_rx)} ({rx_why})")
    if no_tx:
        parts.append(f"PFC tx is off on {fmt_set(no_tx)} ({tx_why})")
    return f"{'; '.join(parts)}; intent lossless priorities are {fmt_set(want)}"


class PfcExtraPriority(PortRule):
    """RT202: no PFC outside the intent lossless priorities."""

    meta = RuleMeta(
        code="RT202",
        name="pfc-extra-priority",
        severity=Severity.WARNING,
        scope="port",
        summary="PFC enabled on a priority outside the intent (the CNP priority included)",
        tags=("pfc",),
        features=("pfc",),
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterator[Result]:
        """Check one switch port (rx or tx)."""
        return _check_extra(dev, port, ctx)

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Check one NIC port."""
        return _check_extra(dev, nic, ctx)


def _check_extra(dev: Device, port: PortLike, ctx: CheckContext) -> Iterator[Result]:
    enabled = pfc_priorities(port)
    if enabled is None:
        yield from missing_pfc(dev.name, port)
        return
    want = frozenset(ctx.intent.lossless_priorities)
    extra = enabled - want
    tunnel = extra & _tunnel_priorities(dev) - {ctx.intent.cnp.priority}
    if tunnel:
        yield _tunnel_issue(dev, port, tunnel, enabled)
        extra -= tunnel
    if not extra:
        return
    cnp = ctx.intent.cnp.priority
    note = (
        f"; the CNP priority {cnp} must stay lossy so CNPs are never paused behind data"
        if cnp in extra
        else ""
    )
    yield Issue(
        message=f"PFC is on priorities {fmt_set(extra)} outside the intent lossless set"
        f" {fmt_set(want)}: each extra lossless priority costs headroom and spreads pause"
        f" (congestion spreading, PFC storms){note}",
        device=dev.name,
        port=port.name,
        observed=enabled,
        expected=f"{fmt_set(want)} (intent lossless_priorities)",
        path=_extra_path(port, extra),
    )


def _tunnel_priorities(dev: Device) -> frozenset[int]:
    return frozenset(dev.tunnel_lossless_priorities or ())


def _tunnel_issue(
    dev: Device, port: PortLike, tunnel: frozenset[int], enabled: frozenset[int]
) -> Issue:
    """Extra PFC priorities of the SONiC dual-ToR design: explained, at info severity."""
    return Issue(
        message=f"PFC is on priorities {fmt_set(tunnel)} outside the intent lossless set: these"
        " are the dual-ToR tunnel priorities (SONiC tunnel QoS remap): the standby ToR bounces"
        " lossless traffic back to the T1 through its tunnel and re-queues it onto"
        f" {fmt_set(tunnel)} (the tunnel's encap_tc_to_queue_map) so the bounce cannot close a"
        " PFC deadlock; PFC there is by design. Size headroom for them, and note that SONiC's"
        " qos template leaves them out of the software PFC watchdog (pfcwd_sw_enable)",
        device=dev.name,
        port=port.name,
        observed=enabled,
        expected=f"{fmt_set(tunnel)} only as dual-ToR tunnel priorities",
        path=_extra_path(port, tunnel),
        severity=Severity.INFO,
    )


def _extra_path(port: PortLike, extra: frozenset[int]) -> str:
    if isinstance(port, Port) and extra & frozenset(port.pfc_rx or ()):
        return port_path(port, "pfc_rx")
    return pfc_path(port)


class TooManyLosslessOptions(RuleOptions):
    """Options of RT203."""

    limit: int | None = Field(default=None, ge=1, le=8)
    """Most PFC priorities allowed per port; None = the intent's max_lossless_priorities."""


class TooManyLossless(PortRule):
    """RT203: at most ``limit`` lossless priorities per port."""

    meta = RuleMeta(
        code="RT203",
        name="too-many-lossless",
        severity=Severity.WARNING,
        scope="port",
        summary="more than two lossless priorities on a port",
        tags=("pfc", "buffers"),
        features=("pfc",),
    )
    options_model = TooManyLosslessOptions

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterator[Result]:
        """Count PFC priorities of one switch port."""
        return _check_count(dev, port, ctx)

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Count PFC priorities of one NIC port."""
        return _check_count(dev, nic, ctx)


def _limit(ctx: CheckContext) -> tuple[int, str]:
    opts = ctx.options
    if isinstance(opts, TooManyLosslessOptions) and opts.limit is not None:
        return opts.limit, "option limit"
    return ctx.intent.max_lossless_priorities, "intent max_lossless_priorities"


def _check_count(dev: Device, port: PortLike, ctx: CheckContext) -> Iterator[Result]:
    enabled = pfc_priorities(port)
    if enabled is None:
        yield from missing_pfc(dev.name, port)
        return
    limit, source = _limit(ctx)
    tunnel = _tunnel_priorities(dev) & enabled
    if len(enabled - tunnel) <= limit:
        return
    note = f" (besides the dual-ToR tunnel priorities {fmt_set(tunnel)})" if tunnel else ""
    counted = enabled - tunnel
    yield Issue(
        message=f"PFC is on {len(counted)} priorities {fmt_set(counted)}{note}, more than"
        f" {limit} ({source}): every lossless priority needs its own headroom on every port, and"
        " some platforms support only one or two lossless classes",
        device=dev.name,
        port=port.name,
        observed=len(counted),
        expected=f"<= {limit} ({source})",
        path=pfc_path(port),
    )


class LinkPauseOff(PortRule):
    """RT204: 802.3x link-level pause off wherever PFC is on."""

    meta = RuleMeta(
        code="RT204",
        name="link-pause-off",
        severity=Severity.ERROR,
        scope="port",
        summary="802.3x link-level pause is off wherever PFC is on",
        tags=("pfc", "pause"),
        features=("pfc",),
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterator[Result]:
        """Check ``link_pause`` of one switch port with PFC on."""
        if port.link_pause is False:
            return
        enabled = pfc_priorities(port)
        if enabled is not None and not enabled:
            return
        if port.link_pause is None:
            yield missing(dev.name, port, "link_pause", "802.3x link pause state")
            return
        if enabled is None:
            yield from missing_pfc(dev.name, port)
            return
        yield _pause_issue(dev, port, "rx/tx", enabled, "link_pause")

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Check ``ethtool -a`` global pause of one NIC port with PFC on."""
        enabled = nic.pfc_priorities
        if enabled is not None and not enabled:
            return
        states = {"rx": nic.global_pause_rx, "tx": nic.global_pause_tx}
        for way, state in states.items():
            if state is None:
                yield missing(dev.name, nic, f"global_pause_{way}", f"global pause {way} state")
        on = [way for way, state in states.items() if state]
        if not on:
            return
        if enabled is None:
            yield from missing_pfc(dev.name, nic)
            return
        yield _pause_issue(dev, nic, "/".join(on), frozenset(enabled), f"global_pause_{on[0]}")


def _pause_issue(
    dev: Device, port: PortLike, ways: str, enabled: frozenset[int], field: str
) -> Issue:
    return Issue(
        message=f"802.3x link-level pause is on ({ways}) while PFC is on priorities"
        f" {fmt_set(enabled)}: link pause stops every priority, CNPs included, and cannot"
        " coexist with PFC on a port",
        device=dev.name,
        port=port.name,
        observed=f"link pause {ways} on",
        expected="off (PFC is on)",
        path=port_path(port, field),
    )


class PfcOperState(PortRule):
    """RT208: the PFC priorities the switch runs with equal the configured ones."""

    meta = RuleMeta(
        code="RT208",
        name="pfc-oper-state",
        severity=Severity.ERROR,
        scope="port",
        summary="PFC operational state matches the configured state (where operational data"
        " was collected)",
        tags=("pfc", "operational"),
        features=("pfc",),
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterator[Result]:
        """Compare ``pfc_oper`` with the configured ``pfc_tx`` of one switch port."""
        if port.pfc_oper is None:
            what = "operational PFC priorities (show pfc priority / nv show qos roce)"
            yield missing(dev.name, port, "pfc_oper", what)
            return
        if port.pfc_tx is None:
            yield missing(dev.name, port, "pfc_tx", "PFC tx priorities")
            return
        oper, conf = frozenset(port.pfc_oper), frozenset(port.pfc_tx)
        if oper == conf:
            return
        parts = []
        if conf - oper:
            parts.append(
                f"configured PFC on {fmt_set(conf - oper)} is not in effect (the switch sends no"
                " pause there, so those lossless priorities drop)"
            )
        if oper - conf:
            parts.append(
                f"PFC runs on {fmt_set(oper - conf)}, which the configuration does not enable"
                " (an unsaved change or a stale configuration)"
            )
        yield Issue(
            message=f"the running PFC state differs from the configuration: {'; '.join(parts)}",
            device=dev.name,
            port=port.name,
            observed=f"operational {fmt_set(oper)}",
            expected=f"configured {fmt_set(conf)}",
            path=port_path(port, "pfc_oper"),
        )
