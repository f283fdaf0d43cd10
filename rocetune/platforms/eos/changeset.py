"""Arista EOS change set: hier-config (``Platform.ARISTA_EOS``) remediation of the QoS lines.

Owned top-level lines: ``qos map ...`` and ``priority-flow-control ...`` (negated when the
intended config lacks them); ``qos profile`` sections are compared by name (a running profile
of another name is left alone: interfaces may still use it); in ``interface`` sections only the
lines rocetune renders there (``mtu``, ``service-profile``). Binding another ``service-profile``
re-programs the port's PFC and trust at once, so it counts as a PFC change (disruptive).
"""

from __future__ import annotations

from hier_config import Platform

from rocetune.platforms.common.cli_changeset import (
    CliScope,
    interface_port,
    kind_by_prefix,
    running_changeset,
)
from rocetune.platforms.eos.commands import RUNNING_CONFIG
from rocetune.platforms.eos.remediate import SAFE_APPLY

KINDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("priority-flow-control pause watchdog",), "watchdog"),
    (("qos trust",), "trust"),
    (("priority-flow-control", "service-profile"), "pfc"),
    (("mtu",), "mtu"),
    (("speed",), "speed"),
    (("random-detect",), "ecn"),
    (("tx-queue", "bandwidth", "priority"), "scheduling"),
    (("qos map",), "dscp_map"),
)
"""Line prefix -> neutral kind, first match wins (``no`` forms included)."""


def kind_of(line: str) -> str:
    """The neutral kind of one config line."""
    return kind_by_prefix(line, KINDS)


SCOPE = CliScope(
    platform=Platform.ARISTA_EOS,
    owned_prefixes=("qos map ", "priority-flow-control "),
    partial_sections=("interface ",),
    kind_of=kind_of,
    port_of=interface_port,
    hint=SAFE_APPLY,
)


changeset = running_changeset(SCOPE, RUNNING_CONFIG)
