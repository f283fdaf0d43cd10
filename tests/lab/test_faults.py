"""Fault matrix: each fault on one device gives that device a precise reason, exit 3, and
every other device is still collected and checked."""

from __future__ import annotations

import json
from pathlib import Path

from tests.lab.conftest import FAULTS
from tests.lab.lab import LabServer, lab_inventory_devices, live_inventory, run_cli
from tests.lab.test_live_audit import findings_without_paths

REASONS = {
    "f-auth": "auth failed",
    "f-authdelay": "auth timeout",
    "f-slow": "command timeout during 'show runningconfiguration all'",
    "f-drop": "disconnected during 'show runningconfiguration all'",
    "f-tarpit": "banner timeout",
    "f-unknown": "command rejected during 'show runningconfiguration all': -bash: show:",
    "f-hkunknown": "host key unknown",
    "f-hkmismatch": "host key mismatch",
    "f-refused": "TCP refused",
}
RETRIED = {"f-drop", "f-tarpit", "f-refused"}
"""Transient failures: retried once (--retries 1); the others are never retried."""


def test_fault_matrix(lab: LabServer, tmp_path: Path) -> None:
    assert set(REASONS) == set(FAULTS)
    extra = {name: {"platform": "sonic", "role": "leaf"} for name in FAULTS}
    inventory = live_inventory(lab, tmp_path / "inventory.yaml", extra=extra)
    known = lab.known_hosts(
        tmp_path / "known_hosts", skip=("f-hkunknown",), wrong=("f-hkmismatch",)
    )
    before = lab.sessions()
    auth_before = {name: lab.auth_attempts(name) for name in FAULTS}
    res = run_cli(
        "audit", inventory, "--format", "json", "--known-hosts", known,
        "--retries", "1", "--connect-timeout", "1", "--auth-timeout", "1", "--read-timeout", "1",
    )  # fmt: skip
    assert res.code == 3, res.err
    data = json.loads(res.out)
    for name, reason in REASONS.items():
        status = data["devices"][name]
        assert status["status"] == "error"
        assert status["error"].startswith(f"not collected: {reason}"), (name, status)
        assert f"  {name}: {reason}" in res.err, name
        tries = "(after 2 attempts)" in status["error"]
        assert tries == (name in RETRIED), (name, status["error"])
    for name in lab_inventory_devices(lab.fabric):
        assert data["devices"][name]["status"] == "ok"
    offline = run_cli("audit", lab.fabric, "--format", "json")
    live = [f for f in findings_without_paths(res.out) if json.loads(f)["device"] not in FAULTS]
    assert live == findings_without_paths(offline.out)
    after = lab.sessions()
    drops = after["f-drop"][len(before.get("f-drop", [])) :]
    assert drops == [["show runningconfiguration all"]] * 2, "retried once, then given up"
    assert lab.auth_attempts("f-auth") - auth_before["f-auth"] == 1, "auth failures: no retry"
    assert lab.auth_attempts("f-authdelay") - auth_before["f-authdelay"] == 1
