"""Optional JSON outputs: ``show interface | json`` and ``show lldp neighbors detail | json``.

Shapes: see :mod:`.commands`. ``ROW_*`` is an object for one row and a list for several.

Interfaces: per Ethernet port, ``eth_speed`` (``"40 Gb/s"``, ``"1000 Mb/s"``; ``auto-speed``
on a port that is down is not a speed), ``eth_mtu``, ``admin_state`` (``up``/``down``) and
``eth_in_flowctrl`` / ``eth_out_flowctrl`` (``on``/``off``: 802.3x pause). The parser uses
them only where the running-config is silent. ``eth_bw`` is not used: it is the configurable
``bandwidth`` routing metric, not the link speed.

LLDP: one :class:`~rocetune.model.LldpNeighbor` per row with ``l_port_id``, ``sys_name`` (the
chassis ID when the neighbour sends no system name) and ``port_id``; port names are
normalised like the running-config (``Eth1/1`` -> ``Ethernet1/1``); ``port_desc`` is kept as
the remote port description unless it is ``null`` or ``not advertised``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rocetune.model import LldpNeighbor
from rocetune.platforms.common.jsonpos import JsonDoc, parse_json
from rocetune.platforms.nxos.commands import unwrap
from rocetune.platforms.nxos.lines import Issues
from rocetune.platforms.nxos.values import ethernet_name, normalise_port, parse_int

_SPEED = re.compile(r"(\d{1,7})(?:\.(\d{1,3}))?\s*([GM])b/s", re.IGNORECASE)
_NOT_SENT = frozenset({"", "null", "not advertised", "n/a"})


@dataclass(frozen=True, slots=True)
class OperPort:
    """Operational facts of one Ethernet port."""

    speed_mbps: int | None
    mtu: int | None
    admin_up: bool | None
    link_pause: bool | None
    line: int | None


def _rows(doc: JsonDoc, table: str, row: str, issues: Issues) -> list[tuple[Any, int | None]]:
    body, path = unwrap(doc.value)
    if not isinstance(body, dict):
        issues.add("(document)", "expected a JSON object", 1)
        return []
    node = body.get(table)
    rows = node.get(row) if isinstance(node, dict) else None
    if isinstance(rows, dict):
        return [(rows, doc.line(*path, table, row))]
    if isinstance(rows, list):
        return [(r, doc.line(*path, table, row, i)) for i, r in enumerate(rows)]
    if node is not None or not set(body) <= {"neigh_hdr", "neigh_count"}:
        issues.add(table, f"expected {table}.{row} rows", doc.line(*path, table))
    return []


def read_interfaces(text: str, file: str, issues: Issues) -> dict[str, OperPort]:
    """Read ``show interface | json``; raise ParseError when it is not JSON."""
    doc = parse_json(text, file)
    out: dict[str, OperPort] = {}
    for row, line in _rows(doc, "TABLE_interface", "ROW_interface", issues):
        name = ethernet_name(str(row.get("interface", ""))) if isinstance(row, dict) else None
        if name is None or not isinstance(row, dict):
            continue
        out[name] = OperPort(
            speed_mbps=_speed(row.get("eth_speed")),
            mtu=parse_int(str(row.get("eth_mtu", "")), 64, 65535),
            admin_up=_on_off(row.get("admin_state"), "up", "down"),
            link_pause=_pause(row),
            line=line,
        )
    return out


def _speed(value: object) -> int | None:
    match = _SPEED.fullmatch(str(value).strip()) if isinstance(value, str) else None
    if match is None:
        return None
    whole, frac, unit = match.groups()
    mbps = int(whole) * 1000 + int((frac or "0").ljust(3, "0")) if unit.upper() == "G" else None
    return int(whole) if mbps is None else mbps


def _on_off(value: object, on: str, off: str) -> bool | None:
    if value == on:
        return True
    if value == off:
        return False
    return None


def _pause(row: dict[str, Any]) -> bool | None:
    rx = _on_off(row.get("eth_in_flowctrl"), "on", "off")
    tx = _on_off(row.get("eth_out_flowctrl"), "on", "off")
    if rx is None or tx is None:
        return True if (rx or tx) else None
    return rx or tx


def read_lldp(text: str, file: str, issues: Issues) -> tuple[LldpNeighbor, ...]:
    """Read ``show lldp neighbors detail | json``; raise ParseError when it is not JSON."""
    doc = parse_json(text, file)
    out: list[LldpNeighbor] = []
    for row, line in _rows(doc, "TABLE_nbor_detail", "ROW_nbor_detail", issues):
        found = _neighbor(row)
        if found is None:
            issues.add("ROW_nbor_detail", "neighbour without l_port_id, sys_name or port_id", line)
        else:
            out.append(found)
    return tuple(out)


def _neighbor(row: object) -> LldpNeighbor | None:
    if not isinstance(row, dict):
        return None
    local, remote = _text(row.get("l_port_id")), _text(row.get("port_id"))
    name = _text(row.get("sys_name")) or _text(row.get("chassis_id"))
    if not local or not remote or not name:
        return None
    return LldpNeighbor(
        local_port=normalise_port(local),
        remote_name=name,
        remote_port=normalise_port(remote),
        remote_port_descr=_text(row.get("port_desc")),
    )


def _text(value: object) -> str | None:
    if not isinstance(value, str | int) or isinstance(value, bool):
        return None
    text = str(value).strip()
    return None if text.lower() in _NOT_SENT else text
