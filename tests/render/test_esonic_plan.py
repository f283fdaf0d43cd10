"""Enterprise SONiC plan: the smallest sonic-cli change per finding, replayed and re-linted;
a clean device gets no change (the live apply on the lab: tests/lab/test_esonic_live.py)."""

from __future__ import annotations

from pathlib import Path

from rocetune.api import plan as plan_inventory
from rocetune.render.device_plan import DevicePlan
from tests.paths import ROOT

LEAF9 = ROOT / "tests" / "fixtures" / "enterprise_sonic" / "leaf9"
INTENT = "intent:\n  lossless_priorities: [3]\n  roce_dscp: [26]\n"


def _inventory(tmp_path: Path, snapshot: Path) -> Path:
    inv = tmp_path / "inv.yaml"
    inv.write_text(
        INTENT
        + "devices:\n"
        + f"  leaf9: {{platform: enterprise_sonic, role: leaf, snapshot: {snapshot}}}\n",
        encoding="utf-8",
    )
    return inv


def _plan(tmp_path: Path, snapshot: Path) -> DevicePlan:
    report = plan_inventory(_inventory(tmp_path, snapshot))
    assert report.errors == []
    [plan] = report.devices
    return plan


def test_remediation_changes_and_rollback(tmp_path: Path) -> None:
    plan = _plan(tmp_path, LEAF9)
    got = {(c.kind, c.port): c for c in plan.changes}
    assert sorted(got) == [
        ("dscp_map", "Eth1/2"),
        ("mtu", "Eth1/2"),
        ("pfc", "Eth1/1"),
        ("watchdog", "Eth1/2"),
    ]
    assert got["pfc", "Eth1/1"].text == (
        "interface Eth1/1\n priority-flow-control priority 3\nexit"
    )
    assert got["pfc", "Eth1/1"].rollback == (
        "interface Eth1/1\n no priority-flow-control priority 3\nexit"
    )
    assert got["mtu", "Eth1/2"].rollback == "interface Eth1/2\n mtu 1500\nexit"
    assert got["dscp_map", "Eth1/2"].text == "qos map dscp-tc RDMA\n dscp 26 traffic-class 3\nexit"
    assert any("bound to Eth1/1, Eth1/2" in n for n in plan.notes)
    # the replay cleared what each change names
    assert all(c.fixes for c in plan.changes)
    assert plan.unfixed == []


def test_clean_device_is_not_touched(tmp_path: Path) -> None:
    from rocetune import api
    from rocetune.render.run import render_device

    fabric = api.audit(_inventory(tmp_path, LEAF9)).fabric
    rendered = render_device(fabric, "leaf9")
    full = next(f.text for f in rendered.files if f.path.endswith(".esonic.cfg"))
    snap = tmp_path / "clean"
    snap.mkdir()
    (snap / "show_running_configuration.txt").write_text(full, encoding="utf-8")
    plan = _plan(tmp_path, snap)
    assert (plan.status, plan.changes) == ("no-change", [])
