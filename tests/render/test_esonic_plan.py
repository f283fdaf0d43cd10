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


def test_converge_reaches_the_rendered_config() -> None:
    """``plan --converge``: the change blocks pasted after the running configuration give
    the ports of the rendered configuration."""
    from rocetune.model import Intent
    from rocetune.platforms.enterprise_sonic.changeset import changeset
    from rocetune.platforms.enterprise_sonic.parse import parse_text
    from rocetune.platforms.enterprise_sonic.remediate import simulate
    from rocetune.render.run import render_fabric
    from rocetune.snapshot import Snapshot, SourceFile
    from rocetune.tune.target import device_target
    from tests.render.fabrics import fabric, switch

    intent = Intent(lossless_priorities=(3,), roce_dscp=(26,))
    fab = fabric(switch("enterprise_sonic", 400_000), 5, intent)
    rendered = {f.path: f.text for f in render_fabric(fab).devices[0].files}
    running = (LEAF9 / "show_running_configuration.txt").read_text(encoding="utf-8")
    snap = Snapshot(
        files={"show_running_configuration.txt": SourceFile("run.txt", running)}, origin="t"
    )
    dev = fab.devices["sw1"]
    plan = changeset(snap, rendered, dev, device_target(dev, intent, fab.links))
    texts = [c.text for c in plan.changes]
    iface = next(t for t in texts if t.startswith("interface Eth1/2"))
    assert iface.splitlines()[-1] == "exit"
    assert " no priority-flow-control priority 3" not in iface
    replayed = simulate(snap, texts)
    text = next(iter(replayed.files.values())).text
    got = parse_text(text, "after.txt", "sw1", None).device
    want = parse_text(rendered["sw1.esonic.cfg"], "want.txt", "sw1", None).device
    fields = ("mtu", "dscp_to_priority", "pfc_rx", "pfc_tx", "ecn", "schedulers", "watchdog")
    for name in ("Eth1/1", "Eth1/2"):
        for field in fields:
            assert getattr(got.ports[name], field) == getattr(want.ports[name], field), field
