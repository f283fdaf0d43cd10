"""Parse perftest output (``ib_write_bw``, ``ib_send_lat``, ...) into a PerftestResult.

Formats (roce-knowledge.md §6.3; linux-rdma/perftest ``src/perftest_parameters.c``
``ctx_print_test_info`` and the report macros; corpus ``perftest/*``):

- the header block between lines of dashes: ``Key : value`` pairs, two per line in some
  builds, separated by spaces or tabs (``rdma_cm QPs\\t : OFF``); the title line
  ``RDMA_Write [Bidirectional ]BW Test`` / ``Send Latency Test``; ``GID:`` lines after
  ``local address`` and ``remote address`` (one pair per QP);
- the bandwidth table ``#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]``
  (``MB/sec`` without ``--report_gbits``: perftest divides by 2^20, so MiB/s, converted here
  to Gb/s);
- the latency table ``#bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%``
  (µs) or, in duration mode, ``#bytes #iterations t_avg[usec] tps average``;
- warnings anywhere, even between the table header and its rows (``Conflicting CPU
  frequency values detected``, ``WARNING: BW peak won't be measured``);
- error lines (see :data:`_ERRORS`), also inside wrapper logs.

Data rows are two integers followed by numbers; a row cut short keeps None for the missing
columns. ``complete`` is True once a separator follows the table. The parser never raises.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import Literal

from rocetune.model import (
    BandwidthRow,
    LatencyRow,
    PerftestError,
    PerftestHeader,
    PerftestResult,
)
from rocetune.model.verify import PerftestErrorKind

Role = Literal["client", "server"]
MAX_LINES = 100_000
_MIB_TO_GBPS = 1048576 * 8 / 1e9
_TOOL = re.compile(r"\b(ib_(?:write|read|send|atomic)_(?:bw|lat))\b")
_TITLE = re.compile(r"\s*([A-Za-z_ ]+?(?:BW|Latency) Test)\s*")
_PAIR = re.compile(r"([^:\t]*?[A-Za-z][^:\t]*?)\s*:\s*(\S*)")
_GID = re.compile(r"\s*GID:\s*([0-9A-Fa-f:]+)\s*")
_ROW = re.compile(r"\s*\d+\s+\d+(?:\s+\S+)*\s*")
_SEPARATOR = re.compile(r"\s*-{20,}\s*")
_LOG_LINE = re.compile(r"\s*\[\d{4}-\d\d-\d\d")
_WARNING = re.compile(r"\s*(Conflicting CPU frequency.*|WARNING:.*|Warning:.*|TOS only valid.*)")
_ERROR_PATTERNS: tuple[tuple[PerftestErrorKind, str], ...] = (
    ("no-device", r"Did not detect devices|No IB devices found|Failed to get IB devices"),
    ("no-device", r"If device exists, check if driver is up"),
    ("device-not-found", r"IB device \S+ not found|Unable to find the Infiniband/RoCE"),
    ("port-down", r"Port number \d+ state is Down"),
    ("connect", r"Couldn't connect to \S+"),
    ("socket", r"Unable to (?:open file descriptor for|init the) socket connection"),
    ("exchange", r"Couldn't read remote address|Unable to read to socket/rdma_cm"),
    ("exchange", r"Failed to exchange data between server and clients"),
    ("qp-create", r"Unable to create QP|Failed to create QP|Couldn't create IB resources"),
    ("qp-modify", r"Failed to modify QP|Unable to Connect the HCA's through the link"),
    ("other", r"^\s*(?:\[\d+\]:\s*)?(?:Couldn't|Unable to|Failed to|Error\b|ERROR\b)"),
)
_ERRORS = tuple((kind, re.compile(p, re.IGNORECASE)) for kind, p in _ERROR_PATTERNS)
_VALUE_OPTIONS = frozenset(
    {
        *("-d", "-i", "-x", "-s", "-n", "-D", "-q", "-p", "-m", "-T", "-S", "-t", "-r", "-u"),
        *("-I", "-Q", "-l", "-c", "-g", "-f", "-w", "-W", "-o", "--ib-dev", "--gid-index"),
        *("--size", "--iters", "--duration", "--qp", "--port", "--mtu", "--tos", "--connection"),
    }
)


def _int(text: str) -> int | None:
    match = re.match(r"\d{1,12}", text)
    return int(match.group(0)) if match else None


def _num(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _on(text: str) -> bool | None:
    return {"ON": True, "OFF": False}.get(text.upper())


_HEADER_FIELDS: dict[str, tuple[str, Callable[[str], object]]] = {
    "device": ("device", str),
    "number of qps": ("qps", _int),
    "connection type": ("connection", str),
    "transport type": ("transport", str),
    "mtu": ("mtu", _int),
    "link type": ("link_type", str),
    "gid index": ("gid_index", _int),
    "rdma_cm qps": ("rdma_cm", _on),
    "data ex. method": ("data_exchange", str),
    "tos": ("tos", _int),
    "tx depth": ("tx_depth", _int),
    "rx depth": ("rx_depth", _int),
    "max inline data": ("max_inline_bytes", _int),
}


def error_kind(line: str) -> PerftestErrorKind | None:
    """The kind of an error line, or None when the line is not an error."""
    for kind, pattern in _ERRORS:
        if pattern.search(line):
            return kind
    return None


def command_role(argv: Iterable[str]) -> Role | None:
    """``client`` when a perftest argument list names a server (a positional), else ``server``."""
    args = list(argv)
    if not args or _TOOL.search(args[0]) is None:
        return None
    previous = ""
    for arg in args[1:]:
        if not arg.startswith("-") and previous not in _VALUE_OPTIONS:
            return "client"
        previous = arg
    return "server"


class _State:
    """Mutable parse state, turned into a frozen PerftestResult at the end."""

    def __init__(self) -> None:
        self.tool: str | None = None
        self.role: Role | None = None
        self.header: dict[str, object] = {}
        self.local: list[str] = []
        self.remote: list[str] = []
        self.gid_side = "local"
        self.table: str | None = None
        """``bw``, ``lat``, ``lat-duration`` once a table header was seen."""
        self.unit: str | None = None
        self.bw: list[BandwidthRow] = []
        self.lat: list[LatencyRow] = []
        self.rows_seen = False
        self.complete = False
        self.warnings: list[str] = []
        self.errors: list[PerftestError] = []


def parse_perftest(text: str, *, role: Role | None = None) -> PerftestResult:
    """Parse one perftest output (stdout and stderr together). Never raises."""
    state = _State()
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[:MAX_LINES]
    for number, line in enumerate(lines, start=1):
        _line(state, number, line)
    return _result(state, role)


def _line(state: _State, number: int, line: str) -> None:
    if not line.strip():
        return
    tool = _TOOL.search(line)
    if tool is not None:
        state.tool = state.tool or tool.group(1)
        if line.lstrip(" #$./").startswith(tool.group(1)):
            state.role = state.role or command_role(line.lstrip(" #$").split())
        return
    if "Waiting for client to connect" in line:
        state.role = state.role or "server"
        return
    if _SEPARATOR.fullmatch(line):
        state.complete = state.complete or state.rows_seen
        return
    if (warning := _WARNING.fullmatch(line)) is not None:
        state.warnings.append(warning.group(1).strip())
        return
    if _LOG_LINE.match(line) is None and (kind := error_kind(line)) is not None:
        state.errors.append(PerftestError(kind=kind, text=line.strip(), line=number))
        return
    _content(state, line)


def _content(state: _State, line: str) -> None:
    if "#bytes" in line:
        _table_header(state, line)
    elif state.table is not None and _ROW.fullmatch(line):
        _row(state, line.split())
    elif (gid := _GID.fullmatch(line)) is not None:
        (state.local if state.gid_side == "local" else state.remote).append(gid.group(1))
    elif "address:" in line:
        state.gid_side = "remote" if "remote address" in line else "local"
    elif (title := _TITLE.fullmatch(line)) is not None and ":" not in line:
        state.header["title"] = title.group(1).strip()
        state.header["bidirectional"] = "Bidirectional" in line
    else:
        _header_pairs(state, line)


def _header_pairs(state: _State, line: str) -> None:
    for match in _PAIR.finditer(line):
        spec = _HEADER_FIELDS.get(" ".join(match.group(1).split()).lower())
        if spec is None or not match.group(2):
            continue
        name, convert = spec
        value = convert(match.group(2))
        if value is not None:
            state.header[name] = value


def _table_header(state: _State, line: str) -> None:
    if "BW average" in line or "BW peak" in line:
        state.table = "bw"
        state.unit = "MB/sec" if "MB/sec" in line else "Gb/sec" if "Gb/sec" in line else None
    elif "t_min" in line:
        state.table = "lat"
    elif "t_avg" in line:
        state.table = "lat-duration"


def _row(state: _State, cells: list[str]) -> None:
    size, iterations = int(cells[0][:12]), int(cells[1][:12])
    values = [_num(c) for c in cells[2:]] + [None] * 7
    state.rows_seen = True
    if state.table == "bw":
        factor = _MIB_TO_GBPS if state.unit == "MB/sec" else 1.0
        peak, avg = values[0], values[1]
        state.bw.append(
            BandwidthRow(
                size_bytes=size,
                iterations=iterations,
                peak_gbps=None if peak is None else round(peak * factor, 6),
                average_gbps=None if avg is None else round(avg * factor, 6),
                msg_rate_mpps=values[2],
            )
        )
    elif state.table == "lat":
        names = ("t_min_us", "t_max_us", "t_typical_us", "t_avg_us", "t_stdev_us", "p99_us")
        fields = dict(zip((*names, "p99_9_us"), values[:7], strict=True))
        state.lat.append(LatencyRow(size_bytes=size, iterations=iterations, **fields))
    else:
        state.lat.append(LatencyRow(size_bytes=size, iterations=iterations, t_avg_us=values[0]))


def _result(state: _State, role: Role | None) -> PerftestResult:
    header = PerftestHeader.model_validate(
        {**state.header, "local_gids": tuple(state.local), "remote_gids": tuple(state.remote)}
    )
    kind = None
    if state.table is not None:
        kind = "bw" if state.table == "bw" else "lat"
    elif state.tool is not None:
        kind = "bw" if state.tool.endswith("_bw") else "lat"
    elif header.title is not None:
        kind = "bw" if "BW" in header.title else "lat"
    return PerftestResult.model_validate(
        {
            "tool": state.tool,
            "kind": kind,
            "role": role or state.role,
            "header": header,
            "bandwidth": tuple(state.bw),
            "latency": tuple(state.lat),
            "bw_unit": state.unit,
            "warnings": tuple(state.warnings),
            "errors": tuple(state.errors),
            "complete": state.complete,
        }
    )
