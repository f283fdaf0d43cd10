"""NVUE value readers: interface ranges, id lists, speeds, alphas and switches."""

from __future__ import annotations

import math

import pytest

from rocetune.platforms.cumulus import values


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("swp1", ["swp1"]),
        ("swp1-4", ["swp1", "swp2", "swp3", "swp4"]),
        ("swp1,swp3", ["swp1", "swp3"]),
        ("swp2,6", ["swp2", "swp6"]),
        ("swp1,51-53", ["swp1", "swp51", "swp52", "swp53"]),
        ("swp1s0-3", ["swp1s0", "swp1s1", "swp1s2", "swp1s3"]),
        ("swp1-swp2", ["swp1", "swp2"]),
        ("lo,swp51-52,vlan10,20", ["lo", "swp51", "swp52", "vlan10", "vlan20"]),
        ("peerlink.4094", ["peerlink.4094"]),
        ("swp1.100", ["swp1.100"]),
        ("br_default", ["br_default"]),
        ("swp4-1", None),
        ("swp1-eth4", None),
        ("7", None),
        ("swp1,,swp2", None),
        ("swp1-99999", None),
        ("swp[1", None),
    ],
)
def test_expand_names(key: str, expected: list[str] | None) -> None:
    assert values.expand_names(key) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, [3]),
        ("3", [3]),
        ("0-3,5-7", [0, 1, 2, 3, 5, 6, 7]),
        ("4,5,7", [4, 5, 7]),
        (" 1 , 2 ", [1, 2]),
        ("8", None),
        ("3-1", None),
        ("a", None),
        (True, None),
        (None, None),
        ("", None),
    ],
)
def test_expand_ids(value: object, expected: list[int] | None) -> None:
    assert values.expand_ids(value, 0, 7) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("100G", 100_000),
        ("400g", 400_000),
        ("25G", 25_000),
        ("2.5G", 2_500),
        ("1T", 1_000_000),
        ("100Gbps", 100_000),
        (100000, 100_000),
        ("fast", None),
        (True, None),
    ],
)
def test_speed(value: object, expected: int | None) -> None:
    assert values.as_speed_mbps(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("alpha_0", 0.0),
        ("alpha_1_8", 0.125),
        ("alpha_2", 2.0),
        ("ALPHA_1", 1.0),
        ("alpha_infinity", math.inf),
        ("alpha_1_0", None),
        ("beta_2", None),
        (2, None),
    ],
)
def test_alpha(value: object, expected: float | None) -> None:
    assert values.as_alpha(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("on", True),
        ("enable", True),
        ("Enabled", True),
        (True, True),
        ("off", False),
        ("disable", False),
        ("disabled", False),
        ("maybe", None),
        (1, None),
    ],
)
def test_switch(value: object, expected: bool | None) -> None:
    assert values.as_switch(value) is expected


def test_numbers() -> None:
    assert values.as_int("9216") == 9216
    assert values.as_int(9216.0) == 9216
    assert values.as_int(-1) is None
    assert values.as_int(False) is None
    assert values.as_number("12.5") == 12.5
    assert values.as_number(float("nan")) is None
