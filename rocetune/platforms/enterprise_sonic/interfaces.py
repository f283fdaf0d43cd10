"""Interface bodies of a sonic-cli configuration -> PORT, PORT_QOS_MAP, QUEUE, PFC_WD,
CABLE_LENGTH, BUFFER_PG and BUFFER_QUEUE entries of their ports.

Lines read (each writes the CONFIG_DB field named):

- ``mtu N`` (PORT mtu), ``speed N`` (Mb/s; PORT speed), ``[no] shutdown`` (admin_status),
  ``fec RS|FC|none|auto`` (fec), ``priority-flow-control asymmetric`` (pfc_asym on);
- ``qos-map dscp-tc|dot1p-tc|tc-queue|tc-pg|tc-dscp|tc-dot1p|pfc-priority-queue|
  pfc-priority-pg NAME`` -> the PORT_QOS_MAP binding of that map;
- ``priority-flow-control priority N`` (one line per priority; older releases write ``pfc
  priority N``) -> PORT_QOS_MAP pfc_enable;
- ``priority-flow-control watchdog action drop|alert|forward``, ``... watchdog on
  [detect-time MS]``, ``... watchdog restore-time MS`` -> PFC_WD|port; ``... watchdog off``
  leaves the port without a watchdog;
- ``queue N wred-policy NAME`` -> QUEUE|port|N wred_profile; ``scheduler-policy NAME`` ->
  QUEUE|port|q scheduler ``NAME@q`` for every queue of the policy;
- ``cable-length 40m`` -> CABLE_LENGTH; ``[qos] buffer priority-group|queue RANGE PROFILE``
  -> BUFFER_PG / BUFFER_QUEUE.

Other lines: known non-QoS commands are consumed; any other line is reported (RT001) with
the body's ports, so the rules that need its feature answer "could not verify". A body of a
PortChannel, VLAN, loopback or management interface is not a port: its QoS-looking lines
are reported.
"""

from __future__ import annotations

import re

from rocetune.platforms.common.cli_tree import word_set
from rocetune.platforms.enterprise_sonic.grammar import Issues, Node
from rocetune.platforms.enterprise_sonic.names import classify, expand_range
from rocetune.platforms.enterprise_sonic.tables import KlishDb
from rocetune.platforms.enterprise_sonic.values import index_list, small_int

QOS_MAP_FIELDS: dict[str, str] = {
    "dscp-tc": "dscp_to_tc_map",
    "dot1p-tc": "dot1p_to_tc_map",
    "tc-queue": "tc_to_queue_map",
    "tc-pg": "tc_to_pg_map",
    "tc-dscp": "tc_to_dscp_map",
    "tc-dot1p": "tc_to_dot1p_map",
    "pfc-priority-queue": "pfc_to_queue_map",
    "pfc-priority-pg": "pfc_to_pg_map",
}
NOT_QOS_IFACE = word_set(
    "description ip ipv6 switchport channel-group unreliable-los standalone-link-training"
    " link-training autoneg ars lldp spanning-tree mac udld errdisable storm-control"
    " bfd ptp sflow vrf mclag neighbor dhcp nat link tpid ipv4 load-interval"
    " transceiver media-fec advertise-speed"
)
"""First words of interface commands known to change no QoS fact (consumed)."""
_QOS_LOOKING = re.compile(
    r"qos|priority|pfc|flow|ecn|wred|queue|buffer|scheduler|cable|mtu|speed|fec|shutdown|pause"
)
_CABLE = re.compile(r"\d+(?:\.\d+)?m")
_FEC = {"rs": "rs", "fc": "fc", "none": "none", "auto": "auto", "default": "auto"}
_WD_ACTIONS = ("drop", "alert", "forward")
Binding = tuple[tuple[str, ...], str, int]


def read_interface(node: Node, kdb: KlishDb, issues: Issues) -> list[Binding] | None:
    """Read one ``interface`` block; the scheduler-policy bindings it holds (None: none)."""
    words = node.words
    spec = " ".join(words[2:] if words[1] == "range" else words[1:])
    ports = expand_range(spec) if words[1] == "range" else None
    if ports is None and words[1] != "range":
        kind, name = classify(spec)
        if kind == "port":
            ports = [name]
        elif kind in ("portchannel", "other"):
            issues.ports = None
            _not_a_port(node, issues)
            return None
    if not ports:
        issues.block(node, "interface name not understood (no port is read from this block)")
        return None
    for port in ports:
        kdb.ports.setdefault(port, node.line)
        kdb.entry("PORT", port, node.line)
    issues.ports = tuple(ports)
    bindings: list[Binding] = []
    for child in node.children:
        found = _line(child, tuple(ports), kdb, issues)
        if found is not None:
            bindings.append(found)
    issues.ports = None
    return bindings


def _not_a_port(node: Node, issues: Issues) -> None:
    for child in node.walk():
        if _QOS_LOOKING.search(child.text) and not child.text.startswith("description"):
            issues.node(child, "QoS line on an interface that is not a physical port (not read)")


def _line(node: Node, ports: tuple[str, ...], kdb: KlishDb, issues: Issues) -> Binding | None:
    words = node.words
    head = words[0]
    line = node.line
    if head == "scheduler-policy" and len(words) == 2:
        return ports, words[1], line
    if head == "qos-map" and len(words) == 3 and words[1] in QOS_MAP_FIELDS:
        for port in ports:
            entry = kdb.entry("PORT_QOS_MAP", port, line)
            kdb.put(entry, QOS_MAP_FIELDS[words[1]], words[2], line)
    elif _port_field(words, ports, kdb, line) or (
        head in ("priority-flow-control", "pfc") and _pfc(words[1:], ports, kdb, line)
    ):
        pass
    elif head == "queue" and len(words) == 4 and words[2] == "wred-policy":
        queue = small_int(words[1], 31)
        if queue is None:
            issues.node(node, "invalid queue number")
            return None
        for port in ports:
            kdb.put(kdb.entry("QUEUE", f"{port}|{queue}", line), "wred_profile", words[3], line)
    elif head == "cable-length" and len(words) == 2 and _CABLE.fullmatch(words[1]):
        entry = kdb.entry("CABLE_LENGTH", "AZURE", line)
        for port in ports:
            kdb.put(entry, port, words[1], line)
    elif _buffer_binding(words[1:] if head == "qos" else words, ports, kdb, line) or (
        head == "no" and _negated(words[1:], ports, kdb)
    ):
        pass
    elif head in NOT_QOS_IFACE or (head == "no" and len(words) > 1 and words[1] in NOT_QOS_IFACE):
        issues.suspects(node, "QoS-looking line below a non-QoS interface command")
    else:
        issues.block(node, "not understood by rocetune (enterprise_sonic interface)")
    return None


def _port_field(words: list[str], ports: tuple[str, ...], kdb: KlishDb, line: int) -> bool:
    head = words[0]
    if words in (["shutdown"], ["no", "shutdown"]):
        value = "down" if head == "shutdown" else "up"
        name = "admin_status"
    elif head in ("mtu", "speed") and len(words) == 2 and words[1].isdigit():
        name, value = head, words[1]
    elif head == "fec" and len(words) == 2 and words[1].lower() in _FEC:
        name, value = "fec", _FEC[words[1].lower()]
    else:
        return False
    for port in ports:
        kdb.put(kdb.entry("PORT", port, line), name, value, line)
    return True


def _pfc(rest: list[str], ports: tuple[str, ...], kdb: KlishDb, line: int) -> bool:
    if len(rest) == 2 and rest[0] == "priority":
        prio = small_int(rest[1], 7)
        if prio is None:
            return False
        for port in ports:
            entry = kdb.entry("PORT_QOS_MAP", port, line)
            old = str(entry.fields.get("pfc_enable", ""))
            listed = [p for p in old.split(",") if p]
            if str(prio) not in listed:
                listed.append(str(prio))
            kdb.put(entry, "pfc_enable", ",".join(sorted(listed, key=int)), line)
        return True
    if rest == ["asymmetric"]:
        for port in ports:
            kdb.put(kdb.entry("PORT", port, line), "pfc_asym", "on", line)
        return True
    if rest[:1] == ["watchdog"]:
        return _watchdog(rest[1:], ports, kdb, line)
    return False


def _watchdog(rest: list[str], ports: tuple[str, ...], kdb: KlishDb, line: int) -> bool:
    fields: dict[str, str] = {}
    if len(rest) == 2 and rest[0] == "action" and rest[1] in _WD_ACTIONS:
        fields["action"] = rest[1]
    elif len(rest) == 3 and rest[:2] == ["on", "detect-time"] and rest[2].isdigit():
        fields["detection_time"] = rest[2]
    elif len(rest) == 2 and rest[0] == "restore-time" and rest[1].isdigit():
        fields["restoration_time"] = rest[1]
    else:
        return rest == ["off"]
    for port in ports:
        entry = kdb.entry("PFC_WD", port, line)
        for name, value in fields.items():
            kdb.put(entry, name, value, line)
    return True


def _buffer_binding(words: list[str], ports: tuple[str, ...], kdb: KlishDb, line: int) -> bool:
    if len(words) != 4 or words[0] != "buffer" or words[1] not in ("priority-group", "queue"):
        return False
    if index_list(words[2], 31) is None:
        return False
    table = "BUFFER_PG" if words[1] == "priority-group" else "BUFFER_QUEUE"
    for port in ports:
        kdb.put(kdb.entry(table, f"{port}|{words[2]}", line), "profile", words[3], line)
    return True


def _negated(rest: list[str], ports: tuple[str, ...], kdb: KlishDb) -> bool:
    """``no priority-flow-control priority N``, ``no mtu``, ``no queue N wred-policy``,
    ``no priority-flow-control watchdog ...``, ``no qos-map KIND``: the field goes back to
    unset (what a plan's rollback enters)."""
    if rest[:2] == ["priority-flow-control", "priority"] and len(rest) == 3:
        prio = small_int(rest[2], 7)
        if prio is None:
            return False
        for port in ports:
            entry = kdb.db.table("PORT_QOS_MAP").get(port)
            if entry is not None and "pfc_enable" in entry.fields:
                listed = [p for p in str(entry.fields["pfc_enable"]).split(",") if p]
                entry.fields["pfc_enable"] = ",".join(p for p in listed if p != str(prio))
        return True
    target = _negation_target(rest)
    if target is None:
        return False
    table, suffix, names = target
    for port in ports:
        entry = kdb.db.table(table).get(port + suffix)
        for name in names if entry is not None else ():
            entry.fields.pop(name, None)  # type: ignore[union-attr]
            entry.field_lines.pop(name, None)  # type: ignore[union-attr]
        if entry is not None and not entry.fields and table == "PFC_WD":
            # a CONFIG_DB hash without fields does not exist (Redis deletes an emptied hash):
            # with no watchdog field left the port has no PFC_WD entry, as before the lines
            kdb.db.tables.get(table, {}).pop(port + suffix, None)
    return True


def _negation_target(rest: list[str]) -> tuple[str, str, tuple[str, ...]] | None:
    """(table, key suffix after the port, fields) a ``no`` line unsets; None: not one."""
    if rest[:1] == ["mtu"] and len(rest) <= 2:
        return "PORT", "", ("mtu",)
    if rest[:1] == ["queue"] and len(rest) >= 3 and rest[2] == "wred-policy":
        return "QUEUE", f"|{rest[1]}", ("wred_profile",)
    if rest[:1] == ["qos-map"] and len(rest) >= 2 and rest[1] in QOS_MAP_FIELDS:
        return "PORT_QOS_MAP", "", (QOS_MAP_FIELDS[rest[1]],)
    if rest[:2] == ["priority-flow-control", "watchdog"]:
        sub = rest[2] if len(rest) > 2 else ""
        one = {"action": "action", "on": "detection_time", "restore-time": "restoration_time"}
        names = (one[sub],) if sub in one else ("action", "detection_time", "restoration_time")
        return "PFC_WD", "", names
    return None
