"""The counter gate over real SSH, through the CLI: the switches' counters are read with the
platform readers (netmiko sessions of the apply drivers), the lab engines' counters move
with their state. leaf2's engine has a counter fault: once a change is in, its lossless
drops grow; ``rocetune apply`` rolls leaf2 back (exit 1) while leaf1 confirms with the
counter gate passed; leaf2 is then back on its pre-change config.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rocetune.apply.planfile import load_plan
from tests.lab.engines import ENGINES
from tests.lab.lab import LabServer, lab_fabric_devices, lab_inventory_devices, run_cli
from tests.lab.lab import start_lab as start
from tests.lab.test_apply_fabric import _inventory

pytestmark = pytest.mark.slow
FAULT = {"port": "*", "priority": 3, "drops": 40}


@pytest.fixture(scope="module")
def fabric(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    devices = lab_fabric_devices()
    for name, entry in lab_inventory_devices().items():
        if entry["platform"] in ENGINES:
            spec: dict[str, Any] = {"kind": entry["platform"], "snapshot": str(entry["snapshot"])}
            if name == "leaf2":
                spec["counter_fault"] = FAULT
            devices[name] = {**devices[name], "engine": spec}
    server = start(devices, tmp_path_factory.mktemp("apply-counters"))
    try:
        yield server
    finally:
        server.stop()


def test_drops_after_the_change_roll_the_switch_back_over_ssh(
    fabric: LabServer, tmp_path: Path
) -> None:
    known = fabric.known_hosts(tmp_path / "known_hosts")
    live = _inventory(fabric, tmp_path / "live.yaml", None)
    snaps = tmp_path / "before"
    assert run_cli("collect", live, "-o", snaps, "--known-hosts", known).code == 0
    planned_inv = _inventory(fabric, tmp_path / "planned.yaml", snaps)
    plan = tmp_path / "plan.json"
    assert run_cli("plan", planned_inv, "--format", "json", "-o", plan).code == 1
    changing = {d.name for d in load_plan(plan).with_changes()}
    assert {"leaf1", "leaf2"} <= changing, changing
    runs = tmp_path / "runs"
    args: list[str | Path] = ["apply", plan, "-i", planned_inv, "--change-id", "LAB-C", "--now"]
    args += ["--known-hosts", known, "--canary", "0", "--waves", "1,100%", "--runs-dir", runs]
    args += ["--device", "leaf1", "--device", "leaf2", "--counters-settle", "2s"]
    args += ["--allow-disruptive"]  # the example plan marks buffer changes DISRUPTIVE
    got = run_cli(*args)
    assert got.code == 1, got.out + got.err
    run_dir = next(p for p in runs.iterdir() if p.is_dir())
    events = [json.loads(x) for x in (run_dir / "audit.jsonl").read_text().splitlines()]
    gates = {
        e["device"]: {g["name"]: g for g in e["gates"]} for e in events if e["event"] == "gates"
    }
    assert gates["leaf2"]["counters"]["status"] == "fail", gates["leaf2"]
    assert "drop(s) on lossless priority 3" in gates["leaf2"]["counters"]["detail"]
    if "leaf1" in gates:  # leaf1 went first (waves 1,100%): its gate passed, it confirmed
        assert gates["leaf1"]["counters"]["status"] == "pass", gates["leaf1"]
    states = {e["device"]: e["state"] for e in events if e["event"] == "device"}
    assert states["leaf2"] == "ROLLED_BACK"
    # leaf2 runs its pre-change config again: a fresh plan still wants its change
    again = tmp_path / "again"
    assert run_cli("collect", live, "-o", again, "--known-hosts", known).code == 0
    replan = tmp_path / "replan.json"
    run_cli(
        "plan",
        _inventory(fabric, tmp_path / "again.yaml", again),
        "--format",
        "json",
        "-o",
        replan,
    )
    assert "leaf2" in {d.name for d in load_plan(replan).with_changes()}
