"""Cumulus Linux (NVUE) switch counters for the apply gate, read per port:

- ``nv show interface <if> counters qos`` (Cumulus Linux 5.5 and later; 5.4 and earlier
  spelled it ``qos counters``): the ``Ingress Buffer Statistics`` (per priority group),
  ``Egress Queue Statistics`` (per traffic class) and ``PFC Statistics`` (per switch
  priority) tables;
- ``nv show interface <if> qos pfc-watchdog``: ``PFC WD Status`` per traffic class with its
  ``deadlock-count``.

=========================  =======================================================
PortCounters field         source
=========================  =======================================================
pfc_rx/tx_by_priority      ``rx-pause-frames`` / ``tx-pause-frames`` per switch priority
discards_by_priority       ``rx-buffer-discards`` + ``rx-shared-buffer-discards`` of
                           the priority's PG, + ``tx-uc-buffer-discards`` +
                           ``wred-discards`` of its traffic class (NVUE prints the
                           buffer discards in bytes: the gate compares growth, so a
                           threshold of 0 means "none", whatever the unit)
storm_events               the sum of ``deadlock-count`` over the traffic classes
=========================  =======================================================

Real outputs: tests/fixtures/counters (SOURCES.md, NVIDIA Cumulus Linux 5.12 user guide).
Ports read: those with PFC configured in the parsed model, else every port of the model.
"""

from __future__ import annotations

import re

from rocetune.model import Device, PortCounters
from rocetune.platforms.counters import CounterReader, Outputs, add, by_priority, table_rows

_NAME = re.compile(r"^[A-Za-z0-9_.:-]+$")


def ports(device: Device) -> list[str]:
    """The ports whose counters are read."""
    names = [n for n, p in device.ports.items() if p.pfc_rx or p.pfc_tx or p.pfc_oper]
    return sorted(n for n in (names or list(device.ports)) if _NAME.match(n))


def qos_command(port: str) -> str:
    """The per-port QoS counters command."""
    return f"nv show interface {port} counters qos"


def watchdog_command(port: str) -> str:
    """The per-port PFC watchdog status command."""
    return f"nv show interface {port} qos pfc-watchdog"


def commands(device: Device) -> tuple[str, ...]:
    """Two commands per read port."""
    return tuple(c for p in ports(device) for c in (qos_command(p), watchdog_command(p)))


_UNITS = {"bytes": 1, "b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3, "tb": 1024**4}


def amount(text: str) -> int:
    """``0``, ``12``, ``0 Bytes``, ``56.52 MB`` -> an integer (bytes for sizes)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(?:\s*([A-Za-z]+))?", text.strip().replace(",", ""))
    if m is None or (m[2] is not None and m[2].lower() not in _UNITS):
        raise ValueError(f"not a counter: {text!r}")
    return round(float(m[1]) * _UNITS[(m[2] or "b").lower()])


_PG = ["priority-group", "rx-frames", "rx-buffer-discards", "rx-shared-buffer-discards"]
_TC = ["traffic-class", "tx-frames", "tx-bytes", "tx-uc-buffer-discards", "wred-discards"]
_PFC = ["switch-priority", "rx-pause-frames", "rx-pause-duration", "tx-pause-frames"]
_WD = ["traffic-class", "status", "deadlock-count"]


def _tables(text: str) -> dict[str, list[list[str]]]:
    """Header key -> its data rows, for the tables this reader knows."""
    known = {"pg": _PG, "tc": _TC, "pfc": _PFC, "wd": _WD}
    got: dict[str, list[list[str]]] = {}
    into: list[list[str]] | None = None
    for row in table_rows(text):
        if row[0] == "#header":
            key = next((k for k, h in known.items() if row[1 : 1 + len(h)] == h), None)
            into = got.setdefault(key, []) if key else None
            continue
        if into is not None and row[0].isdigit():
            into.append(row)
    return got


def parse_port(device: Device, name: str, qos: str | None, wd: str | None) -> PortCounters:
    """One port's two outputs -> its counters."""
    port = device.ports.get(name)
    tables = _tables(qos) if qos is not None else {}
    if qos is not None and not {"pg", "tc", "pfc"} & set(tables):
        raise ValueError(f"{qos_command(name)}: none of the QoS counter tables")
    pg = {int(r[0]): amount(r[2]) + amount(r[3]) for r in tables.get("pg", []) if len(r) >= 4}
    tc = {int(r[0]): amount(r[3]) + amount(r[4]) for r in tables.get("tc", []) if len(r) >= 5}
    pfc = [r for r in tables.get("pfc", []) if len(r) >= 5]
    drops = add(by_priority(pg, port, "pg"), by_priority(tc, port, "tc"))
    storms = None
    if wd is not None:
        rows = [r for r in _tables(wd).get("wd", []) if len(r) >= 3]
        storms = sum(amount(r[2]) for r in rows) if rows else None
    return PortCounters(
        device=device.name,
        port=name,
        pfc_rx_by_priority={int(r[0]): amount(r[1]) for r in pfc} or None,
        pfc_tx_by_priority={int(r[0]): amount(r[3]) for r in pfc} or None,
        discards_by_priority=drops if ("pg" in tables or "tc" in tables) else None,
        storm_events=storms,
    )


def parse(device: Device, outputs: Outputs) -> list[PortCounters]:
    """The per-port outputs -> one PortCounters per read port."""
    out = []
    for name in ports(device):
        qos, wd = outputs.get(qos_command(name)), outputs.get(watchdog_command(name))
        if qos is None and wd is None:
            continue
        out.append(parse_port(device, name, qos, wd))
    return out


READER = CounterReader(commands=commands, parse=parse)
"""Cumulus NVUE's counter reader."""
