"""Interface blocks and breakout lines of the running-config.

Only Ethernet ports become model ports (``Ethernet1/1``, breakout ``Ethernet1/1/2``);
port-channels, SVIs, loopbacks, mgmt0 and sub-interfaces are not switch ports of the model.
NX-OS copies a port-channel's QoS settings to its members, where ``show running-config``
prints them, so members are read on their own.

Settings read per port: ``mtu N``, ``speed N|auto`` (Mb/s), ``shutdown`` / ``no shutdown``,
``priority-flow-control mode on|off|auto [send-tlv]``, ``priority-flow-control
watch-dog-interval on|off``, ``service-policy [type qos] input P``, ``service-policy type
queuing input|output P``, ``flowcontrol receive|send on|off``. Other QoS-looking lines
(``priority-flow-control receive on``, ``mls qos ...``, ``qos trust ...``, an egress type-qos
policy) are reported; everything else (addresses, routing, VLANs, descriptions) is skipped.

Breakout (``interface breakout module 1 port 1-4 map 100g-4x``) replaces each listed port
EthernetM/P by EthernetM/P/1..N at the map's speed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TypeVar

from rocetune.platforms.common.cli_tree import word_set
from rocetune.platforms.nxos.lines import Issues, Node
from rocetune.platforms.nxos.values import interface_names, parse_int, parse_list, parse_speed

T = TypeVar("T")
Setting = tuple[T, int]
"""A value and the line that set it."""

QOS_WORDS = (
    "priority-flow-control",
    "service-policy",
    "qos",
    "mls",
    "flowcontrol",
    "random-detect",
    "wrr-queue",
    "priority-queue",
    "pfc",
    "ecn",
    "trust",
    "link-level-flow-control",
    "dcbx",
)
"""First words of interface lines that are QoS-relevant (reported when not understood)."""
NOT_QOS_IFACE = word_set(
    "description switchport ip ipv6 channel-group vrf duplex fec lldp load-interval bfd link"
    " mac-address negotiation storm-control spanning-tree udld cdp vpc medium encapsulation"
    " carrier-delay beacon logging dot1q evpn nv hsrp vrrp port-type inherit member source"
    " host-reachability mac bandwidth delay autostate management fabric tag rate-mode"
    " error-disable ospf isis pim router lacp shutdown speed mtu port-channel dhcp snmp"
    " vlan private-vlan ptp sflow macsec authentication dot1x service dampening"
    " transceiver hardware tunnel mpls ingress-replication suppress-arp multisite"
    " global advertise-pip overlay-encapsulation mdix negotiate ospfv3 vtp eigrp rip"
    " keepalive"
)
"""First words of interface commands known to change no QoS fact (consumed, not reported)."""
_BREAKOUT_MAP = re.compile(r"(\d{1,3})g-(\d)x")
_POLICY_KEYS = {
    ("qos", "input"): "qos",
    ("queuing", "output"): "queuing-out",
    ("queuing", "input"): "queuing-in",
}


@dataclass(slots=True)
class IfaceConfig:
    """What the running-config says about one Ethernet port."""

    name: str
    line: int
    mtu: Setting[int] | None = None
    speed: Setting[int | None] | None = None
    admin_up: Setting[bool] | None = None
    pfc_mode: Setting[str] | None = None
    watchdog: Setting[bool] | None = None
    policies: dict[str, Setting[str]] = field(default_factory=dict)
    """``qos`` (ingress type qos), ``queuing-out`` (egress queuing) and ``queuing-in``
    (ingress queuing: its ``pause buffer-size`` lines are the no-drop ingress buffers)."""
    flowcontrol: dict[str, Setting[bool]] = field(default_factory=dict)
    """``receive`` / ``send`` link-level pause."""


@dataclass(frozen=True, slots=True)
class Breakout:
    """One breakout line: the ports it splits and the sub-port speed."""

    parents: tuple[str, ...]
    lanes: int
    speed_mbps: int
    line: int

    def children(self) -> list[str]:
        """The sub-port names, in order."""
        return [f"{p}/{n}" for p in self.parents for n in range(1, self.lanes + 1)]


def read_breakout(node: Node, issues: Issues) -> Breakout | None:
    """``interface breakout module M port LIST map <S>g-<N>x`` -> Breakout."""
    words = node.words
    ok = len(words) == 8 and words[2] == "module" and words[4] == "port" and words[6] == "map"
    module = parse_int(words[3], 1, 64) if ok else None
    ports = parse_list([words[5]], 1024) if ok else None
    mapping = _BREAKOUT_MAP.match(words[7]) if ok else None
    if module is None or not ports or mapping is None or int(mapping.group(2)) < 1:
        issues.block(node, "breakout line not understood")
        return None
    parents = tuple(f"Ethernet{module}/{p}" for p in ports if p > 0)
    return Breakout(parents, int(mapping.group(2)), int(mapping.group(1)) * 1000, node.line)


def read_interface(node: Node, issues: Issues, known: dict[str, IfaceConfig]) -> None:
    """Read one ``interface`` block into ``known`` (ranges and lists expand)."""
    names = interface_names(node.words[1:])
    if names is None:
        _other_interface(node, issues)
        return
    issues.ports = tuple(names)
    try:
        for name in names:
            config = known.setdefault(name, IfaceConfig(name=name, line=node.line))
            for child in node.walk():
                _setting(child, config, issues)
    finally:
        issues.ports = None


def _other_interface(node: Node, issues: Issues) -> None:
    """SVIs, loopbacks, mgmt0, sub-interfaces: QoS lines are reported. A port-channel's QoS
    lines are not: NX-OS copies them to the members, where the running-config shows them."""
    if node.words[1].lower().startswith(("port-channel", "po")):
        return
    for child in node.walk():
        words = child.words
        head = words[1] if words[0] == "no" and len(words) > 1 else words[0]
        if head in QOS_WORDS:
            issues.node(child, "QoS on this interface type is not modelled")


def _setting(node: Node, cfg: IfaceConfig, issues: Issues) -> None:
    words, line = node.words, node.line
    if words in (["shutdown"], ["no", "shutdown"]):
        cfg.admin_up = (words[0] == "no", line)
    elif words[0] == "mtu" and len(words) == 2:
        mtu = parse_int(words[1], 576, 9216)
        if mtu is None:
            issues.node(node, "invalid MTU (expected 576-9216)")
        else:
            cfg.mtu = (mtu, line)
    elif words[0] == "speed" and len(words) == 2:
        speed = parse_speed(words[1])
        if speed is None and words[1] != "auto":
            issues.node(node, "invalid speed (expected Mb/s or auto)")
        else:
            cfg.speed = (speed, line)
    elif words[0] == "priority-flow-control":
        _pfc(node, cfg, issues)
    elif words[0] == "service-policy":
        _policy(node, cfg, issues)
    elif words[0] in ("flowcontrol", "no") and _flowcontrol(words, cfg, line):
        return
    elif words[0] in QOS_WORDS or (words[0] == "no" and len(words) > 1 and words[1] in QOS_WORDS):
        issues.node(node, "interface QoS command not modelled")
    elif (words[1] if words[0] in ("no", "default") and len(words) > 1 else words[0]) not in (
        NOT_QOS_IFACE
    ):
        issues.node(node, "interface command not understood")


def _pfc(node: Node, cfg: IfaceConfig, issues: Issues) -> None:
    words = node.words
    mode = len(words) >= 3 and words[1] == "mode" and words[2] in ("on", "off", "auto")
    if mode and words[3:] in ([], ["send-tlv"]):
        cfg.pfc_mode = (words[2], node.line)
        return
    if len(words) == 3 and words[1] == "watch-dog-interval" and words[2] in ("on", "off"):
        cfg.watchdog = (words[2] == "on", node.line)
        return
    issues.node(node, "not an NX-OS interface priority-flow-control command rocetune reads")


def _policy(node: Node, cfg: IfaceConfig, issues: Issues) -> None:
    words = node.words
    if len(words) == 3 and words[1] == "input":
        words = ["service-policy", "type", "qos", "input", words[2]]
    key = _POLICY_KEYS.get((words[2], words[3])) if len(words) == 5 and words[1] == "type" else None
    if key is not None:
        cfg.policies[key] = (words[4], node.line)
    else:
        issues.node(node, "service-policy binding not modelled on an interface")


def _flowcontrol(words: list[str], cfg: IfaceConfig, line: int) -> bool:
    if words[0] == "no":
        words = words[1:]
        if len(words) == 2 and words[0] == "flowcontrol" and words[1] in ("receive", "send"):
            cfg.flowcontrol[words[1]] = (False, line)
            return True
        return False
    if len(words) == 3 and words[1] in ("receive", "send") and words[2] in ("on", "off"):
        cfg.flowcontrol[words[1]] = (words[2] == "on", line)
        return True
    return False
