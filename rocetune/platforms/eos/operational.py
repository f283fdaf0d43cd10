"""Operational JSON outputs: LLDP neighbours and interface status.

Shapes (eAPI JSON, the same as ``<command> | json`` on the CLI):

- ``show lldp neighbors detail | json``: ``{"lldpNeighbors": {"<local port>":
  {"lldpNeighborInfo": [{"systemName", "chassisId", "neighborInterfaceInfo":
  {"interfaceIdType", "interfaceId" (quoted), "interfaceId_v2", "interfaceDescription"}}]}}}``
  (ANTA ``VerifyLLDPNeighbors`` unit-test data, aristanetworks/anta
  ``tests/units/anta_tests/test_connectivity.py``);
- ``show lldp neighbors | json``: ``{"lldpNeighbors": [{"port", "neighborDevice",
  "neighborPort", "ttl"}], "tablesInserts": ...}`` (eAPI examples in Network Programmability
  and Automation, O'Reilly, ch. 10; ANTA/AVD validation scripts).
- ``show interfaces status | json``: ``{"interfaceStatuses": {"<name>": {"linkStatus":
  "connected|notconnect|disabled|errdisabled", "bandwidth": <bit/s>, "lineProtocolStatus",
  "interfaceType", "duplex", "autoNegotiateActive", "vlanInformation", "description"}}}``
  (Arista EOS Central "show interfaces status ... | json" example; goeapi-based clients).
  ``bandwidth`` is the operational speed only when the link is ``connected``; ``disabled``
  means administratively shut down.

Local port names are expanded to EOS long names (``Et1`` -> ``Ethernet1``) so they match the
running-config, and a local name that is not an EOS interface name is Unparsed; a neighbour's
port keeps its own spelling except EOS abbreviations. A system
name falls back to the chassis ID. Unreadable JSON or entries become Unparsed items; the
rest of the device still parses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rocetune.errors import ParseError
from rocetune.model import LldpNeighbor
from rocetune.platforms.common.jsonpos import JsonDoc, parse_json
from rocetune.platforms.eos.blocks import Issues
from rocetune.platforms.eos.values import canonical_name, short_to_long

_ADMIN = {"connected": True, "notconnect": True, "errdisabled": True, "disabled": False}


@dataclass(frozen=True, slots=True)
class OperLink:
    """What ``show interfaces status`` says about one port."""

    speed_mbps: int | None
    admin_up: bool | None
    line: int | None


def _load(text: str, file: str, issues: Issues, key: str) -> tuple[JsonDoc, Any] | None:
    try:
        doc = parse_json(text, file)
    except ParseError as exc:
        issues.add(key, f"unreadable JSON: {exc.message}", exc.line)
        return None
    value = doc.value.get(key) if isinstance(doc.value, dict) else None
    if value is None:
        issues.add(key, f"no {key!r} object in this output", 1)
        return None
    return doc, value


def read_lldp(text: str, file: str, issues: Issues) -> tuple[LldpNeighbor, ...] | None:
    """Read either LLDP output; None when the output cannot be read at all."""
    loaded = _load(text, file, issues, "lldpNeighbors")
    if loaded is None:
        return None
    doc, table = loaded
    found: list[LldpNeighbor] = []
    if isinstance(table, list):
        for index, entry in enumerate(table):
            found.extend(_brief(entry, doc, index, issues))
    elif isinstance(table, dict):
        for local, entry in table.items():
            found.extend(_detail(local, entry, doc, issues))
    else:
        issues.add("lldpNeighbors", "expected a list or an object", doc.line("lldpNeighbors"))
        return None
    return tuple(sorted(set(found), key=lambda n: (n.local_port, n.remote_name, n.remote_port)))


def _text(value: object) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip().strip('"').strip()
    return None


def _brief(entry: object, doc: JsonDoc, index: int, issues: Issues) -> list[LldpNeighbor]:
    data = entry if isinstance(entry, dict) else {}
    local, name, port = (_text(data.get(k)) for k in ("port", "neighborDevice", "neighborPort"))
    local = canonical_name(local) if local is not None else None
    if local is None or name is None or port is None:
        issues.add(
            f"lldpNeighbors[{index}]",
            "LLDP entry without a local EOS port, neighborDevice and neighborPort",
            doc.line("lldpNeighbors", index),
        )
        return []
    return [LldpNeighbor(local_port=local, remote_name=name, remote_port=short_to_long(port))]


def _detail(local: str, entry: object, doc: JsonDoc, issues: Issues) -> list[LldpNeighbor]:
    infos = entry.get("lldpNeighborInfo") if isinstance(entry, dict) else None
    long_name = canonical_name(local)
    if not isinstance(infos, list) or long_name is None:
        issues.add(
            f"lldpNeighbors.{local}",
            "expected an EOS port name with an lldpNeighborInfo list",
            doc.line("lldpNeighbors", local),
        )
        return []
    out: list[LldpNeighbor] = []
    for index, info in enumerate(infos):
        data = info if isinstance(info, dict) else {}
        iface = data.get("neighborInterfaceInfo")
        iface = iface if isinstance(iface, dict) else {}
        name = _text(data.get("systemName")) or _text(data.get("chassisId"))
        port = _text(iface.get("interfaceId_v2")) or _text(iface.get("interfaceId"))
        if name is None or port is None:
            issues.add(
                f"lldpNeighbors.{local}.lldpNeighborInfo[{index}]",
                "LLDP neighbour without a system name or port ID",
                doc.line("lldpNeighbors", local, "lldpNeighborInfo", index),
            )
            continue
        out.append(
            LldpNeighbor(
                local_port=long_name,
                remote_name=name,
                remote_port=short_to_long(port),
                remote_port_descr=_text(iface.get("interfaceDescription")),
            )
        )
    return out


def read_status(text: str, file: str, issues: Issues) -> dict[str, OperLink]:
    """Read ``show interfaces status | json``: long port name -> operational link."""
    loaded = _load(text, file, issues, "interfaceStatuses")
    if loaded is None:
        return {}
    doc, table = loaded
    if not isinstance(table, dict):
        issues.add("interfaceStatuses", "expected an object", doc.line("interfaceStatuses"))
        return {}
    out: dict[str, OperLink] = {}
    for name, entry in table.items():
        data = entry if isinstance(entry, dict) else {}
        status = data.get("linkStatus")
        bandwidth = data.get("bandwidth")
        speed = None
        if status == "connected" and isinstance(bandwidth, int) and not isinstance(bandwidth, bool):
            speed = bandwidth // 1_000_000 if bandwidth >= 1_000_000 else None
        admin = _ADMIN.get(status) if isinstance(status, str) else None
        line = doc.line("interfaceStatuses", name)
        long_name = canonical_name(name)
        if long_name is None:
            issues.add(f"interfaceStatuses.{name}", "not an EOS interface name", line)
            continue
        out[long_name] = OperLink(speed, admin, line)
    return out
