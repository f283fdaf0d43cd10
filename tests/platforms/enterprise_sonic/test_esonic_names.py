"""Interface names, ranges, prompts and value syntax of sonic-cli."""

from __future__ import annotations

import pytest

from rocetune.platforms.enterprise_sonic.changeset import indented, with_exits
from rocetune.platforms.enterprise_sonic.context import ranges
from rocetune.platforms.enterprise_sonic.grammar import normalise_prompts
from rocetune.platforms.enterprise_sonic.names import classify, expand_range, parent_of
from rocetune.platforms.enterprise_sonic.values import index_list, small_int


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        ("Ethernet0", ("port", "Ethernet0")),
        ("Ethernet 4", ("port", "Ethernet4")),
        ("Eth1/5", ("port", "Eth1/5")),
        ("Eth 1/5", ("port", "Eth1/5")),
        ("Eth1/49/2", ("port", "Eth1/49/2")),
        ("PortChannel 5", ("portchannel", "PortChannel5")),
        ("Vlan10", ("other", "Vlan10")),
        ("Loopback 0", ("other", "Loopback 0")),
        ("Management 0", ("other", "Management 0")),
        ("Ethernet <id>", ("invalid", "Ethernet <id>")),
    ],
)
def test_classify(spec: str, want: tuple[str, str]) -> None:
    assert classify(spec) == want


def test_ranges() -> None:
    assert expand_range("Eth 1/1-1/4") == ["Eth1/1", "Eth1/2", "Eth1/3", "Eth1/4"]
    assert expand_range("Eth1/1-3,Eth1/7") == ["Eth1/1", "Eth1/2", "Eth1/3", "Eth1/7"]
    assert expand_range("Eth1/49/1-1/49/2") == ["Eth1/49/1", "Eth1/49/2"]
    assert expand_range("Ethernet0-12") is None  # native names: the lane step is unknown
    assert expand_range("Eth1/4-1/1") is None
    assert parent_of("Eth1/49/3") == "Eth1/49"
    assert parent_of("Eth1/49") is None


def test_values() -> None:
    assert index_list("0-3,5-7,9", 63) == [0, 1, 2, 3, 5, 6, 7, 9]
    assert index_list("60-64", 63) is None
    assert index_list("3-1", 7) is None
    assert small_int("7", 7) == 7
    assert small_int("8", 7) is None
    assert ranges([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"


def test_prompts_keep_line_numbers() -> None:
    text = (
        "sonic(config)# interface Ethernet <id>\n"
        "sonic(conf-if-Ethernet0)# mtu 9100\n"
        "%Info: done\n"
        "$ (config-if-range-eth**)# no shutdown\n"
    )
    out = normalise_prompts(text).splitlines()
    assert len(out) == 4
    assert out[0] == "sonic(config)# interface Ethernet0"
    assert out[1] == "sonic(config-sub)# mtu 9100"
    assert out[2] == ""
    assert out[3].endswith("# no shutdown")


def test_indented_and_exits() -> None:
    flat = "qos scheduler-policy P\n!\nqueue 0\ntype dwrr\nweight 50\n!\nqueue 6\ntype strict\n"
    assert indented(flat) == (
        "qos scheduler-policy P\n queue 0\n  type dwrr\n  weight 50\n queue 6\n  type strict\n"
    )
    assert with_exits(" queue 3\n  weight 1\n queue 4\n  weight 2".join(["P\n", ""])) == (
        "P\n queue 3\n  weight 1\n exit\n queue 4\n  weight 2\n exit\nexit"
    )
