"""``rocetune audit --snapshots DIR`` and ``snapshots_dir:``: snapshot directories as devices."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from rocetune import api
from rocetune.cli import cli
from rocetune.errors import InventoryError
from rocetune.fleet import expected_hosts, with_snapshots
from rocetune.inventory import load_inventory
from tests.paths import ROOT

LAB = ROOT / "inventories" / "lab"


def _snapshots(tmp_path: Path, *hosts: str) -> Path:
    """The lab's host snapshots (gpu01 for other names), as collect --local on each node."""
    out = tmp_path / "snapshots"
    for host in hosts:
        lab = LAB / "snapshots" / host
        shutil.copytree(lab if lab.is_dir() else LAB / "snapshots" / "gpu01", out / host)
    (out / ".gpu09.tmp-abc").mkdir()  # a write in progress is no device
    (out / "notes").mkdir()  # nor a directory without meta.json
    return out


def _inventory(tmp_path: Path, extra: str = "") -> Path:
    text = (LAB / "inventory.yaml").read_text(encoding="utf-8")
    text = text.replace("snapshot: snapshots/", f"snapshot: {LAB}/snapshots/")
    text = text.replace(f"snapshot: {LAB}/snapshots/gpu", "snapshot_was: gpu")
    text = "\n".join(
        line.split(", snapshot_was:")[0] + "}" if "snapshot_was" in line else line
        for line in text.splitlines()
    )
    text = text.replace("snapshot: configs/", f"snapshot: {LAB}/configs/")
    path = tmp_path / "inventory.yaml"
    path.write_text(text + extra, encoding="utf-8")
    return path


def _run(*args: object) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_snapshot_devices_are_added_and_merged(tmp_path: Path) -> None:
    snaps = _snapshots(tmp_path, "gpu01", "gpu02", "gpu77")
    inv = with_snapshots(load_inventory(_inventory(tmp_path)), snaps)
    assert inv.devices["gpu01"].snapshot == (snaps / "gpu01").resolve()
    assert inv.devices["gpu01"].nics == ("eth2", "eth3")  # the inventory's entry is kept
    new = inv.devices["gpu77"]
    assert (new.platform, new.role) == ("linux_host", "host")
    assert ".gpu09.tmp-abc" not in inv.devices
    assert "notes" not in inv.devices
    assert expected_hosts(inv) == ["gpu03", "gpu04"]


def test_expected_hosts_without_snapshot_exit_3(tmp_path: Path) -> None:
    snaps = _snapshots(tmp_path, "gpu01", "gpu02", "gpu03")
    got = _run("audit", _inventory(tmp_path), "--snapshots", snaps, "--format", "json")
    assert got.exit_code == 3, got.output
    report = json.loads(got.stdout)
    assert report["devices"]["gpu04"]["status"] == "error"
    assert "no snapshot gpu04/" in report["devices"]["gpu04"]["error"]
    assert report["devices"]["gpu03"]["status"] == "ok"
    assert report["devices"]["leaf1"]["status"] == "ok"  # the inventory's switches


def test_snapshots_dir_in_inventory(tmp_path: Path) -> None:
    _snapshots(tmp_path, "gpu01", "gpu02", "gpu03", "gpu04")
    inv = _inventory(tmp_path, "\nsnapshots_dir: snapshots\n")
    result = api.audit(inv)
    assert {n for n, s in result.devices.items() if s.status != "ok"} == set()
    assert len(result.devices) == 10
    direct = api.audit(LAB / "inventory.yaml")
    key = sorted((f.code, f.device or "", f.message) for f in direct.findings)
    assert sorted((f.code, f.device or "", f.message) for f in result.findings) == key


def test_snapshots_dir_must_exist(tmp_path: Path) -> None:
    inv = _inventory(tmp_path, "\nsnapshots_dir: nowhere\n")
    with pytest.raises(InventoryError, match="snapshots_dir") as caught:
        load_inventory(inv)
    assert caught.value.line is not None


def test_snapshots_without_inventory(tmp_path: Path) -> None:
    snaps = _snapshots(tmp_path, "node1", "node2")
    got = _run("audit", "--snapshots", snaps, "--format", "json")
    assert got.exit_code in (0, 1), got.output
    assert set(json.loads(got.stdout)["devices"]) == {"node1", "node2"}
    assert _run("audit").exit_code == 2
