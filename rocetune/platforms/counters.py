"""The switch counter-reader contract: the ``show`` commands that read PFC pause, lossless
drop and PFC-watchdog counters, and the parse of their outputs into
:class:`~rocetune.model.PortCounters` (one per port; a field is None where the platform's
outputs do not carry that counter).

``rocetune apply`` reads these before arming a change (the baseline) and again after
(docs/apply.md, "Counter gate"). A platform package that can read its counters sets
``Platform.counter_reader``; the vendor syntax stays in the package. This module holds only
what every reader shares: the contract and the mapping of per-queue / per-traffic-class /
per-priority-group counts onto 802.1p priorities through the port's own maps.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from rocetune.model import Device, Port, PortCounters

Outputs = Mapping[str, "str | None"]
"""command -> its output (None: the device refused the command or it was not run)."""


@dataclass(frozen=True)
class CounterReader:
    """How one platform reads its switch counters."""

    commands: Callable[[Device], tuple[str, ...]]
    """The commands for this device (some platforms ask per port)."""
    parse: Callable[[Device, Outputs], list[PortCounters]]
    """The outputs -> one PortCounters per port seen; ValueError when an output is not the
    expected shape (the gate then records the read as failed, never as zero)."""
    unread: tuple[str, ...] = ()
    """Counter kinds the platform's reader does not give, with why (shown in the gate)."""


Index = Literal["queue", "tc", "pg", "priority"]


def slot(port: Port | None, priority: int, index: Index) -> int:
    """The queue / traffic class / priority group that carries ``priority`` on ``port``.

    The port's parsed maps decide (PFC priority -> queue/PG where the platform keeps one,
    else priority -> traffic class -> queue/PG); without a map the index equals the
    priority (the default 1:1 mapping of every platform rocetune reads)."""
    if index == "priority":
        return priority
    if port is None:
        return priority
    if index == "queue" and port.pfc_priority_to_queue and priority in port.pfc_priority_to_queue:
        return port.pfc_priority_to_queue[priority]
    if index == "pg" and port.pfc_priority_to_pg and priority in port.pfc_priority_to_pg:
        return port.pfc_priority_to_pg[priority]
    tc = (port.priority_to_tc or {}).get(priority, priority)
    if index == "tc":
        return tc
    table = port.tc_to_queue if index == "queue" else port.tc_to_pg
    return (table or {}).get(tc, tc)


def by_priority(
    counts: Mapping[int, int], port: Port | None, index: Index
) -> dict[int, int] | None:
    """Counts keyed by queue/TC/PG -> keyed by the priorities they carry (None if empty)."""
    if not counts:
        return None
    out = {p: counts[s] for p in range(8) if (s := slot(port, p, index)) in counts}
    return out or None


def add(a: dict[int, int] | None, b: dict[int, int] | None) -> dict[int, int] | None:
    """Per-priority sum of two maps (None only when both are None)."""
    if a is None or b is None:
        return a if b is None else b
    return {p: a.get(p, 0) + b.get(p, 0) for p in sorted({*a, *b})}


def number(text: str) -> int:
    """``15,437`` / ``0`` / ``0 Bytes`` -> int; ValueError for anything else."""
    word = text.strip().split()[0] if text.strip() else ""
    value = word.replace(",", "")
    if not value.isdigit():
        raise ValueError(f"not a counter: {text!r}")
    return int(value)


def table_rows(text: str) -> list[list[str]]:
    """The rows of a dash-underlined table (``----  ----``), split on runs of 2+ spaces; the
    header is the line above the dashes. Several tables in one text are all returned,
    each header row included (callers look for their header)."""
    dashes = re.compile(r"\s*-{3,}(\s+-{3,})*\s*")
    lines = text.splitlines()
    rows: list[list[str]] = []
    for i, line in enumerate(lines):
        if dashes.fullmatch(line) or not line.strip() or line.lstrip().startswith("="):
            continue
        cells = re.split(r"\s{2,}", line.strip())
        if i + 1 < len(lines) and dashes.fullmatch(lines[i + 1]):
            rows.append(["#header", *cells])
        else:
            rows.append(cells)
    return rows


__all__ = ["CounterReader", "Outputs", "add", "by_priority", "number", "slot", "table_rows"]
