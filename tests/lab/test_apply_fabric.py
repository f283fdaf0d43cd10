"""The example fabric applied end to end over real SSH: collect, plan, apply (canary + waves).

Every device of the fabric whose platform has a stateful engine is served by it (the others
answer from their snapshots); the operator's sequence runs through the real CLI:
``rocetune collect`` -> ``rocetune plan --format json`` -> ``rocetune apply`` with a canary and
two waves -> ``rocetune collect`` + ``audit``: the planned findings are gone. The wall time of
the apply is printed (``-s``) for the closing note.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from rocetune.apply.planfile import load_plan
from tests.lab.engines import ENGINES
from tests.lab.lab import HOST, LabServer, lab_fabric_devices, lab_inventory_devices, run_cli
from tests.lab.lab import start_lab as start


@pytest.fixture(scope="module")
def fabric(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    devices = lab_fabric_devices()
    for name, entry in lab_inventory_devices().items():
        if entry["platform"] in ENGINES:
            spec: dict[str, Any] = {"kind": entry["platform"], "snapshot": str(entry["snapshot"])}
            devices[name] = {**devices[name], "engine": spec}
    server = start(devices, tmp_path_factory.mktemp("apply-fabric"))
    try:
        yield server
    finally:
        server.stop()


def _inventory(lab: LabServer, path: Path, snapshots: Path | None) -> Path:
    yaml = YAML(typ="rt")
    data = yaml.load(lab.fabric.read_text(encoding="utf-8"))
    for name, entry in data["devices"].items():
        entry.pop("snapshot", None)
        entry["host"] = HOST
        entry["port"] = lab.ports[name]
        if snapshots is not None:
            entry["snapshot"] = str(snapshots / name)
    with path.open("w", encoding="utf-8") as fh:
        yaml.dump(data, fh)
    return path


def _check_done(events: list[dict[str, Any]], devices: list[str]) -> None:
    """Every device DONE; the switches' counters were read over SSH: SONiC/NVUE/hosts read
    drops and storms (pass), EOS/NX-OS name what their readers do not give (unverified)."""
    done = {e["device"] for e in events if e["event"] == "device" and e["state"] == "DONE"}
    assert done == set(devices)
    gates = [(e["device"], g) for e in events if e["event"] == "gates" for g in e["gates"]]
    counters = {d: g for d, g in gates if g["name"] == "counters"}
    platform = {n: e["platform"] for n, e in lab_inventory_devices().items()}
    for name, gate in counters.items():
        want = "pass" if platform[name] in ("sonic", "cumulus", "linux_host") else "unverified"
        assert gate["status"] == want, (name, gate)
    print("counter gates:", {n: g["detail"] for n, g in sorted(counters.items())})


def test_fabric_collect_plan_apply(fabric: LabServer, tmp_path: Path) -> None:
    known = fabric.known_hosts(tmp_path / "known_hosts")
    live = _inventory(fabric, tmp_path / "live.yaml", None)
    snaps = tmp_path / "before"
    got = run_cli("collect", live, "-o", snaps, "--known-hosts", known)
    assert got.code == 0, got.err
    planned_inv = _inventory(fabric, tmp_path / "planned.yaml", snaps)
    plan = tmp_path / "plan.json"
    got = run_cli("plan", planned_inv, "--format", "json", "-o", plan)
    assert got.code == 1, got.err  # some devices need changes
    engine_backed = {n for n, e in lab_inventory_devices().items() if e["platform"] in ENGINES}
    devices = sorted(d.name for d in load_plan(plan).with_changes() if d.name in engine_backed)
    assert len(devices) >= 4, devices
    args: list[str | Path] = ["apply", plan, "-i", planned_inv, "--change-id", "LAB-1", "--now"]
    args += ["--known-hosts", known, "--allow-disruptive", "--waves", "50%,100%"]
    args += ["--runs-dir", tmp_path / "runs", "--confirm-within", "5m"]
    for d in devices:
        args += ["--device", d]
    dry = run_cli(*args, "--dry-run", "--runs-dir", tmp_path / "dry")
    assert dry.code == 0, dry.out + dry.err
    assert "dry run: staged, diffed and discarded" in dry.out
    start_s = time.monotonic()
    got = run_cli(*args)
    wall = time.monotonic() - start_s
    print(f"\napply of {len(devices)} devices over SSH (canary + waves): {wall:.1f} s wall")
    assert got.code == 0, got.out + got.err
    run_dir = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    events = [json.loads(x) for x in (run_dir / "audit.jsonl").read_text().splitlines()]
    waves = [e for e in events if e["event"] == "wave"]
    assert waves[0]["label"] == "canary"
    assert len(waves) >= 3, [w["devices"] for w in waves]
    _check_done(events, devices)
    # the planned findings are gone on a fresh collection
    after = tmp_path / "after"
    got = run_cli("collect", live, "-o", after, "--known-hosts", known)
    assert got.code == 0, got.err
    again = tmp_path / "again.json"
    run_cli(
        "plan", _inventory(fabric, tmp_path / "after.yaml", after), "--format", "json", "-o", again
    )
    left = {d.name for d in load_plan(again).with_changes()}
    assert not left & set(devices), left
    # and back: --rollback of the run reverts every device; the same plan is due again
    status = run_cli("apply", "--status", run_dir.name, "--runs-dir", tmp_path / "runs")
    assert "COMPLETE" in status.out
    back = ["apply", "--rollback", run_dir.name, "-i", planned_inv, "--change-id", "LAB-2"]
    back += ["--now", "--known-hosts", known, "--allow-disruptive", "--runs-dir", tmp_path / "runs"]
    got = run_cli(*back)
    assert got.code == 0, got.out + got.err
    assert "ROLLED_BACK" in got.out
    reverted = tmp_path / "reverted"
    assert run_cli("collect", live, "-o", reverted, "--known-hosts", known).code == 0
    replan = tmp_path / "replan.json"
    run_cli(
        "plan",
        _inventory(fabric, tmp_path / "reverted.yaml", reverted),
        "--format",
        "json",
        "-o",
        replan,
    )
    assert {d.name for d in load_plan(replan).with_changes()} >= set(devices)
