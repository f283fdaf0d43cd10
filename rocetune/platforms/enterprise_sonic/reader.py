"""Klish line tree -> the CONFIG_DB tables those lines write (step 1 of the parser).

Enterprise SONiC's ``sonic-cli`` is a front end of CONFIG_DB: each command below writes the
table and field named next to it (SONiC management framework QoS and RoCE HLDs; the Dell
Ansible collection's examples; docs/platforms/enterprise_sonic.md). Reading the text into
those tables lets the SONiC model builder compute what the switch computes from them.

Global commands:

- ``hostname NAME``; ``interface-naming standard [extended]``, ``interface breakout port
  S/P mode M``, ``roce enable [pfc-priority L]`` and ``[qos] buffer init lossless`` -> facts;
- ``qos map dscp-tc|dot1p-tc|tc-queue|tc-pg|tc-dscp|tc-dot1p|pfc-priority-queue|
  pfc-priority-pg NAME`` with ``dscp|dot1p|traffic-class|pfc-priority LIST <target> N``
  lines -> DSCP_TO_TC_MAP, DOT1P_TO_TC_MAP, TC_TO_QUEUE_MAP, TC_TO_PRIORITY_GROUP_MAP,
  TC_TO_DSCP_MAP, TC_TO_DOT1P_MAP, MAP_PFC_PRIORITY_TO_QUEUE,
  PFC_PRIORITY_TO_PRIORITY_GROUP_MAP;
- ``qos wred-policy NAME``: ``green|yellow|red minimum-threshold A maximum-threshold B
  drop-probability P`` (A, B in KBytes of 1000 bytes) and ``ecn <colours>`` -> WRED_PROFILE;
- ``qos scheduler-policy NAME``: ``queue N`` with ``type``, ``weight``, ``meter-type``,
  ``cir|pir|cbs|pbs`` -> SCHEDULER ``NAME@N``;
- ``priority-flow-control watchdog polling-interval MS`` -> PFC_WD|GLOBAL;
  ``priority-flow-control watchdog counter-poll`` (counter polling) is consumed;
- ``[qos] buffer pool NAME shared-headroom-size B`` -> BUFFER_POOL xoff; ``[qos] buffer
  profile|buffer-profile NAME POOL SIZE [static-threshold N | dynamic-threshold N] [pause
  [pause-threshold X] [resume-threshold Y] [resume-offset-threshold Z]]`` -> BUFFER_PROFILE.

Interface commands (:mod:`.interfaces`). Blocks and lines not listed are consumed when they
cannot change a QoS fact, else reported (RT001) with the ports of their interface body.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rocetune.platforms.common.cli_tree import word_set
from rocetune.platforms.enterprise_sonic.grammar import MAP_KINDS, OTHER_BLOCKS, Issues, Node
from rocetune.platforms.enterprise_sonic.interfaces import read_interface
from rocetune.platforms.enterprise_sonic.tables import KlishDb
from rocetune.platforms.enterprise_sonic.values import (
    KBYTE,
    index_list,
    small_int,
)

MAP_TABLES: dict[str, tuple[str, str, str]] = {
    "dscp-tc": ("DSCP_TO_TC_MAP", "dscp", "traffic-class"),
    "dot1p-tc": ("DOT1P_TO_TC_MAP", "dot1p", "traffic-class"),
    "tc-queue": ("TC_TO_QUEUE_MAP", "traffic-class", "queue"),
    "tc-pg": ("TC_TO_PRIORITY_GROUP_MAP", "traffic-class", "priority-group"),
    "tc-dscp": ("TC_TO_DSCP_MAP", "traffic-class", "dscp"),
    "tc-dot1p": ("TC_TO_DOT1P_MAP", "traffic-class", "dot1p"),
    "pfc-priority-queue": ("MAP_PFC_PRIORITY_TO_QUEUE", "pfc-priority", "queue"),
    "pfc-priority-pg": ("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "pfc-priority", "priority-group"),
}
"""Map kind -> (CONFIG_DB table, key word, value word)."""
_KEY_RANGES = {"dscp": 63, "dot1p": 7, "traffic-class": 15, "pfc-priority": 7}
_VALUE_RANGES = {"traffic-class": 15, "queue": 15, "priority-group": 7, "dscp": 63, "dot1p": 7}
_ECN = {
    "green": "ecn_green",
    "all": "ecn_all",
    "none": "ecn_none",
    "green-yellow": "ecn_green_yellow",
    "green-red": "ecn_green_red",
    "yellow": "ecn_yellow",
    "red": "ecn_red",
    "yellow-red": "ecn_yellow_red",
}
_SCHED_TYPES = {"dwrr": "DWRR", "wrr": "WRR", "strict": "STRICT"}
_QUEUE_FIELDS = {"cir": "cir", "pir": "pir", "cbs": "cbs", "pbs": "pbs", "meter-type": "meter_type"}
NOT_QOS_TOP = (
    word_set(
        "username snmp-server ntp logging tacacs-server radius-server vlan spanning-tree sflow"
        " banner clock system errdisable dhcp bfd lldp ip ipv6 mac port-group load-balance"
        " feature ztp ip-sla"
    )
    | OTHER_BLOCKS
)
"""Global commands known to change no QoS fact rocetune models (their QoS-looking body lines
are still reported)."""
_NUMBER = re.compile(r"\d+")


@dataclass
class _Pending:
    """Interface ``scheduler-policy`` bindings, resolved after every policy is read."""

    bindings: list[tuple[tuple[str, ...], str, int]] = field(default_factory=list)


def read_config(roots: list[Node], issues: Issues) -> KlishDb:
    """Read every top-level line into CONFIG_DB tables, facts and reported lines."""
    kdb = KlishDb()
    pending = _Pending()
    for node in roots:
        _top(node, kdb, issues, pending)
    _bind_schedulers(kdb, issues, pending)
    return kdb


def _top(node: Node, kdb: KlishDb, issues: Issues, pending: _Pending) -> None:
    words = node.words
    head = words[0]
    issues.ports = None
    if head == "interface" and words[1:2] == ["breakout"]:
        _breakout(node, kdb, issues)
    elif head == "interface" and len(words) >= 2:
        bound = read_interface(node, kdb, issues)
        if bound is not None:
            pending.bindings.extend(bound)
    elif head == "hostname" and len(words) == 2:
        kdb.hostname = (words[1], node.line)
    elif head == "interface-naming":
        kdb.facts["enterprise_sonic.interface_naming"] = " ".join(words[1:])
    elif head == "roce":
        _roce(node, kdb, issues)
    elif words[:2] == ["qos", "map"] and len(words) == 4 and words[2] in MAP_KINDS:
        _map(node, kdb, issues)
    elif words[:2] == ["qos", "wred-policy"] and len(words) == 3:
        _wred(node, kdb, issues)
    elif words[:2] == ["qos", "scheduler-policy"] and len(words) == 3:
        _scheduler(node, kdb, issues)
    elif head in ("buffer", "qos") and _buffer(words[1:] if head == "qos" else words, node, kdb):
        _no_children(node, issues)
    elif words[:2] == ["priority-flow-control", "watchdog"]:
        _watchdog_global(node, kdb, issues)
    elif head in NOT_QOS_TOP or head in ("end", "exit"):
        issues.suspects(node, "QoS-looking line in a block rocetune does not read")
    else:
        issues.block(node, "not understood by rocetune (enterprise_sonic)")


def _no_children(node: Node, issues: Issues) -> None:
    for child in node.children:
        issues.block(child, "unexpected line below a one-line command")


def _roce(node: Node, kdb: KlishDb, issues: Issues) -> None:
    words = node.words
    if words[1:2] != ["enable"]:
        issues.node(node, "not understood: expected 'roce enable [pfc-priority LIST]'")
        return
    kdb.facts["enterprise_sonic.roce_enable"] = " ".join(words[2:]) or "default"
    kdb.roce_line = node.line


def _breakout(node: Node, kdb: KlishDb, issues: Issues) -> None:
    words = node.words
    if len(words) == 6 and words[2] == "port" and words[4] == "mode":
        kdb.breakouts[words[3]] = (words[5], node.line)
        return
    issues.node(node, "not understood: expected 'interface breakout port S/P mode MODE'")


def _map(node: Node, kdb: KlishDb, issues: Issues) -> None:
    kind, name = node.words[2], node.words[3]
    table, key_word, value_word = MAP_TABLES[kind]
    entry = kdb.entry(table, name, node.line)
    aliases = {value_word} | ({"pg", "priority-group"} if value_word == "priority-group" else set())
    for child in node.children:
        words = child.words
        if len(words) != 4 or words[0] != key_word or words[2] not in aliases:
            issues.block(child, f"not understood in 'qos map {kind}'")
            continue
        keys = index_list(words[1], _KEY_RANGES[key_word])
        value = small_int(words[3], _VALUE_RANGES[value_word])
        if keys is None or value is None:
            issues.node(child, f"invalid {key_word} list or {value_word} value")
            continue
        for key in keys:
            kdb.put(entry, str(key), str(value), child.line)


def _wred(node: Node, kdb: KlishDb, issues: Issues) -> None:
    entry = kdb.entry("WRED_PROFILE", node.words[2], node.line)
    for child in node.children:
        words = child.words
        if words[0] in ("green", "yellow", "red") and _colour(words, entry, child, kdb):
            continue
        if words[0] == "ecn" and len(words) == 2:
            value = words[1] if words[1].startswith("ecn_") else _ECN.get(words[1])
            if value is not None:
                kdb.put(entry, "ecn", value, child.line)
                continue
        issues.block(child, "not understood in 'qos wred-policy'")


def _colour(words: list[str], entry: object, child: Node, kdb: KlishDb) -> bool:
    """``green minimum-threshold A maximum-threshold B drop-probability P`` (KBytes)."""
    if len(words) != 7 or words[1::2] != [
        "minimum-threshold",
        "maximum-threshold",
        "drop-probability",
    ]:
        return False
    low, high, prob = (small_int(w, 100_000_000) for w in words[2::2])
    if low is None or high is None or prob is None:
        return False
    colour = words[0]
    kdb.put(entry, f"{colour}_min_threshold", str(low * KBYTE), child.line)
    kdb.put(entry, f"{colour}_max_threshold", str(high * KBYTE), child.line)
    kdb.put(entry, f"{colour}_drop_probability", str(prob), child.line)
    kdb.put(entry, f"wred_{colour}_enable", "true", child.line)
    return True


def _scheduler(node: Node, kdb: KlishDb, issues: Issues) -> None:
    name = node.words[2]
    queues = kdb.policies.setdefault(name, {})
    for child in node.children:
        words = child.words
        queue = small_int(words[1], 31) if words[0] == "queue" and len(words) == 2 else None
        if queue is None:
            issues.block(
                child, "not understood in 'qos scheduler-policy' (port shapers are not read)"
            )
            continue
        entry = kdb.entry("SCHEDULER", f"{name}@{queue}", child.line)
        queues[queue] = child.line
        for line in child.children:
            _queue_line(line, entry, kdb, issues)


def _queue_line(node: Node, entry: object, kdb: KlishDb, issues: Issues) -> None:
    words = node.words
    if len(words) == 2 and words[0] == "type" and words[1].lower() in _SCHED_TYPES:
        kdb.put(entry, "type", _SCHED_TYPES[words[1].lower()], node.line)
    elif len(words) == 2 and words[0] == "weight" and _NUMBER.fullmatch(words[1]):
        kdb.put(entry, "weight", words[1], node.line)
    elif len(words) == 2 and words[0] in _QUEUE_FIELDS:
        kdb.put(entry, _QUEUE_FIELDS[words[0]], words[1], node.line)
    else:
        issues.block(node, "not understood in a scheduler-policy queue")


def _bind_schedulers(kdb: KlishDb, issues: Issues, pending: _Pending) -> None:
    for ports, name, line in pending.bindings:
        queues = kdb.policies.get(name)
        if queues is None:
            issues.add(
                f"scheduler-policy {name}",
                "the scheduler policy is not defined in this file",
                line,
                features=("scheduler",),
                ports=ports,
            )
            continue
        for port in ports:
            for queue in sorted(queues):
                entry = kdb.entry("QUEUE", f"{port}|{queue}", line)
                kdb.put(entry, "scheduler", f"{name}@{queue}", line)


def _watchdog_global(node: Node, kdb: KlishDb, issues: Issues) -> None:
    words = node.words
    if len(words) == 4 and words[2] == "polling-interval" and _NUMBER.fullmatch(words[3]):
        entry = kdb.entry("PFC_WD", "GLOBAL", node.line)
        kdb.put(entry, "POLL_INTERVAL", words[3], node.line)
    elif words[2:] != ["counter-poll"]:
        issues.node(node, "not understood: global PFC watchdog command")


def _buffer(words: list[str], node: Node, kdb: KlishDb) -> bool:
    """Global buffer commands; False when the line is not one of them."""
    if words[:2] == ["buffer", "init"]:
        kdb.facts["enterprise_sonic.buffer_init"] = " ".join(words[2:]) or "lossless"
        return True
    if words[:2] == ["buffer", "pool"] and len(words) == 5 and words[3] == "shared-headroom-size":
        if not _NUMBER.fullmatch(words[4]):
            return False
        entry = kdb.entry("BUFFER_POOL", words[2], node.line)
        kdb.put(entry, "xoff", words[4], node.line)
        return True
    if words[:2] == ["buffer", "profile"] or words[:1] == ["buffer-profile"]:
        rest = words[2:] if words[0] == "buffer" else words[1:]
        return _profile(rest, node, kdb)
    return False


_PROFILE_OPTIONS = {
    "static-threshold": "static_th",
    "dynamic-threshold": "dynamic_th",
    "pause-threshold": "xoff",
    "resume-threshold": "xon",
    "resume-offset-threshold": "xon_offset",
}


def _profile(rest: list[str], node: Node, kdb: KlishDb) -> bool:
    if len(rest) < 3 or not _NUMBER.fullmatch(rest[2]):
        return False
    fields = {"pool": rest[1], "size": rest[2]}
    tail = rest[3:]
    i = 0
    while i < len(tail):
        word = tail[i]
        if word in ("pause", "threshold-mode"):
            i += 1 if word == "pause" else 2
            continue
        if word in _PROFILE_OPTIONS and i + 1 < len(tail) and re.fullmatch(r"-?\d+", tail[i + 1]):
            fields[_PROFILE_OPTIONS[word]] = tail[i + 1]
            i += 2
            continue
        return False
    entry = kdb.entry("BUFFER_PROFILE", rest[0], node.line)
    for name, value in fields.items():
        kdb.put(entry, name, value, node.line)
    return True
