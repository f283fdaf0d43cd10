"""Live collection over SSH from the device lab, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rocetune.platforms import drivers
from rocetune.snapshot import read_meta
from tests.lab.lab import FIXTURES, LabServer, lab_inventory_devices, live_inventory, run_cli
from tests.lab.profiles import PROFILES


def findings_without_paths(report: str) -> list[str]:
    """The JSON findings, each minus its file path, sorted (comparable across runs)."""
    data = json.loads(report)
    return sorted(
        json.dumps({k: v for k, v in f.items() if k != "file"}, sort_keys=True)
        for f in data["findings"]
    )


def test_live_audit_equals_offline_audit(lab: LabServer, tmp_path: Path) -> None:
    inventory = live_inventory(lab, tmp_path / "inventory.yaml")
    known = lab.known_hosts(tmp_path / "known_hosts")
    before = {d: len(s) for d, s in lab.sessions().items()}
    snaps = tmp_path / "snaps"
    live = run_cli(
        "audit", inventory, "--format", "json", "--known-hosts", known, "--save-snapshot", snaps
    )
    offline = run_cli("audit", lab.fabric, "--format", "json")
    assert (live.code, offline.code) == (1, 1), live.err
    assert findings_without_paths(live.out) == findings_without_paths(offline.out)
    assert json.loads(live.out)["devices"] == json.loads(offline.out)["devices"]
    fabric = lab_inventory_devices(lab.fabric)
    assert f"collected {len(fabric)}/{len(fabric)} device(s)" in live.err
    after = lab.sessions()
    for name, entry in fabric.items():
        meta = read_meta(snaps / name)
        assert (meta.device, meta.platform) == (name, entry["platform"])
        sent = [r.command for r in meta.commands]
        driver = drivers()[entry["platform"]]
        first = [c.command for c in driver.commands(("eth2", "eth3"))]
        assert sent[: len(first)] == first
        assert len(after[name]) == before.get(name, 0) + 1, "one SSH session per device"
        setup = {"exit", *PROFILES[entry["platform"]].term_cmds}
        assert sorted(c for c in after[name][-1] if c not in setup) == sorted(sent)
        assert all(r.seconds is not None and r.seconds >= 0 for r in meta.commands)
    assert sorted(p.name for p in snaps.iterdir()) == sorted(fabric), "no temporary dirs left"


def _expected_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text if text.endswith("\n") or not text else text + "\n"


def _other_inventory(lab: LabServer, path: Path) -> Path:
    devices: dict[str, Any] = {
        "x-eos": {"platform": "eos", "role": "spine"},
        "x-nxos": {"platform": "nxos", "role": "spine"},
        "x-host-exec": {"platform": "linux_host", "role": "host", "nics": ["eth2", "eth3"]},
        "x-host-unknown": {"platform": "linux_host", "role": "host", "nics": ["eth2", "eth3"]},
        "x-host-shell": {
            "platform": "linux_host",
            "role": "host",
            "nics": ["eth2", "eth3"],
            "device_type": "linux",
        },
    }
    for name, entry in devices.items():
        entry.update({"host": "127.0.0.1", "port": lab.ports[name]})
    path.write_text(json.dumps({"devices": devices}), encoding="utf-8")
    return path


def test_collect_other_platforms(lab: LabServer, tmp_path: Path) -> None:
    """EOS (with a pager until `terminal length 0`), NX-OS, and hosts over exec channels
    (x-host-exec) and over an interactive shell with tty echo (x-host-shell), with
    follow-ups."""
    inventory = _other_inventory(lab, tmp_path / "inventory.yaml")
    known = lab.known_hosts(tmp_path / "known_hosts")
    out = tmp_path / "out"
    res = run_cli("collect", inventory, "-o", out, "--known-hosts", known)
    assert res.code == 0, res.err
    eos = FIXTURES / "eos" / "roce_spine"
    for src in eos.iterdir():
        assert (out / "x-eos" / src.name).read_text(encoding="utf-8") == _expected_text(src)
    nx_config = out / "x-nxos" / "show_running_config.txt"
    assert nx_config.read_text() == _expected_text(FIXTURES / "nxos/roce_spine_running_config.txt")
    host = FIXTURES / "linux_host" / "gpu01"
    wanted = sorted(p.name for p in host.iterdir())
    for name in ("x-host-exec", "x-host-shell"):
        assert sorted(p.name for p in (out / name).iterdir()) == wanted, name
        for src in host.iterdir():
            if src.name != "meta.json":
                got = (out / name / src.name).read_text(encoding="utf-8")
                assert got == _expected_text(src), (name, src.name)
    assert len(lab.sessions()["x-host-exec"][-1]) == len(wanted) - 1, "exec: one connection"
    rejected = [r for r in read_meta(out / "x-host-unknown").commands if r.status == "error"]
    assert [(r.command, r.error) for r in rejected] == [
        ("mlnx_qos -i eth2", "-bash: mlnx_qos: command not found")
    ], "a rejected optional command is recorded, the device is still collected"
    assert not (out / "x-host-unknown" / "mlnx_qos_i_eth2.txt").exists()
    lint = run_cli(
        "lint", "--format", "json", *(out / n for n in ("x-eos", "x-nxos", "x-host-exec"))
    )
    assert lint.code in (0, 1), lint.err
    assert {d["status"] for d in json.loads(lint.out)["devices"].values()} == {"ok"}


def test_recollect_replaces_snapshot_atomically(lab: LabServer, tmp_path: Path) -> None:
    inventory = live_inventory(lab, tmp_path / "inventory.yaml")
    known = lab.known_hosts(tmp_path / "known_hosts")
    out = tmp_path / "out"
    first = run_cli("collect", inventory, "-o", out, "--known-hosts", known, "--device", "leaf1")
    assert first.code == 0, first.err
    stamp = read_meta(out / "leaf1")
    (out / "leaf1" / "stale.txt").write_text("from an older collection\n")
    second = run_cli("collect", inventory, "-o", out, "--known-hosts", known, "--device", "leaf*")
    assert second.code == 0, second.err
    assert sorted(p.name for p in out.iterdir()) == ["leaf1", "leaf2", "leaf3", "leaf4"]
    assert not (out / "leaf1" / "stale.txt").exists(), "the directory is replaced whole"
    again = read_meta(out / "leaf1")
    assert [r.command for r in again.commands] == [r.command for r in stamp.commands]
    empty = tmp_path / "empty_known_hosts"
    empty.write_text("")
    third = run_cli("collect", inventory, "-o", out, "--known-hosts", empty, "--device", "leaf1")
    assert third.code == 3
    assert "leaf1: host key unknown" in third.err
    assert (out / "leaf1" / "meta.json").is_file(), "a failed collection keeps the old snapshot"


def test_missing_known_hosts_is_an_input_error(lab: LabServer, tmp_path: Path) -> None:
    inventory = live_inventory(lab, tmp_path / "inventory.yaml")
    res = run_cli("collect", inventory, "-o", tmp_path / "out", "--known-hosts", tmp_path / "nope")
    assert res.code == 2
    assert "known_hosts file" in res.err
    assert "does not exist" in res.err
    assert not (tmp_path / "out").exists()
    audit = run_cli("audit", inventory, "--format", "json", "--known-hosts", tmp_path / "nope")
    assert audit.code == 3, "audit: the live devices are not collected, the rest is checked"
    errors = {d["error"] for d in json.loads(audit.out)["devices"].values()}
    assert len(errors) == 1
    assert errors.pop().startswith("not collected: configuration: known_hosts file")


def test_insecure_host_keys_warns_and_collects(lab: LabServer, tmp_path: Path) -> None:
    inventory = live_inventory(lab, tmp_path / "inventory.yaml")
    res = run_cli(
        "collect", inventory, "-o", tmp_path / "out", "--insecure-host-keys", "--device", "leaf3"
    )
    assert res.code == 0, res.err
    assert "warning: --insecure-host-keys: host keys are NOT verified" in res.err
    assert (tmp_path / "out" / "leaf3" / "nv_config_show_o_yaml.yaml").is_file()


def test_ssh_config_proxy_command_and_processes(lab: LabServer, tmp_path: Path) -> None:
    """A device reached through an ssh_config ProxyCommand (a jump host stand-in), and the
    fabric collected by two processes."""
    import sys

    proxy = Path(__file__).with_name("proxy.py")
    config = tmp_path / "ssh_config"
    config.write_text(
        "Host leaf1-via-jump\n"
        "  HostName 127.0.0.1\n"
        f"  Port {lab.ports['leaf1']}\n"
        f"  ProxyCommand {sys.executable} {proxy} %h %p\n",
        encoding="utf-8",
    )
    inventory = live_inventory(lab, tmp_path / "inventory.yaml")
    text = inventory.read_text(encoding="utf-8")
    jump = "  jumped: {host: leaf1-via-jump, platform: sonic, ssh_config: ssh_config}\n"
    inventory.write_text(text.replace("devices:\n", "devices:\n" + jump, 1), encoding="utf-8")
    known = lab.known_hosts(tmp_path / "known_hosts")
    out = tmp_path / "out"
    res = run_cli("collect", inventory, "-o", out, "--known-hosts", known, "--processes", "2")
    assert res.code == 0, res.err
    fabric = sorted([*lab_inventory_devices(lab.fabric), "jumped"])
    assert f"collected {len(fabric)}/{len(fabric)} device(s)" in res.err
    assert sorted(p.name for p in out.iterdir()) == fabric
    config_db = "show_runningconfiguration_all.json"
    assert (out / "jumped" / config_db).read_text() == (out / "leaf1" / config_db).read_text()
