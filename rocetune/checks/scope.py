"""Which switch ports carry RoCE: the lossless domain the port rules check.

A port is in the lossless domain when

1. the inventory declares it (``roce_ports:`` on the device, a group or the defaults: port
   names, globs such as ``swp*`` or ranges such as ``swp1-32`` / ``Ethernet0-124``); when
   declared, that list is the whole domain; otherwise
2. the device has links (declared or from LLDP): it is a link end; otherwise (a lone config)
3. the config gives lossless evidence on it (PFC enabled in any direction, an ECN profile
   or a lossless priority-group buffer bound; DSCP trust too, but only on a device where
   some port has such evidence: trust is a default on many switches), unless the config
   explicitly switches PFC off on the port (:func:`explicitly_lossy`), or its state is not
   known from the snapshot: PFC unknown, or a line bound to the port that touches PFC,
   trust, the DSCP map, ECN or buffers was not understood (unread is not absent: the rules
   then say what they could not read or verify rather than pass).

A template port (:attr:`~rocetune.model.Port.template`: the config names no interface, only
device-wide QoS) is in the domain when the config decides it: it stands for every port.
Administratively down ports are never in the domain. The other ports are "outside the
lossless domain": the port rules skip them. Where the domain was inferred from the config
(3), RT003 lists them once per device; a declared domain (1, 2) is the user's statement.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from rocetune.model import Device, Link, Port

Basis = Literal["inventory", "links", "config"]

_RANGE = re.compile(r"^(?P<prefix>.*?)(?P<lo>\d+)-(?P<hi>\d+)$")
_GLOB_CHARS = frozenset("*?[")
_DSCP_TRUST = frozenset({"dscp", "both"})
_LOSSLESS_FEATURES = frozenset({"pfc", "trust", "dscp_map", "ecn", "buffers"})


@dataclass(frozen=True)
class RoceScope:
    """The lossless domain of one device."""

    roce: tuple[Port, ...]
    """Ports that carry RoCE (checked by the port rules)."""
    outside: tuple[Port, ...]
    """Admin-up ports known to carry no lossless config, or not declared by the inventory."""
    admin_down: tuple[Port, ...]
    """Ports that are administratively down (out of scope)."""
    basis: Basis
    """``inventory`` (``roce_ports`` declared), ``links`` (the link ends) or ``config``."""
    unmatched: tuple[str, ...] = ()
    """Declared ``roce_ports`` patterns that match no port of the device."""


def port_matches(name: str, pattern: str) -> bool:
    """True when port ``name`` matches an inventory pattern: a name, a glob or a range.

    A range is a name ending in ``<lo>-<hi>`` (``swp1-32``, ``Ethernet1/1-8``): it matches
    the prefix followed by any number from lo to hi (inclusive).
    """
    pat = pattern.strip()
    if name == pat:
        return True
    match = _RANGE.match(pat)
    if match is not None:
        prefix = match.group("prefix")
        rest = name[len(prefix) :] if name.startswith(prefix) else ""
        if rest.isdigit():
            return int(match.group("lo")) <= int(rest) <= int(match.group("hi"))
    if _GLOB_CHARS & set(pat):
        return fnmatch.fnmatchcase(name, pat)
    return False


def has_lossless_evidence(port: Port, *, device_lossless: bool = True) -> bool:
    """True when the config shows lossless RoCE intent on ``port``.

    Strong evidence: PFC on some priority (rx or tx), an ECN/WRED profile on a queue the
    port's DSCP map can reach (an ECN profile on a queue no DSCP is classified into, such as
    SONiC's template WRED profile on a port without a DSCP map, marks nothing), or a
    lossless (XOFF) priority-group buffer profile. DSCP trust alone is weak evidence: many
    switches trust DSCP by default on every routed port (EOS prints ``qos trust dscp`` in
    ``show running-config all``; SONiC binds its DSCP map to lossy ports too), so it counts
    only when the device has a lossless domain at all (``device_lossless``: some port with
    strong evidence) and the DSCP map classifies at all (not every DSCP in priority 0). A
    port that trusts DSCP on such a switch and lacks PFC is then a RoCE port with a fault,
    not a port outside the domain.
    """
    if _strong_evidence(port):
        return True
    if not device_lossless or port.trust not in _DSCP_TRUST or explicitly_lossy(port):
        return False
    dmap = port.dscp_to_priority
    return dmap is None or any(prio != 0 for prio in dmap.values())


def explicitly_lossy(port: Port) -> bool:
    """True when the config itself switches PFC off on ``port`` (``pfc_mode`` ``off``: EOS
    ``no priority-flow-control`` or the global all-off, NX-OS ``priority-flow-control mode
    off``), no priority has PFC, and no no-drop priority is configured for the port
    (``pfc_priority_to_queue`` empty). That is the operator's statement that the port is not
    lossless: an ECN profile or DSCP trust on it (which lossy TCP classes use too) does not
    put it back into the lossless domain. Where a no-drop class exists (an NX-OS system
    network-qos ``pause`` class), PFC switched off on the port contradicts the device's own
    lossless design: a RoCE port with a fault (RT201), not a port outside."""
    return (
        port.pfc_mode == "off"
        and not (port.pfc_rx or port.pfc_tx)
        and not port.pfc_priority_to_queue
    )


def _reached_queues(port: Port) -> set[int] | None:
    """Egress queues the port's DSCP map can put packets in; None when a map is unknown."""
    dmap, p2tc, tc2q = port.dscp_to_priority, port.priority_to_tc, port.tc_to_queue
    if dmap is None or p2tc is None or tc2q is None or port.trust in ("pcp", "both", None):
        return None  # a CoS classification may reach any queue
    out: set[int] = set()
    for prio in set(dmap.values()):
        tc = p2tc.get(prio, prio)
        out.add(tc2q.get(tc, tc))
    return out


def _ecn_evidence(port: Port) -> bool:
    queues = set(port.ecn or {})
    if not queues:
        return False
    reached = _reached_queues(port)
    return reached is None or bool(queues & reached)


def _strong_evidence(port: Port) -> bool:
    if port.pfc_rx or port.pfc_tx:
        return True
    if explicitly_lossy(port):
        return False
    if _ecn_evidence(port):
        return True
    return any(
        p.computed_at_runtime or (p.xoff_bytes or 0) > 0 for p in (port.pg_buffers or {}).values()
    )


def lossless_state_known(port: Port) -> bool:
    """True when the snapshot says whether PFC is on (so a port without evidence is lossy)."""
    return port.pfc_rx is not None and port.pfc_tx is not None


def _unread_ports(device: Device) -> set[str]:
    """Ports with a line not understood that may carry their lossless config. On a port
    whose PFC the config explicitly switches off only an unread PFC line counts: a
    classification or ECN line cannot make it lossless."""
    out: set[str] = set()
    for item in device.unparsed:
        if item.ports is None:
            continue
        touched = _LOSSLESS_FEATURES & set(item.features)
        for name in item.ports:
            port = device.ports.get(name)
            lossy = port is not None and explicitly_lossy(port)
            if ("pfc" in touched) if lossy else touched:
                out.add(name)
    return out


def _link_ports(device: str, links: Iterable[Link]) -> set[str]:
    return {e.port for lk in links for e in (lk.a, lk.b) if e.device == device}


def roce_scope(device: Device, links: Sequence[Link] = ()) -> RoceScope:
    """Split the switch ports of ``device`` into RoCE, outside and admin-down ports."""
    down = tuple(p for p in device.ports.values() if p.admin_up is False)
    up = [p for p in device.ports.values() if p.admin_up is not False]
    declared = device.roce_ports
    if declared is not None:
        roce = tuple(p for p in up if any(port_matches(p.name, pat) for pat in declared))
        unmatched = tuple(
            pat for pat in declared if not any(port_matches(n, pat) for n in device.ports)
        )
        names = {p.name for p in roce}
        outside = tuple(p for p in up if p.name not in names)
        return RoceScope(roce, outside, down, "inventory", unmatched)
    linked = _link_ports(device.name, links)
    if linked:
        roce = tuple(p for p in up if p.name in linked)
        outside = tuple(p for p in up if p.name not in linked)
        return RoceScope(roce, outside, down, "links")
    unread = _unread_ports(device)
    lossless = any(_strong_evidence(p) for p in up)
    roce_list: list[Port] = []
    outside_list: list[Port] = []
    for port in up:
        evidence = port.template or has_lossless_evidence(port, device_lossless=lossless)
        if evidence or not lossless_state_known(port) or port.name in unread:
            roce_list.append(port)
        else:
            outside_list.append(port)
    return RoceScope(tuple(roce_list), tuple(outside_list), down, "config")
