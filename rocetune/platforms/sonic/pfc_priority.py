"""The optional ``show pfc priority`` output -> ``Port.pfc_oper``.

Format (sonic-utilities ``pfc/main.py`` ``showPfcPrio``; sample in the shared corpus,
``sonic/show/show_pfc_priority.txt``): an empty line (or ``Namespace asicN`` on multi-ASIC
switches), then a ``tabulate`` table::

    Interface    Lossless priorities
    -----------  ---------------------
    Ethernet0    3,4

one row per ``PORT_QOS_MAP`` key with its ``pfc_enable`` value, ``N/A`` when the key has
none. Decisions:

* A port the table lists gets its priorities (``N/A`` or an empty cell: ``()``); a port of
  the device the table does not list has no ``PORT_QOS_MAP`` entry and so no PFC: ``()``.
* Keys that are not ports (``global``) are skipped; comma-separated port lists are split.
* A row whose value cannot be read leaves that port unknown (None) and is reported; a port
  the table lists that the configuration lacks is reported (the saved configuration is not
  the running one); text without the table header is reported and changes nothing.

The command reads the running CONFIG_DB, not ASIC state: ``pfc_oper`` is the switch's own
view of what runs, which RT208 compares with the configuration that was parsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rocetune.model import Unparsed
from rocetune.platforms.base import ParseResult
from rocetune.platforms.common.unparsed import account
from rocetune.platforms.sonic.values import parse_indexes, split_names
from rocetune.snapshot import Command, Snapshot

_HEADER = re.compile(r"\s*Interface\s+Lossless priorities\s*")
_RULE = re.compile(r"\s*-+\s+-+\s*")
_NAMESPACE = re.compile(r"\s*Namespace\s+\S+\s*")
_ROW = re.compile(r"\s*(\S+)(?:\s+(\S+))?\s*")
_NOT_SET = "N/A"
_MAX_ITEM = 200


@dataclass
class PfcTable:
    """What one ``show pfc priority`` output says."""

    found: bool = False
    """True when the table header was seen (the output is usable)."""
    ports: dict[str, tuple[tuple[int, ...] | None, int]] = field(default_factory=dict)
    """Port -> (priorities or None when unreadable, line)."""
    problems: list[tuple[str, str, int]] = field(default_factory=list)
    """(item, reason, line) of lines that could not be used."""


def read_pfc_priority(text: str) -> PfcTable:
    """Read the table; never raises."""
    out = PfcTable()
    in_table = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip() or _NAMESPACE.fullmatch(line) or _RULE.fullmatch(line):
            continue
        if _HEADER.fullmatch(line):
            out.found = in_table = True
            continue
        row = _ROW.fullmatch(line) if in_table else None
        if row is None:
            out.problems.append(
                (line.strip(), "not a row of the `show pfc priority` table", number)
            )
            continue
        _row(out, row.group(1), row.group(2) or "", number)
    return out


def _row(out: PfcTable, key: str, value: str, number: int) -> None:
    prios: tuple[int, ...] | None
    if value == _NOT_SET:
        prios = ()
    else:
        found = parse_indexes(value, 7)
        prios = None if found is None else tuple(sorted(set(found)))
        if prios is None:
            out.problems.append((f"{key} {value}", "expected priorities such as 3,4", number))
    for name in split_names(key):
        if name != "global":
            out.ports[name] = (prios, number)


def with_pfc_priority(result: ParseResult, snapshot: Snapshot, command: Command) -> ParseResult:
    """``result`` with ``pfc_oper`` of every port from ``command``'s output, when collected."""
    source = snapshot.get(command)
    if source is None or not source.text.strip():
        return result
    table = read_pfc_priority(source.text)
    device, prov = result.device, result.provenance
    problems = list(table.problems)
    if not table.found:
        problems.append(("(show pfc priority)", "no `Interface  Lossless priorities` table", 1))
    ports = dict(device.ports)
    if table.found:
        for name, port in ports.items():
            prios, number = table.ports.get(name, ((), 1))
            ports[name] = port.model_copy(update={"pfc_oper": prios})
            prov.add(f"ports.{name}.pfc_oper", source.path, number)
        for name, (_, number) in table.ports.items():
            if name not in ports:
                problems.append((name, "listed by `show pfc priority` but not configured", number))
    base = len(device.unparsed)
    items = tuple(
        Unparsed(item=item[:_MAX_ITEM], reason=reason, file=source.path, line=number)
        for item, reason, number in problems
    )
    account(prov, items, first=base)
    update = {"ports": ports, "unparsed": (*device.unparsed, *items)}
    return ParseResult(device.model_copy(update=update), prov)
