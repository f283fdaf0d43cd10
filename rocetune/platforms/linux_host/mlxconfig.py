"""``mlxconfig -d <pci> q`` (and ``-e query``): persistent firmware (nvconfig) parameters.

Shape (NVIDIA MFT/mstflint; corpus ``host/mlxconfig_query_fixture_cx4.txt`` transcribed from
Mellanox/nic-configuration-operator ``pkg/nvconfig/utils_test.go``)::

    Device #1:
    ----------
    Device type:    ConnectX7
    Device:         0000:17:00.0
    Configurations:                              Default         Current         Next Boot
    *        ROCE_CC_PRIO_MASK_P1                255             255             255
             CNP_DSCP_P1                         48              48              48
             LINK_TYPE_P1                        ETH(2)          ETH(2)          ETH(2)

The value columns are ``Next Boot`` (plain ``q``), ``Current`` (some versions) or ``Default /
Current / Next Boot`` (``-e``). rocetune keeps ``Current`` when shown, else ``Next Boot``
(what the firmware applies after the next reset). Values are normalised: ``ETH(2)`` and
``True(1)`` -> ``2`` / ``1``, ``0xff`` -> ``255``; other text is kept as shown
(``Array[0..7]``). A ``*`` marks parameters whose next value differs; the differing
``Next Boot`` value is kept as a device fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rocetune.platforms.linux_host.base import Notes, take_errors
from rocetune.platforms.linux_host.names import pci_or_none
from rocetune.platforms.linux_host.segments import Segment

_DEVICE_HEAD = re.compile(r"Device #\d+:")
_INFO = re.compile(r"(Device type|Name|Description|Device|PSID|Part Number|FW Version):\s*(.*)")
_CONFIG_HEAD = re.compile(r"Configurations:\s*(.*)")
_PARAM = re.compile(r"(\*)?\s*([A-Z][A-Z0-9_]*(?:\[\d+\])?)\s+(\S.*)")
_LABELLED = re.compile(r".*\((\d+)\)")
_FOOTER = re.compile(r"The '\*' shows parameters.*")


@dataclass
class Section:
    """One device of a query: its PCI address (when shown) and parameter values."""

    pci: str | None = None
    line: int | None = None
    params: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    next_boot: dict[str, str] = field(default_factory=dict)
    device_type: str | None = None


def normalise(value: str) -> str:
    """``ETH(2)`` -> ``2``, ``0xff`` -> ``255``, other text unchanged."""
    match = _LABELLED.fullmatch(value)
    if match is not None:
        return match.group(1)
    if re.fullmatch(r"0[xX][0-9a-fA-F]{1,16}", value):
        return str(int(value, 16))
    return value


def parse_mlxconfig(segment: Segment, notes: Notes, pci: str | None) -> list[Section]:
    """Every device section of one query output."""
    sections: list[Section] = []
    current = Section(pci=pci)
    columns: list[str] = []
    for number, raw in take_errors(segment, notes):
        line = raw.strip()
        if _DEVICE_HEAD.fullmatch(line):
            if current.params or current.device_type:
                sections.append(current)
            current, columns = Section(pci=pci, line=number), []
        elif set(line) <= {"-"} or _FOOTER.fullmatch(line):
            continue
        elif (head := _CONFIG_HEAD.fullmatch(line)) is not None:
            columns = re.split(r"\s{2,}", head.group(1).strip()) if head.group(1).strip() else []
            current.line = current.line or number
        elif (info := _INFO.fullmatch(line)) is not None and not columns:
            _info(current, info.group(1), info.group(2).strip(), number)
        elif (param := _PARAM.fullmatch(line)) is not None and columns:
            if not _param(current, columns, param, number):
                notes.add(line, "mlxconfig row does not match its column header", number)
        else:
            notes.add(line, "mlxconfig line not understood", number)
    if current.params or current.device_type:
        sections.append(current)
    return sections


def _info(section: Section, key: str, value: str, number: int) -> None:
    if key == "Device":
        section.pci = pci_or_none(value) or section.pci
        section.line = section.line or number
    elif key == "Device type":
        section.device_type = value


def _param(section: Section, columns: list[str], match: re.Match[str], number: int) -> bool:
    values = match.group(3).split()
    if len(values) != len(columns):
        return False
    by_column = dict(zip(columns, values, strict=True))
    chosen = by_column.get("Current") or by_column.get("Next Boot") or values[-1]
    name = match.group(2)
    section.params[name] = normalise(chosen)
    section.lines[name] = number
    after = by_column.get("Next Boot")
    if after is not None and normalise(after) != section.params[name]:
        section.next_boot[name] = normalise(after)
    return True
