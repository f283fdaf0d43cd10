"""Arista EOS switch counters for the apply gate.

``show priority-flow-control counters watchdog | json``: ``interfaces`` -> interface ->
``txQueues`` -> queue -> ``stuckCount`` / ``recoveryCount`` (PFC watchdog stuck-queue
events). EOS omits an interface until its first event and prints ``{"interfaces": {}}``
when no event ever fired, so every PFC port of the parsed model that is absent counts 0.

=========================  =======================================================
PortCounters field         source
=========================  =======================================================
storm_events               the sum of ``stuckCount`` over the port's tx queues
=========================  =======================================================

Not read (the gate names them): per-priority PFC frames and lossless-queue drops. EOS
prints PFC frames per interface (``show priority-flow-control counters``: ``RxPfc``,
``TxPfc``, not per priority) and queue drops in ``show interfaces counters queue``, whose
layout rocetune has no real output of. **[unverified]** The JSON keys are those public
monitoring code reads from EOS (docs/apply.md, "Counter gate"); no captured output.
"""

from __future__ import annotations

import json
from typing import Any

from rocetune.model import Device, PortCounters
from rocetune.platforms.counters import CounterReader, Outputs

WATCHDOG = "show priority-flow-control counters watchdog | json"


def commands(device: Device) -> tuple[str, ...]:
    """One command lists every interface."""
    del device
    return (WATCHDOG,)


def _ports(device: Device) -> list[str]:
    names = [n for n, p in device.ports.items() if p.pfc_rx or p.pfc_tx]
    return sorted(names or device.ports)


def parse(device: Device, outputs: Outputs) -> list[PortCounters]:
    """The watchdog JSON -> storm events per port (0 for PFC ports EOS does not list)."""
    text = outputs.get(WATCHDOG)
    if text is None:
        return []
    data: Any = json.loads(text)
    interfaces = data.get("interfaces") if isinstance(data, dict) else None
    if not isinstance(interfaces, dict):
        raise ValueError(f"{WATCHDOG}: no 'interfaces' object")
    storms: dict[str, int] = {}
    for name, body in interfaces.items():
        # the layout is unverified: a listed interface whose keys differ is unknown, not 0
        queues = body.get("txQueues") if isinstance(body, dict) else None
        if not isinstance(queues, dict):
            raise ValueError(f"{WATCHDOG}: {name}: no 'txQueues' object")
        counts = [q.get("stuckCount") if isinstance(q, dict) else None for q in queues.values()]
        if not all(isinstance(c, int) for c in counts):
            raise ValueError(f"{WATCHDOG}: {name}: a queue without an integer 'stuckCount'")
        storms[name] = sum(int(c) for c in counts if isinstance(c, int))
    return [
        PortCounters(device=device.name, port=n, storm_events=storms.get(n, 0))
        for n in sorted({*_ports(device), *storms})
    ]


READER = CounterReader(
    commands=commands,
    parse=parse,
    unread=(
        "EOS: per-priority PFC frames and lossless-queue drops are not read "
        "(no confirmed output layout)",
    ),
)
"""Arista EOS's counter reader."""
