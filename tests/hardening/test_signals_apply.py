"""SIGINT/SIGTERM sent to the real ``rocetune apply`` in a subprocess, while the canary
(spine1, EOS lab engine) is armed and its counters settle: the run stops within 2 s with
130/143, says it was stopped, rolls the armed device back, and the device's running config
is as before. The other signal tests (collect/audit/verify) are tests/hardening/test_signals*.py.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.lab.lab import LabServer, lab_env, live_inventory, run_cli
from tests.lab.test_apply_cli_e2e import _show, spines
from tests.paths import ROOT

__all__ = ["spines"]

STOP_WITHIN_S = 2.0


def _states(runs: Path) -> dict[str, str]:
    states: dict[str, str] = {}
    for record in runs.rglob("audit.jsonl"):
        for line in record.read_text(encoding="utf-8").splitlines():
            event = json.loads(line)
            if event.get("event") == "device":
                states[event["device"]] = event["state"]
    return states


@pytest.mark.parametrize(
    ("signum", "code", "name"),
    [(signal.SIGINT, 130, "SIGINT"), (signal.SIGTERM, 143, "SIGTERM")],
)
def test_signal_stops_apply_and_rolls_back(
    spines: tuple[LabServer, Path], tmp_path: Path, signum: int, code: int, name: str
) -> None:
    lab, fabric = spines
    before = _show(lab, tmp_path, "spine1", "show running-config")
    plan = tmp_path / "plan.json"
    run_cli("plan", fabric, "--format", "json", "-o", plan)
    inventory = live_inventory(lab, tmp_path / "inventory.yaml", fabric)
    runs = tmp_path / "runs"
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "rocetune", "apply", str(plan), "-i", str(inventory),
            "--change-id", "CHG-SIG", "--now", "--device", "spine1", "--device", "spine2",
            "--allow-disruptive", "--counters-settle", "30s",
            "--known-hosts", str(lab.known_hosts(tmp_path / "known_hosts")),
            "--runs-dir", str(runs),
        ],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        text=True, cwd=ROOT, env=lab_env(),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while _states(runs).get("spine1") not in {"ARMED", "VERIFYING"}:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, f"spine1 never armed: {_states(runs)}"
            time.sleep(0.05)
        time.sleep(0.5)  # now settling its counters
        sent = time.monotonic()
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    print(f"apply {name}: stopped in {took:.2f} s, exit {proc.returncode}")
    assert proc.returncode == code, err
    assert took < STOP_WITHIN_S, f"{name}: apply stopped after {took:.2f} s"
    assert name in err, err
    assert _states(runs)["spine1"].upper() == "ROLLED_BACK", _states(runs)
    assert _show(lab, tmp_path, "spine1", "show running-config") == before
