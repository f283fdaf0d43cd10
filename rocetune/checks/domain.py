"""RT003 lossless-domain and RT004 snapshot-identity: what was checked, and of which device.

Never pass silently: a config in which no port was found, a device with no RoCE port, the
ports left outside the lossless domain, and a snapshot that names another device are
findings, not a clean exit.
"""

from __future__ import annotations

from collections.abc import Iterable

from rocetune.checks.base import CheckContext, DeviceRule, Issue, Result, RuleMeta
from rocetune.checks.scope import RoceScope
from rocetune.model import Device, Severity

_LISTED = 8


def _ports(names: Iterable[str]) -> str:
    names = list(names)
    shown = ", ".join(names[:_LISTED])
    return shown + (f" and {len(names) - _LISTED} more" if len(names) > _LISTED else "")


class LosslessDomain(DeviceRule):
    """RT003: which switch ports carry RoCE; no port, no RoCE port, or ports left out."""

    meta = RuleMeta(
        code="RT003",
        name="lossless-domain",
        severity=Severity.WARNING,
        scope="device",
        summary="no port found, no RoCE port, or ports outside the lossless domain"
        " (one finding per device)",
        tags=("coverage",),
        features=("ports",),
    )

    def check_device(self, dev: Device, ctx: CheckContext) -> Iterable[Result]:
        """Report a device with no port, with no RoCE port, or the ports left out."""
        if dev.kind == "host":
            if not dev.nics:
                yield Issue(
                    message="no NIC port could be found in the host outputs, so no NIC rule"
                    " checked this host (give the mlnx_qos, ethtool and ip link outputs)",
                    device=dev.name,
                    observed="0 NIC ports",
                    expected="the host's RoCE NIC ports",
                    severity=Severity.ERROR,
                )
            return
        if not dev.ports:
            yield Issue(
                message="no switch port could be found in the config, so no port rule checked"
                " this device (is this the whole running config of a switch?)",
                device=dev.name,
                observed="0 ports",
                expected="the switch's ports",
                severity=Severity.ERROR,
                asserts_absence=True,
            )
            return
        templates = [p.name for p in dev.ports.values() if p.template]
        if templates and len(templates) == len(dev.ports):
            yield Issue(
                message="no interface in the config: only device-wide QoS was found, so it was"
                f" checked on {_ports(templates)}, which stands for every port inheriting it;"
                " the real ports, and what each sets itself (MTU, PFC mode, overrides), were"
                " not seen (lint the switch's whole running config to check them)",
                device=dev.name,
                observed=f"0 ports; template {_ports(templates)}",
                expected="the switch's ports",
            )
        scope = ctx.scope(dev)
        if scope.unmatched:
            yield Issue(
                message=f"inventory roce_ports {_ports(scope.unmatched)} match no port of"
                f" {dev.name}: check the port names against the config",
                device=dev.name,
                observed=_ports(scope.unmatched),
                expected="patterns that match the device's ports",
            )
        if not scope.roce:
            yield from _no_roce_port(dev, scope)
        elif scope.outside and scope.basis == "config":
            names = [p.name for p in scope.outside]
            yield Issue(
                message=f"{len(names)} port{'s' if len(names) > 1 else ''} outside the"
                f" lossless domain: {_ports(names)} (no PFC, DSCP trust, ECN profile or"
                " lossless buffer), so the RoCE rules did not check them; if they carry RoCE,"
                " their lossless config is missing (declare roce_ports: in the inventory to"
                " check them)",
                device=dev.name,
                observed=f"{len(names)} ports without lossless config",
                expected=f"{len(scope.roce)} RoCE ports checked; the others declared or lossless",
                asserts_absence=True,
            )


def _no_roce_port(dev: Device, scope: RoceScope) -> Iterable[Result]:
    up = len(dev.ports) - len(scope.admin_down)
    down = f" ({len(scope.admin_down)} admin down)" if scope.admin_down else ""
    if scope.basis == "inventory":
        if not dev.roce_ports:  # roce_ports: [] declares a device without RoCE
            return
        why = f"the inventory roce_ports match no admin-up port{down}"
    elif scope.basis == "links":
        why = f"no end of its links is an admin-up port{down}"
    else:
        why = (
            f"none of its {up} admin-up ports{down} carries lossless config (PFC, DSCP"
            " trust, an ECN profile or a lossless buffer)"
        )
    yield Issue(
        message=f"no RoCE port: {why}, so no RoCE port rule checked {dev.name}; if it carries"
        " RoCE, its lossless config is missing (or declare roce_ports: in the inventory;"
        " roce_ports: [] for a device without RoCE)",
        device=dev.name,
        observed="0 RoCE ports",
        expected="at least one RoCE port",
        severity=Severity.ERROR,
        asserts_absence=scope.basis == "config",
    )


def _same_name(a: str, b: str) -> bool:
    a, b = a.strip().casefold(), b.strip().casefold()
    return a == b or a.split(".")[0] == b.split(".")[0]


class SnapshotIdentity(DeviceRule):
    """RT004: the snapshot's hostname or meta.json device is another device's name."""

    meta = RuleMeta(
        code="RT004",
        name="snapshot-identity",
        severity=Severity.WARNING,
        scope="device",
        summary="the snapshot's hostname or meta.json device differs from the device name",
        tags=("coverage",),
    )

    def check_device(self, dev: Device, ctx: CheckContext) -> Iterable[Result]:
        """Compare the names the snapshot carries with the device name."""
        for what, value in (
            ("meta.json device", dev.snapshot_device),
            ("hostname in the config", dev.hostname),
        ):
            if value and not _same_name(value, dev.name):
                yield Issue(
                    message=f"the snapshot of {dev.name} says it is {value!r} ({what}): the"
                    " wrong file may be checked under this name (a copy-paste of another"
                    " device's snapshot, or a stale inventory entry)",
                    device=dev.name,
                    observed=value,
                    expected=dev.name,
                    path="hostname" if what.startswith("hostname") else None,
                )
                return
