"""ASIC constants of the headroom computation (docs/buffers.md, "NVIDIA Spectrum").

The numbers are those SONiC publishes for NVIDIA Spectrum switches in sonic-buildimage
``platform/mellanox/asic_table.j2`` (the STATE_DB ``ASIC_TABLE`` that buffermgrd reads):
cell size in bytes; pipeline latency, MAC/PHY delay and peer response time in KiB (the
computation multiplies them by 1024). Spectrum-4 and -5 add a per-tile term to the
propagation delay, Spectrum-6 adds 18 KiB to every xoff (sonic-swss
``cfgmgr/buffer_headroom_mellanox.lua``). See docs/buffers.md for the commits read.

ASICs without published constants get :data:`VENDOR_NEUTRAL`: results computed with it are
estimates (a lower bound), never the vendor's number.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

KIB = 1024
SPECTRUM_SIGNAL_SPEED_M_PER_S = 198_000_000.0
"""Signal speed in the cable used by the Spectrum computation (~5.05 ns/m)."""
NEUTRAL_SIGNAL_SPEED_M_PER_S = 200_000_000.0
"""5 ns/m, the figure of the vendor-neutral bound."""
TILE_BITS_PER_GBPS = 120
"""Spectrum-4/5: bits per Gb/s of port speed held on the tile (speed_G x 120 / 8 bytes)."""
SPECTRUM6_XOFF_EXTRA_BYTES = 18 * KIB
"""Spectrum-6: added to every xoff for the ASIC's packet-buffer accounting."""


@dataclass(frozen=True)
class AsicConstants:
    """The ASIC-dependent inputs of the headroom computation, in bytes."""

    name: str
    cell_bytes: int | None
    """Buffer cell size; None = unknown (cell occupancy taken as 1)."""
    pipeline_latency_bytes: float
    mac_phy_delay_bytes: float
    peer_response_bytes: float | None
    """Fallback peer response when the speed is not in the pause-quanta table."""
    signal_speed_m_per_s: float = SPECTRUM_SIGNAL_SPEED_M_PER_S
    estimate: bool = False
    """True for the vendor-neutral lower bound: results are estimates, not vendor values."""
    tile_term: bool = False
    """Spectrum-4/5: add speed_G x 120 / 8 bytes to the propagation delay."""
    xoff_extra_bytes: int = 0
    """Added to the rounded xoff (Spectrum-6: 18 KiB)."""
    source: str = "sonic-buildimage asic_table.j2; sonic-swss buffer_headroom_mellanox.lua"


def _spectrum(name: str, cell: int, pipeline_kib: float, **extra: object) -> AsicConstants:
    return AsicConstants(
        name=name,
        cell_bytes=cell,
        pipeline_latency_bytes=pipeline_kib * KIB,
        mac_phy_delay_bytes=0.8 * KIB,
        peer_response_bytes=3.8 * KIB,
        **extra,  # type: ignore[arg-type]
    )


SPECTRUM_1 = _spectrum("Spectrum-1", 96, 19)
SPECTRUM_2 = _spectrum("Spectrum-2", 144, 19)
SPECTRUM_3 = _spectrum("Spectrum-3", 144, 19)
SPECTRUM_4 = _spectrum("Spectrum-4", 192, 19, tile_term=True)
SPECTRUM_5 = _spectrum("Spectrum-5", 192, 19, tile_term=True)
SPECTRUM_6 = _spectrum("Spectrum-6", 256, 42, xoff_extra_bytes=SPECTRUM6_XOFF_EXTRA_BYTES)
VENDOR_NEUTRAL = AsicConstants(
    name="vendor-neutral lower bound",
    cell_bytes=None,
    pipeline_latency_bytes=0.0,
    mac_phy_delay_bytes=0.8 * KIB,
    peer_response_bytes=None,
    signal_speed_m_per_s=NEUTRAL_SIGNAL_SPEED_M_PER_S,
    estimate=True,
    source="docs/buffers.md (IEEE 802.1Qbb delay budget; MAC/PHY allowance of the Spectrum table)",
)

_BY_GENERATION: Mapping[str, AsicConstants] = MappingProxyType(
    {
        "1": SPECTRUM_1,
        "": SPECTRUM_1,
        "2": SPECTRUM_2,
        "3": SPECTRUM_3,
        "4": SPECTRUM_4,
        "5": SPECTRUM_5,
        "6": SPECTRUM_6,
    }
)


def asic_constants(asic: str | None) -> AsicConstants:
    """Constants for an ASIC name (``spectrum2``, ``MELLANOX-SPECTRUM-6``, ``spc3``).

    Unknown or missing names give :data:`VENDOR_NEUTRAL` (results marked as estimates).
    """
    if not asic:
        return VENDOR_NEUTRAL
    key = "".join(ch for ch in asic.lower() if ch.isalnum())
    for prefix in ("mellanox", "nvidia", "mlnx"):
        key = key.removeprefix(prefix)
    for stem in ("spectrum", "spc"):
        if key.startswith(stem) and key[len(stem) :] in _BY_GENERATION:
            if stem == "spc" and not key[len(stem) :]:
                break
            return _BY_GENERATION[key[len(stem) :]]
    return VENDOR_NEUTRAL
