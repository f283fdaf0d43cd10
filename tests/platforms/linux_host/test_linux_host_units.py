"""Per-command parsers of the host driver, with exact values."""

from __future__ import annotations

from rocetune.model import Scheduler
from rocetune.platforms.linux_host import ethtool, mlxconfig, rdma, sysfs
from rocetune.platforms.linux_host.mlnx_qos import parse_mlnx_qos
from rocetune.platforms.linux_host.segments import split
from tests.platforms.linux_host.host_helpers import SNAPSHOT, notes, segment

DEFAULT_MAP = {d: d >> 3 for d in range(64)}


def _mlnx(text: str) -> tuple[dict[str, object], list[tuple[int | None, str]], list[str]]:
    n = notes()
    found = parse_mlnx_qos(segment(text), n)
    return found.values, [(u.line, u.item) for u in n.items], [e[1] for e in n.errors]


def test_mlnx_qos_fixture_every_field() -> None:
    n = notes()
    found = parse_mlnx_qos(segment((SNAPSHOT / "mlnx_qos_i_eth2.txt").read_text()), n)
    dscp = dict(DEFAULT_MAP)
    dscp.update({24: 0, 25: 0, 27: 0, 28: 0, 29: 0, 30: 0, 31: 0})
    assert found.values == {
        "dcbx_mode": "os",
        "trust": "dscp",
        "dscp_to_priority": dscp,
        "buffer_sizes_bytes": {0: 130944, 1: 261888, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0},
        "cable_length_m": 7.0,
        "pfc_priorities": (3,),
        "priority_to_buffer": {0: 0, 1: 0, 2: 0, 3: 1, 4: 0, 5: 0, 6: 0, 7: 0},
        "tc_scheduler": {
            0: Scheduler(kind="ets", weight=50.0),
            3: Scheduler(kind="ets", weight=50.0),
            6: Scheduler(kind="strict"),
        },
        "priority_to_tc": {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 6, 7: 0},
    }
    assert found.lines == {
        "dcbx_mode": 1,
        "trust": 2,
        "dscp_to_priority": 3,
        "buffer_sizes_bytes": 14,
        "cable_length_m": 15,
        "pfc_priorities": 18,
        "priority_to_buffer": 19,
        "tc_scheduler": 20,
        "priority_to_tc": 21,
    }
    assert found.facts == {"rx_buffer_total_bytes": "1048320"}
    assert n.items == []


def test_mlnx_qos_old_format_vendor_tsa_and_firmware_dcbx() -> None:
    text = (
        "DCBX mode: Firmware controlled\n"
        "Priority trust state: pcp\n"
        "Receive buffer size (bytes): 20016,156096,0,0,0,0,0,0,total_size=262016\n"
        "Cable len: 10\n"
        "PFC configuration:\n"
        "\tpriority    0   1   2   3   4   5   6   7\n"
        "\tenabled     0   0   0   1   1   0   0   0   \n"
        "tc: 1 ratelimit: 10.0 Gbps, tsa: vendor\n"
        "\t priority:  0\n"
        "tc: 0 ratelimit: unlimited, tsa: vendor\n"
        "\t priority:  1\n"
    )
    values, unparsed, _ = _mlnx(text)
    assert values == {
        "dcbx_mode": "firmware",
        "trust": "pcp",
        "buffer_sizes_bytes": {0: 20016, 1: 156096, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0},
        "cable_length_m": 10.0,
        "pfc_priorities": (3, 4),
        "tc_scheduler": {0: Scheduler(kind="vendor"), 1: Scheduler(kind="vendor")},
        "priority_to_tc": {0: 1, 1: 0},
    }
    assert unparsed == []


def test_mlnx_qos_trust_not_supported_and_warning_lines() -> None:
    text = (
        "****** WARNING: lldpad service is running and may overwrite your settings ******\n"
        "Priority trust state is not supported on your system\n"
        "Buffers commands are not supported on your system\n"
        "DCBX mode: OS controlled\n"
        "Priority trust state: none\n"
    )
    n = notes()
    found = parse_mlnx_qos(segment(text), n)
    assert found.values == {"dcbx_mode": "os"}
    assert found.facts["trust"] == "none (not supported by the driver)"
    assert found.facts["mlnx_qos.warning"].startswith("WARNING: lldpad service is running")
    assert [e[0] for e in n.errors] == [2, 3]
    assert n.items == []


def test_mlnx_qos_bad_rows_are_unparsed_not_guessed() -> None:
    text = (
        "Priority trust state: dscp\n"
        "dscp2prio mapping:\n"
        "\tprio:3 dscp:26,99,\n"
        "\tprio:6 dscp:48,\n"
        "PFC configuration:\n"
        "\tenabled     0   0   0   1\n"
        "tc: 9 ratelimit: unlimited, tsa: ets, bw: 50%\n"
        "Cable len: lots\n"
        "Priority trust state: tos\n"
        "something else\n"
    )
    values, unparsed, _ = _mlnx(text)
    assert values == {"trust": "dscp", "dscp_to_priority": {48: 6}}
    assert [line for line, _ in unparsed] == [3, 6, 7, 8, 9, 10]


def test_ethtool_settings_speed_and_unknown() -> None:
    n = notes()
    found = ethtool.parse_settings(segment((SNAPSHOT / "ethtool_eth2.txt").read_text()), n)
    assert (found.values, found.lines, found.name) == (
        {"speed_mbps": 400000},
        {"speed_mbps": 17},
        "eth2",
    )
    down = ethtool.parse_settings(segment("Settings for eth9:\n\tSpeed: Unknown!\n"), n)
    assert down.values == {}
    assert down.facts == {"speed": "unknown (link down?)"}
    odd = ethtool.parse_settings(segment("\tSpeed: fast\n"), n)
    assert odd.values == {}
    assert [u.item for u in n.items] == ["Speed: fast"]


def test_ethtool_pause() -> None:
    n = notes()
    text = (
        "Pause parameters for eth2:\nAutonegotiate:\ton\nRX:\t\ton\nTX:\t\toff\n"
        "RX negotiated:\toff\n"
    )
    found = ethtool.parse_pause(segment(text), n)
    assert found.values == {"global_pause_rx": True, "global_pause_tx": False}
    assert found.lines == {"global_pause_rx": 3, "global_pause_tx": 4}
    assert found.facts == {"pause.autonegotiate": "on", "pause.rx_negotiated": "off"}
    assert found.name == "eth2"
    bad = ethtool.parse_pause(segment("RX: maybe\n"), n)
    assert bad.values == {}
    assert len(n.items) == 1


def test_ethtool_driver_info() -> None:
    info = ethtool.parse_driver(segment((SNAPSHOT / "ethtool_i_eth2.txt").read_text()), notes())
    assert (info.pci, info.pci_line) == ("0000:17:00.0", 5)
    assert info.found.facts == {
        "driver": "mlx5_core",
        "driver_version": "24.10-1.1.4",
        "firmware_version": "28.43.1014 (MT_0000000838)",
        "bus_info": "0000:17:00.0",
    }
    veth = ethtool.parse_driver(segment("driver: veth\nbus-info: \n"), notes())
    assert veth.pci is None


def test_ethtool_stats_and_hw_counters() -> None:
    stats = ethtool.parse_stats(segment((SNAPSHOT / "ethtool_s_eth2.txt").read_text()), notes())
    assert stats["rx_prio3_pause"] == 4211
    assert stats["rx_discards_phy"] == 0
    assert len(stats) == 17 + 8 * 5 + 5
    hw = ethtool.parse_stats(
        segment("/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent:1333\n"), notes()
    )
    assert hw == {"np_cnp_sent": 1333}


def test_sysfs_values() -> None:
    n = notes()
    assert sysfs.parse_value("mtu", 1_000_000, segment("9000\n"), n).values == {"mtu": 9000}
    assert sysfs.parse_value("cnp_dscp", 63, segment("64\n"), n).values == {}
    missing = sysfs.parse_value(
        "mtu", 1_000_000, segment("cat: /sys/class/net/eth9/mtu: No such file or directory\n"), n
    )
    assert missing.values == {}
    assert [u.item for u in n.items] == ["64"]
    assert n.errors == [(1, "cat: /sys/class/net/eth9/mtu: No such file or directory")]


def test_traffic_class() -> None:
    n = notes()
    assert sysfs.parse_traffic_class(segment("Global tclass=106\n"), n).values == {
        "traffic_class": 106
    }
    assert sysfs.parse_traffic_class(segment(""), n).values == {}
    assert sysfs.parse_traffic_class(segment("Global tclass=300\n"), n).values == {}
    assert len(n.items) == 1


def test_ecn_enable_files() -> None:
    n = notes()
    found = sysfs.parse_ecn(
        segment((SNAPSHOT / "grep_h_sys_class_net_eth2_ecn_roce_p_enable.txt").read_text()), n
    )
    only3 = {p: p == 3 for p in range(8)}
    assert found.values == {"dcqcn_rp": only3, "dcqcn_np": only3}
    assert found.lines == {"dcqcn_np": 1, "dcqcn_rp": 9}
    assert found.name == "eth2"
    text = (
        "/sys/class/net/eth2/ecn/roce_np/cnp_dscp:48\n"
        "/sys/class/net/eth2/ecn/roce_np/cnp_802p_prio:6\n"
        "/sys/class/net/eth2/ecn/roce_rp/enable/9:1\n"
        "grep: /sys/class/net/eth2/ecn/roce_*p/enable/*: No such file or directory\n"
    )
    found = sysfs.parse_ecn(segment(text), n)
    assert found.values == {"cnp_dscp": 48, "cnp_priority": 6}
    assert [u.line for u in n.items] == [3]
    assert [e[0] for e in n.errors] == [4]


def test_dcqcn_parameter_files() -> None:
    n = notes()
    fixture = SNAPSHOT / "grep_h_d_skip_sys_class_net_eth2_ecn_roce_p.txt"
    found = sysfs.parse_ecn(segment(fixture.read_text()), n)
    params = found.values["dcqcn_params"]
    assert isinstance(params, dict)
    assert (params["rpg_gd"], params["dce_tcp_g"], params["rpg_time_reset"]) == (11, 1019, 300)
    assert len(params) == 15
    assert (found.values["cnp_dscp"], found.values["cnp_priority"]) == (48, 6)
    assert found.lines["dcqcn_params"] == 3
    assert not n.items
    text = (
        "/sys/class/net/eth2/ecn/roce_rp/rpg_gd:11\n"
        "/sys/class/net/eth2/ecn/roce_rp/rpg_min_rate:fast\n"
        "/sys/class/net/eth2/ecn/roce_rp/dce_tcp_g:-1\n"
        "/sys/class/net/eth2/ecn/roce_np/sub/min_time_between_cnps:4\n"
        "/sys/class/net/eth2/ecn/roce_np/min_time_between_cnps:4\n"
    )
    found = sysfs.parse_ecn(segment(text), n)
    assert found.values == {"dcqcn_params": {"min_time_between_cnps": 4, "rpg_gd": 11}}
    assert [u.line for u in n.items] == [2, 3, 4]


def test_ibdev2netdev_forms() -> None:
    n = notes()
    text = (
        "mlx5_0 port 1 ==> eth2 (Up)\n"
        "0000:3d:00.0 mlx5_1 (MT4129 - MCX75310AAS-NEA) ConnectX-7 fw 28.43.1014 port 1 (ACTIVE)"
        " ==> eth3 (Down)\n"
        "mlx5_2 port 1 <===> eth4\n"
        "garbage line\n"
    )
    got = rdma.parse_ibdev2netdev(segment(text), n)
    assert got == [
        rdma.Mapping("mlx5_0", 1, "eth2", 1, None, "Up"),
        rdma.Mapping("mlx5_1", 1, "eth3", 2, "0000:3d:00.0", "Down"),
        rdma.Mapping("mlx5_2", 1, "eth4", 3, None, None),
    ]
    assert [u.line for u in n.items] == [4]


def test_roce_tos_and_mode() -> None:
    n = notes()
    assert rdma.parse_roce_tos(segment("106\n"), n).values == {"roce_tos": 106}
    assert rdma.parse_roce_tos(segment("256\n"), n).values == {}
    assert rdma.parse_roce_mode(segment("RoCE v2\n"), n).values == {"roce_mode": "v2"}
    assert rdma.parse_roce_mode(segment("IB/RoCE v1\n"), n).values == {"roce_mode": "v1"}
    assert rdma.parse_roce_mode(segment("RoCE v3\n"), n).values == {}
    failed = rdma.parse_roce_tos(segment("Device mlx5_9 port 1 does not exist\n"), n)
    assert failed.values == {}
    assert len(n.items) == 2
    assert n.errors == [(1, "Device mlx5_9 port 1 does not exist")]


def test_show_gids_fixture() -> None:
    table = rdma.parse_show_gids(
        segment((SNAPSHOT / "show_gids_mlx5_0.txt").read_text()), notes(), all_devices=False
    )
    assert [(g.rdma, g.port, g.index, g.ipv4, g.version, g.netdev) for g in table.entries] == [
        ("mlx5_0", 1, 0, False, "v1", "eth2"),
        ("mlx5_0", 1, 1, False, "v2", "eth2"),
        ("mlx5_0", 1, 2, True, "v1", "eth2"),
        ("mlx5_0", 1, 3, True, "v2", "eth2"),
    ]
    assert rdma.v2_ipv4_indices(table.entries) == (3,)


def test_gid_versions_unknown_and_empty() -> None:
    unknown = [rdma.Gid("q", 1, 1, True, None, 3)]
    assert rdma.v2_ipv4_indices(unknown) is None
    assert rdma.v2_ipv4_indices([rdma.Gid("q", 1, 0, False, None, 3)]) == ()
    assert rdma.v2_ipv4_indices([]) == ()


def test_devinfo_fixture_and_repeated_indices() -> None:
    text = (SNAPSHOT / "ibv_devinfo_v_d_mlx5_0.txt").read_text()
    table = rdma.parse_devinfo(segment(text), notes(), "mlx5_0")
    assert [(g.rdma, g.index, g.ipv4, g.version) for g in table.entries] == [
        ("mlx5_0", 0, False, "v1"),
        ("mlx5_0", 1, False, "v2"),
        ("mlx5_0", 2, True, "v1"),
        ("mlx5_0", 3, True, "v2"),
    ]
    assert table.facts == {("mlx5_0", "active_mtu"): "4096"}
    n = notes()
    twice = rdma.parse_devinfo(segment("GID[  0]:\t\tfe80::1\nGID[  0]:\t\tfe80::2\n"), n, None)
    assert len(twice.entries) == 1
    assert twice.facts == {(None, "gid_conflict"): "yes"}
    assert [u.line for u in n.items] == [2]


def test_mlxconfig_plain_query() -> None:
    text = (SNAPSHOT / "mlxconfig_d_0000_17_00_0_q.txt").read_text()
    (section,) = mlxconfig.parse_mlxconfig(segment(text), notes(), None)
    assert section.pci == "0000:17:00.0"
    assert section.device_type == "ConnectX7"
    assert section.line == 2
    assert section.params["ROCE_CC_PRIO_MASK_P1"] == "255"
    assert section.params["LINK_TYPE_P1"] == "2"
    assert section.params["PCI_ATOMIC_MODE"] == "0"
    assert len(section.params) == 36
    assert section.next_boot == {}


def test_mlxconfig_extended_columns_and_hex() -> None:
    text = (
        "Device #1:\n----------\nDevice type:    ConnectX7\n"
        "Device:         /dev/mst/mt4129_pciconf0\n"
        "Configurations:                      Default         Current         Next Boot\n"
        "*        ROCE_CC_PRIO_MASK_P1        0xff            0x08            0xff\n"
        "         CNP_DSCP_P1                 4               48              48\n"
        "         BROKEN_P1                   1\n"
    )
    n = notes()
    (section,) = mlxconfig.parse_mlxconfig(segment(text), n, "0000:17:00.0")
    assert section.pci == "0000:17:00.0"
    assert section.params == {"ROCE_CC_PRIO_MASK_P1": "8", "CNP_DSCP_P1": "48"}
    assert section.next_boot == {"ROCE_CC_PRIO_MASK_P1": "255"}
    assert [u.line for u in n.items] == [8]
    assert mlxconfig.normalise("ETH(2)") == "2"
    assert mlxconfig.normalise("Array[0..7]") == "Array[0..7]"


def test_transcript_segments() -> None:
    text = "```\n$ ./setup.sh\n+ mlnx_qos -i eth4\nDCBX mode: OS controlled\n+ X=1\n```\n"
    got = [(s.command, s.command_line, s.text_lines()) for s in split(text, "f")]
    assert got == [
        (None, None, []),
        ("./setup.sh", 2, []),
        ("mlnx_qos -i eth4", 3, ["DCBX mode: OS controlled"]),
        ("X=1", 5, [""]),
    ]
