"""Hostile peers cannot hang or exhaust a collection: deadlines, output caps, no sh.

Each hostile device of the lab (tests/lab/conftest.py HOSTILE) fails alone with a precise
reason, within its deadline, while the other devices are still collected (exit 3); a
flooding one is collected with the flooded output truncated at the cap (and said so).
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
    for n in names:
        extra[n]["platform"] = HOSTILE[n]["platform"]
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


FLOODED = {
    "h-flood-host": "mlnx_qos -i eth2",
    "h-flood-eos": "show running-config",
    "h-flood-switch": "show runningconfiguration all",
}
"""Flooding peers: exec channels (a host), interactive sessions (EOS text, SONiC JSON)."""
TEXT = ("h-flood-host", "h-flood-eos")


def test_flood_is_truncated_at_the_cap_and_the_device_still_collected(
    lab: LabServer, tmp_path: Path
) -> None:
    """A command that floods (4 MiB, cap 2 MiB) is kept up to the cap on a line boundary and
    marked truncated; the device is collected (exec channels and an interactive session)."""
    inventory = _inventory(lab, tmp_path, list(FLOODED))
    out = tmp_path / "snaps"
    res = run_cli(
        "collect", inventory, "-o", out, "--device", "h-flood-*", "--insecure-host-keys",
        "--read-timeout", "60", "--retries", "2", "--max-output-mib", "2",
    )  # fmt: skip
    assert res.code == 0, res.err
    cap = 2 * 2**20
    for name, command in FLOODED.items():
        meta = json.loads((out / name / "meta.json").read_text(encoding="utf-8"))
        records = {r["command"]: r for r in meta["commands"]}
        record = records[command]
        assert record["status"] == "truncated", record
        assert record["cap_bytes"] == cap
        assert sum(r["status"] == "truncated" for r in records.values()) == 1, records
        order = [r["command"] for r in meta["commands"]]
        assert order.index(command) < len(order) - 1, "commands after the flood were run too"
        data = (out / name / record["file"]).read_bytes()
        assert cap - 65536 - 2 <= len(data) <= cap, (name, len(data))
        assert data.endswith(b"\n")
        assert set(data.splitlines()) == {b"y" * 65535}, "whole lines only, no prompt or echo"


def _sent(lab: LabServer, name: str, command: str) -> int:
    return sum(c.count(command) for c in lab.sessions().get(name, []))


def test_flood_audit_says_what_was_not_read_and_never_retries(
    lab: LabServer, tmp_path: Path
) -> None:
    """The audit of a fabric with flooding peers: every device collected (exit 1 for the
    fabric's findings, as without them), one RT001 per truncated output bound to its
    device, and the flooding command sent once (not retried, not re-run on reconnect)."""
    inventory = _inventory(lab, tmp_path, list(FLOODED))
    before = {n: _sent(lab, n, c) for n, c in FLOODED.items()}
    start = time.monotonic()
    res = run_cli(
        "audit", inventory, "--format", "json", "--insecure-host-keys", "--read-timeout", "60",
        "--connect-timeout", "5", "--retries", "2", "--max-output-mib", "2",
    )  # fmt: skip
    seconds = time.monotonic() - start
    assert res.code == 3, res.err  # h-flood-switch could not be read: as if not collected
    data = json.loads(res.out)
    assert {n for n, d in data["devices"].items() if d["status"] != "ok"} == {"h-flood-switch"}
    error = data["devices"]["h-flood-switch"]["error"]
    assert "`show runningconfiguration all` truncated at 2 MiB cannot be parsed" in error
    for name, command in FLOODED.items():
        assert _sent(lab, name, command) == before[name] + 1, name
    for name in TEXT:
        cut = [
            f
            for f in data["findings"]
            if f["code"] == "RT001" and f["device"] == name and f"`{FLOODED[name]}`" in f["message"]
        ]
        assert len(cut) == 1, [f for f in data["findings"] if f["device"] == name]
        assert "truncated at 2 MiB: what follows was not read" in cut[0]["message"]
    assert seconds < 90


def test_missing_posix_sh_is_diagnosed(lab: LabServer, tmp_path: Path) -> None:
    inventory = _inventory(lab, tmp_path, ["h-nosh-host"])
    code, devices, err, _ = _audit(inventory)
    assert code == 3, err
    error = devices["h-nosh-host"]["error"]
    assert "no POSIX sh" in error, error
    assert "--host-transport shell" in error
