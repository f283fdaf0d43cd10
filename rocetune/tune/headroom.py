"""PFC headroom of one lossless priority group: SONiC's published formula.

After a switch sends XOFF, bytes keep arriving: what sits in its own MAC/PHY and gearbox,
what is on the cable, what the peer sends while the PFC frame travels back, what the peer
sends before it reacts (IEEE 802.3 31B.3.7 pause quanta), and one maximum frame that cannot
be cut. The headroom (the XOFF room of the PG) must hold all of it (roce-knowledge.md §3.5).

Sources (ids of roce-knowledge.md §0):

- S9  sonic-net/SONiC ``doc/qos/dynamically-headroom-calculation.md``: the "well-known
  formula", the pause-quanta table and, in earlier revisions, the ``ASIC_TABLE`` constants
  of Mellanox Spectrum-1 (cell 96 B) and Spectrum-2/3 (cell 144 B): pipeline latency 18 KiB,
  MAC/PHY delay 0.8 KiB, peer response time 3.8 KiB.
- S10 sonic-net/sonic-swss ``cfgmgr/buffer_headroom_mellanox.lua``: the implementation (signal
  speed 198,000,000 m/s, xoff/xon/size rounded up to 1024 B, the 8-lane adjustment, the
  800G pause quanta, the peer-response fallback for speeds outside the table).

This module is written from the formula, not from that code. Units: bytes, except where a
name says otherwise. Differences from S10, on purpose: cable and gearbox bytes are computed
with SI units (S10 divides bit/s by 8 x 1024 there, about 2.3 % fewer bytes on those two
terms); the ASIC constants stay in KiB (x 1024) as S9 declares them. xoff, xon and size
of the three worked examples of §3.5 come out to the byte.

No public source read for rocetune gives Spectrum-4 (or later) constants, so ``spectrum4``
falls back to the vendor-neutral lower bound and its results are marked as estimates.

The vendor-neutral lower bound (§3.5), for ASICs whose constants are unknown::

    xoff >= 2 x port_mtu + 2 x cable_m x 5 ns/m x rate/8 + 2 x gearbox bytes
            + pause_quanta(rate) x 64 B + MAC/PHY allowance

i.e. the same formula with cell occupancy 1, the final frame at the port MTU (no lossless
traffic pattern assumed), no rounding, and xon unknown (0). Speeds outside the pause-quanta
table take the quanta of the next lower tabulated speed, so the bound stays a lower bound.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

KIB = 1024
"""S9 gives the ASIC constants in kBytes; S10 multiplies them by 1024."""
MIN_PACKET_BYTES = 64
PAUSE_QUANTUM_BITS = 512
"""One pause quantum = 512 bit times (IEEE 802.3; S44)."""
SPECTRUM_SIGNAL_SPEED_M_PER_S = 198_000_000.0
"""Signal speed in the cable used by S10 (~5.05 ns/m)."""
NEUTRAL_SIGNAL_SPEED_M_PER_S = 200_000_000.0
"""5 ns/m, the figure of the vendor-neutral bound (§3.5)."""
EIGHT_LANE_MIN_SPEED_MBPS = 400_000

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
"""Pause quanta a MAC may still send after receiving XOFF, per speed in Mb/s.

IEEE 802.3 31B.3.7 as tabulated by S9 (100 Mb/s .. 400 Gb/s) and S10 (adds 800 Gb/s = 905).
"""


@dataclass(frozen=True)
class AsicConstants:
    """The ASIC-dependent inputs of the formula (S9 ``ASIC_TABLE``), in bytes."""

    name: str
    cell_bytes: int | None
    """Buffer cell size; None = unknown (cell occupancy taken as 1)."""
    pipeline_latency_bytes: float
    mac_phy_delay_bytes: float
    peer_response_bytes: float | None
    """Fallback peer response when the speed is not in :data:`PAUSE_QUANTA`."""
    signal_speed_m_per_s: float = SPECTRUM_SIGNAL_SPEED_M_PER_S
    estimate: bool = False
    """True for the vendor-neutral lower bound: results are estimates, not vendor values."""
    source: str = "S9/S10"


SPECTRUM_1 = AsicConstants(
    name="Spectrum-1",
    cell_bytes=96,
    pipeline_latency_bytes=18 * KIB,
    mac_phy_delay_bytes=0.8 * KIB,
    peer_response_bytes=3.8 * KIB,
)
SPECTRUM_2_3 = AsicConstants(
    name="Spectrum-2/3",
    cell_bytes=144,
    pipeline_latency_bytes=18 * KIB,
    mac_phy_delay_bytes=0.8 * KIB,
    peer_response_bytes=3.8 * KIB,
)
VENDOR_NEUTRAL = AsicConstants(
    name="vendor-neutral lower bound",
    cell_bytes=None,
    pipeline_latency_bytes=0.0,
    mac_phy_delay_bytes=0.8 * KIB,
    peer_response_bytes=None,
    signal_speed_m_per_s=NEUTRAL_SIGNAL_SPEED_M_PER_S,
    estimate=True,
    source="roce-knowledge.md §3.5 (IEEE 802.1Qbb delay budget; MAC/PHY allowance from S9)",
)
SPECTRUM_4_FALLBACK = replace(
    VENDOR_NEUTRAL, name="Spectrum-4 (constants unpublished: vendor-neutral lower bound)"
)

_ASICS: Mapping[str, AsicConstants] = MappingProxyType(
    {
        "spectrum": SPECTRUM_1,
        "spectrum1": SPECTRUM_1,
        "spc1": SPECTRUM_1,
        "spectrum2": SPECTRUM_2_3,
        "spc2": SPECTRUM_2_3,
        "spectrum3": SPECTRUM_2_3,
        "spc3": SPECTRUM_2_3,
        "spectrum4": SPECTRUM_4_FALLBACK,
        "spc4": SPECTRUM_4_FALLBACK,
    }
)


def asic_constants(asic: str | None) -> AsicConstants:
    """Constants for an ASIC name (``spectrum2``, ``Spectrum-2``, ``MELLANOX-SPECTRUM-2``).

    Unknown or missing names give :data:`VENDOR_NEUTRAL` (results marked as estimates).
    """
    if not asic:
        return VENDOR_NEUTRAL
    key = "".join(ch for ch in asic.lower() if ch.isalnum())
    for prefix in ("mellanox", "nvidia", "mlnx"):
        key = key.removeprefix(prefix)
    return _ASICS.get(key, VENDOR_NEUTRAL)


@dataclass(frozen=True)
class HeadroomInputs:
    """Port and traffic facts the formula needs (S9 names in brackets)."""

    speed_mbps: int
    """Port speed in Mb/s [PORT.speed], e.g. 100000."""
    cable_m: float
    """Cable length in metres [CABLE_LENGTH]."""
    port_mtu: int = 9100
    """Port MTU in bytes [PORT.mtu; SONiC default 9100]."""
    lossless_mtu: int = 1500
    """Largest lossless packet [LOSSLESS_TRAFFIC_PATTERN.mtu; S9 example 1500]."""
    small_packet_pct: float = 100.0
    """Share of small packets [LOSSLESS_TRAFFIC_PATTERN.small_packet_percentage]."""
    gearbox_delay_ns: float = 0.0
    """Gearbox latency in ns [PERIPHERAL_TABLE.gearbox_delay]; 0 = no gearbox."""
    lanes: int | None = None
    """Serdes lanes of the port; None = assume 8 from 400G up, else 4."""
    shared_headroom_pool: bool = False
    """True when xoff comes from a shared headroom pool (then size = xon)."""

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
    cell_occupancy: float
    bytes_on_cable: float
    bytes_on_gearbox: float
    peer_response: float
    propagation_delay: float
    final_frame: int
    """The frame that cannot be cut: lossless MTU (ASIC sets) or port MTU (neutral bound)."""
    xoff_raw: float
    """xoff before rounding up to the allocation unit."""
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
        occ = f" x occupancy {self.cell_occupancy:.3g}" if self.cell_occupancy != 1 else ""
        kind = "estimate, " if self.estimate else ""
        frame = "port MTU" if self.estimate else "lossless MTU"
        return (
            f"{kind}{self.asic.name}: {frame} {self.final_frame} + "
            f"(port MTU {self.inputs.port_mtu} + cable {self.bytes_on_cable:.0f} + "
            f"gearbox 2x{self.bytes_on_gearbox:.0f} + MAC/PHY "
            f"{self.asic.mac_phy_delay_bytes:.0f} + peer {self.peer_response:.0f}){occ} "
            f"= {self.required_xoff} B"
        )

    def explain(self) -> str:
        """Multi-line account of the computation, step by step."""
        i, a = self.inputs, self.asic
        lines = [
            f"Headroom for {i.speed_mbps} Mb/s, {i.cable_m:g} m cable, port MTU {i.port_mtu} B, "
            f"lossless MTU {i.lossless_mtu} B, {i.small_packet_pct:g} % small packets, "
            f"gearbox {i.gearbox_delay_ns:g} ns ({a.name}; {a.source})"
            + (" [ESTIMATE]" if self.estimate else ""),
            f"  worst_case_factor = {_factor_text(a.cell_bytes)} = {self.worst_case_factor:.4g}",
            f"  cell_occupancy    = (100 - {i.small_packet_pct:g} + {i.small_packet_pct:g} x "
            f"{self.worst_case_factor:.4g}) / 100 = {self.cell_occupancy:.4g}",
            f"  bytes_on_cable    = 2 x {i.cable_m:g} m / {a.signal_speed_m_per_s:.0f} m/s x "
            f"{i.speed_mbps} Mb/s / 8 = {self.bytes_on_cable:.0f}",
            f"  bytes_on_gearbox  = {i.speed_mbps} Mb/s x {i.gearbox_delay_ns:g} ns / 8 = "
            f"{self.bytes_on_gearbox:.0f}",
            f"  peer_response     = {_peer_text(self.pause_quanta)} = {self.peer_response:.0f}",
            f"  propagation_delay = {i.port_mtu} + {self.bytes_on_cable:.0f} + 2 x "
            f"{self.bytes_on_gearbox:.0f} + {a.mac_phy_delay_bytes:.0f} + "
            f"{self.peer_response:.0f} = {self.propagation_delay:.0f}",
            f"  xoff = {self.final_frame} + {self.propagation_delay:.0f} x "
            f"{self.cell_occupancy:.4g} = {self.required_xoff} -> {self.xoff}",
            f"  xon  = {self._xon_text()} -> {self.xon}",
            f"  size = {self._size_text()} = {self.size}",
        ]
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)

    def _xon_text(self) -> str:
        if self.estimate:
            return "not estimated"
        lanes = " (8-lane: 2 x latency - 1024)" if self.eight_lane else ""
        return f"pipeline latency {self.asic.pipeline_latency_bytes:.0f}{lanes}"

    def _size_text(self) -> str:
        if self.inputs.shared_headroom_pool:
            return "xon (shared headroom pool)"
        extra = " + port MTU (8-lane)" if self.eight_lane and not self.estimate else ""
        return f"xoff + xon{extra}"


def _factor_text(cell: int | None) -> str:
    if cell is None:
        return "1 (cell size unknown)"
    if cell > 2 * MIN_PACKET_BYTES:
        return f"cell/64 = {cell}/64"
    return f"2 x cell / (1 + cell) = 2 x {cell} / {1 + cell}"


def _peer_text(quanta: int | None) -> str:
    if quanta is None:
        return "ASIC peer_response_time fallback"
    return f"{quanta} quanta x {PAUSE_QUANTUM_BITS} bit / 8"


def worst_case_factor(cell_bytes: int | None) -> float:
    """Cells a minimum-size packet can waste, relative to its size (S9)."""
    if cell_bytes is None:
        return 1.0
    if cell_bytes > 2 * MIN_PACKET_BYTES:
        return cell_bytes / MIN_PACKET_BYTES
    return 2 * cell_bytes / (1 + cell_bytes)


def cell_occupancy(cell_bytes: int | None, small_packet_pct: float) -> float:
    """Buffer bytes used per wire byte for a given share of small packets (S9)."""
    factor = worst_case_factor(cell_bytes)
    return (100 - small_packet_pct + small_packet_pct * factor) / 100


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
    """Round up to a multiple of ``unit`` (S10 allocates headroom in 1024-byte steps)."""
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
        notes.append("lane count unknown: assumed 8 lanes (400G/800G)")
    return guess


def _xon_and_size(
    xoff: int, inputs: HeadroomInputs, asic: AsicConstants, eight_lane: bool
) -> tuple[int, int]:
    pipeline = asic.pipeline_latency_bytes
    extra = 0
    if eight_lane and not asic.estimate:
        pipeline = pipeline * 2 - KIB
        extra = inputs.port_mtu
    xon = round_up(pipeline) if not asic.estimate else 0
    size = xon if inputs.shared_headroom_pool else xoff + xon + extra
    return xon, (size if asic.estimate else round_up(size))


def compute_headroom(
    inputs: HeadroomInputs, asic: AsicConstants = VENDOR_NEUTRAL
) -> HeadroomResult:
    """Apply the formula of S9/S10 (or the vendor-neutral bound) to ``inputs``."""
    notes: list[str] = []
    if asic.estimate:
        notes.append(f"ASIC constants unknown ({asic.name}): this is an estimate (lower bound)")
    eight_lane = _is_eight_lane(inputs, asic, notes)
    quanta, peer = _peer_response(inputs.speed_mbps, asic, notes)
    on_cable = bytes_in_flight(inputs.speed_mbps, 2 * inputs.cable_m / asic.signal_speed_m_per_s)
    on_gearbox = bytes_in_flight(inputs.speed_mbps, inputs.gearbox_delay_ns * 1e-9)
    propagation = inputs.port_mtu + on_cable + 2 * on_gearbox + asic.mac_phy_delay_bytes + peer
    occupancy = cell_occupancy(asic.cell_bytes, inputs.small_packet_pct)
    final_frame = inputs.port_mtu if asic.estimate else inputs.lossless_mtu
    xoff_raw = final_frame + propagation * occupancy
    xoff = round_up(xoff_raw, 1 if asic.estimate else KIB)
    if asic.estimate:
        notes.append("xon not estimated (ASIC pipeline latency unknown)")
    xon, size = _xon_and_size(xoff, inputs, asic, eight_lane)
    return HeadroomResult(
        inputs=inputs,
        asic=asic,
        eight_lane=eight_lane,
        pause_quanta=quanta,
        worst_case_factor=worst_case_factor(asic.cell_bytes),
        cell_occupancy=occupancy,
        bytes_on_cable=on_cable,
        bytes_on_gearbox=on_gearbox,
        peer_response=peer,
        propagation_delay=propagation,
        final_frame=final_frame,
        xoff_raw=xoff_raw,
        xoff=xoff,
        xon=xon,
        size=size,
        notes=tuple(notes),
    )
