"""Input errors: one clear line on stderr naming file and line, exit 2, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import run_cli


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("devices: [\n", ":2:1: invalid YAML"),
        ("devices:\n  leaf1: {host: a, platfrom: sonic}\n", ":2:20: unknown key 'platfrom'"),
        ("devices:\n  leaf1: {snapshot: nowhere}\n", ":2:21: snapshot 'nowhere'"),
        ("devices:\n  leaf1: {platform: arista}\n", ":2:21: unknown platform 'arista'"),
        ("devices:\n  leaf1:\n    password: hunter2\n", ":3:5: literal credential 'password'"),
    ],
)
def test_bad_inventory(tmp_path: Path, text: str, fragment: str) -> None:
    inv = tmp_path / "inventory.yaml"
    inv.write_text(text)
    res = run_cli("audit", inv)
    assert res.code == 2
    assert res.out == ""
    lines = res.err.strip().splitlines()
    assert len(lines) == 1, res.err
    assert lines[0].startswith(f"rocetune: error: {inv}")
    assert fragment in lines[0]
    assert "Traceback" not in res.err
    assert "hunter2" not in res.err


def test_missing_inventory_file(tmp_path: Path) -> None:
    res = run_cli("audit", tmp_path / "nope.yaml")
    assert res.code == 2
    assert "nope.yaml" in res.err
    assert "Traceback" not in res.err


def test_unknown_selector_is_a_usage_error(tmp_path: Path) -> None:
    inv = tmp_path / "inventory.yaml"
    inv.write_text("devices: {}\n")
    res = run_cli("audit", inv, "--select", "RT9999")
    assert res.code == 2
    assert "unknown rule selector 'RT9999'" in res.err


def test_rules_json_lists_registered_rules() -> None:
    res = run_cli("rules", "--format", "json")
    assert res.code == 0
    rows = json.loads(res.out)
    codes = [r["code"] for r in rows]
    assert codes == sorted(codes)
    assert {"RT000", "RT001", "RT002", "RT201", "RT701"} <= set(codes)
    assert all(set(r) == {"code", "name", "severity", "scope", "summary", "module"} for r in rows)


def test_device_without_snapshot_is_not_collected_exit_3(tmp_path: Path) -> None:
    inv = tmp_path / "inventory.yaml"
    inv.write_text("devices:\n  leaf1: {host: 10.0.0.1, platform: sonic}\n")
    res = run_cli("audit", inv, "--format", "json")
    assert res.code == 3
    data = json.loads(res.out)
    assert data["devices"]["leaf1"]["status"] == "error"
    assert "not collected" in data["devices"]["leaf1"]["error"]


def test_unsupported_platform_is_rt002(tmp_path: Path) -> None:
    (tmp_path / "eos.cfg").write_text("hostname spine1\n")
    inv = tmp_path / "inventory.yaml"
    inv.write_text("devices:\n  spine1: {platform: junos, snapshot: eos.cfg}\n")
    res = run_cli("audit", inv, "--format", "json")
    assert res.code == 1
    data = json.loads(res.out)
    assert [f["code"] for f in data["findings"]] == ["RT002"]
    assert data["findings"][0]["device"] == "spine1"
    assert data["devices"]["spine1"]["status"] == "error"
