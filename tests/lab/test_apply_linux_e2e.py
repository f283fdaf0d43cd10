"""`rocetune apply` end to end on the example fabric's SONiC, NVUE and host devices.

The lab serves the whole example fabric; leaf1 (SONiC), leaf3/leaf4 (NVUE) and gpu02-gpu04
(hosts) are stateful engines. The plan is made from the saved snapshots, applied through the
real CLI over SSH (canary, waves, gates, confirm, save), and the devices are read back.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lab.lab import (
    LabServer,
    freeze_fabric,
    lab_fabric_devices,
    live_inventory,
    run_cli,
    start_lab,
)
from tests.platforms.transaction.kit import KIND, SNAPSHOT

ENGINES = ("leaf1", "leaf3", "leaf4", "gpu02", "gpu03", "gpu04")


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    root = tmp_path_factory.mktemp("apply-e2e")
    fabric = freeze_fabric(root / "fabric")
    devices: dict[str, dict[str, Any]] = lab_fabric_devices(fabric)
    for name in ENGINES:
        snap = str(SNAPSHOT[name])
        devices[name]["engine"] = {"kind": KIND[name], "snapshot": snap}
    server = start_lab(devices, root / "server")
    server.fabric = fabric
    try:
        yield server
    finally:
        server.stop()


def _state(lab: LabServer, name: str, tmp_path: Path) -> dict[str, Any]:
    from tests.lab.test_apply_linux import _open_platform

    session = _open_platform(lab, name, KIND[name], tmp_path)
    try:
        data: dict[str, Any] = json.loads(session.run("lab state").text)
    finally:
        session.close()
    return data


def _run_command(lab: LabServer, name: str, command: str, tmp_path: Path) -> str:
    from tests.lab.test_apply_linux import _open_platform

    session = _open_platform(lab, name, KIND[name], tmp_path)
    try:
        return session.run(command).text
    finally:
        session.close()


def _apply(lab: LabServer, tmp_path: Path, devices: tuple[str, ...]) -> Any:
    plan = tmp_path / "plan.json"
    made = run_cli("plan", lab.fabric, "--format", "json", "-o", plan)
    assert made.code == 1, made.err
    inventory = live_inventory(lab, tmp_path / "live.yaml")
    known = lab.known_hosts(tmp_path / "known_hosts")
    picked = [a for name in devices for a in ("--device", name)]
    return run_cli(
        "apply",
        plan,
        "-i",
        inventory,
        "--now",
        "--change-id",
        "CHG-E2E",
        *picked,
        "--allow-disruptive",
        "--known-hosts",
        known,
        "--runs-dir",
        tmp_path / "runs",
    )


def test_commit_slower_than_the_timer_and_a_lost_confirm_roll_back(
    lab: LabServer, tmp_path: Path
) -> None:
    """leaf1's apply-patch outlasts its revert timer; gpu02's confirm loses the session.
    Both end as before, and the run says rolled back (exit 1). Runs before the happy path,
    which then finds both devices exactly as the plan was made from (same hashes)."""
    slow = {"kind": "slow", "on": "sudo config apply-patch /tmp", "seconds": 400}
    drop = {"kind": "drop_before", "on": "systemctl stop rocetune-"}
    _run_command(lab, "leaf1", "lab fault " + json.dumps(slow), tmp_path)
    _run_command(lab, "gpu02", "lab fault " + json.dumps(drop), tmp_path)
    result = _apply(lab, tmp_path, ("leaf1", "gpu02"))
    assert result.code == 1, result.err
    print(result.err)
    config = (SNAPSHOT["leaf1"] / "show_runningconfiguration_all.json").read_text()
    assert _run_command(lab, "leaf1", "show runningconfiguration all", tmp_path) == config
    qos = (SNAPSHOT["gpu02"] / "mlnx_qos_i_eth2.txt").read_text()
    assert _run_command(lab, "gpu02", "mlnx_qos -i eth2", tmp_path) == qos


def test_apply_sonic_nvue_hosts_end_to_end(lab: LabServer, tmp_path: Path) -> None:
    start = time.monotonic()
    result = _apply(lab, tmp_path, ENGINES)
    assert result.code == 0, result.err
    print(f"apply of {len(ENGINES)} devices: {time.monotonic() - start:.1f} s\n{result.err}")
    leaf1 = _state(lab, "leaf1", tmp_path)
    assert leaf1["running"]["PORT_QOS_MAP"]["Ethernet8"]["pfc_enable"] == "3"
    assert leaf1["startup"] == leaf1["running"]
    assert leaf1["timers"] == {}
    leaf3 = _state(lab, "leaf3", tmp_path)
    assert leaf3["applied"] == leaf3["startup"]
    assert "switch-priority" in leaf3["applied"]
    gpu03 = _state(lab, "gpu03", tmp_path)
    assert gpu03["enabled"] == ["rocetune-boot.service"]
    for host in ("gpu02", "gpu04"):
        assert _state(lab, host, tmp_path)["enabled"] == ["rocetune-boot.service"], host
    leaf4 = _state(lab, "leaf4", tmp_path)
    assert "9214" in leaf4["applied"]
