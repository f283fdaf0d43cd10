"""EOS value readers: units, speeds, interface names and ranges, timers."""

from __future__ import annotations

import pytest

from rocetune.platforms.eos import values
from rocetune.platforms.eos.qos_lines import port_timer, red_thresholds
from rocetune.platforms.eos.shape import PortTimer
from rocetune.platforms.eos.values import Threshold


@pytest.mark.parametrize(
    ("number", "unit", "speed", "expected"),
    [
        ("320", "kbytes", None, 320_000),
        ("1", "mbytes", None, 1_000_000),
        ("4096", "bytes", None, 4096),
        ("320", "segments", None, 320 * 208),
        ("2000", "segments", 200_000, 416_000),
        ("3", "milliseconds", 100_000, 37_500_000),  # 3 ms x 100 Gb/s / 8
        ("20", "microseconds", 400_000, 1_000_000),  # 20 us x 400 Gb/s / 8
        ("1", "microseconds", 25_000, 3125),
        ("0.5", "kbytes", None, 500),
    ],
)
def test_threshold_to_bytes(number: str, unit: str, speed: int | None, expected: int) -> None:
    got = values.threshold(number, unit)
    assert got is not None
    assert got.to_bytes(speed) == expected


def test_time_threshold_without_speed_is_unknown() -> None:
    assert Threshold(3, "milliseconds").to_bytes(None) is None
    assert Threshold(3, "microseconds").to_bytes(None) is None


@pytest.mark.parametrize(
    ("number", "unit"), [("320", "kb"), ("-1", "bytes"), ("x", "kbytes"), ("1e9", "bytes")]
)
def test_unreadable_thresholds(number: str, unit: str) -> None:
    assert values.threshold(number, unit) is None


def test_red_line_reads_probability_and_ignores_weight() -> None:
    words = "minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20"
    red = red_thresholds([*words.split(), "weight", "0"], "line")
    assert red is not None
    assert (red.low, red.high, red.probability, red.text) == (
        Threshold(150, "kbytes"),
        Threshold(1500, "kbytes"),
        20.0,
        "line",
    )


@pytest.mark.parametrize(
    "words",
    [
        "minimum-threshold 1 kbytes",
        "minimum-threshold 1 kbytes maximum-threshold 2 kbytes max-mark-probability 0",
        "minimum-threshold 1 kbytes maximum-threshold 2 kbytes max-mark-probability 101",
        "minimum-threshold 1 kbytes maximum-threshold 2 kbytes colour red",
        "minimum-threshold 1 kbytes maximum-threshold 2 kbytes weight",
        "maximum-threshold 1 kbytes minimum-threshold 2 kbytes",
    ],
)
def test_unreadable_red_lines(words: str) -> None:
    assert red_thresholds(words.split()) is None


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["100g"], (False, 100_000)),
        (["400g-8"], (False, 400_000)),
        (["200g-4"], (False, 200_000)),
        (["25g"], (False, 25_000)),
        (["forced", "100gfull"], (False, 100_000)),
        (["forced", "40gfull"], (False, 40_000)),
        (["forced", "10000full"], (False, 10_000)),
        (["forced", "1000full"], (False, 1000)),
        (["100full"], (False, 100)),
        (["2p5g"], (False, 2500)),
        (["auto"], (True, None)),
        (["auto", "100full"], (True, None)),
        (["sfp-1000baset", "auto"], (True, None)),
        (["fast"], None),
        (["forced"], None),
        (["100g", "extra"], None),
        ([], None),
        (["0g"], None),
    ],
)
def test_speed(words: list[str], expected: tuple[bool, int | None] | None) -> None:
    assert values.speed_mbps(words) == expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("Ethernet1/1-4", ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4"]),
        ("Ethernet1-4,6", ["Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4", "Ethernet6"]),
        ("Ethernet1,Ethernet3", ["Ethernet1", "Ethernet3"]),
        ("Ethernet3/1/1", ["Ethernet3/1/1"]),
        ("Et5, Et7", ["Ethernet5", "Ethernet7"]),
        ("Port-Channel10", ["Port-Channel10"]),
        ("Ethernet1/4-1", None),
        ("Ethernet1-99999", None),
        ("Ethernet1.100", None),
        ("Bogus1", None),
        ("1-4", None),
    ],
)
def test_expand_interfaces(spec: str, expected: list[str] | None) -> None:
    assert values.expand_interfaces(spec) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Et1/1", "Ethernet1/1"),
        ("Et49/1", "Ethernet49/1"),
        ("Po10", "Port-Channel10"),
        ("Ethernet2", "Ethernet2"),
        ("eth0", "eth0"),
        ("swp1", "swp1"),
        ("ge-0/0/17", "ge-0/0/17"),
    ],
)
def test_lldp_names_are_expanded_only_for_eos_abbreviations(name: str, expected: str) -> None:
    assert values.short_to_long(name) == expected


def test_number_lists_and_seconds() -> None:
    assert values.int_list(["8", "9", "10-12,14"], 63) == [8, 9, 10, 11, 12, 14]
    assert values.int_list(["64"], 63) is None
    assert values.int_list(["5-3"], 63) is None
    assert values.seconds_to_ms("0.05") == 50.0
    assert values.seconds_to_ms("10.001") == 10_001.0
    assert values.seconds_to_ms("1e3") is None


def test_port_timer() -> None:
    words = ["timeout", "0.05", "polling-interval", "auto", "recovery-time", "1.11", "forced"]
    assert port_timer(words) == PortTimer(50.0, 1110.0, None, forced=True)
    words = ["recovery-time", "0.2", "timeout", "0.2", "polling-interval", "0.1"]
    assert port_timer(words) == PortTimer(200.0, 200.0, 100.0)
    assert port_timer(["timeout", "0.05", "recovery-time", "1"]) is None
    assert port_timer(["timeout", "x", "polling-interval", "auto", "recovery-time", "1"]) is None
