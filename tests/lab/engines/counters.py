"""PFC / lossless-drop / watchdog counters of a lab switch, moving with the engine's state.

Every read of a counter command is one "interval" of traffic: each read port sends and
receives ``pause_step`` PFC frames on priority 3 (pause frames are normal under load).
A fault makes things worse *only while the running config differs from the one the
engine started with*, i.e. after a change was applied and until it is rolled back:

- spec option ``counter_fault`` or control ``lab counters fault {json}``:
  ``{"port": "Ethernet0", "priority": 3, "drops": 50, "storms": 0, "pause": 0}`` adds
  ``drops`` lossless drops, ``storms`` watchdog storms and ``pause`` extra PFC frames on that
  port and priority at every read while changed (``"port": "*"``: every read port);
- ``lab counters clear``: no fault.

The lab maps priority p to queue / traffic class / priority group p (the 1:1 default).
Each platform module renders these numbers in its own output layout (the layouts of
tests/fixtures/counters), so rocetune's readers parse them exactly as a device's output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PortCounts:
    """Cumulative counters of one port, per priority (= queue = TC = PG in the lab)."""

    pfc_rx: list[int] = field(default_factory=lambda: [0] * 8)
    pfc_tx: list[int] = field(default_factory=lambda: [0] * 8)
    drops: list[int] = field(default_factory=lambda: [0] * 8)
    storms: list[int] = field(default_factory=lambda: [0] * 8)


class CounterLab:
    """The counters of one lab switch."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.fault: dict[str, Any] | None = spec.get("counter_fault")
        self.pause_step = int(spec.get("pause_step", 10))
        self.ports: dict[str, PortCounts] = {}
        self.reads = 0

    def control(self, words: list[str], raw: str) -> str:
        """``counters fault {json}`` / ``counters clear``; the reply text."""
        if words[:2] == ["counters", "clear"]:
            self.fault = None
            return "counters fault cleared"
        if words[:2] == ["counters", "fault"]:
            self.fault = json.loads(raw.split("fault", 1)[1])
            return "counters fault armed"
        raise ValueError(f"lab: unknown counters control {raw!r}")

    def read(self, names: list[str], changed: bool) -> dict[str, PortCounts]:
        """One interval of traffic on ``names``; their counters after it."""
        self.reads += 1
        fault = self.fault if changed else None
        for name in names:
            c = self.ports.setdefault(name, PortCounts())
            c.pfc_rx[3] += self.pause_step
            c.pfc_tx[3] += self.pause_step
            if fault is not None and fault.get("port") in (name, "*"):
                p = int(fault.get("priority", 3))
                c.drops[p] += int(fault.get("drops", 0))
                c.storms[p] += int(fault.get("storms", 0))
                c.pfc_rx[p] += int(fault.get("pause", 0))
        return {n: self.ports[n] for n in names}


def _table(head: list[str], rows: list[list[str]]) -> str:
    """A ``tabulate``-style table (right-aligned, two spaces, dashed header)."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    line = "  ".join(h.rjust(w) for h, w in zip(head, widths, strict=True))
    dash = "  ".join("-" * w for w in widths)
    body = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join([line, dash, *body])


def _n(value: int) -> str:
    return f"{value:,}"


def sonic_pfc(counts: dict[str, PortCounts]) -> str:
    """``show pfc counters``."""
    out = []
    for label, attr in (("Port Rx", "pfc_rx"), ("Port Tx", "pfc_tx")):
        rows = [[n, *(_n(v) for v in getattr(c, attr))] for n, c in counts.items()]
        out.append(_table([label, *(f"PFC{i}" for i in range(8))], rows))
    return "\n" + "\n\n".join(out) + "\n"


def sonic_pfcwd(counts: dict[str, PortCounts], lossless: list[int]) -> str:
    """``show pfcwd stats``: one row per watched (lossless) queue."""
    rows = []
    for n, c in counts.items():
        for q in lossless:
            s = c.storms[q]
            rows.append([f"{n}:{q}", "operational", f"{s}/{s}", "0/0", "0/0", "0/0", "0/0"])
    head = ["QUEUE", "STATUS", "STORM DETECTED/RESTORED", "TX OK/DROP", "RX OK/DROP"]
    head += ["TX LAST OK/DROP", "RX LAST OK/DROP"]
    return _table(head, rows or [["", "", "", "", "", "", ""]]) + "\n"


def sonic_queues(counts: dict[str, PortCounts]) -> str:
    """``show queue counters`` (unicast queues 0-7)."""
    blocks = []
    for n, c in counts.items():
        rows = [[n, f"UC{q}", "0", "0", _n(c.drops[q]), "0"] for q in range(8)]
        head = ["Port", "TxQ", "Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes"]
        blocks.append("For namespace :\n" + _table(head, rows))
    return "\n\n".join(blocks) + "\n"


PG_HEAD = ["priority-group", "rx-frames", "rx-buffer-discards", "rx-shared-buffer-discards"]
TC_HEAD = ["traffic-class", "tx-frames", "tx-bytes", "tx-uc-buffer-discards", "wred-discards"]
PFC_HEAD = ["switch-priority", "rx-pause-frames", "rx-pause-duration", "tx-pause-frames"]
PFC_HEAD += ["tx-pause-duration"]


def _block(title: str, head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    fmt = [
        "    " + "  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True))
        for r in [head, ["-" * w for w in widths], *rows]
    ]
    return "\n".join([title, "=" * (len(title) + 4), *fmt])


def nvue_qos(c: PortCounts) -> str:
    """``nv show interface <if> counters qos``."""
    pg = [[str(p), "0", f"{c.drops[p]} Bytes", "0 Bytes"] for p in range(8)]
    tc = [[str(p), "0", "0 Bytes", "0 Bytes", "0"] for p in range(8)]
    pfc = [[str(p), str(c.pfc_rx[p]), "0", str(c.pfc_tx[p]), "0"] for p in range(8)]
    blocks = [
        _block("Ingress Buffer Statistics", PG_HEAD, pg),
        _block("Egress Queue Statistics", TC_HEAD, tc),
        _block("PFC Statistics", PFC_HEAD, pfc),
    ]
    return "\n\n".join(blocks) + "\n"


def nvue_watchdog(c: PortCounts) -> str:
    """``nv show interface <if> qos pfc-watchdog``."""
    rows = [f"    {tc:<13}  {'OK':<8}  {c.storms[tc]}" for tc in range(8)]
    head = (
        "    traffic-class  status    deadlock-count\n    -------------  --------  --------------"
    )
    return (
        "                 operational  applied\n---------------  -----------  -------\n"
        "state            enabled      enabled\n\nPFC WD Status\n===========================\n"
        + head
        + "\n"
        + "\n".join(rows)
        + "\n"
    )


def eos_watchdog(counts: dict[str, PortCounts]) -> str:
    """``show priority-flow-control counters watchdog | json`` (interfaces with events)."""
    interfaces = {
        n: {
            "txQueues": {
                str(q): {"stuckCount": c.storms[q], "recoveryCount": c.storms[q]}
                for q in range(8)
                if c.storms[q]
            }
        }
        for n, c in counts.items()
        if any(c.storms)
    }
    return json.dumps({"interfaces": interfaces}, indent=2) + "\n"


def nxos_queuing(c: PortCounts) -> str:
    """``show queuing interface <if> | json`` (egress per qos-group)."""
    groups = [
        {
            "eq-qosgrp": str(q),
            "TABLE_qosgrp_egress_stats_entry": {
                "ROW_qosgrp_egress_stats_entry": [
                    {"eq-stat-type": "Tx", "eq-stat-units": "Pkts", "eq-uc-stat-value": "0"},
                    {
                        "eq-stat-type": "Dropped",
                        "eq-stat-units": "Pkts",
                        "eq-uc-stat-value": str(c.drops[q]),
                        "eq-oobfc-uc-stat-value": "0",
                        "eq-mc-stat-value": "0",
                    },
                ]
            },
        }
        for q in range(8)
    ]
    body = {
        "TABLE_module": {
            "ROW_module": {
                "TABLE_queuing_interface": {
                    "ROW_queuing_interface": [
                        {
                            "dir": "Egress",
                            "TABLE_qosgrp_egress_stats": {"ROW_qosgrp_egress_stats": groups},
                        },
                        {"dir": "Ingress"},
                    ]
                }
            }
        }
    }
    return json.dumps(body, indent=2) + "\n"
