"""Cisco NX-OS change set: hier-config (``Platform.CISCO_NXOS``) remediation of the QoS lines.

Owned top-level lines: ``priority-flow-control ...`` (watchdog timers); class-maps,
policy-maps and ``system qos`` are compared by name (a running policy of another name is left
alone); in ``interface`` sections only the lines rocetune renders there (``mtu``,
``priority-flow-control ...``, ``service-policy ...``). Binding another network-qos policy
changes the no-drop classes, so it counts as a PFC change (disruptive).
"""

from __future__ import annotations

from hier_config import Platform

from rocetune.platforms.common.cli_changeset import (
    CliScope,
    interface_port,
    kind_by_prefix,
    running_changeset,
)
from rocetune.platforms.nxos.commands import RUNNING_CONFIG
from rocetune.platforms.nxos.remediate import SAFE_APPLY

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


changeset = running_changeset(SCOPE, RUNNING_CONFIG)
