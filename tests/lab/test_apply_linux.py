"""SONiC, Cumulus NVUE and Linux host apply drivers over real SSH, against the lab's engines.

The switches go through rocetune's netmiko transport (interactive shell, errors read from
the text), the hosts through its exec-channel transport (exit status and stderr). After each
scenario the device is read back with the collection commands and rocetune's own parser.
Every device serves one scenario (engines keep state for the lab's lifetime).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rocetune.collect.credentials import Credentials
from rocetune.collect.exec_channel import ExecTransport
from rocetune.collect.target import Target, Timeouts, Trust
from rocetune.collect.transport import NetmikoTransport
from rocetune.platforms import drivers
from rocetune.platforms.sonic.commands import CONFIG_DB
from rocetune.platforms.transaction import TransactionError
from rocetune.session import Session
from rocetune.snapshot import Snapshot, SourceFile
from tests.lab.lab import HOST, PASSWORD, USER, LabServer, run_cli, start_lab
from tests.lab.test_live_audit import findings_without_paths
from tests.platforms.transaction.kit import SNAPSHOT, changes, transaction

SCENARIOS: dict[str, tuple[str, dict[str, Any]]] = {
    "a-sonic-ok": ("leaf1", {}),
    "a-sonic-expire": ("leaf1", {}),
    "a-sonic-failk": ("leaf1", {"fail_at": 2}),
    "a-nvue-ok": ("leaf3", {}),
    "a-nvue-expire": ("leaf3", {}),
    "a-nvue-foreign": ("leaf3", {"foreign": {"state": "confirm", "user": "alice"}}),
    "a-host-ok": ("gpu04", {}),
    "a-host-expire": ("gpu03", {}),
    "a-host-drop": ("gpu03", {"faults": [{"kind": "drop_before", "on": "systemctl stop"}]}),
    "a-live-sonic": ("leaf1", {}),
    "a-live-nvue": ("leaf3", {}),
    "a-live-host": ("gpu04", {}),
}
"""Lab device -> (the example-fabric device it copies, engine options)."""
KIND = {"leaf1": "sonic", "leaf3": "cumulus", "gpu03": "linux_host", "gpu04": "linux_host"}


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    devices: dict[str, dict[str, Any]] = {}
    for name, (copy, options) in SCENARIOS.items():
        kind = KIND[copy]
        spec: dict[str, Any] = {"platform": kind, "snapshot": str(SNAPSHOT[copy])}
        spec["engine"] = {"kind": kind, "snapshot": str(SNAPSHOT[copy]), **options}
        devices[name] = spec
    server = start_lab(devices, tmp_path_factory.mktemp("apply-linux-lab"))
    try:
        yield server
    finally:
        server.stop()


def _open(lab: LabServer, name: str, tmp_path: Path) -> Session:
    return _open_platform(lab, name, KIND[SCENARIOS[name][0]], tmp_path)


def _open_platform(lab: LabServer, name: str, kind: str, tmp_path: Path) -> Session:
    """A rocetune session to lab device ``name``: exec channels for hosts, netmiko else."""
    trust = Trust(lab.known_hosts(tmp_path / f"kh-{name}"))
    target = Target(name, HOST, lab.ports[name], kind, "linux", Credentials(USER, PASSWORD))
    timeouts = Timeouts(connect=10, read=20)
    if kind == "linux_host":
        return ExecTransport(timeouts, trust).open(target)
    return NetmikoTransport(timeouts, trust).open(target)


def _tx(name: str) -> Any:
    return transaction(name, platform=KIND[SCENARIOS[name][0]])


def _pfc(session: Session) -> tuple[int, ...] | None:
    """PFC priorities of Ethernet8 as rocetune's SONiC parser reads the live CONFIG_DB."""
    text = session.run(CONFIG_DB.command).text
    snap = Snapshot(files={CONFIG_DB.filename: SourceFile("live", text)})
    device = drivers()["sonic"].parse(snap, "leaf1", "leaf").device
    return device.ports["Ethernet8"].pfc_rx


def _file(name: str, command_file: str) -> str:
    return (SNAPSHOT[SCENARIOS[name][0]] / command_file).read_text(encoding="utf-8")


def test_sonic_happy_path_and_persistence(lab: LabServer, tmp_path: Path) -> None:
    s = _open(lab, "a-sonic-ok", tmp_path)
    before = _pfc(s)
    tx = _tx("a-sonic-ok")
    assert tx.precheck(s).foreign == ()
    tx.stage(s, changes("leaf1"))
    tx.arm(s, 600)
    assert tx.pending(s).armed
    assert _pfc(s) != before
    assert 3 in (_pfc(s) or ())
    tx.confirm(s)
    tx.save(s)
    s.run("lab reboot")
    s.close()
    s2 = _open(lab, "a-sonic-ok", tmp_path)
    assert 3 in (_pfc(s2) or ()), "saved: the change survives a reboot"
    assert "[]" in s2.run("sudo config list-checkpoints").text
    s2.close()


def test_sonic_timer_expiry_reverts(lab: LabServer, tmp_path: Path) -> None:
    s = _open(lab, "a-sonic-expire", tmp_path)
    original = s.run(CONFIG_DB.command).text
    tx = _tx("a-sonic-expire")
    tx.stage(s, changes("leaf1"))
    tx.arm(s, 120)
    s.close()  # the controller goes away
    s2 = _open(lab, "a-sonic-expire", tmp_path)
    s2.run("lab clock advance 121")
    assert s2.run(CONFIG_DB.command).text == original
    assert not tx.pending(s2).armed
    s2.close()


def test_sonic_apply_patch_failing_mid_way_then_rollback(lab: LabServer, tmp_path: Path) -> None:
    s = _open(lab, "a-sonic-failk", tmp_path)
    original = s.run(CONFIG_DB.command).text
    tx = _tx("a-sonic-failk")
    tx.stage(s, changes("leaf1"))
    with pytest.raises(TransactionError, match="Failed to apply patch"):
        tx.arm(s, 300)
    assert s.run(CONFIG_DB.command).text != original, "partially applied"
    tx.rollback(s)
    assert s.run(CONFIG_DB.command).text == original
    s.close()


def test_nvue_happy_path(lab: LabServer, tmp_path: Path) -> None:
    s = _open(lab, "a-nvue-ok", tmp_path)
    original = s.run("nv config show -o yaml").text
    tx = _tx("a-nvue-ok")
    assert tx.precheck(s).foreign == ()
    tx.stage(s, changes("leaf3"))
    assert "switch-priority 3" in tx.diff(s)
    tx.arm(s, 300)
    tx.confirm(s)
    tx.save(s)
    text = s.run("nv config show -o yaml").text
    assert text != original
    snap = Snapshot(files={"nv_config_show_o_yaml.yaml": SourceFile("live", text)})
    device = drivers()["cumulus"].parse(snap, "leaf3", "leaf").device
    assert any(
        p.dscp_to_priority and p.dscp_to_priority.get(26) == 3 for p in device.ports.values()
    )
    s.close()


def test_nvue_confirm_expiry_reverts(lab: LabServer, tmp_path: Path) -> None:
    s = _open(lab, "a-nvue-expire", tmp_path)
    original = s.run("nv config show -o yaml").text
    tx = _tx("a-nvue-expire")
    tx.stage(s, changes("leaf3"))
    tx.arm(s, 60)
    s.run("lab clock advance 61")
    assert s.run("nv config show -o yaml").text == original
    with pytest.raises(TransactionError):
        tx.confirm(s)
    s.close()


def test_nvue_foreign_pending_revision_refused(lab: LabServer, tmp_path: Path) -> None:
    s = _open(lab, "a-nvue-foreign", tmp_path)
    tx = _tx("a-nvue-foreign")
    assert tx.precheck(s).foreign == ("revision 50 (confirm, user alice)",)
    with pytest.raises(TransactionError):
        tx.stage(s, changes("leaf3"))
    assert s.run("nv config diff").text.strip() == ""
    s.close()


def test_host_happy_path_and_boot_persistence(lab: LabServer, tmp_path: Path) -> None:
    s = _open(lab, "a-host-ok", tmp_path)
    boot = _file("a-host-ok", "mlnx_qos_i_eth3.txt")
    assert s.run("mlnx_qos -i eth3").text == boot
    tx = _tx("a-host-ok")
    tx.stage(s, changes("gpu04"))
    tx.arm(s, 300)
    tx.confirm(s)
    tx.save(s)
    applied = s.run("mlnx_qos -i eth3").text
    assert applied != boot
    s.run("lab reboot")
    assert s.run("mlnx_qos -i eth3").text == applied, "boot unit re-applies after a reboot"
    assert s.run(
        "systemctl is-active rocetune-r1-a-host-ok-restore.timer || true"
    ).text.strip() == ("inactive")
    s.close()


def test_host_timer_expiry_restores(lab: LabServer, tmp_path: Path) -> None:
    s = _open(lab, "a-host-expire", tmp_path)
    path = "/sys/class/net/eth2/ecn/roce_np/cnp_dscp"
    before = s.run(f"cat {path}").text
    tx = _tx("a-host-expire")
    tx.stage(s, changes("gpu03"))
    tx.arm(s, 60)
    assert s.run(f"cat {path}").text.strip() == "48"
    s.run("lab clock advance 61")
    assert s.run(f"cat {path}").text == before
    s.close()


def test_host_drop_during_confirm_then_timer_restores(lab: LabServer, tmp_path: Path) -> None:
    s = _open(lab, "a-host-drop", tmp_path)
    path = "/sys/class/net/eth2/ecn/roce_np/cnp_dscp"
    before = s.run(f"cat {path}").text
    tx = _tx("a-host-drop")
    tx.stage(s, changes("gpu03"))
    tx.arm(s, 60)
    with pytest.raises(ConnectionError, match="connection was lost"):  # state unknown
        tx.confirm(s)
    s.close()
    s2 = _open(lab, "a-host-drop", tmp_path)
    assert tx.pending(s2).armed
    s2.run("lab clock advance 61")
    assert s2.run(f"cat {path}").text == before
    s2.close()


def _inventory(lab: LabServer, path: Path, live: bool) -> Path:
    """The three a-live-* devices, live through the lab or offline from their snapshots."""
    intent = {
        "lossless_priorities": [3],
        "roce_dscp": [26],
        "cnp": {"dscp": 48, "priority": 6},
        "mtu": {"host": 9000, "switch": 9214, "roce": 4096},
    }
    devices: dict[str, Any] = {}
    for name in ("a-live-sonic", "a-live-nvue", "a-live-host"):
        copy = SCENARIOS[name][0]
        entry: dict[str, Any] = {"platform": KIND[copy], "role": "leaf"}
        if KIND[copy] == "linux_host":
            entry.update(role="host", nics=["eth2", "eth3"])
        if live:
            entry.update(host=HOST, port=lab.ports[name])
        else:
            entry.update(host="10.0.0.1", snapshot=str(SNAPSHOT[copy]))
        devices[name] = entry
    path.write_text(json.dumps({"intent": intent, "devices": devices}), encoding="utf-8")
    return path


def test_collection_through_the_engines_reads_like_the_snapshots(
    lab: LabServer, tmp_path: Path
) -> None:
    """rocetune audit over SSH (netmiko for switches, exec-channel batches for the host)
    reads the engines' state as it reads the snapshots they started from (RT004 aside: the
    lab names differ from the hostnames inside the snapshots)."""
    known = lab.known_hosts(tmp_path / "known_hosts")
    live = run_cli(
        "audit",
        _inventory(lab, tmp_path / "live.yaml", True),
        "--format",
        "json",
        "--known-hosts",
        known,
        "--ignore",
        "RT004",
    )
    off = _inventory(lab, tmp_path / "off.yaml", False)
    offline = run_cli("audit", off, "--format", "json", "--ignore", "RT004")
    assert live.code == offline.code, live.err
    assert findings_without_paths(live.out) == findings_without_paths(offline.out)
    assert json.loads(live.out)["devices"] == json.loads(offline.out)["devices"]
