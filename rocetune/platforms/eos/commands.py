"""What to collect from an Arista EOS switch, and which saved file stands for what.

Collected (in order): ``show running-config`` (required), ``show lldp neighbors detail |
json`` and ``show interfaces status | json`` (optional, JSON shapes in :mod:`.operational`).
A saved ``show lldp neighbors | json`` (the brief table) is recognised and read too.

:func:`sniff` is cheap (regular expressions over the first 2 MB) and never raises. A text is
an EOS running-config when it has no NX-OS marker (``!Command:`` without a space, ``version
N.N(N)``, ``feature ...``, ``system qos``, ``policy-map type network-qos``) and either an EOS
header or EOS-only statement (``! Command: show running-config``, ``! device: ... (...,
EOS-...)``, ``boot system flash:...EOS...``, ``service routing protocols model``,
``transceiver qsfp default-mode``, ``management api http-commands``), an EOS-only QoS
construct (``qos map dscp ... to traffic-class``, ``qos profile``, ``[uc-|mc-]tx-queue N``,
``service-profile``, ``priority-flow-control pause watchdog``, ``priority-flow-control
priority N no-drop``, ``platform trident|sand|...``), or an ``interface Ethernet...`` block
indented by three spaces (EOS; NX-OS indents by two).
"""

from __future__ import annotations

import json
import re
from typing import Any

from rocetune.platforms.base import never_raises
from rocetune.platforms.common.cli_tree import unprompt
from rocetune.snapshot import Command

RUNNING_CONFIG = Command(id="running_config", command="show running-config")
LLDP_DETAIL = Command(
    id="lldp_neighbors",
    command="show lldp neighbors detail | json",
    encoding="json",
    required=False,
)
LLDP_BRIEF = Command(
    id="lldp_neighbors_brief",
    command="show lldp neighbors | json",
    encoding="json",
    required=False,
)
"""Recognised in saved files; not collected (the detail output carries more)."""
INTERFACES_STATUS = Command(
    id="interfaces_status",
    command="show interfaces status | json",
    encoding="json",
    required=False,
)

COMMANDS: tuple[Command, ...] = (RUNNING_CONFIG, LLDP_DETAIL, INTERFACES_STATUS)

_LIMIT = 2_000_000
_NXOS = re.compile(
    r"^(?:!Command:|!Time:|version \d+\.\d+\(\d+\)|feature \S+$|system qos$"
    r"|policy-map type network-qos\b)",
    re.MULTILINE,
)
_STRONG = re.compile(
    r"^(?:! Command: show running-config|! device: .*\bEOS-|! boot system flash:\S*EOS"
    r"|service routing protocols model|transceiver qsfp default-mode"
    r"|management api http-commands$)",
    re.MULTILINE,
)
_QOS = re.compile(
    r"^(?:qos map dscp [\d ,-]+ to traffic-class \d|qos profile \S+$"
    r"|priority-flow-control pause watchdog\b"
    r"|platform (?:trident|sand|tomahawk|jericho|strata|sfe)\b"
    r"|\s+(?:uc-|mc-)?tx-queue \d+$|\s+service-profile \S+$"
    r"|\s*priority-flow-control priority \d (?:no-)?drop$)",
    re.MULTILINE,
)
_BLOCK = re.compile(r"^interface (?:Ethernet|Port-Channel)\d\S*\n {3}[a-z]", re.MULTILINE)


@never_raises
def sniff(text: str) -> Command | None:
    """Return the command a saved EOS file stands for, or None; never raises."""
    return _sniff(text[:_LIMIT])


def _sniff(text: str) -> Command | None:
    body = text.lstrip("\ufeff").strip()
    body = unprompt(body)
    if not body:
        return None
    if body[0] == "{":
        try:
            return _sniff_json(json.loads(body))
        except ValueError:
            return None
    if _NXOS.search(body):
        return None
    if _STRONG.search(body) or _QOS.search(body) or _BLOCK.search(body):
        return RUNNING_CONFIG
    return None


def _sniff_json(data: Any) -> Command | None:
    if not isinstance(data, dict):
        return None
    table = data.get("lldpNeighbors")
    if isinstance(table, dict):
        return LLDP_DETAIL
    if isinstance(table, list):
        return LLDP_BRIEF
    if isinstance(data.get("interfaceStatuses"), dict):
        return INTERFACES_STATUS
    return None
