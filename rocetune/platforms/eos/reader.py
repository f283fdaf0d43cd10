"""Running-config tree -> :class:`~rocetune.platforms.eos.shape.EosConfig` (step 1 of 2).

Top-level statements read (everything else is not QoS and is skipped):

- ``hostname NAME``; the ``! device: NAME (MODEL, EOS-VERSION)`` header -> facts;
- ``interface SPEC`` for Ethernet and Port-Channel interfaces, with ranges and lists
  (``Ethernet1/1-4``, ``Ethernet1-4,6``, ``Ethernet1,Ethernet3``); a name repeated in several
  blocks merges in file order. Other interfaces (Management, Loopback, Vlan, sub-interfaces)
  are skipped (Vxlan and Tunnel names are kept as tunnels); a QoS line in one of them is
  Unparsed. Interface lines: :mod:`.qos_lines` plus ``mtu``, ``l2 mtu``, ``speed``, ``[no]
  shutdown``, ``[no] switchport``, ``channel-group N mode ...``, ``flowcontrol send|receive
  on|off|desired``, ``error-correction encoding ...``; any other interface line whose first
  word looks QoS-related (qos, prio, pfc, ecn, queue, buffer, pause, ...) is Unparsed, the
  rest (addresses, routing, descriptions) is skipped;
- ``interface defaults`` (``mtu N``; ``ethernet`` / ``[no] shutdown``);
- ``qos profile NAME`` blocks (:mod:`.qos_lines`; any other line in them is Unparsed);
- global ``qos map dscp <list> to traffic-class <tc> [drop-precedence d]``, ``qos map
  traffic-class <list> to tx-queue <q>``, ``qos map cos <list> to traffic-class <tc>``
  (``Port.cos_to_tc``), ``qos trust``; ``qos map exp ... to traffic-class``, ``qos map
  traffic-class ... to dscp|cos`` (marking) and ``qos rewrite cos`` are read but not
  modelled; ``qos rewrite dscp`` turns egress DSCP remarking on, which is not
  modelled (Unparsed, and the ports' remark map is unknown); ``qos random-detect ecn allow
  non-ect [chip-based]`` -> facts;
- global ``priority-flow-control all off`` and ``priority-flow-control pause watchdog default
  timeout|recovery-time|polling-interval <s>``, ``... action drop|no-drop``, ``... override
  action drop``;
- ``platform ...``: a ``platform <chip> mmu queue profile NAME`` block is recorded in facts and
  its ``... apply`` line is Unparsed (egress queue buffers are not modelled); any other
  platform line that mentions QoS, buffers, queues or PFC is Unparsed, the rest is skipped.
"""

from __future__ import annotations

import re

from rocetune.model import Trust
from rocetune.platforms.common.cli_tree import word_set
from rocetune.platforms.eos import values
from rocetune.platforms.eos.blocks import Issues, Node, header_comments
from rocetune.platforms.eos.qos_lines import POLICY_MAP, read_qos
from rocetune.platforms.eos.shape import (
    At,
    EosConfig,
    GlobalConf,
    IfKind,
    InterfaceConf,
    QosConf,
)

_DEVICE = re.compile(r"device:\s*(\S+)\s*\(([^,()]+),\s*EOS-([^)\s]+)\)")
_QOS_WORDS = re.compile(r"qos|mmu|buffer|queue|pfc|priority-flow|ecn|random-detect|headroom")
_INTERFACE_QOS = ("qos", "priority-flow-control", "tx-queue", "uc-tx-queue", "service-profile")
_SUSPECT = re.compile(r"qos|prio|pfc|ecn|random|queue|buffer|headroom|bandwidth|pause")
_NOT_QOS = frozenset({"queue-monitor"})
_PORT_TYPES = ("Ethernet", "Port-Channel")
_PORTISH = re.compile(r"(?i)(et|po)")
_TRUST: dict[str, Trust] = {"dscp": "dscp", "cos": "pcp"}
_ACTIONS = {"drop": "drop", "no-drop": "forward"}
_FEC = {"reed-solomon": "rs", "fire-code": "fc"}
_LANES = re.compile(r"g-(\d)$")
_MAX_MTU = 9_216
"""The largest EOS interface ``mtu`` rocetune accepts: the arista.eos Ansible collection
documents 576-9216 for Ethernet interfaces and the EOS manual 68-9214 on some platforms
**[the exact ceiling is per platform; 9216 keeps the jumbo MTU rocetune renders]**; a
larger value (``mtu 9300``) is invalid. ``l2 mtu`` takes frames up to :data:`_MAX_L2_MTU`."""
_MAX_L2_MTU = 65_535
NOT_QOS_TOP = word_set(
    "ip ipv6 router vlan vrf username ntp logging snmp-server spanning-tree management daemon"
    " aaa service transceiver clock dns lldp mlag hardware monitor policy-map class-map"
    " queue-monitor event-handler boot enable errdisable mac port-channel route-map"
    " peer-filter sflow tacacs-server radius-server alias agent ptp bfd mpls traffic-policies"
    " system dot1x ntp-server prompt schedule tap tunnel-ribs event-monitor load-balance"
    " terminal application arp banner switchport interface vxlan tcam ip-sla sla email"
    " cvx redundancy ssh openconfig dhcp igmp vmtracer virtual-cable-tester"
)
"""Global commands known to change no QoS fact rocetune models (consumed; QoS-looking lines
inside their blocks are still reported)."""
NOT_QOS_IFACE = word_set(
    "description ip ipv6 vrf switchport channel-group lacp lldp spanning-tree mac bfd mpls"
    " load-interval sflow ptp dot1x logging errdisable link-debounce storm-control"
    " vxlan pim isis ospf ospfv3 vrrp mlag arp dhcp igmp tcp ntp snmp transceiver"
    " error-correction phy hardware encapsulation profile counter traffic-loopback"
    " link-tracking port-channel evpn multicast ethernet-segment vmtracer"
    " shutdown switchport mtu l2 speed flowcontrol unidirectional tx cpu mac-address"
    " l2-protocol msrp mvrp lacp-timeout bgp link poe flow-spec mfib mld rip nd"
)
"""First words of interface commands known to change no QoS fact (consumed, not reported)."""
REWRITE = (
    "DSCP rewrite is on: egress DSCP follows the traffic-class to DSCP map, whose EOS defaults "
    "are not modelled"
)


def read_config(text: str, roots: list[Node], issues: Issues) -> EosConfig:
    """Read the vendor shape of a running-config. ``roots`` is consumed (emptied as it is
    read: a block is freed once read, so the tree and the shape it becomes are not both
    whole at once; the tree of a big config is ~7x its text)."""
    config = EosConfig()
    _header(text, config)
    roots.reverse()
    while roots:
        _top(roots.pop(), config, issues)
    return config


def _header(text: str, config: EosConfig) -> None:
    for comment in header_comments(text):
        match = _DEVICE.search(comment)
        if match:
            config.facts["eos.model"] = match.group(2).strip()
            config.facts["eos.version"] = match.group(3)
        elif comment.startswith("Command:"):
            config.facts["eos.command"] = comment.partition(":")[2].strip()


def _top(node: Node, config: EosConfig, issues: Issues) -> None:
    words = node.words
    head = words[0]
    if head == "hostname" and len(words) == 2:
        config.hostname = At(words[1], node.line)
    elif head == "interface" and len(words) >= 2:
        _interface(node, " ".join(words[1:]), config, issues)
    elif words[:2] == ["qos", "profile"]:
        _profile(node, words, config, issues)
    elif head == "qos":
        _global_qos(node, words[1:], config, issues)
    elif head == "priority-flow-control":
        _global_pfc(node, words[1:], config.globals, issues)
    elif head == "platform":
        _platform(node, words, config, issues)
    elif (words[1] if head in ("no", "default") and len(words) > 1 else head) in NOT_QOS_TOP:
        issues.suspects(node, "QoS-looking line inside a block rocetune does not read")
    else:
        issues.block(node, "command not understood (not a global EOS command rocetune knows)")


def _profile(node: Node, words: list[str], config: EosConfig, issues: Issues) -> None:
    if len(words) != 3:
        issues.node(node, "unreadable qos profile name")
        return
    profile = config.profiles.setdefault(words[2], QosConf(name=words[2], line=node.line))
    for child in node.children:
        if not read_qos(child, profile, issues):
            issues.node(child, "qos profile statement not understood")


def _interface(node: Node, spec: str, config: EosConfig, issues: Issues) -> None:
    if spec == "defaults":
        _defaults(node, config.globals, issues)
        return
    names = values.expand_interfaces(spec)
    if names is None or not all(n.startswith(_PORT_TYPES) for n in names):
        if names is None and values.canonical_name(spec) is None and _PORTISH.match(spec):
            issues.node(node, "unreadable interface name")
        if (values.canonical_name(spec) or "").startswith(("Vxlan", "Tunnel")):
            config.tunnels.append(spec)
        _other_interface(node, issues)
        return
    issues.ports = tuple(names)
    try:
        for name in names:
            conf = config.interfaces.get(name)
            if conf is None:
                kind: IfKind = "ethernet" if name.startswith("Ethernet") else "port-channel"
                conf = InterfaceConf(name=name, line=node.line, kind=kind)
                config.interfaces[name] = conf
            for child in node.children:
                _interface_line(child, conf, issues)
    finally:
        issues.ports = None


def _other_interface(node: Node, issues: Issues) -> None:
    for child in node.children:
        words = child.words
        body = words[1:] if words[0] in ("no", "default") else words
        if body and body[0] in _INTERFACE_QOS:
            issues.node(child, "QoS on this interface type is not modelled")
        elif body[:1] == ["service-policy"] and "pdp" not in body and words[0] != "no":
            issues.node(child, POLICY_MAP)


def _defaults(node: Node, conf: GlobalConf, issues: Issues) -> None:
    for child in node.children:
        words = child.words
        if words[0] == "mtu" and len(words) == 2:
            mtu = values.as_int(words[1], 68, _MAX_MTU)
            conf.default_mtu = At(mtu, child.line) if mtu is not None else None
        elif words == ["ethernet"]:
            for sub in child.children:
                if sub.words in (["shutdown"], ["no", "shutdown"]):
                    conf.default_shutdown = At(sub.words == ["shutdown"], sub.line)
                else:
                    issues.node(sub, "interface defaults statement not understood")
        else:
            issues.node(child, "interface defaults statement not understood")


def _interface_line(node: Node, conf: InterfaceConf, issues: Issues) -> None:
    if read_qos(node, conf, issues):
        return
    words = node.words
    neg = words[0] in ("no", "default")
    body = words[1:] if neg else words
    if not body:
        return
    head, line = body[0], node.line
    if head in ("mtu", "l2") and (head == "mtu" or body[1:2] == ["mtu"]):
        _mtu(node, body, neg, conf, issues)
    elif head == "speed":
        _speed(node, body[1:], neg, conf, issues)
    elif body == ["shutdown"]:
        conf.shutdown = At(not neg, line)
    elif body == ["switchport"]:
        conf.switchport = At(not neg, line)
    elif head == "channel-group":
        group = values.as_int(body[1], 1, 999_999) if len(body) >= 2 and not neg else None
        if group is None and not neg:
            issues.node(node, "unreadable channel-group")
        conf.channel_group = At(group, line)
    elif head == "flowcontrol":
        _flowcontrol(node, body[1:], neg, conf, issues)
    elif body[:2] == ["error-correction", "encoding"]:
        _fec(node, body[2:], words[0], conf)
    elif _SUSPECT.search(head) and head not in _NOT_QOS:
        issues.node(node, "interface QoS statement not understood")
    elif head not in NOT_QOS_IFACE:
        issues.node(node, "interface command not understood")
    elif node.children:
        issues.suspects(node, "QoS-looking line inside an interface block rocetune does not read")


def _mtu(node: Node, body: list[str], neg: bool, conf: InterfaceConf, issues: Issues) -> None:
    l2 = body[0] == "l2"
    rest = body[2:] if l2 else body[1:]
    high = _MAX_L2_MTU if l2 else _MAX_MTU
    value = values.as_int(rest[0], 68, high) if len(rest) == 1 and not neg else None
    if value is None and not neg:
        issues.node(node, f"unreadable or invalid MTU (EOS takes 68-{high})", features=("mtu",))
        return
    setting = None if value is None else At(value, node.line)
    if l2:
        conf.l2_mtu = setting
    else:
        conf.mtu = setting


def _speed(node: Node, rest: list[str], neg: bool, conf: InterfaceConf, issues: Issues) -> None:
    if neg:
        conf.speed = At(None, node.line)
        return
    got = values.speed_mbps(rest)
    if got is None:
        issues.node(node, "unreadable speed")
        return
    conf.speed = At(got[1], node.line)
    lanes = _LANES.search(rest[-1]) if rest else None
    conf.lanes = int(lanes.group(1)) if lanes else None


def _flowcontrol(
    node: Node, rest: list[str], neg: bool, conf: InterfaceConf, issues: Issues
) -> None:
    if not rest or rest[0] not in ("send", "receive"):
        issues.node(node, "unreadable flowcontrol statement")
        return
    if neg:
        state: bool | None = False
    elif len(rest) == 2:
        state = {"on": True, "desired": True, "off": False}.get(rest[1])
    else:
        state = None
    if state is None:
        issues.node(node, "unreadable flowcontrol mode (expected on, off or desired)")
        return
    if rest[0] == "send":
        conf.flow_send = At(state, node.line)
    else:
        conf.flow_receive = At(state, node.line)


def _fec(node: Node, rest: list[str], first: str, conf: InterfaceConf) -> None:
    if first == "default":
        conf.fec = None
    elif first == "no":
        conf.fec = At("none", node.line) if not rest else conf.fec
    elif rest and rest[0] in _FEC:
        conf.fec = At(_FEC[rest[0]], node.line)


def _global_qos(node: Node, rest: list[str], config: EosConfig, issues: Issues) -> None:
    g = config.globals
    if rest[:1] == ["map"] and "to" in rest:
        _qos_map(node, rest[1:], g, issues)
    elif rest[:1] == ["trust"]:
        trust = _TRUST.get(rest[1]) if len(rest) == 2 else None
        if trust is None:
            issues.node(node, "unknown qos trust mode")
        else:
            g.trust = At(trust, node.line)
    elif rest == ["rewrite", "dscp"]:
        g.rewrite_dscp = At(True, node.line)
        issues.node(node, REWRITE)
    elif rest[:1] == ["rewrite"]:
        return
    elif rest[:4] == ["random-detect", "ecn", "allow", "non-ect"]:
        config.facts["eos.ecn_allow_non_ect"] = " ".join(rest[4:]) or "on"
    else:
        issues.node(node, "global qos statement not understood")


def _qos_map(node: Node, rest: list[str], g: GlobalConf, issues: Issues) -> None:
    at = rest.index("to")
    source, keys, target = rest[0], rest[1:at], rest[at + 1 :]
    if source == "dscp" and target[:1] == ["traffic-class"]:
        dscps = values.int_list(keys, 63)
        tc = values.as_int(target[1], 0, 7) if len(target) in (2, 4) else None
        if dscps is None or tc is None or (len(target) == 4 and target[2] != "drop-precedence"):
            issues.node(node, "unreadable DSCP to traffic-class map")
            return
        for dscp in dscps:
            g.dscp_to_tc[dscp] = At(tc, node.line)
    elif source == "traffic-class" and target[:1] == ["tx-queue"]:
        tcs = values.int_list(keys, 7)
        queue = values.as_int(target[1], 0, 15) if len(target) == 2 else None
        if tcs is None or queue is None:
            issues.node(node, "unreadable traffic-class to tx-queue map")
            return
        for tc in tcs:
            g.tc_to_queue[tc] = At(queue, node.line)
    elif source == "cos" and target[:1] == ["traffic-class"]:
        coses = values.int_list(keys, 7)
        tc = values.as_int(target[1], 0, 7) if len(target) == 2 else None
        if coses is None or tc is None:
            issues.node(node, "unreadable CoS to traffic-class map")
            return
        for cos in coses:
            g.cos_to_tc[cos] = At(tc, node.line)
    elif source not in ("cos", "exp", "traffic-class"):
        issues.node(node, "QoS map not understood")


def _global_pfc(node: Node, rest: list[str], g: GlobalConf, issues: Issues) -> None:
    line = node.line
    if rest == ["all", "off"]:
        g.pfc_all_off = At(True, line)
    elif rest[:3] == ["pause", "watchdog", "default"] and len(rest) == 5:
        value = values.seconds_to_ms(rest[4])
        slot = {"timeout": "timeout", "recovery-time": "recovery", "polling-interval": "poll"}
        name = slot.get(rest[3])
        if value is None or name is None:
            issues.node(node, "unreadable PFC watchdog default timer")
        else:
            setattr(g, f"watchdog_{name}_ms", At(value, line))
    elif rest[:3] == ["pause", "watchdog", "action"] and rest[3:] in (["drop"], ["no-drop"]):
        g.watchdog_action = At(_ACTIONS[rest[3]], line)
    elif rest == ["pause", "watchdog", "override", "action", "drop"]:
        g.watchdog_override_drop = At(True, line)
    else:
        issues.node(node, "global priority-flow-control statement not understood")


def _platform(node: Node, words: list[str], config: EosConfig, issues: Issues) -> None:
    if words[2:5] == ["mmu", "queue", "profile"] and len(words) in (6, 7):
        name = words[5]
        if len(words) == 7 and words[6] == "apply":
            config.facts["eos.mmu_queue_profile_applied"] = name
            issues.node(node, "MMU queue profiles change egress queue buffers; not modelled")
            return
        known = config.facts.get("eos.mmu_queue_profiles")
        config.facts["eos.mmu_queue_profiles"] = f"{known},{name}" if known else name
        return
    if _QOS_WORDS.search(" ".join(words[1:])):
        issues.node(node, "platform QoS/buffer setting not modelled")
