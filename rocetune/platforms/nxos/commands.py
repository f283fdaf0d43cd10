"""What to collect from a Cisco NX-OS switch, and which saved file stands for what.

Collected (in order): ``show running-config`` (required; the QoS, PFC, watchdog and interface
configuration), ``show interface | json`` (optional: operational speed, MTU, admin state and
link-level pause per port) and ``show lldp neighbors detail | json`` (optional: neighbours).

JSON shapes (NX-OS ``| json`` and NX-API bodies; the NX-API envelopes ``{"ins_api":
{"outputs": {"output": {"body": ...}}}}`` and ``{"output": {"body": ...}}`` are unwrapped):

- LLDP: ``{"TABLE_nbor_detail": {"ROW_nbor_detail": [{"l_port_id": "Eth1/1", "sys_name":
  ..., "port_id": ..., "port_desc": ...}, ...]}, "neigh_count": N}``; a single neighbour is an
  object instead of a list (NetApp/harvest ``cmd/collectors/cisco/plugins/lldp/testdata``,
  used the same way by other public NX-OS collectors).
- Interfaces: ``{"TABLE_interface": {"ROW_interface": [{"interface": "Ethernet1/1", "state",
  "admin_state", "eth_mtu": "9216", "eth_speed": "40 Gb/s", "eth_in_flowctrl": "off",
  "eth_out_flowctrl": "off", ...}]}}`` (NetApp/harvest
  ``cmd/collectors/cisco/plugins/networkinterface/testdata/N9K-C9336C-FX2_10.2.4-show_interface.json``).

:func:`sniff` recognises a saved NX-OS running-config by lines only NX-OS writes
(``!Command: show running-config``, ``version 9.3(8)``, ``feature ...``, ``switchname``,
``vdc ... id``, ``system qos``, ``class-map``/``policy-map``/``service-policy`` of type
``queuing`` or ``network-qos``, ``hardware access-list tcam region``, ``priority-flow-control
watch-dog-interval``, ``!RANCID-CONTENT-TYPE: cisco-nx``) and rejects Arista EOS (``!
Command:`` with a blank, ``! device:``, ``service routing protocols model``, ``qos map dscp``,
``tx-queue``, ``management api http-commands``, ``platform sand|trident``, ``!RANCID-CONTENT-TYPE:
arista``). SONiC and Cumulus files carry none of the NX-OS lines.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rocetune.platforms.base import never_raises
from rocetune.platforms.common.cli_tree import unprompt
from rocetune.snapshot import Command

RUNNING_CONFIG = Command(id="running_config", command="show running-config", encoding="text")
INTERFACES = Command(
    id="interfaces", command="show interface | json", encoding="json", required=False
)
LLDP = Command(
    id="lldp_neighbors",
    command="show lldp neighbors detail | json",
    encoding="json",
    required=False,
)
COMMANDS: tuple[Command, ...] = (RUNNING_CONFIG, INTERFACES, LLDP)

_NXOS = re.compile(
    r"^(?:!Command: show running-config"
    r"|!RANCID-CONTENT-TYPE: cisco-nx"
    r"|version \d+\.\d+\(\w+\)"
    r"|feature [a-z][\w-]*$"
    r"|switchname \S+$"
    r"|vdc \S+ id \d+"
    r"|system qos$"
    r"|hardware access-list tcam region "
    r"|(?:class-map|policy-map) type (?:queuing|network-qos) "
    r"|\s*service-policy type (?:queuing|network-qos) "
    r"|\s*priority-flow-control watch-dog-interval (?:on|off)$)",
    re.MULTILINE,
)
_EOS = re.compile(
    r"^(?:! Command: "
    r"|! device: "
    r"|!RANCID-CONTENT-TYPE: arista"
    r"|service routing protocols model "
    r"|qos map dscp "
    r"|\s+tx-queue \d"
    r"|management api http-commands$"
    r"|platform (?:sand|trident) )",
    re.MULTILINE,
)
_MAX_SNIFF = 4_000_000


@never_raises
def sniff(text: str) -> Command | None:
    """Return the command a saved NX-OS file stands for, or None; never raises."""
    return _sniff(text[:_MAX_SNIFF])


def _sniff(text: str) -> Command | None:
    body = text.lstrip("\ufeff \t\r\n").replace("\r", "")
    body = unprompt(body)
    if body[:1] in ("{", "["):
        try:
            return _sniff_json(json.loads(body))
        except ValueError:
            return None
    if _NXOS.search(body) and not _EOS.search(body):
        return RUNNING_CONFIG
    return None


def unwrap(data: Any) -> tuple[Any, tuple[str, ...]]:
    """The body of an NX-API envelope (and the key path to it); other data unchanged."""
    path: tuple[str, ...] = ()
    for key in ("ins_api", "outputs", "output", "body"):
        if isinstance(data, dict) and isinstance(data.get(key), dict):
            data = data[key]
            path = (*path, key)
    return data, path


def _sniff_json(data: Any) -> Command | None:
    body, _ = unwrap(data)
    if not isinstance(body, dict):
        return None
    if isinstance(body.get("TABLE_nbor_detail"), dict) or (
        "neigh_count" in body and set(body) <= {"neigh_hdr", "neigh_count", "TABLE_nbor_detail"}
    ):
        return LLDP
    table = body.get("TABLE_interface")
    rows = table.get("ROW_interface") if isinstance(table, dict) else None
    rows = [rows] if isinstance(rows, dict) else rows
    if isinstance(rows, list) and any(
        isinstance(r, dict) and "interface" in r and any(k.startswith("eth_") for k in r)
        for r in rows
    ):
        return INTERFACES
    return None
