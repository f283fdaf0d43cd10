"""Hostile peers cannot hang or exhaust a collection: deadlines, output caps, no sh.

Each hostile device of the lab (tests/lab/conftest.py HOSTILE) fails alone with a precise
reason, within its deadline, while the other devices are still collected (exit 3).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.lab.conftest import HOSTILE
from tests.lab.lab import LabServer, live_inventory, run_cli

pytestmark = pytest.mark.slow

HOST = {"platform": "linux_host", "role": "host", "nics": ["eth2", "eth3"]}
SWITCH = {"platform": "sonic", "role": "leaf"}


def _inventory(lab: LabServer, tmp_path: Path, names: list[str]) -> Path:
    extra = {n: dict(HOST if HOSTILE[n]["platform"] == "linux_host" else SWITCH) for n in names}
    return live_inventory(lab, tmp_path / "inventory.yaml", extra=extra)


def _audit(inventory: Path, *extra: str) -> tuple[int, dict[str, dict[str, str]], str, float]:
    start = time.monotonic()
    res = run_cli(
        "audit", inventory, "--format", "json", "--insecure-host-keys",
        "--read-timeout", "2", "--connect-timeout", "5", *extra,
    )  # fmt: skip
    seconds = time.monotonic() - start
    return res.code, json.loads(res.out)["devices"], res.err, seconds


def test_drip_is_cut_by_the_deadline_not_the_idle_timeout(lab: LabServer, tmp_path: Path) -> None:
    inventory = _inventory(lab, tmp_path, ["h-drip-host", "h-drip-switch"])
    code, devices, err, seconds = _audit(inventory)
    assert code == 3, err
    for name in ("h-drip-host", "h-drip-switch"):
        assert devices[name]["error"].startswith("not collected: command timeout"), devices[name]
        assert "after 2 attempts" not in devices[name]["error"], "a timeout is not retried"
    assert devices["leaf1"]["status"] == "ok"
    assert seconds < 60, f"a dripping peer held the run for {seconds:.0f} s"


def test_device_deadline_bounds_the_whole_device(lab: LabServer, tmp_path: Path) -> None:
    inventory = _inventory(lab, tmp_path, ["h-drip-host"])
    code, devices, err, seconds = _audit(inventory, "--read-timeout", "30", "--device-timeout", "3")
    assert code == 3, err
    assert "device deadline" in devices["h-drip-host"]["error"], devices["h-drip-host"]
    assert seconds < 40


def test_flood_is_capped_and_never_retried(lab: LabServer, tmp_path: Path) -> None:
    inventory = _inventory(lab, tmp_path, ["h-flood-host", "h-flood-switch"])
    code, devices, err, _ = _audit(
        inventory, "--read-timeout", "60", "--retries", "2", "--max-output-mib", "2"
    )
    assert code == 3, err
    for name in ("h-flood-host", "h-flood-switch"):
        error = devices[name]["error"]
        assert error.startswith("not collected: output too large"), (name, error)
        assert "attempts" not in error, "a flood is not retried"
    assert devices["leaf2"]["status"] == "ok"


def test_missing_posix_sh_is_diagnosed(lab: LabServer, tmp_path: Path) -> None:
    inventory = _inventory(lab, tmp_path, ["h-nosh-host"])
    code, devices, err, _ = _audit(inventory)
    assert code == 3, err
    error = devices["h-nosh-host"]["error"]
    assert "no POSIX sh" in error, error
    assert "--host-transport shell" in error
