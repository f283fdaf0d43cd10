"""The headroom calculator against roce-knowledge.md §3.5 (S9/S10) and its edge cases."""

from __future__ import annotations

import dataclasses

import pytest

from rocetune.tune.headroom import (
    PAUSE_QUANTA,
    SPECTRUM_1,
    SPECTRUM_2_3,
    SPECTRUM_4_FALLBACK,
    VENDOR_NEUTRAL,
    HeadroomInputs,
    asic_constants,
    cell_occupancy,
    compute_headroom,
    pause_quanta,
    round_up,
    worst_case_factor,
)

# roce-knowledge.md §3.5 worked example: Spectrum-2 constants, port MTU 9100, lossless MTU
# 1500, 100 % small packets, no gearbox, independent headroom.
WORKED = [
    # speed, cable, cable bytes, peer, propagation, xoff, xon, size
    (100_000, 5, 631, 25_216, 35_766, 82_944, 18_432, 101_000),
    (100_000, 100, 12_626, 25_216, 47_761, 109_568, 18_432, 128_000),
    (400_000, 5, 2_525, 57_920, 70_364, 160_768, 35_840, 206_000),
]


def _close(got: float, want: float, pct: float = 5.0) -> bool:
    return abs(got - want) <= want * pct / 100


@pytest.mark.parametrize("row", WORKED, ids=["100G-5m", "100G-100m", "400G-5m"])
def test_worked_examples(row: tuple[int, ...]) -> None:
    speed, cable, on_cable, peer, prop, xoff, xon, size = row
    res = compute_headroom(HeadroomInputs(speed_mbps=speed, cable_m=cable), SPECTRUM_2_3)
    assert _close(res.xoff, xoff)
    assert _close(res.size, size)
    # tighter than the contract: the doc's table is reproduced to the byte or the rounding
    assert res.xoff == xoff
    assert res.xon == xon
    assert round(res.bytes_on_cable) == on_cable
    assert res.peer_response == peer
    assert abs(res.propagation_delay - prop) <= 1
    assert res.cell_occupancy == pytest.approx(2.25)
    assert not res.estimate


def test_400g_is_eight_lane_by_default_and_four_lane_on_request() -> None:
    eight = compute_headroom(HeadroomInputs(speed_mbps=400_000, cable_m=5), SPECTRUM_2_3)
    four = compute_headroom(HeadroomInputs(speed_mbps=400_000, cable_m=5, lanes=4), SPECTRUM_2_3)
    assert eight.eight_lane
    assert eight.size == 205_824  # 160768 + 35840 + 9100, rounded up to 1024
    assert not four.eight_lane
    assert four.xon == 18_432
    assert four.size == four.xoff + four.xon
    assert four.xoff == eight.xoff  # lanes change xon and size only


def test_spectrum1_worst_case_factor_by_hand() -> None:
    # cell 96 <= 128: factor = 2*96/97; xoff = 1500 + 35766.8 * 1.97938 = 72296 -> 72704
    res = compute_headroom(HeadroomInputs(speed_mbps=100_000, cable_m=5), SPECTRUM_1)
    assert res.worst_case_factor == pytest.approx(192 / 97)
    assert res.xoff_raw == pytest.approx(72_296, abs=2)
    assert res.xoff == 72_704


def test_no_small_packets_means_occupancy_one() -> None:
    assert cell_occupancy(144, 0) == 1
    assert cell_occupancy(None, 100) == 1
    assert worst_case_factor(128) == pytest.approx(256 / 129)  # boundary: not > 2*64
    res = compute_headroom(
        HeadroomInputs(speed_mbps=100_000, cable_m=5, small_packet_pct=0), SPECTRUM_2_3
    )
    assert res.xoff == round_up(1500 + res.propagation_delay)


def test_shared_headroom_pool_size_is_xon() -> None:
    res = compute_headroom(
        HeadroomInputs(speed_mbps=100_000, cable_m=5, shared_headroom_pool=True), SPECTRUM_2_3
    )
    assert res.size == res.xon == 18_432
    assert "shared headroom pool" in res.explain()


def test_gearbox_counts_twice() -> None:
    plain = compute_headroom(HeadroomInputs(speed_mbps=100_000, cable_m=5), SPECTRUM_2_3)
    gb = compute_headroom(
        HeadroomInputs(speed_mbps=100_000, cable_m=5, gearbox_delay_ns=100), SPECTRUM_2_3
    )
    assert gb.bytes_on_gearbox == pytest.approx(1250)  # 100 Gb/s x 100 ns / 8
    assert gb.propagation_delay - plain.propagation_delay == pytest.approx(2500)


def test_zero_cable_and_monotonic_in_length() -> None:
    xoffs = [
        compute_headroom(HeadroomInputs(speed_mbps=100_000, cable_m=m), SPECTRUM_2_3).xoff_raw
        for m in (0, 1, 10, 100, 1000)
    ]
    assert xoffs == sorted(xoffs)
    assert len(set(xoffs)) == len(xoffs)


def test_speed_outside_table_uses_asic_fallback() -> None:
    res = compute_headroom(HeadroomInputs(speed_mbps=2_500, cable_m=3), SPECTRUM_2_3)
    assert res.pause_quanta is None
    assert res.peer_response == pytest.approx(3.8 * 1024)
    assert any("pause-quanta table" in n for n in res.notes)


def test_neutral_bound_is_lower_than_spectrum_and_marked_estimate() -> None:
    inputs = HeadroomInputs(speed_mbps=100_000, cable_m=5)
    neutral = compute_headroom(inputs)
    assert neutral.estimate
    assert neutral.asic is VENDOR_NEUTRAL
    # 2 x 9100 + 625 (5 ns/m) + 25216 + 819.2 = 44860.2
    assert neutral.xoff_raw == pytest.approx(44_860.2)
    assert neutral.xoff < compute_headroom(inputs, SPECTRUM_2_3).xoff
    assert "ESTIMATE" in neutral.explain()
    assert neutral.summary().startswith("estimate")


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
        ("spectrum2", SPECTRUM_2_3),
        ("Spectrum-3", SPECTRUM_2_3),
        ("MELLANOX-SPECTRUM-2", SPECTRUM_2_3),
        ("MELLANOX-SPECTRUM", SPECTRUM_1),
        ("spc1", SPECTRUM_1),
        ("spectrum4", SPECTRUM_4_FALLBACK),
        ("tomahawk4", VENDOR_NEUTRAL),
        (None, VENDOR_NEUTRAL),
        ("", VENDOR_NEUTRAL),
    ],
)
def test_asic_lookup(name: str | None, expected: object) -> None:
    assert asic_constants(name) == expected


def test_spectrum4_falls_back_to_estimate() -> None:
    res = compute_headroom(HeadroomInputs(speed_mbps=400_000, cable_m=5), asic_constants("spc4"))
    assert res.estimate
    assert "Spectrum-4" in res.explain()


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
    res = compute_headroom(HeadroomInputs(speed_mbps=100_000, cable_m=5), SPECTRUM_2_3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.xoff = 0  # type: ignore[misc]
    text = res.explain()
    for part in ("cell/64 = 144/64", "394 quanta", "= 35767", "-> 82944", "-> 18432", "101376"):
        assert part in text
    assert "82944" not in res.summary()  # the summary shows the raw requirement
    assert "81975 B" in res.summary()


def test_round_up() -> None:
    assert round_up(0) == 0
    assert round_up(1) == 1024
    assert round_up(1024) == 1024
    assert round_up(1024.4) == 2048
