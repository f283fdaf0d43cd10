"""The shipped example fabric: every planted fault of inventories/lab/README.md is found."""

from __future__ import annotations

import json
from collections import Counter

from tests.cli.conftest import ROOT, run_cli

LAB = ROOT / "inventories" / "lab" / "inventory.yaml"

# (code, device, port, link) of every error/warning the lab's README lists.
PLANTED = {
    ("RT201", "leaf1", "Ethernet8", None),
    ("RT102", "leaf1", "Ethernet8", None),
    ("RT701", "leaf1", "Ethernet8", "leaf1:Ethernet8--spine2:swp1"),
    ("RT501", "leaf2", "Ethernet8", None),
    ("RT303", "spine1", None, None),
    ("RT301", "spine1", "Ethernet0", None),
    ("RT301", "spine1", "Ethernet8", None),
    ("RT301", "spine1", "Ethernet16", None),
    ("RT301", "spine1", "Ethernet24", None),
    ("RT207", "spine1", None, None),
    ("RT205", "spine2", "swp1", None),
    ("RT205", "spine2", "swp2", None),
    ("RT205", "spine2", "swp3", None),
    ("RT205", "spine2", "swp4", None),
    ("RT102", "leaf3", "swp31", None),
    ("RT102", "leaf3", "swp32", None),
    ("RT702", "leaf3", "swp31", "leaf3:swp31--spine1:Ethernet16"),
    ("RT702", "leaf3", "swp32", "leaf3:swp32--spine2:swp3"),
    ("RT601", "leaf4", "swp32", None),
    ("RT703", "leaf4", "swp32", "leaf4:swp32--spine2:swp4"),
    ("RT104", "leaf4", "swp31", None),
    ("RT104", "leaf4", "swp32", None),
}
FINDING_KEYS = [
    "code",
    "name",
    "severity",
    "device",
    "port",
    "link",
    "message",
    "observed",
    "expected",
    "file",
    "line",
]


def audit_json() -> dict:  # type: ignore[type-arg]
    res = run_cli("audit", LAB, "--format", "json")
    assert res.code == 1, res.err
    assert res.err == ""
    return json.loads(res.out)  # type: ignore[no-any-return]


def test_every_planted_fault_is_found_and_nothing_else() -> None:
    data = audit_json()
    got = {
        (f["code"], f["device"], f["port"], f["link"])
        for f in data["findings"]
        if f["severity"] in {"error", "warning"}
    }
    assert got == PLANTED
    infos = Counter((f["code"], f["device"]) for f in data["findings"] if f["severity"] == "info")
    assert set(infos) == {("RT000", d) for d in ("spine2", "leaf3", "leaf4")}, (
        "only the documented Cumulus headroom gaps are RT000"
    )


def test_json_shape() -> None:
    data = audit_json()
    assert list(data) == ["version", "findings", "devices", "summary"]
    assert data["version"] == 1
    for f in data["findings"]:
        assert list(f) == FINDING_KEYS
        assert f["severity"] in {"error", "warning", "info"}
        assert isinstance(f["message"], str)
        assert f["message"]
        assert f["file"] is None or not f["file"].startswith("/")
        assert f["line"] is None or isinstance(f["line"], int)
        assert f["link"] is None or "--" in f["link"]
    assert data["devices"] == {
        name: {"platform": platform, "status": "ok", "error": None}
        for name, platform in [
            ("leaf1", "sonic"),
            ("leaf2", "sonic"),
            ("leaf3", "cumulus"),
            ("leaf4", "cumulus"),
            ("spine1", "sonic"),
            ("spine2", "cumulus"),
        ]
    }
    counts = Counter(f["severity"] for f in data["findings"])
    assert data["summary"] == {s: counts.get(s, 0) for s in ("error", "warning", "info")}


def test_findings_point_at_config_lines() -> None:
    data = audit_json()
    by_key = {(f["code"], f["device"], f["port"]): f for f in data["findings"]}
    rt201 = by_key[("RT201", "leaf1", "Ethernet8")]
    assert rt201["file"] == "inventories/lab/snapshots/leaf1/show_runningconfiguration_all.json"
    lines = (ROOT / rt201["file"]).read_text().splitlines()
    assert '"Ethernet8"' in lines[rt201["line"] - 1]
    rt601 = by_key[("RT601", "leaf4", "swp32")]
    assert rt601["file"] == "inventories/lab/configs/leaf4.yaml"
    assert "mtu: 1500" in (ROOT / rt601["file"]).read_text().splitlines()[rt601["line"] - 1]


def test_text_output_groups_by_device() -> None:
    res = run_cli("audit", LAB)
    assert res.code == 1
    for device in ("leaf1", "leaf2", "leaf3", "leaf4", "spine1", "spine2"):
        assert any(line.startswith(device) for line in res.out.splitlines())
    assert "RT501 headroom-sufficient" in res.out
    assert "268036 B" in res.out  # the computation is shown
    assert "\x1b[" not in res.out  # no colour when not a TTY
    assert res.out.rstrip().endswith("in 6 of 6 device(s) checked.")


def test_select_ignore_and_fail_on() -> None:
    res = run_cli("audit", LAB, "--format", "json", "--select", "RT2", "--ignore", "RT205,RT201")
    codes = {f["code"] for f in json.loads(res.out)["findings"]}
    assert codes == {"RT207"}
    assert res.code == 0  # RT207 is a warning, below the default --fail-on error
    res = run_cli("audit", LAB, "--select", "pfc-watchdog-action", "--fail-on", "warning")
    assert res.code == 1
    res = run_cli("audit", LAB, "--select", "RT6", "--ignore", "RT601,RT000")
    assert res.code == 0


def test_output_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "report.json"
    res = run_cli("audit", LAB, "--format", "json", "-o", out)
    assert res.code == 1
    assert res.out == ""
    assert json.loads(out.read_text())["version"] == 1
