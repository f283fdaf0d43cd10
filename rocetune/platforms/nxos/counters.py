"""Cisco NX-OS switch counters for the apply gate, read per port:

``show queuing interface <if> | json``: ``TABLE_module`` / ``ROW_module`` /
``TABLE_queuing_interface`` / ``ROW_queuing_interface`` (the ``Egress`` one, ``dir``) /
``TABLE_qosgrp_egress_stats`` / ``ROW_qosgrp_egress_stats`` per ``eq-qosgrp`` / its
``TABLE_qosgrp_egress_stats_entry`` rows: ``eq-stat-type`` ``Dropped`` with
``eq-stat-units`` ``Pkts``, value ``eq-uc-stat-value`` + ``eq-oobfc-uc-stat-value`` +
``eq-mc-stat-value``. NX-API prints a single row as an object, several as a list.

=========================  =======================================================
PortCounters field         source
=========================  =======================================================
discards_by_priority       dropped packets of the qos-group (traffic class) that
                           carries the priority (the port's CoS -> qos-group map)
=========================  =======================================================

Not read (the gate names it): PFC watchdog storms (``show queuing pfc-queue``; rocetune
has no output of it) and per-priority PFC frames (``show interface priority-flow-control``
counts per interface only). **[unverified]** The JSON keys are those public monitoring code
written against a Nexus 9300 (NX-OS 10.3) reads; no captured output (docs/apply.md).
"""

from __future__ import annotations

import json
import re
from typing import Any

from rocetune.model import Device, PortCounters
from rocetune.platforms.counters import CounterReader, Outputs, by_priority

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9/.:-]*$")


def ports(device: Device) -> list[str]:
    """The ports read: those with PFC configured in the model, else every port."""
    names = [n for n, p in device.ports.items() if p.pfc_rx or p.pfc_tx or p.pfc_mode == "on"]
    return sorted(n for n in (names or list(device.ports)) if _NAME.match(n))


def queuing_command(port: str) -> str:
    """The per-port queuing statistics command."""
    return f"show queuing interface {port} | json"


def commands(device: Device) -> tuple[str, ...]:
    """One command per read port."""
    return tuple(queuing_command(p) for p in ports(device))


def _rows(table: Any, row: str) -> list[dict[str, Any]]:
    got = table.get(row, []) if isinstance(table, dict) else []
    return [got] if isinstance(got, dict) else [r for r in got if isinstance(r, dict)]


def dropped(text: str) -> dict[int, int]:
    """qos-group -> egress packets dropped."""
    body: Any = json.loads(text)
    modules = _rows(body.get("TABLE_module") if isinstance(body, dict) else None, "ROW_module")
    if not modules:
        raise ValueError("show queuing interface | json: no TABLE_module")
    out: dict[int, int] = {}
    for module in modules:
        for qi in _rows(module.get("TABLE_queuing_interface"), "ROW_queuing_interface"):
            if qi.get("dir") != "Egress":
                continue
            for grp in _rows(qi.get("TABLE_qosgrp_egress_stats"), "ROW_qosgrp_egress_stats"):
                group = str(grp.get("eq-qosgrp", ""))
                if not group.isdigit():
                    continue
                entries = _rows(
                    grp.get("TABLE_qosgrp_egress_stats_entry"), "ROW_qosgrp_egress_stats_entry"
                )
                for e in entries:
                    if e.get("eq-stat-type") == "Dropped" and e.get("eq-stat-units") == "Pkts":
                        keys = ("eq-uc-stat-value", "eq-oobfc-uc-stat-value", "eq-mc-stat-value")
                        out[int(group)] = sum(int(e.get(k, 0) or 0) for k in keys)
    if not out:  # the layout is unverified: no drop row read is unknown, not "0 drops"
        raise ValueError("show queuing interface | json: no egress Dropped/Pkts row")
    return out


def parse(device: Device, outputs: Outputs) -> list[PortCounters]:
    """Per-port queuing JSON -> lossless drops per priority."""
    out = []
    for name in ports(device):
        text = outputs.get(queuing_command(name))
        if text is None:
            continue
        drops = dropped(text)
        out.append(
            PortCounters(
                device=device.name,
                port=name,
                discards_by_priority=by_priority(drops, device.ports.get(name), "tc") or {},
            )
        )
    return out


READER = CounterReader(
    commands=commands,
    parse=parse,
    unread=(
        "NX-OS: PFC watchdog storms and per-priority PFC frames are not read "
        "(no confirmed output layout)",
    ),
)
"""Cisco NX-OS's counter reader."""
