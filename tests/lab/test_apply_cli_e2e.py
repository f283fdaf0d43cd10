"""``rocetune apply`` (the real CLI) on the example fabric's spines over SSH: the EOS and
NX-OS drivers under the orchestrator, against the stateful lab engines.

spine1 (EOS) gets a planted MTU fault on Ethernet2/1 so the plan changes both spines; the
lab serves both from the same snapshot files the plan read (so the plan is not stale).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lab.lab import LabServer, freeze_fabric, live_inventory, run_cli, start_lab


def _fabric(root: Path) -> Path:
    fabric = freeze_fabric(root / "fabric")
    running = fabric.parent / "snapshots/spine1/show_running_config.txt"
    text = running.read_text(encoding="utf-8")
    at = text.index("interface Ethernet2/1")
    running.write_text(text[:at] + text[at:].replace("   mtu 9214", "   mtu 9000", 1))
    return fabric


def _devices(fabric: Path, faults: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, platform in (("spine1", "eos"), ("spine2", "nxos")):
        snap = str(fabric.parent / "snapshots" / name)
        engine = {"kind": platform, "snapshot": snap, "rate": 60, "faults": faults.get(name, [])}
        out[name] = {"platform": platform, "snapshot": snap, "engine": engine}
    return out


@pytest.fixture
def spines(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[LabServer, Path]]:
    faults: dict[str, list[dict[str, Any]]] = getattr(request, "param", {})
    fabric = _fabric(tmp_path)
    lab = start_lab(_devices(fabric, faults), tmp_path / "lab")
    try:
        yield lab, fabric
    finally:
        lab.stop()


def _apply(lab: LabServer, fabric: Path, tmp: Path) -> tuple[int, str, dict[str, str]]:
    plan = tmp / "plan.json"
    run_cli("plan", fabric, "--format", "json", "-o", plan)
    changed = [d["device"] for d in json.loads(plan.read_text())["devices"] if d["changes"]]
    assert {"spine1", "spine2"} <= set(changed)
    inventory = live_inventory(lab, tmp / "inventory.yaml", fabric)
    result = run_cli(
        "apply", plan, "-i", inventory, "--change-id", "CHG-LAB", "--now",
        "--device", "spine1", "--device", "spine2", "--allow-disruptive",
        "--known-hosts", lab.known_hosts(tmp / "known_hosts"), "--runs-dir", tmp / "runs",
    )  # fmt: skip
    states: dict[str, str] = {}
    for record in (tmp / "runs").rglob("audit.jsonl"):
        for line in record.read_text(encoding="utf-8").splitlines():
            event = json.loads(line)
            if event.get("event") == "device":
                states[event["device"]] = event["state"]
    return result.code, result.out + result.err, states


def _show(lab: LabServer, tmp: Path, device: str, command: str) -> str:
    from tests.lab.test_apply_cli_live import _open

    session = _open(lab, device, tmp)
    try:
        return session.run(command).text
    finally:
        session.close()


def test_canary_and_wave_apply_both_spines(spines: tuple[LabServer, Path], tmp_path: Path) -> None:
    """EOS canary, then the NX-OS wave: both DONE, running = startup = the plan applied."""
    lab, fabric = spines
    code, out, states = _apply(lab, fabric, tmp_path)
    assert code == 0, out
    assert states == {"spine1": "DONE", "spine2": "DONE"}
    eos = _show(lab, tmp_path, "spine1", "show running-config")
    assert eos.count("   mtu 9214") == 5
    assert eos == _show(lab, tmp_path, "spine1", "show startup-config")
    nxos = _show(lab, tmp_path, "spine2", "show running-config")
    assert "priority-flow-control watch-dog-interval on" in nxos
    assert "rocetune" not in eos + nxos
    assert nxos == _show(lab, tmp_path, "spine2", "show startup-config")


@pytest.mark.parametrize(
    ("spines", "expected"),
    [
        ({"spine1": [{"kind": "fail", "on": "mtu 9214"}]}, {"spine1": "ABORTED"}),
        (
            {"spine2": [{"kind": "fail", "on": "priority-flow-control watch-dog-interval on"}]},
            {"spine1": "DONE", "spine2": "ROLLED_BACK"},
        ),
    ],
    indirect=["spines"],
    ids=["eos-stage-refused", "nxos-line-refused-after-arm"],
)
def test_a_refused_line_leaves_the_device_as_before(
    spines: tuple[LabServer, Path], tmp_path: Path, expected: dict[str, str]
) -> None:
    """EOS refuses a line while staging (the session is aborted, the canary fails, the wave
    never starts); NX-OS refuses one after its revert was armed (rolled back to the
    checkpoint at once; apply proves it by re-collection): exit 1, the refusing device
    unchanged."""
    lab, fabric = spines
    before = {d: _show(lab, tmp_path, d, "show running-config") for d in ("spine1", "spine2")}
    code, out, states = _apply(lab, fabric, tmp_path)
    assert code == 1, out
    for device, state in expected.items():
        assert states[device] == state, out
        if state != "DONE":
            assert _show(lab, tmp_path, device, "show running-config") == before[device]
