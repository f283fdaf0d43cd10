"""Onyx statements -> :class:`~rocetune.platforms.onyx.shape.OnyxConfig`.

Every statement is either understood (it sets a field of the shape), known to change no QoS
fact rocetune models (consumed: VLANs, MLAG, routing, users, management), or recorded as
Unparsed (RT001) with the ports of its interface and the features it may change, so that
rules depending on them say "could not verify" instead of asserting a default.

Syntax sources (docs/platforms/onyx.md): NVIDIA Onyx User Manual (QoS, Ethernet interface,
shared buffer, RoCE and DCB commands) and the command samples of the ``mellanox.onyx``
Ansible collection (``onyx_qos``, ``onyx_traffic_class``, ``onyx_buffer_pool``,
``onyx_protocol``).
"""

from __future__ import annotations

import re

from rocetune.model import Trust
from rocetune.model.device import Feature
from rocetune.platforms.common.cli_tree import Issues, word_set
from rocetune.platforms.common.unparsed import features_of
from rocetune.platforms.onyx.lines import Lines, Statement
from rocetune.platforms.onyx.shape import (
    PREFIX,
    At,
    Congestion,
    Ets,
    IfKind,
    InterfaceConf,
    OnyxConfig,
    Pool,
)

MTU_MIN, MTU_MAX = 1500, 9216
"""``mtu`` range of an Onyx Ethernet interface (Onyx User Manual, Ethernet interface
commands; Ansible ``onyx_interface``)."""
_TRUST: dict[str, Trust] = {"l2": "pcp", "l3": "dscp", "both": "both", "port": "port"}
_SPEED = re.compile(r"^(\d{1,3})(?:\.(\d))?g(?:x\w+)?$", re.IGNORECASE)
_SPLIT = re.compile(r"^qsfp(?:-dd)?-split-(\d)$")
_ETH = re.compile(r"^(\d{1,2})/(\d{1,3})(?:/(\d))?$")
_NUM = re.compile(r"^\d{1,4}$")
_PRIO = re.compile(r"^[0-7]$")
_QOS_WORDS = re.compile(
    r"qos|pfc|priority-flow|ecn|congestion|traffic-class|dcb|buffer|pool|roce|mtu|pause"
    r"|flowcontrol|switch-priority|ets"
)
NOT_QOS_TOP = word_set(
    "vlan protocol lacp spanning-tree ip ipv6 router ntp username snmp-server mlag mlag-vip "
    "logging radius-server tacacs-server ldap web license banner clock ssh aaa port-channel "
    "vrf cli password telnet-server email ptp openflow track ztp zero-touch docker json-gw "
    "xml-gw configuration file fae stats cmd crypto sflow igmp dhcp bgp nve "
    "what-just-happened ib system-mac interface-ib ntpdate timezone cmd-timeout sntp lldp-med "
    "api https ssl hardware-fault mac-address-table mac port-mirroring monitor-session ufm"
)
"""Global commands that change no QoS fact rocetune models (consumed)."""
NOT_QOS_IFACE = word_set(
    "description switchport lacp lacp-individual spanning-tree ip ipv6 ipl mlag magp lldp "
    "fec-override boot-delay load-interval vrf bfd ospf storm-control dot1x vrrp mac "
    "mac-address counters isolation-group dhcp igmp ptp sflow negotiation duplex bgp "
    "mlag-port-channel nve openflow"
)
"""First words of interface commands that change no QoS fact rocetune models (consumed)."""


def expand(kind: str, spec: str) -> list[str] | None:
    """``ethernet`` ``1/1-1/3`` -> ``Eth1/1 Eth1/2 Eth1/3``; None when not readable."""
    if kind not in PREFIX:
        return None
    prefix = PREFIX[kind]
    first, _, last = spec.partition("-")
    if kind != "ethernet":
        if not _NUM.match(first) or (last and not _NUM.match(last)):
            return None
        lo, hi = int(first), int(last or first)
        return [f"{prefix}{n}" for n in range(lo, hi + 1)] if hi - lo < 512 else None
    a, b = _ETH.match(first), _ETH.match(last or first)
    if a is None or b is None:
        return None
    if a.group(3) is None and b.group(3) is None and a.group(1) == b.group(1):
        lo, hi = int(a.group(2)), int(b.group(2))
        return (
            [f"Eth{a.group(1)}/{n}" for n in range(lo, hi + 1)] if 0 < hi - lo + 1 <= 256 else None
        )
    if a.group(3) and b.group(3) and a.group(1, 2) == b.group(1, 2):
        lo, hi = int(a.group(3)), int(b.group(3))
        base = f"Eth{a.group(1)}/{a.group(2)}"
        return [f"{base}/{n}" for n in range(lo, hi + 1)] if 0 < hi - lo + 1 <= 8 else None
    return None


_KNOWN_TOP = (
    frozenset(
        {
            "interface",
            "dcb",
            "roce",
            "traffic",
            "lldp",
            "hostname",
            "advanced",
            "pool",
            "no",
            "qos",
            "default",
            "buffer",
            "pfc",
            "ecn",
            "protocol",
        }
    )
    | NOT_QOS_TOP
)
_COMMAND_WORD = re.compile(r"^[a-z][a-z0-9-]*$")


def is_prose(words: list[str]) -> bool:
    """A line that is not an Onyx command: Markdown, prose, shell commands, command output.

    Onyx commands start with a lowercase keyword; a line whose first word is not one Onyx
    has and that names no QoS setting is prose (skipped and counted, never RT001)."""
    head = words[0]
    if head in _KNOWN_TOP:
        return False
    return not (_COMMAND_WORD.match(head) and _QOS_WORDS.search(" ".join(words).lower()))


def read_config(lines: Lines, issues: Issues, header: str = "") -> OnyxConfig:
    """Read the vendor shape of a running-config (or a runbook/transcript of commands)."""
    config = OnyxConfig()
    skipped = 0
    host = re.search(r"^## Hostname: (\S+)", header, re.MULTILINE)
    if host:
        config.facts["onyx.header_hostname"] = host.group(1)
    release = re.search(r"^## Product release: (\S+)", header, re.MULTILINE)
    if release:
        config.facts["onyx.release"] = release.group(1)
    for st in lines.statements:
        words = st.text.split()
        if st.context is None and is_prose(words):
            skipped += 1
            continue
        if st.context is not None:
            _interface(st, st.context[0], st.context[1], words, config=config, issues=issues)
        elif words[0] == "interface" and len(words) >= 3:
            _interface(st, words[1], words[2], words[3:], config=config, issues=issues)
        else:
            _global(st, words, config, issues)
    if skipped:
        config.facts["onyx.skipped_lines"] = str(skipped)
    return config


def _global(st: Statement, words: list[str], config: OnyxConfig, issues: Issues) -> None:
    neg = words[0] == "no"
    body = words[1:] if neg else words
    if not body:
        issues.add(st.text, "empty negation", st.line, features=())
        return
    head = body[0]
    if head == "hostname" and len(body) == 2 and not neg:
        config.hostname = At(body[1], st.line)
    elif head == "dcb" and body[1:2] == ["priority-flow-control"]:
        _global_pfc(st, body[2:], neg, config, issues)
    elif head == "roce":
        _roce(st, body[1:], neg, config, issues)
    elif head == "traffic" and body[1:2] == ["pool"] and len(body) >= 3:
        _pool(st, body[2:], neg, config, issues)
    elif head == "lldp":
        if len(body) == 1:
            config.lldp = At(not neg, st.line)
        elif _QOS_WORDS.search(st.text) or "application" in st.text:
            issues.add(
                st.text, "LLDP/DCBX setting rocetune does not read", st.line, features=("lldp",)
            )
    elif head == "interface":
        _other_interface(st, body, issues)
    elif head in NOT_QOS_TOP:
        if _QOS_WORDS.search(st.text):
            issues.add(st.text, "QoS-looking line in a command rocetune does not read", st.line)
    elif head in ("advanced", "pool"):
        issues.add(
            st.text, "advanced buffer management is not modelled", st.line, features=("buffers",)
        )
    else:
        issues.add(
            st.text, "command not understood (not a global Onyx command rocetune knows)", st.line
        )


def _global_pfc(
    st: Statement, rest: list[str], neg: bool, config: OnyxConfig, issues: Issues
) -> None:
    if rest in (["enable"], ["enable", "force"]):
        config.pfc_enabled = At(not neg, st.line)
    elif len(rest) == 3 and rest[0] == "priority" and _PRIO.match(rest[1]) and rest[2] == "enable":
        if neg:
            config.pfc_priorities.pop(int(rest[1]), None)
        else:
            config.pfc_priorities[int(rest[1])] = st.line
    else:
        issues.add(
            st.text,
            "PFC command not understood",
            st.line,
            features=("watchdog",) if "watchdog" in st.text else ("pfc",),
        )


def _roce(st: Statement, rest: list[str], neg: bool, config: OnyxConfig, issues: Issues) -> None:
    if neg and not rest:
        config.roce = At("none", st.line)
    elif not neg and rest in ([], ["lossless"], ["lossy"], ["semi-lossless"]):
        config.roce = At(rest[0] if rest else "lossless", st.line)
    else:
        issues.add(
            st.text,
            "RoCE mode command not understood",
            st.line,
            features=("roce_mode", "pfc", "ecn", "trust", "scheduler"),
        )


def _pool(st: Statement, rest: list[str], neg: bool, config: OnyxConfig, issues: Issues) -> None:
    name, args = rest[0], rest[1:]
    if args == ["force"]:
        args = []
    if neg:
        if args:
            issues.add(
                st.text, "traffic pool negation not understood", st.line, features=("buffers",)
            )
        else:
            config.pools.pop(name, None)
        return
    pool = config.pools.setdefault(name, Pool(name, st.line))
    if not args:
        return
    if args[0] == "type" and len(args) >= 2 and args[1] in ("lossless", "lossy", "lossy-mc"):
        pool.type = At(args[1], st.line)
        args = args[2:]
        if not args:
            return
    if args[:2] == ["memory", "percent"] and len(args) == 3:
        try:
            pool.percent = At(float(args[2]), st.line)
            return
        except ValueError:
            pass
    if (
        args[:2] == ["map", "switch-priority"]
        and args[2:]
        and all(_PRIO.match(a) for a in args[2:])
    ):
        pool.priorities = At(tuple(sorted({int(a) for a in args[2:]})), st.line)
        return
    issues.add(st.text, "traffic pool setting not understood", st.line, features=("buffers",))


def _other_interface(st: Statement, body: list[str], issues: Issues) -> None:
    if len(body) >= 3 and body[1] in PREFIX:
        issues.add(st.text, "interface range not understood", st.line, features=("ports",))
    elif _QOS_WORDS.search(" ".join(body[2:])):
        issues.add(st.text, "QoS-looking line on an interface that is not a port", st.line)


def _interface(
    st: Statement, kind: str, spec: str, rest: list[str], *, config: OnyxConfig, issues: Issues
) -> None:
    names = expand(kind, spec)
    if names is None:
        if kind in PREFIX:
            issues.add(
                st.text,
                "interface range not understood",
                st.line,
                features=("ports", *_features(st.text)),
            )
        else:
            _other_interface(st, ["interface", kind, spec, *rest], issues)
        return
    confs = []
    for name in names:
        conf = config.interfaces.get(name)
        if conf is None:
            conf = InterfaceConf(name, _kind(kind), st.line)
            config.interfaces[name] = conf
        confs.append(conf)
    if rest and not _iface_command(st, rest, confs):
        head = rest[1] if rest[0] == "no" and len(rest) > 1 else rest[0]
        if head in NOT_QOS_IFACE and not _QOS_WORDS.search(" ".join(rest)):
            return
        issues.add(
            st.text,
            "interface command not understood",
            st.line,
            ports=tuple(names),
            features=_features(st.text),
        )


def _kind(kind: str) -> IfKind:
    if kind == "port-channel":
        return "port-channel"
    if kind == "mlag-port-channel":
        return "mlag-port-channel"
    return "ethernet"


_HEAD_FEATURES: dict[str, tuple[Feature, ...]] = {
    "qos": ("trust", "dscp_map"),
    "traffic-class": ("ecn", "scheduler", "dscp_map"),
    "dcb": ("pfc", "scheduler"),
    "flowcontrol": ("pfc",),
    "ingress-buffer": ("buffers",),
    "egress-buffer": ("buffers",),
    "module-type": ("ports", "speed"),
    "speed": ("speed",),
    "mtu": ("mtu",),
}
"""First word of an Onyx interface command -> the features it may change."""


def _features(text: str) -> tuple[Feature, ...]:
    words = text.split()
    if words[:1] == ["interface"]:
        words = words[3:]
    if words[:1] == ["no"]:
        words = words[1:]
    found = list(features_of(text))
    for feature in _HEAD_FEATURES.get(words[0] if words else "", ()):
        if feature not in found:
            found.append(feature)
    return tuple(found)


def _iface_command(st: Statement, rest: list[str], confs: list[InterfaceConf]) -> bool:
    """Apply one interface command to ``confs``; False when it is not understood."""
    neg = rest[0] == "no"
    w = rest[1:] if neg else rest
    if w and w[-1] == "force":
        w = w[:-1]
    if not w:
        return False
    at = st.line
    updates: dict[str, object] = {}
    if w[0] == "qos" and len(w) >= 2:
        if w[1] == "trust" and not neg and len(w) == 3 and w[2].lower() in _TRUST:
            updates["trust"] = At(_TRUST[w[2].lower()], at)
        elif w[1] == "trust" and neg and len(w) in (2, 3):
            updates["trust"] = At("pcp", at)
        elif w[1] == "rewrite" and len(w) == 3 and w[2] == "dscp":
            updates["rewrite_dscp"] = At(not neg, at)
        else:
            return w[1] == "rewrite" and len(w) == 3 and w[2] == "pcp"
    elif w[:2] == ["dcb", "priority-flow-control"] and w[2:3] == ["mode"]:
        if neg and len(w) == 3:
            updates["pfc_mode"] = At("auto", at)
        elif not neg and len(w) == 4 and w[3] in ("on", "auto"):
            updates["pfc_mode"] = At(w[3], at)
        else:
            return False
    elif w[0] == "traffic-class" and len(w) >= 3 and _PRIO.match(w[1]):
        return _traffic_class(int(w[1]), w[2:], neg, at, confs)
    elif w[0] == "mtu" and len(w) == 2 and not neg:
        if not w[1].isdigit() or not MTU_MIN <= int(w[1]) <= MTU_MAX:
            return False
        updates["mtu"] = At(int(w[1]), at)
    elif w[0] == "speed" and len(w) == 2 and not neg:
        match = _SPEED.match(w[1])
        if match is None:
            return w[1] == "auto"
        mbps = int(match.group(1)) * 1000 + int(match.group(2) or 0) * 100
        updates["speed"] = At(mbps, at)
    elif w == ["shutdown"]:
        updates["shutdown"] = At(not neg, at)
    elif w[0] == "module-type" and len(w) == 2 and not neg:
        match = _SPLIT.match(w[1])
        if match is None:
            return w[1] in ("qsfp", "qsfp-dd", "sfp")
        updates["split"] = At(int(match.group(1)), at)
    elif w[0] in ("channel-group", "mlag-channel-group") and len(w) >= 2 and _NUM.match(w[1]):
        prefix = "Po" if w[0] == "channel-group" else "Mpo"
        for conf in confs:
            conf.member_of = None if neg else At(f"{prefix}{w[1]}", at)
        return True
    elif w[0] == "flowcontrol" and len(w) == 3 and w[1] in ("receive", "send"):
        if w[2] not in ("on", "off"):
            return False
        on = w[2] == "on" and not neg
        for conf in confs:
            was = conf.link_pause.value if conf.link_pause else False
            conf.link_pause = At(was or on, at)
        return True
    else:
        return False
    for conf in confs:
        for key, value in updates.items():
            setattr(conf, key, value)
    return True


def _traffic_class(tc: int, w: list[str], neg: bool, at: int, confs: list[InterfaceConf]) -> bool:
    if w[0] == "congestion-control":
        if neg and len(w) == 1:
            for conf in confs:
                conf.congestion[tc] = At(None, at)
            return True
        found = _congestion(w[1:])
        if found is None or neg:
            return False
        for conf in confs:
            conf.congestion[tc] = At(found, at)
        return True
    if w[:2] == ["dcb", "ets"] and not neg:
        if w[2:] == ["strict"]:
            ets = Ets("strict")
        elif len(w) == 4 and w[2] == "wrr" and w[3].isdigit() and 0 <= int(w[3]) <= 100:
            ets = Ets("wrr", int(w[3]))
        else:
            return False
        for conf in confs:
            conf.ets[tc] = At(ets, at)
        return True
    if w[:2] == ["bind", "switch-priority"] and w[2:] and all(_PRIO.match(p) for p in w[2:]):
        for conf in confs:
            for prio in w[2:]:
                if neg:
                    conf.bind.pop(int(prio), None)
                else:
                    conf.bind[int(prio)] = At(tc, at)
        return True
    return False


def _congestion(w: list[str]) -> Congestion | None:
    if len(w) != 5 or w[0] not in ("ecn", "red", "both"):
        return None
    kinds = (w[1], w[3])
    if kinds == ("minimum-absolute", "maximum-absolute"):
        relative = False
    elif kinds == ("minimum-relative", "maximum-relative"):
        relative = True
    else:
        return None
    if not (w[2].isdigit() and w[4].isdigit()) or int(w[2]) > int(w[4]):
        return None
    if relative and int(w[4]) > 100:
        return None
    mode = "ecn" if w[0] == "ecn" else ("red" if w[0] == "red" else "both")
    return Congestion(mode, relative, int(w[2]), int(w[4]))  # type: ignore[arg-type]
