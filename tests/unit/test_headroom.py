"""The headroom computation: the NVIDIA Spectrum model step by step and the neutral estimate.

The row-by-row agreement with buffermgrd's own computation is tests/unit/test_headroom_oracle.py.
"""

from __future__ import annotations

import dataclasses

import pytest

from rocetune.tune.headroom import (
    PAUSE_QUANTA,
    SPECTRUM_1,
    SPECTRUM_2,
    SPECTRUM_3,
    SPECTRUM_4,
    SPECTRUM_5,
    SPECTRUM_6,
    VENDOR_NEUTRAL,
    HeadroomInputs,
    asic_constants,
    cell_occupancy,
    compute_headroom,
    pause_quanta,
    round_up,
    small_share_by_bytes,
    worst_case_factor,
)


def test_spectrum2_100g_5m_by_hand() -> None:
    # SONiC defaults: lossless MTU 1024, 50 % small packets; cell 144 -> factor ceil(2.25) = 3
    res = compute_headroom(HeadroomInputs(speed_mbps=100_000, cable_m=5), SPECTRUM_2)
    assert res.worst_case_factor == 3
    share = 100 * 64 / ((50 * 64 + 50 * 1024) / 100)  # 11.76 % of the bytes are small
    assert res.small_share_bytes_pct == pytest.approx(share)
    assert res.cell_occupancy == pytest.approx((100 - share + 3 * share) / 100)
    # 9100 + 631.3 (cable at 198,000,000 m/s) + 819.2 + 394 x 64 = 35766.5
    assert res.propagation_delay == pytest.approx(35_766.5, abs=0.1)
    assert res.xoff == round_up(1024 + 35_766.5 * res.cell_occupancy) + 2048  # compensation
    assert res.compensation == 2048
    assert (res.xoff, res.xon, res.size) == (48_128, 19_456, 67_584)  # buffermgrd: the same
    assert not res.estimate


def test_compensation_only_when_far_below_the_worst_case() -> None:
    full = compute_headroom(
        HeadroomInputs(speed_mbps=100_000, cable_m=5, small_packet_pct=100), SPECTRUM_2
    )
    assert full.compensation == 0
    shp = compute_headroom(
        HeadroomInputs(speed_mbps=100_000, cable_m=5, shared_headroom_pool=True), SPECTRUM_2
    )
    assert shp.compensation == 0
    assert shp.size == shp.xon == 19_456


def test_eight_lane_doubles_the_pipeline_and_adds_the_port_mtu() -> None:
    eight = compute_headroom(HeadroomInputs(speed_mbps=400_000, cable_m=5), SPECTRUM_3)
    four = compute_headroom(HeadroomInputs(speed_mbps=400_000, cable_m=5, lanes=4), SPECTRUM_3)
    assert eight.eight_lane
    assert not four.eight_lane
    assert eight.xon == 2 * 19 * 1024
    assert four.xon == 19 * 1024
    assert eight.xoff == four.xoff
    assert eight.size == round_up(eight.xoff + eight.xon + 9100)
    assert any("8 lanes" in n for n in eight.notes)


def test_spectrum4_and_5_add_the_tile_term() -> None:
    s4 = compute_headroom(HeadroomInputs(speed_mbps=800_000, cable_m=40), SPECTRUM_4)
    s5 = compute_headroom(HeadroomInputs(speed_mbps=800_000, cable_m=40), SPECTRUM_5)
    s3 = compute_headroom(HeadroomInputs(speed_mbps=800_000, cable_m=40), SPECTRUM_3)
    assert s4.bytes_on_tile == s5.bytes_on_tile == 800 * 120 / 8
    assert s3.bytes_on_tile == 0
    assert (s4.xoff, s4.xon, s4.size) == (152_576, 38_912, 200_704)  # buffermgrd's numbers


def test_spectrum6_adds_18k_and_has_its_own_cell_and_pipeline() -> None:
    res = compute_headroom(HeadroomInputs(speed_mbps=800_000, cable_m=40), SPECTRUM_6)
    assert res.worst_case_factor == 4  # 256 / 64
    assert res.xon == 2 * 42 * 1024
    assert (res.xoff, res.xon, res.size) == (168_960, 86_016, 264_192)  # buffermgrd's numbers
    assert "18432 (ASIC)" in res.summary()


def test_spectrum1_cell_factor_rounds_up_to_two() -> None:
    assert worst_case_factor(96) == 2  # ceil(2 x 96 / 97)
    assert worst_case_factor(128) == 2  # boundary: not > 2 x 64
    assert worst_case_factor(144) == 3
    assert worst_case_factor(None) == 1
    res = compute_headroom(HeadroomInputs(speed_mbps=100_000, cable_m=5), SPECTRUM_1)
    assert (res.xoff, res.xon, res.size) == (44_032, 19_456, 63_488)


def test_small_packets_by_bytes() -> None:
    assert small_share_by_bytes(100, 1024) == 100
    assert small_share_by_bytes(0, 1024) == pytest.approx(6.25)
    assert cell_occupancy(144, 100, 1024) == 3
    assert cell_occupancy(None, 50, 1024) == 1


def test_gearbox_keeps_the_vendor_unit() -> None:
    plain = compute_headroom(HeadroomInputs(speed_mbps=100_000, cable_m=5), SPECTRUM_2)
    gb = compute_headroom(
        HeadroomInputs(speed_mbps=100_000, cable_m=5, gearbox_delay_ns=400), SPECTRUM_2
    )
    assert gb.bytes_on_gearbox == pytest.approx(100_000 * 400 / 8192)
    assert gb.propagation_delay - plain.propagation_delay == pytest.approx(2 * gb.bytes_on_gearbox)


def test_monotonic_in_cable_length() -> None:
    xoffs = [
        compute_headroom(HeadroomInputs(speed_mbps=100_000, cable_m=m), SPECTRUM_2).xoff_raw
        for m in (0, 1, 10, 100, 1000)
    ]
    assert xoffs == sorted(xoffs)
    assert len(set(xoffs)) == len(xoffs)


def test_speed_outside_table_uses_asic_fallback() -> None:
    res = compute_headroom(HeadroomInputs(speed_mbps=2_500, cable_m=3), SPECTRUM_2)
    assert res.pause_quanta is None
    assert res.peer_response == pytest.approx(3.8 * 1024)
    assert any("pause-quanta table" in n for n in res.notes)


def test_neutral_bound_is_an_estimate_with_its_formula() -> None:
    inputs = HeadroomInputs(speed_mbps=100_000, cable_m=5)
    neutral = compute_headroom(inputs)
    assert neutral.estimate
    assert neutral.asic is VENDOR_NEUTRAL
    # 2 x 9100 + 625 (5 ns/m) + 25216 + 819.2 = 44860.2
    assert neutral.xoff_raw == pytest.approx(44_860.2)
    assert neutral.xon == 0
    assert "ESTIMATE" in neutral.explain()
    assert neutral.summary().startswith("estimate")
    assert "2 x port MTU" in neutral.summary()


def test_neutral_bound_floors_unknown_speed() -> None:
    assert pause_quanta(1_600_000) is None
    assert pause_quanta(1_600_000, floor=True) == 905
    assert pause_quanta(2_500, floor=True) == PAUSE_QUANTA[1_000]
    assert pause_quanta(10, floor=True) == 0
    res = compute_headroom(HeadroomInputs(speed_mbps=2_500, cable_m=1))
    assert res.pause_quanta == 2


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("spectrum2", SPECTRUM_2),
        ("Spectrum-3", SPECTRUM_3),
        ("MELLANOX-SPECTRUM-2", SPECTRUM_2),
        ("MELLANOX-SPECTRUM", SPECTRUM_1),
        ("spc1", SPECTRUM_1),
        ("spectrum4", SPECTRUM_4),
        ("MELLANOX-SPECTRUM-5", SPECTRUM_5),
        ("spc6", SPECTRUM_6),
        ("spectrum7", VENDOR_NEUTRAL),
        ("spc", VENDOR_NEUTRAL),
        ("tomahawk4", VENDOR_NEUTRAL),
        (None, VENDOR_NEUTRAL),
        ("", VENDOR_NEUTRAL),
    ],
)
def test_asic_lookup(name: str | None, expected: object) -> None:
    assert asic_constants(name) == expected


@pytest.mark.parametrize(
    "bad",
    [
        {"speed_mbps": 0},
        {"cable_m": -1},
        {"port_mtu": 0},
        {"small_packet_pct": 101},
        {"gearbox_delay_ns": -5},
        {"lanes": 0},
    ],
)
def test_invalid_inputs(bad: dict[str, float]) -> None:
    args: dict[str, float] = {"speed_mbps": 100_000, "cable_m": 5, **bad}
    with pytest.raises(ValueError, match="must be"):
        HeadroomInputs(**args)  # type: ignore[arg-type]


def test_result_is_frozen_and_explain_shows_every_step() -> None:
    res = compute_headroom(HeadroomInputs(speed_mbps=100_000, cable_m=5), SPECTRUM_2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.xoff = 0  # type: ignore[misc]
    text = res.explain()
    for word in ("worst_case_factor", "cell_occupancy", "bytes_on_cable", "peer_response", "xoff"):
        assert word in text
