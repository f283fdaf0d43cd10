"""The whole gpu01 snapshot: two NIC ports, their joins, provenance, and the port rules."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rocetune import api
from rocetune.checks.registry import rule_by_code
from rocetune.engine import run_checks
from rocetune.model import Fabric, LldpNeighbor, Scheduler
from rocetune.snapshot import read_directory
from tests.platforms.linux_host.host_helpers import (
    DRIVER,
    SNAPSHOT,
    device,
    fixture_files,
    parse_files,
    parse_snapshot_dir,
)

FIRMWARE_KEYS = ("ROCE_CC_PRIO_MASK_P1", "CNP_DSCP_P1", "CNP_802P_PRIO_P1", "LINK_TYPE_P1")


def test_whole_snapshot_two_nic_ports() -> None:
    result = parse_snapshot_dir()
    dev = result.device
    assert (dev.name, dev.kind, dev.platform, dev.role, dev.hostname) == (
        "gpu01",
        "host",
        "linux_host",
        "host",
        "gpu01",
    )
    assert list(dev.nics) == ["eth2", "eth3"]
    # the whole model is the parser golden linux_host/gpu01; the joins and decisions:
    eth2, eth3 = dev.nics["eth2"], dev.nics["eth3"]
    assert (eth2.rdma_device, eth3.rdma_device) == ("mlx5_0", "mlx5_1")  # ibdev2netdev
    assert (eth2.firmware_port, eth3.firmware_port) == (1, 1)
    assert eth2.dcqcn_rp == eth2.dcqcn_np == {p: p == 3 for p in range(8)}
    assert eth3.dcqcn_rp == eth3.dcqcn_np == dict.fromkeys(range(8), True)
    assert (eth2.traffic_class, eth3.traffic_class) == (106, None)  # only mlx5_0 sets it
    for nic in (eth2, eth3):
        assert (nic.speed_mbps, nic.mtu, nic.trust, nic.pfc_priorities) == (
            400_000,
            9000,
            "dscp",
            (3,),
        )
        assert nic.dscp_to_priority is not None
        assert (nic.dscp_to_priority[26], nic.dscp_to_priority[48]) == (3, 6)
        assert nic.priority_to_buffer == {0: 0, 1: 0, 2: 0, 3: 1, 4: 0, 5: 0, 6: 0, 7: 0}
        assert nic.buffer_sizes_bytes is not None
        assert nic.buffer_sizes_bytes[1] == 261888
        assert nic.tc_scheduler == {
            0: Scheduler(kind="ets", weight=50.0),
            3: Scheduler(kind="ets", weight=50.0),
            6: Scheduler(kind="strict"),
        }
        assert (nic.cnp_dscp, nic.cnp_priority, nic.roce_tos, nic.roce_mode) == (48, 6, 106, "v2")
        assert (nic.global_pause_rx, nic.global_pause_tx, nic.cable_length_m) == (False, False, 7.0)
        assert (nic.gid_index_v2_ipv4, nic.dcbx_mode) == ((3,), "os")
        assert nic.dcqcn_params is not None
        assert nic.dcqcn_params["rpg_min_dec_fac"] == 50
    for nic in dev.nics.values():
        assert nic.firmware is not None
        assert [nic.firmware[k] for k in FIRMWARE_KEYS] == ["255", "48", "6", "2"]
        assert len(nic.firmware) == 36
    assert dev.lldp == (
        LldpNeighbor(
            local_port="eth2", remote_name="leaf1", remote_port="swp1", remote_port_descr="swp1"
        ),
        LldpNeighbor(
            local_port="eth3", remote_name="leaf2", remote_port="swp1", remote_port_descr="swp1"
        ),
    )
    assert dev.unparsed == ()
    assert dev.facts["nic.eth2.bus_info"] == "0000:17:00.0"
    assert dev.facts["nic.eth3.firmware_version"] == "28.43.1014 (MT_0000000838)"
    assert dev.facts["nic.eth2.active_mtu"] == "4096"
    assert "rdma.mlx5_2" not in dev.facts  # ens5f0np0 is not an inventory NIC: not used


def test_provenance_points_at_the_output_lines() -> None:
    prov = parse_snapshot_dir().provenance

    def where(path: str) -> tuple[str, int | None]:
        ref = prov.lookup(path)
        assert ref is not None, path
        return Path(ref.file).name, ref.line

    assert where("nics.eth2") == ("mlnx_qos_i_eth2.txt", 1)
    assert where("nics.eth2.pfc_priorities") == ("mlnx_qos_i_eth2.txt", 18)
    assert where("nics.eth3.trust") == ("mlnx_qos_i_eth3.txt", 2)
    assert where("nics.eth2.rdma_device") == ("ibdev2netdev.txt", 1)
    assert where("nics.eth3.rdma_device") == ("ibdev2netdev.txt", 2)
    assert where("nics.eth2.roce_tos") == ("cma_roce_tos_d_mlx5_0.txt", 1)
    assert where("nics.eth2.dcqcn_rp") == ("grep_h_sys_class_net_eth2_ecn_roce_p_enable.txt", 9)
    assert where("nics.eth3.firmware") == ("mlxconfig_d_0000_3d_00_0_q.txt", 2)
    assert where("nics.eth3.gid_index_v2_ipv4") == ("show_gids_mlx5_1.txt", 3)
    assert where("nics.eth2.global_pause_tx") == ("ethtool_a_eth2.txt", 4)
    assert where("hostname") == ("hostname.txt", 1)
    assert where("lldp.1") == ("lldpctl_f_json.json", 41)


def test_same_model_without_meta_json() -> None:
    with_meta = parse_snapshot_dir().device
    without = device(fixture_files())
    assert without.nics == with_meta.nics
    assert without.lldp == with_meta.lldp


def test_meta_names_files_and_exact_netdev_names(tmp_path: Path) -> None:
    """meta.json maps any file name to its command; the exact name (capitals, dots) wins."""
    shutil.copytree(SNAPSHOT, tmp_path / "s")
    root = tmp_path / "s"
    meta = json.loads((root / "meta.json").read_text())
    for record in meta["commands"]:
        if record["command"] == "mlnx_qos -i eth2":
            (root / record["file"]).rename(root / "out_07.txt")
            record["file"] = "out_07.txt"
    (root / "meta.json").write_text(json.dumps(meta))
    dev = DRIVER.parse(read_directory(root), "gpu01", None).device
    assert dev.nics["eth2"].trust == "dscp"
    assert dev.nics["eth2"].pfc_priorities == (3,)


def test_name_from_ibdev2netdev_when_file_names_lose_case() -> None:
    files = {
        "ibdev2netdev.txt": "mlx5_0 port 1 ==> enP2p1s0f0np0 (Up)\n",
        "mlnx_qos_i_enp2p1s0f0np0.txt": "Priority trust state: dscp\n",
        "cma_roce_tos_d_mlx5_0.txt": "106\n",
    }
    dev = device(files)
    assert list(dev.nics) == ["enP2p1s0f0np0"]
    assert dev.nics["enP2p1s0f0np0"].rdma_device == "mlx5_0"
    assert dev.nics["enP2p1s0f0np0"].roce_tos == 106


def test_failed_command_leaves_values_unknown(tmp_path: Path) -> None:
    shutil.copytree(SNAPSHOT, tmp_path / "s")
    root = tmp_path / "s"
    meta = json.loads((root / "meta.json").read_text())
    for record in meta["commands"]:
        if record["command"] == "cma_roce_tos -d mlx5_1":
            record.update(status="error", error="You must be root to run this")
    (root / "meta.json").write_text(json.dumps(meta))
    dev = DRIVER.parse(read_directory(root), "gpu01", None).device
    assert dev.nics["eth3"].roce_tos is None
    assert dev.nics["eth2"].roce_tos == 106
    assert dev.facts["error.cma_roce_tos_d_mlx5_1.txt"] == "You must be root to run this"


def test_unknown_file_and_upstream_kernel_without_ecn_sysfs() -> None:
    files = fixture_files()
    files["notes.txt"] = "hello\n"
    files["grep_h_sys_class_net_eth3_ecn_roce_p_enable.txt"] = (
        "grep: /sys/class/net/eth3/ecn/roce_*p/enable/*: No such file or directory\n"
    )
    dev = device(files)
    assert [(u.item, u.file) for u in dev.unparsed] == [("notes.txt", "/mem/notes.txt")]
    assert dev.nics["eth3"].dcqcn_rp is None
    assert dev.nics["eth2"].dcqcn_rp is not None
    assert dev.facts["error.grep_h_sys_class_net_eth3_ecn_roce_p_enable.txt:1"].startswith("grep:")


def test_invalid_lldp_json_is_reported_not_fatal() -> None:
    files = fixture_files()
    files["lldpctl_f_json.json"] = '{"lldp": {"interface": [\n'
    dev = device(files)
    assert dev.lldp is None
    assert [u.item for u in dev.unparsed] == ["lldpctl -f json"]
    assert dev.unparsed[0].reason.startswith("lldpctl -f json output is not valid JSON")
    assert set(dev.nics) == {"eth2", "eth3"}


PORT_RULES = (
    "RT101",
    "RT102",
    "RT103",
    "RT104",
    "RT201",
    "RT202",
    "RT203",
    "RT204",
    "RT401",
    "RT403",
)


def _run(
    files: dict[str, str], codes: tuple[str, ...] = PORT_RULES
) -> list[tuple[str, str | None, str | None]]:
    result = parse_files(files)
    fabric = Fabric(devices={"gpu01": result.device})
    rules = [rule_by_code(c) for c in codes]
    found = run_checks(
        fabric, [r for r in rules if r is not None], None, {"gpu01": result.provenance}
    )
    return [(f.code, f.port, f.file and Path(f.file).name) for f in found]


def test_existing_port_rules_pass_on_the_fixture_host() -> None:
    assert _run(fixture_files()) == []


def test_existing_port_rules_see_faults_in_the_nic_ports() -> None:
    files = fixture_files()
    qos = files["mlnx_qos_i_eth2.txt"]
    qos = qos.replace("Priority trust state: dscp", "Priority trust state: pcp")
    qos = qos.replace(
        "enabled     0   0   0   1   0   0   0   0", "enabled     0   0   0   1   0   0   1   0"
    )
    qos = qos.replace(
        "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%",
        "tc: 3 ratelimit: unlimited, tsa: ets, bw: 60%",
    )
    files["mlnx_qos_i_eth2.txt"] = qos
    files["ethtool_a_eth3.txt"] = files["ethtool_a_eth3.txt"].replace("RX:\t\toff", "RX:\t\ton")
    m3 = files["mlnx_qos_i_eth3.txt"].replace("prio:3 dscp:26,", "prio:3 dscp:26,24,")
    files["mlnx_qos_i_eth3.txt"] = m3.replace(
        "prio:0 dscp:31,30,29,28,27,25,24,", "prio:0 dscp:31,30,29,28,27,25,"
    )
    got = _run(files)
    assert sorted(got) == sorted(
        [
            ("RT101", "eth2", "mlnx_qos_i_eth2.txt"),
            ("RT202", "eth2", "mlnx_qos_i_eth2.txt"),
            ("RT401", "eth2", "mlnx_qos_i_eth2.txt"),
            ("RT403", "eth2", "mlnx_qos_i_eth2.txt"),
            ("RT104", "eth3", "mlnx_qos_i_eth3.txt"),
            ("RT204", "eth3", "ethtool_a_eth3.txt"),
        ]
    )


def test_nic_rules_pass_on_the_fixture_host() -> None:
    codes = ("RT105", "RT311", "RT312", "RT314", "RT316", "RT506", "RT602", "RT603")
    assert _run(fixture_files(), codes) == []


def test_nic_rules_on_a_misconfigured_host() -> None:
    files = fixture_files()
    files["cma_roce_tos_d_mlx5_0.txt"] = "0\n"
    files["cma_roce_mode_d_mlx5_1_p_1.txt"] = "IB/RoCE v1\n"
    files["cat_sys_class_net_eth3_mtu.txt"] = "1500\n"
    files["grep_h_sys_class_net_eth2_ecn_roce_p_enable.txt"] = files[
        "grep_h_sys_class_net_eth2_ecn_roce_p_enable.txt"
    ].replace("roce_np/enable/3:1", "roce_np/enable/3:0")
    files["mlxconfig_d_0000_3d_00_0_q.txt"] = files["mlxconfig_d_0000_3d_00_0_q.txt"].replace(
        "CNP_DSCP_P1                                 48",
        "CNP_DSCP_P1                                 4",
    )
    codes = ("RT105", "RT311", "RT312", "RT314", "RT316", "RT506", "RT602", "RT603")
    assert sorted(_run(files, codes)) == sorted(
        [
            ("RT105", "eth2", "cma_roce_tos_d_mlx5_0.txt"),
            ("RT312", "eth2", "grep_h_sys_class_net_eth2_ecn_roce_p_enable.txt"),
            ("RT316", "eth3", "mlxconfig_d_0000_3d_00_0_q.txt"),
            ("RT602", "eth3", "cat_sys_class_net_eth3_mtu.txt"),
            ("RT603", "eth3", "cma_roce_mode_d_mlx5_1_p_1.txt"),
        ]
    )


def test_lint_of_the_snapshot_directory() -> None:
    result = api.lint([SNAPSHOT])
    assert not result.errors
    assert list(result.fabric.devices) == ["gpu01"]
    assert sorted({f.code for f in result.findings}) == ["RT710"]
    assert result.exit_code() == 0
