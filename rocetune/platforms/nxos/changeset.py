"""Cisco NX-OS change set: hier-config (``Platform.CISCO_NXOS``) remediation of the QoS lines.

Owned top-level lines: ``priority-flow-control ...`` (watchdog timers); class-maps,
policy-maps and ``system qos`` are compared by name (a running policy of another name is left
alone); in ``interface`` sections only the lines rocetune renders there (``mtu``,
``priority-flow-control ...``, ``service-policy ...``). Binding another network-qos policy
changes the no-drop classes, so it counts as a PFC change (disruptive).
"""

from __future__ import annotations

from hier_config import Platform

from rocetune.model import Device
from rocetune.platforms.changes import PlatformPlan
from rocetune.platforms.common.cli_changeset import (
    CliScope,
    diff_cli,
    interface_port,
    kind_by_prefix,
)
from rocetune.platforms.nxos.commands import RUNNING_CONFIG
from rocetune.platforms.nxos.remediate import SAFE_APPLY
from rocetune.snapshot import Snapshot
from rocetune.tune.target import DeviceTarget

KINDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("priority-flow-control watch-dog", "priority-flow-control fixed-restore"), "watchdog"),
    (("priority-flow-control", "pause", "service-policy type network-qos"), "pfc"),
    (("mtu",), "mtu"),
    (("speed",), "speed"),
    (("random-detect",), "ecn"),
    (("bandwidth", "priority", "service-policy type queuing"), "scheduling"),
    (("match dscp", "set qos-group", "service-policy type qos"), "dscp_map"),
)
"""Line prefix -> neutral kind, first match wins (``no`` forms included)."""


def kind_of(line: str) -> str:
    """The neutral kind of one config line."""
    return kind_by_prefix(line, KINDS)


SCOPE = CliScope(
    platform=Platform.CISCO_NXOS,
    owned_prefixes=("priority-flow-control ",),
    partial_sections=("interface ",),
    kind_of=kind_of,
    port_of=interface_port,
    hint=SAFE_APPLY,
)


def changeset(
    snapshot: Snapshot, rendered: dict[str, str], device: Device, target: DeviceTarget
) -> PlatformPlan:
    """Diff the snapshot's running-config against the rendered config."""
    del device, target
    source = snapshot.get(RUNNING_CONFIG) or next(iter(snapshot), None)
    if source is None:
        raise ValueError("the snapshot has no running-config (show running-config)")
    intended = next(t for p, t in rendered.items() if p.endswith(".cfg"))
    return diff_cli(source.text, intended, SCOPE)
