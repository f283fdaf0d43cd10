"""Never pass silently (issue 11 items 4-6): detection weighs the whole file, a forced
platform the content contradicts is exit 2, inventory roce_ports, meta.json identity, and
host outputs given one by one read as one host."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rocetune.api import audit, lint
from rocetune.errors import SnapshotError
from rocetune.load import read_file
from rocetune.platforms.detect import detect

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EOS = FIXTURES / "eos" / "faulty_leaf.cfg"
GPU01 = FIXTURES / "linux_host" / "gpu01"

NXOS_TEXT = """\
feature lldp
system qos
  service-policy type network-qos ROCE_NQ
policy-map type network-qos ROCE_NQ
  class type network-qos c-8q-nq3
    pause pfc-cos 3
interface Ethernet1/1
  priority-flow-control mode on
"""
EOS_TAIL = """\
qos map dscp 26 to traffic-class 3
interface Ethernet1
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   tx-queue 3
"""


def test_evidence_is_counted_over_the_whole_file() -> None:
    # 300 neutral lines first: a first-lines sniffer would see nothing.
    text = "!\n" * 300 + NXOS_TEXT
    found = detect("x.cfg", text)
    assert found.driver is not None
    assert found.driver.name == "nxos"
    assert found.evidence["nxos"] >= 5
    assert found.evidence["eos"] == 0


def test_a_file_that_reads_as_two_platforms_is_rt002(tmp_path: Path) -> None:
    mixed = tmp_path / "mixed.cfg"
    mixed.write_text(NXOS_TEXT + EOS_TAIL)
    found = detect(str(mixed), mixed.read_text())
    assert found.driver is None
    assert set(found.ambiguous) == {"eos", "nxos"}
    result = lint([mixed])
    rt002 = [f for f in result.findings if f.code == "RT002"]
    assert len(rt002) == 1
    assert "reads as" in rt002[0].message


def test_forced_platform_contradicted_by_the_content_is_exit_2(tmp_path: Path) -> None:
    with pytest.raises(SnapshotError, match="does not match the content: it reads as eos"):
        read_file(EOS, "nxos")
    result = lint([EOS], platform="nxos")
    assert result.exit_code() == 2
    assert len(result.errors) == 1
    assert str(EOS) in str(result.errors[0])
    assert "\n" not in str(result.errors[0])


def test_forced_platform_is_trusted_when_nothing_contradicts_it(tmp_path: Path) -> None:
    snippet = tmp_path / "snippet.cfg"
    snippet.write_text("interface Ethernet1\n   mtu 9214\n")
    assert lint([snippet], platform="eos").errors == []


def test_a_config_without_ports_is_a_finding_not_exit_0(tmp_path: Path) -> None:
    empty = tmp_path / "empty.cfg"
    empty.write_text("hostname leaf9\nfeature lldp\nsystem qos\n")
    result = lint([empty], platform="nxos")
    assert "RT003" in {f.code for f in result.findings}
    assert result.exit_code() == 1


def test_host_outputs_given_one_by_one_are_one_host(tmp_path: Path) -> None:
    for src, dst in (
        ("mlnx_qos_i_eth2.txt", "mlnx_qos.txt"),
        ("show_gids_mlx5_0.txt", "show_gids.txt"),
        ("ethtool_eth2.txt", "ethtool.txt"),
    ):
        shutil.copy(GPU01 / src, tmp_path / dst)
    files = sorted(tmp_path.iterdir())
    result = lint(files)
    assert list(result.devices) == [files[0].stem]
    device = result.fabric.devices[files[0].stem]
    assert device.kind == "host"
    assert "eth2" in device.nics
    nic = device.nics["eth2"]
    assert nic.trust is not None  # from mlnx_qos
    assert nic.speed_mbps is not None  # from ethtool


def test_two_outputs_of_the_same_command_are_not_merged(tmp_path: Path) -> None:
    for i in (1, 2):
        shutil.copy(GPU01 / "mlnx_qos_i_eth2.txt", tmp_path / f"qos{i}.txt")
    result = lint(sorted(tmp_path.iterdir()))
    assert len(result.devices) == 2


def _inventory(tmp_path: Path, extra: str = "", snapshot: str = "leaf1.cfg") -> Path:
    shutil.copy(EOS, tmp_path / "leaf1.cfg")
    inv = tmp_path / "inventory.yaml"
    inv.write_text(f"devices:\n  leaf1: {{platform: eos, snapshot: {snapshot}{extra}}}\n")
    return inv


def test_inventory_roce_ports_decide_the_domain(tmp_path: Path) -> None:
    everything = audit(_inventory(tmp_path))
    ports = {f.port for f in everything.findings if f.port and f.code.startswith("RT2")}
    assert len(ports) > 1
    keep = sorted(ports)[0]
    declared = audit(_inventory(tmp_path, f", roce_ports: [{keep}]"))
    assert {f.port for f in declared.findings if f.port and f.code.startswith("RT2")} == {keep}
    assert declared.fabric.devices["leaf1"].roce_ports == (keep,)


def test_inventory_rejects_a_bad_roce_ports_pattern(tmp_path: Path) -> None:
    from rocetune.errors import InventoryError

    with pytest.raises(InventoryError, match="not a port name, glob or range"):
        audit(_inventory(tmp_path, ", roce_ports: ['swp 1']"))


def test_meta_json_of_another_device_is_reported(tmp_path: Path) -> None:
    snap = tmp_path / "snap"
    shutil.copytree(GPU01, snap)
    meta = json.loads((snap / "meta.json").read_text())
    meta["device"] = "gpu99"
    (snap / "meta.json").write_text(json.dumps(meta))
    inv = tmp_path / "inventory.yaml"
    inv.write_text("devices:\n  gpu01: {platform: linux_host, snapshot: snap}\n")
    codes = [(f.code, f.observed) for f in audit(inv).findings if f.code == "RT004"]
    assert codes == [("RT004", "gpu99")]
