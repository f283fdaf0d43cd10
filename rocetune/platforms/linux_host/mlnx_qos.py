"""``mlnx_qos -i <if>`` output -> trust, DSCP map, PFC, ETS, receive buffers, cable, DCBX.

Shape (Mellanox/mlnx-tools ``python/mlnx_qos`` ``pretty_print`` and ``dcbnetlink.py``;
roce-knowledge.md §1.2 N1-N8, S27; corpus ``host/mlnx_qos_trust_dscp_pfc3_cma_roce_tos_att.md``)::

    DCBX mode: OS controlled                       # or: Firmware controlled
    Priority trust state: dscp                     # pcp | dscp | none (not supported)
    dscp2prio mapping:                             # only with trust dscp
            prio:0 dscp:07,06,05,04,03,02,01,00,   # at most 8 per line; a priority may
            prio:3 dscp:31,30,29,28,27,26,25,24,   # take several lines
    default priority:                              # newer versions; "prio:N" lines follow
    Receive buffer size (bytes): 20016,156096,0,0,0,0,0,0,max_buffer_size=262016
    Cable len: 7
    PFC configuration:
            priority    0   1   2   3   4   5   6   7
            enabled     0   0   0   1   0   0   0   0
            buffer      0   0   0   1   0   0   0   0  # newer versions
    tc: 0 ratelimit: unlimited, tsa: ets, bw: 50%  # tsa: strict | ets, bw: N% | vendor
             priority:  0

Units: buffer sizes in bytes, cable length in metres (the tool's ``--cable_len``). A DSCP
that the map does not list falls to the default priority (not added to the map).
"""

from __future__ import annotations

import re

from rocetune.model import Scheduler
from rocetune.model.device import Feature, SchedulerKind
from rocetune.platforms.linux_host.base import Found, Notes, take_errors, to_int
from rocetune.platforms.linux_host.segments import Segment

_DCBX = re.compile(r"DCBX mode:\s*(OS|Firmware) controlled", re.IGNORECASE)
_TRUST = re.compile(r"Priority trust state:\s*(\S*)")
_DSCP_ROW = re.compile(r"prio:\s*(\d+)\s+dscp:\s*([\d,\s]*)")
_DEFAULT_ROW = re.compile(r"prio:\s*(\d+)")
_BUFFERS = re.compile(r"Receive buffer size \(bytes\):\s*([\d,\s]*?)(?:,?\s*(\w+)=(\d+))?\s*")
_CABLE = re.compile(r"Cable len:\s*(\S+)")
_PFC_ROW = re.compile(r"(priority|enabled|buffer)((?:\s+\S+)*)")
_TC = re.compile(r"tc:\s*(\d+)\s+ratelimit:\s*([^,]*),\s*tsa:\s*(\w+)(?:,\s*bw:\s*(\S+?)%?)?\s*")
_TC_PRIO = re.compile(r"priority:\s*(\d+)")
_TSA: dict[str, SchedulerKind] = {"ets": "ets", "strict": "strict", "vendor": "vendor"}
_WHY = "mlnx_qos line not understood"
_BLOCK_FEATURES: dict[str, tuple[Feature, ...]] = {
    "dscp": ("trust", "dscp_map"),
    "default": ("trust", "dscp_map"),
    "pfc": ("pfc", "buffers"),
    "tc": ("scheduler",),
}
"""What a line of an mlnx_qos block may change (an unread PFC row: the PFC priorities)."""


class _State:
    """Parse state: the current block and the values found so far."""

    def __init__(self, notes: Notes) -> None:
        self.notes = notes
        self.found = Found()
        self.block = ""
        self.tc: int | None = None
        self.dscp: dict[int, int] = {}
        self.prio_tc: dict[int, int] = {}
        self.sched: dict[int, Scheduler] = {}


def parse_mlnx_qos(segment: Segment, notes: Notes) -> Found:
    """Parse one ``mlnx_qos -i <if>`` output."""
    state = _State(notes)
    for number, raw in take_errors(segment, notes):
        line = raw.strip()
        if line.startswith("*") and "WARNING" in line:
            state.found.facts["mlnx_qos.warning"] = line.strip("* ")
            continue
        block = state.block
        if not _line(state, number, line):
            notes.add(line, _WHY, number, features=_BLOCK_FEATURES.get(block))
            if block == "pfc":
                state.block = block  # the rest of a malformed PFC table is still PFC
    _finish(state)
    return state.found


def _line(state: _State, number: int, line: str) -> bool:
    if _block_row(state, number, line):
        return True
    state.block = ""
    match = _DCBX.fullmatch(line)
    if match is not None:
        mode = "os" if match.group(1).lower() == "os" else "firmware"
        state.found.put("dcbx_mode", mode, number)
        return True
    match = _TRUST.fullmatch(line)
    if match is not None:
        return _trust(state, number, match.group(1))
    if line == "dscp2prio mapping:":
        state.block = "dscp"
        state.found.put("dscp_to_priority", {}, number)
        return True
    if line == "default priority:":
        state.block = "default"
        return True
    if line == "PFC configuration:":
        state.block = "pfc"
        return True
    return _single(state, number, line)


def _block_row(state: _State, number: int, line: str) -> bool:
    if state.block == "dscp":
        match = _DSCP_ROW.fullmatch(line)
        return match is not None and _dscp_row(state, number, match)
    if state.block == "default":
        match = _DEFAULT_ROW.fullmatch(line)
        if match is not None:
            state.found.facts["default_priority"] = match.group(1)
            return True
    if state.block == "pfc":
        match = _PFC_ROW.fullmatch(line)
        return match is not None and _pfc_row(state, number, match.group(1), match.group(2))
    if state.block == "tc":
        match = _TC_PRIO.fullmatch(line)
        if match is not None and state.tc is not None:
            prio = to_int(match.group(1), 0, 7)
            if prio is None:
                state.notes.add(line, "priority outside 0..7", number)
            else:
                state.prio_tc[prio] = state.tc
                state.found.lines.setdefault("priority_to_tc", number)
            return True
    return False


def _trust(state: _State, number: int, word: str) -> bool:
    if word in ("dscp", "pcp"):
        state.found.put("trust", word, number)
        return True
    if word == "none":  # mlnx_qos: trust state not supported by this driver
        state.found.facts["trust"] = "none (not supported by the driver)"
        return True
    return False


def _dscp_row(state: _State, number: int, match: re.Match[str]) -> bool:
    prio = to_int(match.group(1), 0, 7)
    values = [v.strip() for v in match.group(2).split(",") if v.strip()]
    dscps = [to_int(v, 0, 63) for v in values]
    if prio is None or any(d is None for d in dscps):
        state.notes.add(match.group(0), "DSCP map row outside DSCP 0..63 / priority 0..7", number)
        return True
    for dscp in dscps:
        if dscp is not None:
            state.dscp[dscp] = prio
    return True


def _pfc_row(state: _State, number: int, label: str, rest: str) -> bool:
    cells = rest.split()
    if label == "priority":
        return cells == [str(p) for p in range(8)]
    values = [to_int(c, 0, 1 if label == "enabled" else 7) for c in cells]
    if len(values) != 8 or any(v is None for v in values):
        state.notes.add(
            f"{label}{rest}", f"PFC {label} row needs 8 values", number, features=("pfc",)
        )
        return True
    if label == "enabled":
        pfc = tuple(p for p, v in enumerate(values) if v == 1)
        state.found.put("pfc_priorities", pfc, number)
    else:
        state.found.put(
            "priority_to_buffer", {p: v for p, v in enumerate(values) if v is not None}, number
        )
    return True


def _single(state: _State, number: int, line: str) -> bool:
    match = _TC.fullmatch(line)
    if match is not None:
        return _tc(state, number, match)
    match = _CABLE.fullmatch(line)
    if match is not None:
        metres = to_int(match.group(1), 0, 0xFFFF)
        if metres is None:
            state.notes.add(line, "cable length is not 0..65535 m", number)
        else:
            state.found.put("cable_length_m", float(metres), number)
        return True
    match = _BUFFERS.fullmatch(line)
    if match is not None:
        return _buffers(state, number, match)
    return False


def _buffers(state: _State, number: int, match: re.Match[str]) -> bool:
    cells = [c.strip() for c in match.group(1).split(",") if c.strip()]
    sizes = [to_int(c, 0, 2**40) for c in cells]
    if len(sizes) != 8 or any(s is None for s in sizes):
        state.notes.add(match.group(0), "receive buffer sizes need 8 byte counts", number)
        return True
    state.found.put(
        "buffer_sizes_bytes", {b: s for b, s in enumerate(sizes) if s is not None}, number
    )
    if match.group(3) is not None:
        state.found.facts["rx_buffer_total_bytes"] = match.group(3)
    return True


def _tc(state: _State, number: int, match: re.Match[str]) -> bool:
    tc = to_int(match.group(1), 0, 7)
    kind = _TSA.get(match.group(3).lower())
    weight = None
    if match.group(4) is not None:
        weight = to_int(match.group(4), 0, 100)
    if tc is None or kind is None or (match.group(4) is not None and weight is None):
        state.notes.add(
            match.group(0), "TC row: TC 0..7, tsa strict/ets/vendor, bw 0..100 %", number
        )
        state.block, state.tc = "tc", None
        return True
    state.sched[tc] = Scheduler(kind=kind, weight=None if weight is None else float(weight))
    state.found.lines.setdefault("tc_scheduler", number)
    state.block, state.tc = "tc", tc
    return True


def _finish(state: _State) -> None:
    found = state.found
    if "dscp_to_priority" in found.values:
        found.values["dscp_to_priority"] = dict(sorted(state.dscp.items()))
    if state.sched:
        found.values["tc_scheduler"] = dict(sorted(state.sched.items()))
    if state.prio_tc:
        found.values["priority_to_tc"] = dict(sorted(state.prio_tc.items()))
