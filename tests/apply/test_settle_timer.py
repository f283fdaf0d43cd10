"""``--counters-settle`` longer than the device's own revert timer, on the real CLI against
the lab spines (tests/lab/test_apply_cli_e2e.py): the lab engines' clocks run 60x, so the
canary's 300 s EOS timer fires after ~5 real seconds, inside an 8 s settle wait. The device
reverts itself; apply must say so (not blame the config gate for a change that is gone), roll
the canary back with proof, and never start the wave.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.lab.lab import LabServer, live_inventory, run_cli
from tests.lab.test_apply_cli_e2e import _show, spines

__all__ = ["spines"]

pytestmark = pytest.mark.slow


def test_device_timer_firing_during_the_settle_wait_is_named(
    spines: tuple[LabServer, Path], tmp_path: Path
) -> None:
    lab, fabric = spines
    before = {d: _show(lab, tmp_path, d, "show running-config") for d in ("spine1", "spine2")}
    plan = tmp_path / "plan.json"
    run_cli("plan", fabric, "--format", "json", "-o", plan)
    inventory = live_inventory(lab, tmp_path / "inventory.yaml", fabric)
    result = run_cli(
        "apply", plan, "-i", inventory, "--change-id", "CHG-SETTLE", "--now",
        "--device", "spine1", "--device", "spine2", "--allow-disruptive",
        "--counters-settle", "8s",
        "--known-hosts", lab.known_hosts(tmp_path / "known_hosts"),
        "--runs-dir", tmp_path / "runs",
    )  # fmt: skip
    out = result.out + result.err
    assert result.code == 1, out
    events = [
        json.loads(line)
        for record in (tmp_path / "runs").rglob("audit.jsonl")
        for line in record.read_text(encoding="utf-8").splitlines()
    ]
    states = {e["device"]: e["state"] for e in events if e.get("event") == "device"}
    assert states == {"spine1": "ROLLED_BACK", "spine2": "ABORTED"}, states
    assert "revert timer fired during the settle wait" in out, out
    # the wait asks the device every 2 s: the timer (~5 s real) ends it before its 8 s
    flat = " ".join(out.split())  # the text report wraps long lines
    assert re.search(r"settle wait \(after [2-7] s of the 8 s --counters-settle", flat), out
    assert not any(e.get("event") == "gates" for e in events), "gates ran on a reverted device"
    for device, text in before.items():
        assert _show(lab, tmp_path, device, "show running-config") == text, device
