"""NX-OS value syntax: lists, DSCP names, sizes, speeds and interface names."""

from __future__ import annotations

import pytest

from rocetune.platforms.nxos.lines import Issues, build_tree
from rocetune.platforms.nxos.values import (
    DSCP_NAMES,
    interface_names,
    normalise_port,
    parse_list,
    parse_size,
    parse_speed,
    precedence_dscps,
)


@pytest.mark.parametrize(
    ("words", "high", "expected"),
    [
        (["18,20,22"], 63, [18, 20, 22]),
        (["1-2,4"], 7, [1, 2, 4]),
        (["0", "1", "2"], 7, [0, 1, 2]),
        (["3-4"], 7, [3, 4]),
        (["7,7"], 7, [7]),
        (["8"], 7, None),
        (["4-2"], 7, None),
        (["3-"], 7, None),
        (["-1"], 7, None),
        (["x"], 7, None),
        ([], 7, None),
        ([","], 7, None),
    ],
)
def test_lists(words: list[str], high: int, expected: list[int] | None) -> None:
    assert parse_list(words, high) == expected


def test_dscp_names_and_precedence() -> None:
    assert parse_list(["af31,cs3,ef,default,AF41"], 63, DSCP_NAMES) == [0, 24, 26, 34, 46]
    assert DSCP_NAMES["af11"] == 10
    assert DSCP_NAMES["af43"] == 38
    assert DSCP_NAMES["cs7"] == 56
    assert precedence_dscps([3]) == list(range(24, 32))


@pytest.mark.parametrize(
    ("value", "unit", "expected"),
    [
        ("150", "kbytes", 150_000),
        ("3", "mbytes", 3_000_000),
        ("9000", "bytes", 9000),
        ("100", "packets", None),
        ("1x", "kbytes", None),
        ("", "bytes", None),
    ],
)
def test_sizes(value: str, unit: str, expected: int | None) -> None:
    assert parse_size(value, unit) == expected


def test_speeds() -> None:
    assert parse_speed("100000") == 100_000
    assert parse_speed("auto") is None
    assert parse_speed("5") is None


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Eth1/1", "Ethernet1/1"),
        ("ethernet1/1", "Ethernet1/1"),
        ("Ethernet 1/33/2", "Ethernet1/33/2"),
        ("e1/5", "Ethernet1/5"),
        ("mgmt0", "mgmt0"),
        ("eth2", "eth2"),
        ("b8ce.f6a1.0001", "b8ce.f6a1.0001"),
        (" Eth1/49 ", "Ethernet1/49"),
    ],
)
def test_port_names(name: str, expected: str) -> None:
    assert normalise_port(name) == expected


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["Ethernet1/1"], ["Ethernet1/1"]),
        (["Ethernet", "1/1"], ["Ethernet1/1"]),
        (["Ethernet1/1-3"], ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3"]),
        (["Ethernet1/1,", "Ethernet1/3"], ["Ethernet1/1", "Ethernet1/3"]),
        (["Ethernet1/1/1-2"], ["Ethernet1/1/1", "Ethernet1/1/2"]),
        (["port-channel10"], None),
        (["Ethernet1/1.100"], None),
        (["Vlan10"], None),
        (["Ethernet1/4-2"], None),
        (["Ethernet1/1,", "loopback0"], None),
    ],
)
def test_interface_names(words: list[str], expected: list[str] | None) -> None:
    assert interface_names(words) == expected


def test_tree_follows_indentation_and_drops_comments() -> None:
    issues = Issues("f")
    text = (
        "!Command: show running-config\n"
        "leaf1# show running-config\n"
        "policy-map type queuing Q\n"
        "   class type queuing c-out-8q-q3\n"
        " # a comment that is not NX-OS\n"
        "    bandwidth remaining percent 50\n"
        "\tpriority level 1\n"
        "\n"
        "hostname x\n"
    )
    roots = build_tree(text, issues)
    assert [(n.text, n.line) for n in roots] == [
        ("policy-map type queuing Q", 3),
        ("hostname x", 9),
    ]
    assert [(n.text, n.line) for n in roots[0].walk()] == [
        ("class type queuing c-out-8q-q3", 4),
        ("bandwidth remaining percent 50", 6),
        ("priority level 1", 7),
    ]
    assert [(u.item, u.line) for u in issues.items] == [("# a comment that is not NX-OS", 5)]
