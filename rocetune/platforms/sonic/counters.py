"""SONiC switch counters for the apply gate: ``show pfc counters``, ``show pfcwd stats`` and
``show queue counters`` (sonic-utilities ``pfcstat``, ``pfcwd``, ``queuestat``; tables
printed with ``tabulate``, numbers with thousands commas, ``N/A`` where COUNTERS_DB has no
value).

=========================  =======================================================
PortCounters field         source
=========================  =======================================================
pfc_rx/tx_by_priority      ``show pfc counters``: ``Port Rx`` / ``Port Tx`` tables,
                           columns ``PFC0``..``PFC7`` (per priority)
storm_events               ``show pfcwd stats``: ``STORM DETECTED`` of every
                           ``<port>:<queue>`` row of the port (watchdog storms)
discards_by_priority       ``show queue counters``: ``Drop/pkts`` of the unicast queue
                           ``UC<q>`` that carries the priority (the port's PFC
                           priority -> queue map, else TC_TO_QUEUE, else 1:1)
=========================  =======================================================

Real outputs: tests/fixtures/counters (SOURCES.md). ``show pfcwd stats`` lists only the
queues the watchdog watches; a port without a row has storm_events 0 when the watchdog
table was read, and the lossless queues the watchdog does not watch are not read by it.
"""

from __future__ import annotations

import re

from rocetune.model import Device, PortCounters
from rocetune.platforms.counters import CounterReader, Outputs, by_priority, number, table_rows

PFC = "show pfc counters"
PFCWD = "show pfcwd stats"
QUEUES = "show queue counters"
COMMANDS = (PFC, PFCWD, QUEUES)


def commands(device: Device) -> tuple[str, ...]:
    """The same three commands for every SONiC switch (they list every port)."""
    del device
    return COMMANDS


def _pfc(text: str) -> tuple[dict[str, dict[int, int]], dict[str, dict[int, int]]]:
    rx: dict[str, dict[int, int]] = {}
    tx: dict[str, dict[int, int]] = {}
    into: dict[str, dict[int, int]] | None = None
    seen = False
    for row in table_rows(text):
        if row[0] == "#header":
            head = row[1:]
            if head[:1] in (["Port Rx"], ["Port Tx"]) and head[1:] == [f"PFC{i}" for i in range(8)]:
                into, seen = (rx if head[0] == "Port Rx" else tx), True
            else:
                into = None
            continue
        if into is None or len(row) != 9:
            continue
        into[row[0]] = {p: number(v) for p, v in enumerate(row[1:])}
    if not seen:
        raise ValueError("show pfc counters: no 'Port Rx'/'Port Tx' PFC0..PFC7 table")
    return rx, tx


_QUEUE = re.compile(r"^(\S+):(\d+)$")


def _pfcwd(text: str) -> dict[str, dict[int, int]] | None:
    """port -> queue -> storms detected; None when the output is not the stats table
    (``show pfcwd stats`` prints nothing but the header when no queue is watched)."""
    storms: dict[str, dict[int, int]] = {}
    seen = False
    for row in table_rows(text):
        if row[0] == "#header":
            seen = seen or (row[1:3] == ["QUEUE", "STATUS"])
            continue
        m = _QUEUE.match(row[0])
        if m is None or len(row) < 3:
            continue
        detected = row[2].split("/")[0]
        storms.setdefault(m[1], {})[int(m[2])] = number(detected)
    if not seen:
        return None
    return storms


def _queues(text: str) -> dict[str, dict[int, int]]:
    drops: dict[str, dict[int, int]] = {}
    seen = False
    for row in table_rows(text):
        if row[0] == "#header":
            seen = seen or (row[1:3] == ["Port", "TxQ"] and "Drop/pkts" in row)
            continue
        if len(row) < 5 or not row[1].startswith("UC") or row[4] == "N/A":
            continue
        drops.setdefault(row[0], {})[int(row[1][2:])] = number(row[4])
    if not seen:
        raise ValueError("show queue counters: no 'Port TxQ ... Drop/pkts' table")
    return drops


def parse(device: Device, outputs: Outputs) -> list[PortCounters]:
    """The three outputs -> one PortCounters per port any of them lists."""
    pfc_text, wd_text, q_text = (outputs.get(c) for c in COMMANDS)
    rx, tx = _pfc(pfc_text) if pfc_text is not None else ({}, {})
    storms = _pfcwd(wd_text) if wd_text is not None else None
    drops = _queues(q_text) if q_text is not None else None
    names = sorted({*rx, *tx, *(drops or {}), *(storms or {})})
    out = []
    for name in names:
        port = device.ports.get(name)
        stormed = None if storms is None else sum(storms.get(name, {}).values())
        out.append(
            PortCounters(
                device=device.name,
                port=name,
                pfc_rx_by_priority=rx.get(name) if pfc_text is not None and rx else None,
                pfc_tx_by_priority=tx.get(name) if pfc_text is not None and tx else None,
                storm_events=stormed,
                discards_by_priority=(
                    None if drops is None else by_priority(drops.get(name, {}), port, "queue")
                ),
            )
        )
    return out


READER = CounterReader(commands=commands, parse=parse)
"""SONiC's counter reader."""
