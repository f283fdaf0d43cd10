"""What the host driver collects, name validation (no command injection), follow-ups."""

from __future__ import annotations

import pytest

from rocetune.platforms import drivers
from rocetune.platforms.linux_host import commands as c
from rocetune.platforms.linux_host.names import check_netdev, check_pci, check_rdma, key_of
from rocetune.snapshot import Snapshot, SourceFile
from tests.platforms.linux_host.host_helpers import DRIVER, SNAPSHOT, fixture_files


def test_registered_after_the_switch_platforms() -> None:
    names = list(drivers())
    assert names[-1] == "linux_host"
    assert drivers()["linux_host"].kind == "host"
    assert DRIVER.name == "linux_host"


def test_commands_per_nic_and_host_wide() -> None:
    got = [cmd.command for cmd in DRIVER.commands(["eth2", "eth3"])]
    per_nic = [
        "mlnx_qos -i {}",
        "cat /sys/class/net/{}/mtu",
        "ethtool {}",
        "ethtool -a {}",
        "ethtool -i {}",
        "ethtool -S {}",
        "grep -H -d skip . /sys/class/net/{}/ecn/roce_*p/*",
        "grep -H . /sys/class/net/{}/ecn/roce_*p/enable/*",
        "cat /sys/class/net/{}/ecn/roce_np/cnp_dscp",
        "cat /sys/class/net/{}/ecn/roce_np/cnp_802p_prio",
    ]
    expected = ["ibdev2netdev", "hostname", "lldpctl -f json"]
    expected += [t.format(nic) for nic in ("eth2", "eth3") for t in per_nic]
    assert got == expected


def test_file_names_follow_the_snapshot_rule() -> None:
    names = {cmd.command: cmd.filename for cmd in DRIVER.commands(["eth2"])}
    assert names["mlnx_qos -i eth2"] == "mlnx_qos_i_eth2.txt"
    assert names["lldpctl -f json"] == "lldpctl_f_json.json"
    assert (
        names["grep -H . /sys/class/net/eth2/ecn/roce_*p/enable/*"]
        == "grep_h_sys_class_net_eth2_ecn_roce_p_enable.txt"
    )
    assert (
        names["grep -H -d skip . /sys/class/net/eth2/ecn/roce_*p/*"]
        == "grep_h_d_skip_sys_class_net_eth2_ecn_roce_p.txt"
    )
    assert [cmd.id for cmd in DRIVER.commands(["eth2"])][3] == "mlnx_qos:eth2"
    assert not any(cmd.required for cmd in DRIVER.commands(["eth2"]))


def test_fixture_meta_lists_exactly_the_collected_and_followup_commands() -> None:
    import json

    meta = json.loads((SNAPSHOT / "meta.json").read_text())
    collected = {r["command"] for r in meta["commands"]}
    first = {cmd.command for cmd in DRIVER.commands(["eth2", "eth3"])}
    assert first <= collected
    assert {r["file"] for r in meta["commands"]} == set(fixture_files())


@pytest.mark.parametrize(
    "bad",
    [
        "eth2\nreboot",
        "eth2;reboot",
        "eth2 && reboot",
        "$(reboot)",
        "eth2`id`",
        "-rf",
        "..",
        "eth/2",
        "eth2*",
        "",
        "a" * 16,
        "eth 2",
    ],
)
def test_invalid_nic_name_never_becomes_a_command(bad: str) -> None:
    with pytest.raises(ValueError, match="invalid network interface name"):
        DRIVER.commands(["eth2", bad])
    with pytest.raises(ValueError, match="invalid"):
        check_netdev(bad)


def test_valid_names() -> None:
    assert check_netdev("enP2p1s0f0np0") == "enP2p1s0f0np0"
    assert check_netdev("eth2.100") == "eth2.100"
    assert check_rdma("mlx5_bond_0") == "mlx5_bond_0"
    assert check_pci("17:00.1") == "0000:17:00.1"
    assert check_pci("0000:3D:00.0") == "0000:3d:00.0"
    for bad in ("mlx5_0;id", "mlx5 0", "-d"):
        with pytest.raises(ValueError, match="invalid RDMA device name"):
            check_rdma(bad)
    with pytest.raises(ValueError, match="invalid PCI address"):
        check_pci("0000:17:00.0; reboot")
    with pytest.raises(ValueError, match="invalid RDMA device name"):
        c.ROCE_TOS.command("mlx5_0\nreboot")
    with pytest.raises(ValueError, match="invalid PCI address"):
        c.MLXCONFIG.command("/dev/mst/mt4129_pciconf0")


def test_names_sharing_snapshot_files_are_refused() -> None:
    with pytest.raises(ValueError, match="map to the same snapshot file"):
        DRIVER.commands(["eth2.1", "eth2_1"])
    assert key_of("enP2p1s0f0.100") == "enp2p1s0f0_100"


@pytest.mark.parametrize(
    ("line", "kind", "name"),
    [
        ("mlnx_qos -i eth4 --trust dscp", "mlnx_qos", "eth4"),
        ("sudo mlnx_qos --interface=eth4", "mlnx_qos", "eth4"),
        ("sudo cma_roce_tos -d mlx5_2 -t 106", "roce_tos", "mlx5_2"),
        ("cma_roce_tos", "roce_tos", "mlx5_0"),
        ("cma_roce_mode -d mlx5_1 -p 1 -m 2", "roce_mode", "mlx5_1"),
        ("ethtool -S enp178s0f0 |grep prio", "ethtool_stats", "enp178s0f0"),
        ("ethtool -a eth0", "ethtool_pause", "eth0"),
        ("ethtool eth0", "ethtool", "eth0"),
        ('grep "" /sys/class/infiniband/mlx5_0/ports/1/hw_counters/*', "hw_counters", "mlx5_0"),
        ("show_gids", "show_gids", None),
        ("show_gids mlx5_0", "show_gids", "mlx5_0"),
        ("mlxconfig -d 0000:03:00.0 -e query", "mlxconfig", "0000:03:00.0"),
        ("ibdev2netdev -v", "ibdev2netdev", None),
        ("cat /sys/class/net/eth2/ecn/roce_np/cnp_dscp", "cnp_dscp", "eth2"),
    ],
)
def test_identify_command_lines(line: str, kind: str, name: str | None) -> None:
    found = c.identify(line)
    assert found is not None
    assert (found[0].id, found[1]) == (kind, name)


@pytest.mark.parametrize(
    "line",
    ["ethtool -A eth2 rx off", "mlxconfig -d 0000:03:00.0 set X=1", "sysctl -w a=1", "ls"],
)
def test_write_and_other_commands_are_not_reads(line: str) -> None:
    assert c.identify(line) is None


def test_identify_file_names() -> None:
    def ident(name: str) -> tuple[str, str | None] | None:
        found = c.identify_file(name)
        return None if found is None else (found[0].id, found[1])

    assert ident("ethtool_a_eth2.txt") == ("ethtool_pause", "eth2")
    assert ident("ethtool_eth2.txt") == ("ethtool", "eth2")
    assert ident("ethtool_s_eth2.txt") == ("ethtool_stats", "eth2")
    assert ident("cat_sys_class_net_eth2_mtu.txt") == ("mtu", "eth2")
    assert ident("cat_sys_class_net_eth2_ecn_roce_np_cnp_dscp.txt") == ("cnp_dscp", "eth2")
    assert ident("mlxconfig_d_0000_17_00_0_q.txt") == ("mlxconfig", "0000_17_00_0")
    assert ident("saved_mlnx_qos_output.txt") == ("mlnx_qos", None)
    assert ident("show_runningconfiguration_all.json") is None


def test_followups_from_ibdev2netdev_and_ethtool_i() -> None:
    files = {
        n: t
        for n, t in fixture_files().items()
        if n in {cmd.filename for cmd in DRIVER.commands(["eth2", "eth3"])}
    }
    snap = Snapshot(files={n: SourceFile(f"/m/{n}", t) for n, t in files.items()})
    got = [cmd.command for cmd in DRIVER.followup_commands(snap)]
    expected = []
    for dev, pci in (("mlx5_0", "0000:17:00.0"), ("mlx5_1", "0000:3d:00.0")):
        expected += [
            f"cma_roce_tos -d {dev}",
            f"cma_roce_mode -d {dev} -p 1",
            f"cat /sys/class/infiniband/{dev}/tc/1/traffic_class",
            f"show_gids {dev}",
            f"ibv_devinfo -v -d {dev}",
            f"grep -H . /sys/class/infiniband/{dev}/ports/1/hw_counters/*",
            f"mlxconfig -d {pci} q",
        ]
    assert got == expected  # mlx5_2 (ens5f0np0, not collected) gets none


def test_followups_never_carry_names_injected_by_device_output() -> None:
    files = {
        "ibdev2netdev.txt": "mlx5_0;reboot port 1 ==> eth2 (Up)\n$(id) port 1 ==> eth3 (Up)\n",
        "mlnx_qos_i_eth2.txt": "Priority trust state: dscp\n",
        "mlnx_qos_i_eth3.txt": "Priority trust state: dscp\n",
        "ethtool_i_eth2.txt": "driver: mlx5_core\nbus-info: 0000:17:00.0; reboot\n",
        "ethtool_i_eth3.txt": "driver: mlx5_core\nbus-info: 0000:3d:00.0\n",
    }
    snap = Snapshot(files={n: SourceFile(f"/m/{n}", t) for n, t in files.items()})
    got = [cmd.command for cmd in DRIVER.followup_commands(snap)]
    assert got == ["mlxconfig -d 0000:3d:00.0 q"]
    assert all("\n" not in g and ";" not in g and "$" not in g for g in got)


def test_no_followups_for_an_empty_snapshot() -> None:
    assert DRIVER.followup_commands(Snapshot(files={})) == ()
