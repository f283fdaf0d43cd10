"""ECN calculators of rocetune.tune.ecn: the per-speed envelope and the XOFF bound."""

from __future__ import annotations

import math

import pytest

from rocetune.tune.ecn import (
    dynamic_bound,
    dynamic_share,
    ecn_envelope,
    kb_per_25g,
    scale,
    scaled_thresholds,
    static_bound,
)


@pytest.mark.parametrize(
    ("speed", "kmin", "kmax"),
    [
        (25_000, 100_000, 400_000),
        (100_000, 400_000, 1_600_000),
        (400_000, 1_600_000, 6_400_000),
        (10_000, 40_000, 160_000),
    ],
)
def test_hpcc_scaling(speed: int, kmin: int, kmax: int) -> None:
    assert scaled_thresholds(speed) == (kmin, kmax)


def test_envelope_edges_and_tolerance() -> None:
    env = ecn_envelope(100_000, 100, 400)
    assert (env.low_bytes, env.high_bytes) == (400_000, 1_600_000)
    assert env.summary() == "400000-1600000 B at 100G"
    assert env.below(399_999)
    assert not env.below(400_000)
    assert not env.below(360_000, tolerance_pct=10)
    assert env.below(359_999, tolerance_pct=10)
    assert env.above(1_600_001)
    assert not env.above(1_638_400, tolerance_pct=2.5)
    assert env.above(1_640_001, tolerance_pct=2.5)


def test_per_25g_view() -> None:
    assert kb_per_25g(150_000, 100_000) == 37.5
    assert kb_per_25g(1_500_000, 400_000) == 93.75
    assert scale(50_000) == 2.0


@pytest.mark.parametrize(
    ("speed", "lo", "hi"), [(0, 100, 400), (100_000, 0, 400), (100_000, 400, 400)]
)
def test_envelope_rejects_bad_input(speed: int, lo: float, hi: float) -> None:
    with pytest.raises(ValueError, match=r"must be|need"):
        ecn_envelope(speed, lo, hi)


@pytest.mark.parametrize(
    ("alpha", "share"),
    [(1.0, 0.5), (0.125, 1 / 9), (8.0, 8 / 9), (0.0, 0.0), (math.inf, 1.0)],
)
def test_dynamic_share(alpha: float, share: float) -> None:
    assert dynamic_share(alpha) == pytest.approx(share)


def test_dynamic_share_rejects_negative_and_nan() -> None:
    for bad in (-1.0, math.nan):
        with pytest.raises(ValueError, match="alpha"):
            dynamic_share(bad)


def test_bounds_explain_themselves() -> None:
    dyn = dynamic_bound(10_000_000, 0.125, "pool ingress_lossless_pool")
    assert dyn.kind == "dynamic"
    assert round(dyn.limit_bytes) == 1_111_111
    assert dyn.summary == (
        "alpha/(1+alpha) x pool ingress_lossless_pool = 0.125/(1+0.125) x 10000000 B = 1111111 B"
    )
    inf = dynamic_bound(2_000_000, math.inf)
    assert inf.limit_bytes == 2_000_000
    assert "inf/(1+inf)" in inf.summary
    st = static_bound(500_000)
    assert (st.kind, st.limit_bytes, st.summary) == (
        "static",
        500_000.0,
        "static PG limit 500000 B",
    )
