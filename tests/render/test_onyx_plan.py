"""rocetune plan on Onyx: the smallest Onyx commands that fix the findings, replayed clean."""

from __future__ import annotations

import textwrap
from pathlib import Path

from rocetune.api import plan as plan_inventory
from rocetune.model import Intent
from rocetune.platforms.onyx import PLATFORM as ONYX
from rocetune.platforms.onyx.changeset import changeset
from rocetune.platforms.onyx.commands import RUNNING_CONFIG
from rocetune.render.run import render_fabric
from rocetune.snapshot import Snapshot, SourceFile
from rocetune.tune.target import device_target
from tests.render.fabrics import fabric

PLATFORM_DRIVER = ONYX
ECN = "congestion-control ecn minimum-absolute 400 maximum-absolute 1600"
FAULTY = f"""
##
## Running database "initial"
##
no cli default prefix-modes enable
   interface ethernet 1/1-1/2 mtu 9216 force
   interface ethernet 1/1-1/2 speed 100G force
   interface ethernet 1/1-1/2 traffic-class 3 {ECN}
   interface ethernet 1/1-1/2 traffic-class 6 dcb ets strict
   interface ethernet 1/1-1/2 traffic-class 3 dcb ets wrr 50
   interface ethernet 1/1-1/2 traffic-class 0 dcb ets wrr 50
   interface ethernet 1/1 qos trust L3
   dcb priority-flow-control enable force
   dcb priority-flow-control priority 3 enable
   interface ethernet 1/1 dcb priority-flow-control mode on force
   interface ethernet 1/2 dcb priority-flow-control mode on force
   hostname leaf9
"""


def _inventory(tmp_path: Path, config: str) -> Path:
    (tmp_path / "leaf9.cfg").write_text(textwrap.dedent(config).lstrip("\n"))
    inv = tmp_path / "inventory.yaml"
    inv.write_text(
        "intent:\n  lossless_priorities: [3]\n  roce_dscp: [26]\n"
        "  mtu: {host: 9000, switch: 9216, roce: 4096}\n  cable_length_m: {default: 3}\n"
        "devices:\n  leaf9: {host: 10.0.0.9, platform: onyx, snapshot: leaf9.cfg}\n"
    )
    return inv


def test_plan_fixes_the_trust_of_one_port_only(tmp_path: Path) -> None:
    report = plan_inventory(_inventory(tmp_path, FAULTY))
    assert report.errors == []
    [device] = report.devices
    texts = [c.text for c in device.changes]
    assert "interface ethernet 1/2 qos trust L3" in texts
    assert not any("1/1 " in t for t in texts), texts
    change = next(c for c in device.changes if c.text == "interface ethernet 1/2 qos trust L3")
    assert change.rollback == "interface ethernet 1/2 qos trust L2"
    assert change.port == "Eth1/2"
    assert "RT101" in change.codes


def test_plan_enables_pfc_globally_when_it_is_off(tmp_path: Path) -> None:
    config = FAULTY.replace("   dcb priority-flow-control enable force\n", "").replace(
        "   dcb priority-flow-control priority 3 enable\n", ""
    )
    [device] = plan_inventory(_inventory(tmp_path, config)).devices
    text = "\n".join(c.text for c in device.changes)
    assert "dcb priority-flow-control enable force" in text
    assert "dcb priority-flow-control priority 3 enable" in text
    assert any("switch-wide" in n for n in device.notes)


def test_clean_device_gets_no_change(tmp_path: Path) -> None:
    config = FAULTY.replace(
        "   interface ethernet 1/1 qos trust L3\n", "   interface ethernet 1/1-1/2 qos trust L3\n"
    )
    [device] = plan_inventory(_inventory(tmp_path, config)).devices
    assert [c.text for c in device.changes] == []


def test_converge_adds_what_the_render_has_and_leaves_the_rest() -> None:
    text = (
        textwrap.dedent(FAULTY).lstrip("\n").replace("minimum-absolute 400", "minimum-absolute 150")
    )
    files = {RUNNING_CONFIG.filename: SourceFile(path="leaf9.cfg", text=text)}
    snapshot = Snapshot(files=files)
    device = PLATFORM_DRIVER.parse(snapshot, "sw1", "leaf").device
    fab = fabric(device, 3, Intent())
    report = render_fabric(fab)
    rendered = {f.path: f.text for f in report.devices[0].files}
    target = device_target(device, fab.intent, fab.links)
    plan = changeset(snapshot, rendered, device, target)
    texts = [c.text for c in plan.changes]
    assert "interface ethernet 1/2 qos trust L3" in texts
    assert "interface ethernet 1/1 qos trust L3" not in texts
    change = next(c for c in plan.changes if c.text == "interface ethernet 1/2 qos trust L3")
    assert change.rollback == "interface ethernet 1/2 no qos trust"
    assert change.kind == "trust"
    assert not any(t.startswith("hostname") for t in texts)
    ecn = [c for c in plan.changes if c.kind == "ecn"]
    assert [c.text for c in ecn] == [
        f"interface ethernet {p} traffic-class 3 {ECN}" for p in ("1/1", "1/2")
    ], "the intent at 100G is 400/1600 KB"
    assert all(c.rollback and "minimum-absolute 150 " in c.rollback for c in ecn)
