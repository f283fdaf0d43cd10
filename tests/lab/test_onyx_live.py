"""Onyx over real SSH: enable mode, paging off, collection, config mode with netmiko.

The device lab serves an Onyx switch through the ``onyx`` engine (user ``sw > ``, enable
``sw # ``, ``(config)`` and interface modes); its running configuration is a real public
Onyx running-config (tests/realworld/configs/onyx).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from rocetune.platforms.onyx.commands import RUNNING_CONFIG
from rocetune.platforms.onyx.redact import redact
from rocetune.snapshot import read_meta
from tests.lab.engines.onyx import OnyxEngine
from tests.lab.lab import HOST, LabServer, lab_env, run_cli, start_lab

RUNNING = Path(__file__).resolve().parents[1] / (
    "realworld/configs/onyx/ansible_onyx_config_ufm_switch16.cfg"
)


@pytest.fixture(scope="module")
def onyx_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    root = tmp_path_factory.mktemp("onyx-lab")
    devices = {
        "o-leaf": {"platform": "onyx", "engine": {"kind": "onyx", "running": str(RUNNING)}},
        "o-cfg": {"platform": "onyx", "engine": {"kind": "onyx", "running": str(RUNNING)}},
    }
    server = start_lab(devices, root)
    try:
        yield server
    finally:
        server.stop()


def _inventory(lab: LabServer, path: Path, name: str) -> Path:
    entry = {"host": HOST, "port": lab.ports[name], "platform": "onyx", "role": "leaf"}
    path.write_text(json.dumps({"devices": {name: entry}}), encoding="utf-8")
    return path


def test_collect_enters_enable_mode_and_reads_the_running_config(
    onyx_lab: LabServer, tmp_path: Path
) -> None:
    inventory = _inventory(onyx_lab, tmp_path / "inventory.json", "o-leaf")
    known = onyx_lab.known_hosts(tmp_path / "known_hosts")
    out = tmp_path / "out"
    res = run_cli("collect", inventory, "-o", out, "--known-hosts", known)
    assert res.code == 0, res.err
    got = (out / "o-leaf" / "show_running_config.txt").read_text(encoding="utf-8")
    want = redact(RUNNING_CONFIG, RUNNING.read_text(encoding="utf-8")).rstrip("\n") + "\n"
    assert got == want, "collected as the device printed it, secrets redacted"
    assert "bind-password <redacted>" in got
    meta = read_meta(out / "o-leaf")
    assert [r.command for r in meta.commands] == ["show running-config"]
    sent = onyx_lab.sessions()["o-leaf"][-1]
    assert "enable" in sent
    assert sent.index("enable") < sent.index("show running-config")
    assert "no cli session paging enable" in sent
    lint = run_cli("lint", "--format", "json", out / "o-leaf")
    assert lint.code in (0, 1), lint.err
    devices = json.loads(lint.out)["devices"].values()
    assert [(d["status"], d["platform"]) for d in devices] == [("ok", "onyx")]


def test_netmiko_config_mode_changes_what_show_running_config_prints(
    onyx_lab: LabServer,
) -> None:
    from netmiko import ConnectHandler

    conn = ConnectHandler(
        device_type="mellanox_mlnxos",
        host=HOST,
        port=onyx_lab.ports["o-cfg"],
        username="admin",
        password="lab-password",
        ssh_strict=False,
        fast_cli=True,
    )
    try:
        conn.enable()
        assert conn.check_enable_mode()
        commands = ["interface ethernet 1/7", "qos trust L3", "exit"]
        conn.send_config_set([*commands, "dcb priority-flow-control priority 3 enable"])
        assert not conn.check_config_mode()
        text = conn.send_command("show running-config")
    finally:
        conn.disconnect()
    assert "interface ethernet 1/7 qos trust L3" in text
    assert "dcb priority-flow-control priority 3 enable" in text


def test_engine_modes_prompts_and_errors() -> None:
    engine = OnyxEngine("sw", {"running": str(RUNNING)})
    assert engine.prompt(1) == "sw > "
    refused = engine.handle(1, "show running-config")
    assert refused is not None
    assert refused.text.startswith('% Unrecognized command "running-config".')
    assert engine.handle(1, "configure terminal") is not None
    assert engine.prompt(1) == "sw > "
    engine.handle(1, "enable")
    assert engine.prompt(1) == "sw # "
    engine.handle(1, "configure terminal")
    assert engine.prompt(1) == "sw (config) # "
    engine.handle(1, "interface ethernet 1/1")
    assert engine.prompt(1) == "sw (config interface ethernet 1/1) # "
    engine.handle(1, "mtu 9216 force")
    engine.handle(1, "exit")
    assert engine.prompt(1) == "sw (config) # "
    engine.handle(1, "exit")
    assert engine.prompt(1) == "sw # "
    shown = engine.handle(1, "show running-config")
    assert shown is not None
    assert shown.text.endswith("   interface ethernet 1/1 mtu 9216 force\n")
    assert engine.prompt(2) == "sw > ", "modes are per connection"
    assert lab_env()  # the lab environment helper stays importable for the CLI runs
