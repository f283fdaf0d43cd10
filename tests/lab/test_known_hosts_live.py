"""A known_hosts file with OpenSSH markers, hashed names and bad lines still verifies keys."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from pathlib import Path

import pytest

from tests.lab.lab import HOST, LabServer, lab_inventory_devices, live_inventory, run_cli

pytestmark = pytest.mark.slow


def _hashed(name: str) -> str:
    salt = b"rocetune-test-salt!!"
    digest = hmac.new(salt, name.encode(), hashlib.sha1).digest()
    return f"|1|{base64.b64encode(salt).decode()}|{base64.b64encode(digest).decode()}"


def test_markers_hashed_and_malformed_lines(lab: LabServer, tmp_path: Path) -> None:
    inventory = live_inventory(lab, tmp_path / "inventory.yaml")
    names = list(lab_inventory_devices(lab.fabric))
    lines = [
        f"@cert-authority *.example.net {lab.host_key}",
        "garbage-line",
    ]
    for i, name in enumerate(names):
        endpoint = f"[{HOST}]:{lab.ports[name]}"
        lines.append(f"{_hashed(endpoint) if i % 2 else endpoint} {lab.host_key}")
    known = tmp_path / "known_hosts"
    known.write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = run_cli("audit", inventory, "--format", "json", "--known-hosts", known)
    assert res.code in (0, 1), res.err
    data = json.loads(res.out)
    assert all(data["devices"][n]["status"] == "ok" for n in names), data["devices"]
    assert "@cert-authority line(s) skipped" in res.err
    assert "known_hosts:2: fewer than three fields, line skipped" in res.err


def test_unknown_host_prints_the_keyscan_line(lab: LabServer, tmp_path: Path) -> None:
    inventory = live_inventory(lab, tmp_path / "inventory.yaml")
    names = list(lab_inventory_devices(lab.fabric))
    known = lab.known_hosts(tmp_path / "known_hosts", skip=(names[0],))
    res = run_cli("audit", inventory, "--format", "json", "--known-hosts", known)
    assert res.code == 3, res.err
    assert f"ssh-keyscan -p {lab.ports[names[0]]} {HOST} >> {known}" in res.err
