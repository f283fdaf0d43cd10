"""PFC headroom of one lossless priority group, as the switch vendor computes it.

After a switch sends XOFF, bytes keep arriving: what sits in its own MAC/PHY and gearbox,
what is on the cable, what the peer sends while the PFC frame travels back and before it
reacts (IEEE 802.3 31B.3.7 pause quanta), and the frame that cannot be cut. The XOFF room of
the PG must hold all of it. docs/buffers.md explains each model, with sources.

NVIDIA Spectrum (constants in :mod:`rocetune.tune.asics`): the computation buffermgrd runs
(sonic-swss ``cfgmgr/buffer_headroom_mellanox.lua``), written here from its description::

    worst_case_factor = ceil(cell / 64 if cell > 128 else 2 x cell / (1 + cell))
    small_share_bytes = 100 x 64 / ((pct x 64 + (100 - pct) x lossless_mtu) / 100)
    cell_occupancy    = (100 - small_share_bytes + small_share_bytes x worst_case_factor) / 100
    propagation       = port_mtu + cable + 2 x gearbox + mac_phy + peer + tile (SPC4/5)
    xoff = ceil_1k(lossless_mtu + propagation x cell_occupancy) (+ 18 KiB on SPC6)
           (+ 2 KiB without a shared headroom pool when pct < 100 and it stays more than
            2 KiB below the 100 % small-packet xoff)
    xon  = ceil_1k(pipeline latency, doubled on 8-lane ports)
    size = ceil_1k(xon) with a shared headroom pool, else ceil_1k(xoff + xon (+ port MTU 8-lane))

The gearbox term keeps the vendor's unit (speed Mb/s x delay ns / (8 x 1024)) so that the
numbers match buffermgrd's to the byte.

The vendor-neutral lower bound, for ASICs whose constants are unknown (an estimate)::

    xoff >= 2 x port_mtu + 2 x cable_m x 5 ns/m x rate/8 + 2 x gearbox bytes
            + pause_quanta(rate) x 64 B + MAC/PHY allowance

cell occupancy 1, no rounding, xon unknown (0); speeds outside the pause-quanta table take
the quanta of the next lower tabulated speed, so the bound stays a lower bound.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from rocetune.tune.asics import (
    KIB,
    SPECTRUM_1,
    SPECTRUM_2,
    SPECTRUM_3,
    SPECTRUM_4,
    SPECTRUM_5,
    SPECTRUM_6,
    TILE_BITS_PER_GBPS,
    VENDOR_NEUTRAL,
    AsicConstants,
    asic_constants,
)

__all__ = [
    "KIB",
    "SPECTRUM_1",
    "SPECTRUM_2",
    "SPECTRUM_3",
    "SPECTRUM_4",
    "SPECTRUM_5",
    "SPECTRUM_6",
    "VENDOR_NEUTRAL",
    "AsicConstants",
    "HeadroomInputs",
    "HeadroomResult",
    "asic_constants",
    "compute_headroom",
]

MIN_PACKET_BYTES = 64
PAUSE_QUANTUM_BITS = 512
"""One pause quantum = 512 bit times (IEEE 802.3)."""
EIGHT_LANE_MIN_SPEED_MBPS = 400_000
SONIC_LOSSLESS_MTU = 1024
"""SONiC's default ``LOSSLESS_TRAFFIC_PATTERN.mtu`` (sonic-buildimage buffers_config.j2)."""
SONIC_SMALL_PACKET_PCT = 50.0
"""SONiC's default ``LOSSLESS_TRAFFIC_PATTERN.small_packet_percentage``."""
SHP_COMPENSATION_BYTES = 2 * KIB
"""Added to xoff without a shared headroom pool when fewer than 100 % small packets are
assumed and xoff stays more than this below the all-small-packet xoff."""

PAUSE_QUANTA: Mapping[int, int] = MappingProxyType(
    {
        100: 1,
        1_000: 2,
        10_000: 67,
        25_000: 80,
        40_000: 118,
        50_000: 147,
        100_000: 394,
        200_000: 453,
        400_000: 905,
        800_000: 905,
    }
)
"""Pause quanta a MAC may still send after receiving XOFF, per speed in Mb/s (IEEE 802.3
31B.3.7 as tabulated by SONiC)."""


@dataclass(frozen=True)
class HeadroomInputs:
    """Port and traffic facts the computation needs (SONiC names in brackets)."""

    speed_mbps: int
    """Port speed in Mb/s [PORT.speed]."""
    cable_m: float
    """Cable length in metres [CABLE_LENGTH]."""
    port_mtu: int = 9100
    """Port MTU in bytes [PORT.mtu; SONiC default 9100]."""
    lossless_mtu: int = SONIC_LOSSLESS_MTU
    """Largest lossless packet [LOSSLESS_TRAFFIC_PATTERN.mtu]."""
    small_packet_pct: float = SONIC_SMALL_PACKET_PCT
    """Share of small packets [LOSSLESS_TRAFFIC_PATTERN.small_packet_percentage]."""
    gearbox_delay_ns: float = 0.0
    """Gearbox latency in ns [PERIPHERAL_TABLE.gearbox_delay]; 0 = no gearbox."""
    lanes: int | None = None
    """Serdes lanes of the port; None = assume 8 from 400G up, else 4."""
    shared_headroom_pool: bool = False
    """True with a shared headroom pool (pool xoff or over-subscribe ratio > 0): size = xon."""

    def __post_init__(self) -> None:
        """Reject inputs the formula cannot take."""
        problems = [
            msg
            for bad, msg in (
                (self.speed_mbps <= 0, "speed_mbps must be > 0"),
                (self.cable_m < 0, "cable_m must be >= 0"),
                (self.port_mtu <= 0 or self.lossless_mtu <= 0, "MTUs must be > 0"),
                (not 0 <= self.small_packet_pct <= 100, "small_packet_pct must be 0..100"),
                (self.gearbox_delay_ns < 0, "gearbox_delay_ns must be >= 0"),
                (self.lanes is not None and self.lanes <= 0, "lanes must be > 0"),
            )
            if bad
        ]
        if problems:
            raise ValueError("; ".join(problems))


@dataclass(frozen=True)
class HeadroomResult:
    """xoff, xon, size and every intermediate of one computation, in bytes."""

    inputs: HeadroomInputs
    asic: AsicConstants
    eight_lane: bool
    pause_quanta: int | None
    worst_case_factor: float
    small_share_bytes_pct: float
    """Share of small packets counted in bytes rather than packets."""
    cell_occupancy: float
    bytes_on_cable: float
    bytes_on_gearbox: float
    bytes_on_tile: float
    peer_response: float
    propagation_delay: float
    final_frame: int
    """The frame that cannot be cut: lossless MTU (vendor) or port MTU (neutral bound)."""
    xoff_raw: float
    """xoff before rounding and compensation (plus the ASIC's fixed xoff addition)."""
    compensation: int
    """Bytes added to the rounded xoff without a shared headroom pool (0 or 2 KiB)."""
    xoff: int
    xon: int
    size: int
    notes: tuple[str, ...] = field(default=())

    @property
    def required_xoff(self) -> int:
        """The unrounded requirement, rounded up to a whole byte."""
        return math.ceil(self.xoff_raw - 1e-9)

    @property
    def estimate(self) -> bool:
        """True when the vendor-neutral lower bound was used."""
        return self.asic.estimate

    def summary(self) -> str:
        """One line for a finding: the xoff computation with its numbers."""
        if self.estimate:
            return (
                f"estimate (vendor-neutral lower bound, ASIC constants unknown): 2 x port MTU "
                f"{self.inputs.port_mtu} + cable {self.bytes_on_cable:.0f} + gearbox "
                f"2x{self.bytes_on_gearbox:.0f} + peer {self.peer_response:.0f} + MAC/PHY "
                f"{self.asic.mac_phy_delay_bytes:.0f} = {self.required_xoff} B"
            )
        i = self.inputs
        tile = f" + tile {self.bytes_on_tile:.0f}" if self.bytes_on_tile else ""
        extra = f" + {self.asic.xoff_extra_bytes} (ASIC)" if self.asic.xoff_extra_bytes else ""
        comp = f" (incl. {self.compensation} B compensation)" if self.compensation else ""
        return (
            f"{self.asic.name}: lossless MTU {self.final_frame} + (port MTU {i.port_mtu} + "
            f"cable {self.bytes_on_cable:.0f} + gearbox 2x{self.bytes_on_gearbox:.0f} + MAC/PHY "
            f"{self.asic.mac_phy_delay_bytes:.0f} + peer {self.peer_response:.0f}{tile}) x "
            f"occupancy {self.cell_occupancy:.4g} ({i.small_packet_pct:g} % small packets, "
            f"lossless MTU {i.lossless_mtu}){extra} = {self.required_xoff} B, "
            f"allocated {self.xoff} B{comp}"
        )

    def explain(self) -> str:
        """Multi-line account of the computation, step by step."""
        i, a = self.inputs, self.asic
        lines = [
            f"Headroom for {i.speed_mbps} Mb/s, {i.cable_m:g} m cable, port MTU {i.port_mtu} B, "
            f"lossless MTU {i.lossless_mtu} B, {i.small_packet_pct:g} % small packets, "
            f"gearbox {i.gearbox_delay_ns:g} ns ({a.name}; {a.source})"
            + (" [ESTIMATE]" if self.estimate else ""),
            f"  worst_case_factor = {self.worst_case_factor:g}; small packets by bytes = "
            f"{self.small_share_bytes_pct:.4g} %; cell_occupancy = {self.cell_occupancy:.4g}",
            f"  bytes_on_cable = {self.bytes_on_cable:.0f}; bytes_on_gearbox = "
            f"{self.bytes_on_gearbox:.0f}; bytes_on_tile = {self.bytes_on_tile:.0f}",
            f"  peer_response = {_peer_text(self.pause_quanta)} = {self.peer_response:.0f}",
            f"  propagation_delay = {self.propagation_delay:.0f}",
            f"  xoff = {self.final_frame} + {self.propagation_delay:.0f} x "
            f"{self.cell_occupancy:.4g} = {self.required_xoff} -> {self.xoff}",
            f"  xon = {self.xon}; size = {self.size}",
        ]
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)


def _peer_text(quanta: int | None) -> str:
    if quanta is None:
        return "ASIC peer_response_time fallback"
    return f"{quanta} quanta x {PAUSE_QUANTUM_BITS} bit / 8"


def worst_case_factor(cell_bytes: int | None) -> float:
    """Cells a minimum-size packet can waste, relative to its size, rounded up."""
    if cell_bytes is None:
        return 1.0
    if cell_bytes > 2 * MIN_PACKET_BYTES:
        return float(math.ceil(cell_bytes / MIN_PACKET_BYTES))
    return float(math.ceil(2 * cell_bytes / (1 + cell_bytes)))


def small_share_by_bytes(small_packet_pct: float, lossless_mtu: int) -> float:
    """The share (%) of bytes in small packets, for a share of packets and a lossless MTU."""
    mean = (small_packet_pct * MIN_PACKET_BYTES + (100 - small_packet_pct) * lossless_mtu) / 100
    return 100 * MIN_PACKET_BYTES / mean


def cell_occupancy(cell_bytes: int | None, small_packet_pct: float, lossless_mtu: int) -> float:
    """Buffer bytes used per wire byte for a traffic pattern."""
    factor = worst_case_factor(cell_bytes)
    share = small_share_by_bytes(small_packet_pct, lossless_mtu)
    return (100 - share + share * factor) / 100


def pause_quanta(speed_mbps: int, *, floor: bool = False) -> int | None:
    """Pause quanta for a speed; None when not tabulated (or the next lower one if ``floor``)."""
    if speed_mbps in PAUSE_QUANTA:
        return PAUSE_QUANTA[speed_mbps]
    if not floor:
        return None
    lower = [s for s in PAUSE_QUANTA if s <= speed_mbps]
    return PAUSE_QUANTA[max(lower)] if lower else 0


def bytes_in_flight(speed_mbps: float, seconds: float) -> float:
    """Bytes a port of ``speed_mbps`` sends in ``seconds``."""
    return speed_mbps * 1e6 * seconds / 8


def round_up(value: float, unit: int = KIB) -> int:
    """Round up to a multiple of ``unit`` (headroom is allocated in 1024-byte steps)."""
    return math.ceil(value / unit - 1e-9) * unit


def _peer_response(
    speed_mbps: int, asic: AsicConstants, notes: list[str]
) -> tuple[int | None, float]:
    quanta = pause_quanta(speed_mbps, floor=asic.peer_response_bytes is None)
    if speed_mbps not in PAUSE_QUANTA:
        if asic.peer_response_bytes is not None:
            notes.append(
                f"{speed_mbps} Mb/s is not in the pause-quanta table; "
                f"using the ASIC peer response time {asic.peer_response_bytes:.0f} B"
            )
            return None, asic.peer_response_bytes
        notes.append(
            f"{speed_mbps} Mb/s is not in the pause-quanta table; "
            f"using {quanta} quanta of the next lower tabulated speed"
        )
    return quanta, (quanta or 0) * PAUSE_QUANTUM_BITS / 8


def _is_eight_lane(inputs: HeadroomInputs, asic: AsicConstants, notes: list[str]) -> bool:
    if inputs.lanes is not None:
        return inputs.lanes == 8
    guess = inputs.speed_mbps >= EIGHT_LANE_MIN_SPEED_MBPS
    if guess and not asic.estimate:
        notes.append("lane count unknown: assumed 8 lanes (400G and up)")
    return guess


def _estimate(inputs: HeadroomInputs, asic: AsicConstants, notes: list[str]) -> HeadroomResult:
    quanta, peer = _peer_response(inputs.speed_mbps, asic, notes)
    on_cable = bytes_in_flight(inputs.speed_mbps, 2 * inputs.cable_m / asic.signal_speed_m_per_s)
    on_gearbox = bytes_in_flight(inputs.speed_mbps, inputs.gearbox_delay_ns * 1e-9)
    propagation = inputs.port_mtu + on_cable + 2 * on_gearbox + asic.mac_phy_delay_bytes + peer
    xoff_raw = inputs.port_mtu + propagation
    xoff = math.ceil(xoff_raw - 1e-9)
    notes.append(f"ASIC constants unknown ({asic.name}): this is an estimate (lower bound)")
    notes.append("xon not estimated (ASIC pipeline latency unknown)")
    return HeadroomResult(
        inputs=inputs,
        asic=asic,
        eight_lane=_is_eight_lane(inputs, asic, notes),
        pause_quanta=quanta,
        worst_case_factor=1.0,
        small_share_bytes_pct=0.0,
        cell_occupancy=1.0,
        bytes_on_cable=on_cable,
        bytes_on_gearbox=on_gearbox,
        bytes_on_tile=0.0,
        peer_response=peer,
        propagation_delay=propagation,
        final_frame=inputs.port_mtu,
        xoff_raw=xoff_raw,
        compensation=0,
        xoff=xoff,
        xon=0,
        size=xoff,
        notes=tuple(notes),
    )


def compute_headroom(
    inputs: HeadroomInputs, asic: AsicConstants = VENDOR_NEUTRAL
) -> HeadroomResult:
    """xoff/xon/size for ``inputs``: the vendor's computation, or the neutral estimate."""
    notes: list[str] = []
    if asic.estimate or asic.cell_bytes is None:
        return _estimate(inputs, asic, notes)
    i = inputs
    eight_lane = _is_eight_lane(i, asic, notes)
    quanta, peer = _peer_response(i.speed_mbps, asic, notes)
    on_cable = bytes_in_flight(i.speed_mbps, 2 * i.cable_m / asic.signal_speed_m_per_s)
    on_gearbox = i.speed_mbps * i.gearbox_delay_ns / (8 * KIB)
    on_tile = i.speed_mbps / 1000 * TILE_BITS_PER_GBPS / 8 if asic.tile_term else 0.0
    propagation = i.port_mtu + on_cable + 2 * on_gearbox + asic.mac_phy_delay_bytes + peer + on_tile
    factor = worst_case_factor(asic.cell_bytes)
    share = small_share_by_bytes(i.small_packet_pct, i.lossless_mtu)
    occupancy = (100 - share + share * factor) / 100
    xoff_raw = i.lossless_mtu + propagation * occupancy + asic.xoff_extra_bytes
    xoff = round_up(i.lossless_mtu + propagation * occupancy) + asic.xoff_extra_bytes
    compensation = 0
    if not i.shared_headroom_pool and i.small_packet_pct != 100:
        worst = round_up(i.lossless_mtu + propagation * factor)
        if xoff + SHP_COMPENSATION_BYTES < worst:
            compensation = SHP_COMPENSATION_BYTES
            xoff += compensation
    pipeline = asic.pipeline_latency_bytes * (2 if eight_lane else 1)
    xon = round_up(pipeline)
    size = xon if i.shared_headroom_pool else xoff + xon + (i.port_mtu if eight_lane else 0)
    return HeadroomResult(
        inputs=i,
        asic=asic,
        eight_lane=eight_lane,
        pause_quanta=quanta,
        worst_case_factor=factor,
        small_share_bytes_pct=share,
        cell_occupancy=occupancy,
        bytes_on_cable=on_cable,
        bytes_on_gearbox=on_gearbox,
        bytes_on_tile=on_tile,
        peer_response=peer,
        propagation_delay=propagation,
        final_frame=i.lossless_mtu,
        xoff_raw=xoff_raw,
        compensation=compensation,
        xoff=xoff,
        xon=xon,
        size=round_up(size),
        notes=tuple(notes),
    )
