"""Recognising saved host outputs, and leaving other platforms' files alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.platforms.linux_host import commands as c
from tests.platforms.linux_host.host_helpers import DRIVER, FIXTURES, SNAPSHOT

OTHER = sorted(
    p
    for d in ("sonic", "cumulus", "eos", "nxos", "lldp")
    for p in (FIXTURES.parent / d).rglob("*")
    if p.is_file() and p.suffix != ".md"
)


def _sniff(text: str) -> str | None:
    command = DRIVER.sniff("x", text)
    return None if command is None else command.command


@pytest.mark.parametrize(
    ("file", "command"),
    [
        ("mlnx_qos_i_eth2.txt", "saved mlnx_qos output"),
        ("ethtool_eth2.txt", "ethtool eth2"),
        ("ethtool_a_eth3.txt", "ethtool -a eth3"),
        ("ethtool_i_eth2.txt", "saved ethtool_driver output"),
        ("ethtool_s_eth2.txt", "saved ethtool_stats output"),
        (
            "grep_h_sys_class_net_eth2_ecn_roce_p_enable.txt",
            "grep -H . /sys/class/net/eth2/ecn/roce_*p/enable/*",
        ),
        ("show_gids_mlx5_0.txt", "saved show_gids output"),
        ("ibv_devinfo_v_d_mlx5_1.txt", "saved ibv_devinfo output"),
        ("mlxconfig_d_0000_17_00_0_q.txt", "saved mlxconfig output"),
        ("ibdev2netdev.txt", "ibdev2netdev"),
        ("cma_roce_mode_d_mlx5_0_p_1.txt", "saved roce_mode output"),
        ("cat_sys_class_infiniband_mlx5_0_tc_1_traffic_class.txt", "saved traffic_class output"),
        ("lldpctl_f_json.json", None),
        (
            "grep_h_sys_class_infiniband_mlx5_0_ports_1_hw_counters.txt",
            "grep -H . /sys/class/infiniband/mlx5_0/ports/1/hw_counters/*",
        ),
        ("cma_roce_tos_d_mlx5_0.txt", None),
        ("cat_sys_class_net_eth2_mtu.txt", None),
    ],
)
def test_sniff_single_outputs(file: str, command: str | None) -> None:
    assert _sniff((SNAPSHOT / file).read_text()) == command


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("[root@gpu ~]# mlnx_qos -i eth2\nDCBX mode: OS controlled\n", c.TRANSCRIPT.command),
        ("+ cma_roce_tos -d mlx5_0\n106\n", c.TRANSCRIPT.command),
        ("`show_gids`\nDEV PORT INDEX GID\n", c.TRANSCRIPT.command),
        ("Settings for eth2;reboot:\n\tSpeed: 100000Mb/s\n", "saved ethtool output"),
        (
            "apiVersion: configuration.net.nvidia.com/v1alpha1\nkind: NicDevice\n",
            c.OPERATOR_TEMPLATE.command,
        ),
        ("[root@gpu ~]# ls\nfoo\n", None),
        ("admin@sonic:~$ lldpctl -f json\n{}\nadmin@sonic:~$ hostname\nsonic\n", None),
        ("", None),
        ("106\n", None),
        ("\x00\x01{[", None),
        ("{" * 3000, None),
        ('{"lldp": {}, "PORT": {}}', None),
    ],
)
def test_sniff_text(text: str, command: str | None) -> None:
    assert _sniff(text) == command


@pytest.mark.parametrize("path", OTHER, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_other_platform_files_are_not_host_files(path: Path) -> None:
    assert _sniff(path.read_text(errors="replace")) is None
