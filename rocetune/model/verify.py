"""Verification data: perftest results and counter deltas (vendor-neutral).

Units are normalised by the producers (rocetune.verify, rocetune.platforms): bandwidth in
Gb/s (10^9 bit/s), latency in microseconds, counters as plain counts, pause time in
microseconds. ``None`` means "not known" (the output or the counter source did not show it);
an empty value means known absent (see :class:`rocetune.model.base.Model`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rocetune.model.base import Model

PerftestErrorKind = Literal[
    "no-device",
    "device-not-found",
    "port-down",
    "connect",
    "socket",
    "exchange",
    "qp-create",
    "qp-modify",
    "truncated",
    "other",
]


class PerftestError(Model):
    """One failure perftest reported, with its own text."""

    kind: PerftestErrorKind
    text: str
    """perftest's own error line(s), stripped."""
    line: int | None = None


class PerftestHeader(Model):
    """The ``ctx_print_test_info`` block. Every field None when the line was not printed."""

    title: str | None = None
    """E.g. ``RDMA_Write BW Test``, ``Send Latency Test``."""
    device: str | None = None
    qps: int | None = None
    connection: str | None = None
    transport: str | None = None
    mtu: int | None = None
    link_type: str | None = None
    """``Ethernet`` (RoCE) or ``IB``."""
    gid_index: int | None = None
    rdma_cm: bool | None = None
    data_exchange: str | None = None
    tos: int | None = None
    tx_depth: int | None = None
    rx_depth: int | None = None
    max_inline_bytes: int | None = None
    bidirectional: bool = False
    local_gids: tuple[str, ...] = ()
    """GIDs of the local QPs as printed (``00:...:255:255:10:1:1:5``)."""
    remote_gids: tuple[str, ...] = ()


class BandwidthRow(Model):
    """One row of a bandwidth table, normalised to Gb/s. None: the row was cut short."""

    size_bytes: int
    iterations: int
    peak_gbps: float | None = None
    average_gbps: float | None = None
    msg_rate_mpps: float | None = None


class LatencyRow(Model):
    """One row of a latency table, microseconds. None: not printed (duration mode, cut)."""

    size_bytes: int
    iterations: int
    t_min_us: float | None = None
    t_max_us: float | None = None
    t_typical_us: float | None = None
    t_avg_us: float | None = None
    t_stdev_us: float | None = None
    p99_us: float | None = None
    p99_9_us: float | None = None


class PerftestResult(Model):
    """The parsed output of one perftest process (client or server side)."""

    tool: str | None = None
    """``ib_write_bw``, ``ib_send_lat``, ... (from the command line or the title)."""
    kind: Literal["bw", "lat"] | None = None
    role: Literal["client", "server"] | None = None
    header: PerftestHeader = PerftestHeader()
    bandwidth: tuple[BandwidthRow, ...] = ()
    latency: tuple[LatencyRow, ...] = ()
    bw_unit: Literal["Gb/sec", "MB/sec"] | None = None
    """The unit perftest printed (values are converted to Gb/s; MB/sec = 2^20 B/s)."""
    warnings: tuple[str, ...] = ()
    errors: tuple[PerftestError, ...] = ()
    complete: bool = False
    """True when the results table was printed in full (closing separator seen)."""
    client: str | None = None
    """``device:nic`` of the client end (set by the verify runner, not by the parser)."""
    server: str | None = None
    line_rate_gbps: float | None = None
    """The slower end's line rate (runner/plan); None: unknown."""
    bidirectional: bool | None = None
    """Whether the run was bidirectional (``-b``); None: take it from the header."""
    command: tuple[str, ...] | None = None
    """The exact argument list that was run."""
    round: int | None = None


class PortCounters(Model):
    """Counters of one NIC or switch port: a snapshot, or the delta between two.

    Per-priority maps are keyed by 802.1p priority (producers map PG/queue counters to
    priorities through the device's own maps). A field is None when the source does not
    expose that counter.
    """

    device: str
    port: str
    window_s: float | None = None
    """Seconds between the two snapshots (deltas only)."""
    round: int | None = None
    rx_bytes_by_priority: dict[int, int] | None = None
    tx_bytes_by_priority: dict[int, int] | None = None
    pfc_rx_by_priority: dict[int, int] | None = None
    """PFC frames received per priority."""
    pfc_tx_by_priority: dict[int, int] | None = None
    pause_rx_us_by_priority: dict[int, int] | None = None
    """Time paused by received PFC, per priority (µs)."""
    pause_tx_us_by_priority: dict[int, int] | None = None
    discards_by_priority: dict[int, int] | None = None
    """Per-priority drops (NIC ``rx_prio<p>_discards``; switch PG and queue drops)."""
    port_discards: int | None = None
    """Port-level buffer drops (NIC ``rx_discards_phy``)."""
    storm_events: int | None = None
    """Pause-storm / watchdog / deadlock events."""
    global_pause_frames: int | None = None
    """802.3x link-level pause frames, both directions."""
    oversize_frames: int | None = None
    """Frames above the MTU or with an out-of-range length."""
    ecn_marked: int | None = None
    """Switch: packets ECN-marked on the lossless queue(s)."""
    out_of_sequence: int | None = None
    packet_seq_err: int | None = None
    implied_nak_seq_err: int | None = None
    local_ack_timeout_err: int | None = None
    roce_adp_retrans: int | None = None
    np_ecn_marked_roce_packets: int | None = None
    np_cnp_sent: int | None = None
    rp_cnp_handled: int | None = None
    rp_cnp_ignored: int | None = None
    resets: tuple[str, ...] = ()
    """Counters that went backwards between the snapshots (reset): their delta is None."""
    raw: dict[str, int] = Field(default_factory=dict)
    """The source's own counter names and values, for reports only (never for rules)."""
