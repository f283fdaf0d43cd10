"""Options of RT304, RT305, RT504 and RT505 (rule cases run with default options only)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from rocetune.checks.buffer_limits import (
    HeadroomLimits,
    HeadroomLimitsOptions,
    LosslessPool,
    LosslessPoolOptions,
    pg_headroom,
)
from rocetune.checks.ecn_thresholds import (
    EcnBeforePfc,
    EcnBeforePfcOptions,
    EcnScaleOptions,
    EcnThresholdScale,
)
from rocetune.engine import run_checks
from rocetune.model import BufferPool, BufferProfile, Device, EcnProfile, Fabric, Port

MAPS = {"priority_to_tc": {3: 3}, "tc_to_queue": {3: 3}, "tc_to_pg": {3: 3}}


def _fabric(port: Port, pools: dict[str, BufferPool] | None = None) -> Fabric:
    dev = Device(
        name="leaf1", kind="switch", platform="test", ports={port.name: port}, buffer_pools=pools
    )
    return Fabric(devices={"leaf1": dev})


def _ecn(kmin: int, kmax: int) -> dict[int, EcnProfile]:
    return {
        3: EcnProfile(
            ecn_mark=True, min_threshold_bytes=kmin, max_threshold_bytes=kmax, max_probability_pct=5
        )
    }


def test_rt304_tolerance() -> None:
    port = Port(name="swp1", speed_mbps=100_000, ecn=_ecn(409_600, 1_638_400), **MAPS)
    fabric = _fabric(port)
    assert run_checks(fabric, [EcnThresholdScale]) == []
    opts = {"RT304": EcnScaleOptions(tolerance_pct=0)}
    (finding,) = run_checks(fabric, [EcnThresholdScale], options=opts)
    assert "Kmax 1638400 B is above 1600000 B (marks too late)" in finding.message
    assert finding.expected == (
        "Kmin and Kmax within 400000-1600000 B at 100G (intent ecn envelope, tolerance 0 %)"
    )
    with pytest.raises(ValidationError):
        EcnScaleOptions(tolerance_pct=-1)


def test_rt305_threshold_kmin_and_asic_buffer() -> None:
    pg = BufferProfile(pool="roce-lossless", computed_at_runtime=True, alpha=1.0)
    port = Port(name="swp1", ecn=_ecn(150_000, 1_500_000), pg_buffers={3: pg}, **MAPS)
    pools = {"roce-lossless": BufferPool(name="roce-lossless", percent=50, lossless=True)}
    fabric = _fabric(port, pools)
    (missing,) = run_checks(fabric, [EcnBeforePfc])
    assert missing.code == "RT000"
    # 50 % of 4 MB = 2 MB pool; alpha 1 -> the PG pauses at 1 MB; Kmax 1.5 MB is above.
    opts = {"RT305": EcnBeforePfcOptions(asic_buffer_bytes=4_000_000)}
    (finding,) = run_checks(fabric, [EcnBeforePfc], options=opts)
    assert finding.code == "RT305"
    assert finding.expected == "Kmax < 1000000 B (dynamic PG limit)"
    kmin_only = {"RT305": EcnBeforePfcOptions(asic_buffer_bytes=4_000_000, threshold="kmin")}
    assert run_checks(fabric, [EcnBeforePfc], options=kmin_only) == []
    tiny = {"RT305": EcnBeforePfcOptions(asic_buffer_bytes=200_000, threshold="kmin")}
    (late,) = run_checks(fabric, [EcnBeforePfc], options=tiny)
    assert "marking starts only at Kmin 150000 B" in late.message


def test_rt504_max_headroom_and_asic_buffer() -> None:
    pgs = {
        3: BufferProfile(xon_bytes=18_432, xoff_bytes=82_944),
        4: BufferProfile(size_bytes=120_000, xoff_bytes=80_000),
        0: BufferProfile(size_bytes=0),
    }
    port = Port(name="Ethernet0", pg_buffers=pgs)
    pools = {
        "ingress_lossless_pool": BufferPool(
            name="ingress_lossless_pool", direction="ingress", size_bytes=9_000_000
        ),
        "ingress_lossy_pool": BufferPool(
            name="ingress_lossy_pool", direction="ingress", size_bytes=4_000_000
        ),
        "egress_lossless_pool": BufferPool(
            name="egress_lossless_pool", direction="egress", size_bytes=12_000_000
        ),
    }
    fabric = _fabric(port, pools)
    fits = {
        "RT504": HeadroomLimitsOptions(max_headroom_bytes=221_376, asic_buffer_bytes=13_000_000)
    }
    assert run_checks(fabric, [HeadroomLimits], options=fits) == []
    tight = {
        "RT504": HeadroomLimitsOptions(max_headroom_bytes=200_000, asic_buffer_bytes=12_500_000)
    }
    findings = run_checks(fabric, [HeadroomLimits], options=tight)
    assert [(f.port, f.observed, f.expected) for f in findings] == [
        (None, "13000000 B", "<= 12500000 B (option asic_buffer_bytes)"),
        ("Ethernet0", "221376 B headroom", "<= 200000 B (option max_headroom_bytes)"),
    ]
    assert "the ingress pools add up to 13000000 B" in findings[0].message


def test_pg_headroom() -> None:
    assert pg_headroom(BufferProfile(size_bytes=5, xon_bytes=1, xoff_bytes=1)) == 5
    assert pg_headroom(BufferProfile(xon_bytes=1, xoff_bytes=2)) == 3
    assert pg_headroom(BufferProfile(xoff_bytes=2)) is None


def test_rt505_min_queue_static_bytes() -> None:
    queue = BufferProfile(name="egress_lossless_profile", pool="egress", static_th_bytes=3_000_000)
    pg = BufferProfile(pool="ingress", xoff_bytes=1)
    port = Port(name="Ethernet0", pg_buffers={3: pg}, queue_buffers={3: queue}, **MAPS)
    pools = {
        "ingress": BufferPool(name="ingress", direction="ingress", lossless=True),
        "egress": BufferPool(name="egress", direction="egress", size_bytes=3_000_000),
    }
    fabric = _fabric(port, pools)
    assert run_checks(fabric, [LosslessPool]) == []
    opts = {"RT505": LosslessPoolOptions(min_queue_static_bytes=4_000_000)}
    (finding,) = run_checks(fabric, [LosslessPool], options=opts)
    assert finding.expected == ">= 4000000 B (option min_queue_static_bytes)"
