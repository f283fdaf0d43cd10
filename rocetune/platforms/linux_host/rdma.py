"""RDMA-side outputs: ``ibdev2netdev``, ``cma_roce_tos``, ``cma_roce_mode``, ``show_gids`` and
the GID lines of ``ibv_devinfo -v``.

Shapes (Mellanox/mlnx-tools ``ofed_scripts/ibdev2netdev``, ``sbin/cma_roce_tos``,
``sbin/cma_roce_mode``, ``sbin/show_gids``; roce-knowledge.md §1.2 N9, N10, N22; corpus
``host/show_gids_*.txt`` and ``host/ibv_devinfo_gid_tables_differ_between_nodes.txt``)::

    mlx5_0 port 1 ==> eth2 (Up)                     # ibdev2netdev
    0000:17:00.0 mlx5_0 (MT4129 - ...) fw 28.39 port 1 (ACTIVE) ==> eth2 (Up)   # -v
    mlx5_0 port 1 <===> eth2                        # old style
    106                                             # cma_roce_tos (0..255)
    RoCE v2                                         # cma_roce_mode (or IB/RoCE v1)
    DEV     PORT    INDEX   GID                                     IPv4            VER     DEV
    mlx5_0  1       3       0000:...:ffff:ac13:003c                 172.19.0.60     v2      eth2
    n_gids_found=4
    hca_id: mlx5_0 / port: 1 / GID[  3]:  ::ffff:172.19.0.60, RoCE v2     # ibv_devinfo -v

A GID table whose IPv4 rows carry no version (``VER`` empty, or ``ibv_devinfo`` without the
type suffix) leaves the RoCE v2 GID indices unknown unless some row is known v2.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

from rocetune.platforms.linux_host.base import Found, Notes, take_errors, to_int
from rocetune.platforms.linux_host.names import pci_or_none, valid_netdev, valid_rdma
from rocetune.platforms.linux_host.segments import Segment

_ARROW = re.compile(r"(.*?)\bport\s+(\d+)\b.*?<?===?>\s*(\S+)(?:\s+\(([^)]*)\))?\s*")
_MODE = {"roce v2": "v2", "ib/roce v1": "v1", "roce v1": "v1"}
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_VER = re.compile(r"[vV][12]")
_HCA = re.compile(r"hca_id:\s*(\S+)")
_PORT = re.compile(r"port:\s*(\d+)")
_GID = re.compile(r"GID\[\s*(\d+)\]:\s*([0-9A-Fa-f:.]+)(?:\s*,\s*(.*))?")
_ACTIVE_MTU = re.compile(r"active_mtu:\s*(\d+)")


@dataclass(frozen=True)
class Mapping:
    """One ``ibdev2netdev`` line: RDMA device and port -> netdev."""

    rdma: str
    port: int
    netdev: str
    line: int
    pci: str | None = None
    state: str | None = None


def parse_ibdev2netdev(segment: Segment, notes: Notes) -> list[Mapping]:
    """``ibdev2netdev`` (plain, ``-v`` or old style)."""
    out = []
    for number, raw in take_errors(segment, notes):
        match = _ARROW.fullmatch(raw.strip())
        left = match.group(1).split() if match else []
        pci = pci_or_none(left[0]) if left else None
        if pci is not None:
            left = left[1:]
        if match is None or not left or not valid_rdma(left[0]) or not valid_netdev(match.group(3)):
            notes.add(raw, "ibdev2netdev line not understood (<dev> port <n> ==> <netdev>)", number)
            continue
        port = to_int(match.group(2), 1, 255) or 1
        out.append(Mapping(left[0], port, match.group(3), number, pci, match.group(4)))
    return out


def parse_roce_tos(segment: Segment, notes: Notes) -> Found:
    """``cma_roce_tos -d <dev>``: the rdma_cm default ToS."""
    found = Found()
    for number, raw in take_errors(segment, notes):
        value = to_int(raw, 0, 255)
        if value is None:
            notes.add(raw, "cma_roce_tos: expected one ToS value 0..255", number)
        else:
            found.put("roce_tos", value, number)
    return found


def parse_roce_mode(segment: Segment, notes: Notes) -> Found:
    """``cma_roce_mode -d <dev> -p 1``: the rdma_cm default RoCE mode."""
    found = Found()
    for number, raw in take_errors(segment, notes):
        mode = _MODE.get(" ".join(raw.split()).lower())
        if mode is None:
            notes.add(raw, "cma_roce_mode: expected 'RoCE v2' or 'IB/RoCE v1'", number)
        else:
            found.put("roce_mode", mode, number)
    return found


@dataclass(frozen=True)
class Gid:
    """One GID table entry."""

    rdma: str | None
    port: int
    index: int
    ipv4: bool
    version: str | None
    line: int
    netdev: str | None = None


@dataclass
class GidTable:
    """GID entries of one output, and whether it lists every device (``show_gids`` alone)."""

    kind: str
    """``show_gids`` or ``ibv_devinfo``."""
    entries: list[Gid] = field(default_factory=list)
    all_devices: bool = False
    facts: dict[tuple[str | None, str], str] = field(default_factory=dict)


def _is_ipv4_gid(gid: str) -> bool:
    try:
        return ipaddress.IPv6Address(gid).ipv4_mapped is not None
    except ValueError:
        return False


def parse_show_gids(segment: Segment, notes: Notes, all_devices: bool) -> GidTable:
    """``show_gids [dev]``: one entry per row; the header, dashes and count are skipped."""
    table = GidTable("show_gids", all_devices=all_devices)
    for number, raw in take_errors(segment, notes):
        cells = raw.split()
        if cells[0] in ("DEV", "---") or cells[0].startswith("n_gids_found="):
            continue
        entry = _gid_row(cells, number)
        if entry is None:
            notes.add(raw, "show_gids row not understood (DEV PORT INDEX GID ...)", number)
        else:
            table.entries.append(entry)
    return table


def _gid_row(cells: list[str], number: int) -> Gid | None:
    if len(cells) < 4 or not valid_rdma(cells[0]):
        return None
    port, index = to_int(cells[1], 1, 255), to_int(cells[2], 0, 65535)
    if port is None or index is None or ":" not in cells[3]:
        return None
    ipv4 = _is_ipv4_gid(cells[3])
    version = netdev = None
    for cell in cells[4:]:
        if _IPV4.fullmatch(cell):
            ipv4 = True
        elif _VER.fullmatch(cell):
            version = cell.lower()
        elif valid_netdev(cell) and netdev is None:
            netdev = cell
        else:
            return None
    return Gid(cells[0], port, index, ipv4, version, number, netdev)


def parse_devinfo(segment: Segment, notes: Notes, device: str | None) -> GidTable:
    """``ibv_devinfo -v``: GID entries per ``hca_id`` and port; ``active_mtu`` as a fact."""
    table = GidTable("ibv_devinfo")
    rdma, port = device, 1
    seen: set[tuple[str | None, int, int]] = set()
    for number, raw in take_errors(segment, notes):
        line = raw.strip()
        if (match := _HCA.fullmatch(line)) is not None:
            rdma = match.group(1) if valid_rdma(match.group(1)) else None
        elif (match := _PORT.fullmatch(line)) is not None:
            port = to_int(match.group(1), 1, 255) or 1
        elif (match := _ACTIVE_MTU.match(line)) is not None:
            table.facts[(rdma, "active_mtu")] = match.group(1)
        elif (match := _GID.fullmatch(line)) is not None:
            index = to_int(match.group(1), 0, 65535)
            if index is None or (rdma, port, index) in seen:
                notes.add(
                    line,
                    "GID index repeated: outputs of several hosts or ports"
                    " pasted together? GID table ignored",
                    number,
                )
                table.facts[(rdma, "gid_conflict")] = "yes"
                continue
            seen.add((rdma, port, index))
            version = _version(match.group(3))
            table.entries.append(
                Gid(rdma, port, index, _is_ipv4_gid(match.group(2)), version, number)
            )
    return table


def _version(text: str | None) -> str | None:
    if not text:
        return None
    words = text.lower()
    if "v2" in words:
        return "v2"
    return "v1" if "v1" in words else None


def v2_ipv4_indices(entries: list[Gid]) -> tuple[int, ...] | None:
    """Indices of IPv4-mapped RoCE v2 GIDs; None when IPv4 rows have no known version."""
    known = tuple(sorted({e.index for e in entries if e.ipv4 and e.version == "v2"}))
    if known:
        return known
    if any(e.ipv4 and e.version is None for e in entries):
        return None
    return ()
