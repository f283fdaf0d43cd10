"""rocetune plan: lab faults show up as changes on the right device/port; no-op plans are empty."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rocetune.api import plan as plan_inventory
from rocetune.cli import cli
from rocetune.platforms.common.cli_changeset import diff_cli
from rocetune.platforms.cumulus.changeset import diff_trees
from rocetune.platforms.eos.changeset import SCOPE as EOS
from rocetune.platforms.nxos.changeset import SCOPE as NXOS
from rocetune.platforms.sonic.changeset import diff_config_db
from rocetune.render.device_plan import DevicePlan

LAB = Path(__file__).parents[2] / "inventories" / "lab" / "inventory.yaml"


@pytest.fixture(scope="module")
def lab() -> dict[str, DevicePlan]:
    report = plan_inventory(LAB, converge=True)
    assert report.errors == []
    return {p.name: p for p in report.devices}


def _find(plan: DevicePlan, text: str) -> list[tuple[int, bool, str | None]]:
    return [(i, c.disruptive, c.port) for i, c in enumerate(plan.changes) if text in c.text]


def test_converge_lab_leaf1_ethernet8_pfc_enable_is_disruptive(lab: dict[str, DevicePlan]) -> None:
    op = '{"op": "add", "path": "/PORT_QOS_MAP/Ethernet8/pfc_enable", "value": "3"}'
    plan = lab["leaf1"]
    [(index, disruptive, port)] = _find(plan, op)
    assert (disruptive, port, plan.changes[index].kind) == (True, "Ethernet8", "pfc")
    assert '{"op": "remove", "path": "/PORT_QOS_MAP/Ethernet8/pfc_enable"}' in plan.rollback
    # ordered: every hitless change before the first disruptive one
    flags = [c.disruptive for c in plan.changes]
    assert flags == sorted(flags)


def test_converge_lab_other_faults(lab: dict[str, DevicePlan]) -> None:
    assert _find(lab["spine1"], "priority-flow-control pause watchdog action drop") == [
        (
            next(i for i, c in enumerate(lab["spine1"].changes) if "action drop" in c.text),
            False,
            None,
        )
    ]
    assert "priority-flow-control pause watchdog action no-drop" in lab["spine1"].rollback
    leaf3 = _find(lab["leaf3"], "nv set qos mapping default-global dscp 26 switch-priority 3")
    assert [(d, p) for _, d, p in leaf3] == [(False, None)]
    gpu04 = _find(lab["gpu04"], "mlnx_qos -i eth3 --pfc 0,0,0,1,0,0,0,0 --prio_tc 0,1,2,3,4,5,6,7")
    assert [(d, p) for _, d, p in gpu04] == [(True, "eth3")]
    assert _find(lab["gpu01"], "--trust dscp") == []  # already trusts DSCP: not shown
    gpu02 = _find(lab["gpu02"], "mlnx_qos -i eth2 --trust dscp")
    assert [(d, p) for _, d, p in gpu02] == [(True, "eth2")]
    gpu03 = _find(lab["gpu03"], "echo 48 > /sys/class/net/eth2/ecn/roce_np/cnp_dscp")
    assert [(d, p) for _, d, p in gpu03] == [(False, "eth2")]
    leaf4 = _find(lab["leaf4"], "nv set interface swp32 link mtu 9214")
    assert [(d, p) for _, d, p in leaf4] == [(True, "swp32")]
    spine2 = [c for c in lab["spine2"].changes if c.port == "Ethernet1/1"]
    assert any("priority-flow-control watch-dog-interval on" in c.text for c in spine2)
    assert lab["leaf3"].hint is not None
    assert "nv config apply --confirm 10m" in lab["leaf3"].hint


def test_converge_rollback_detaches_before_it_deletes(lab: dict[str, DevicePlan]) -> None:
    """NX-OS refuses to delete a policy-map that an interface or system qos still uses."""
    lines = [ln for r in lab["spine2"].rollback for ln in r.splitlines()]
    deletes = [i for i, ln in enumerate(lines) if ln.startswith(("no policy-map", "no class-map"))]
    detaches = [i for i, ln in enumerate(lines) if "no service-policy" in ln]
    assert deletes
    assert detaches
    assert max(detaches) < min(deletes)
    policy = [i for i in deletes if lines[i].startswith("no policy-map")]
    classes = [i for i in deletes if lines[i].startswith("no class-map")]
    assert max(policy) < min(classes)


def test_noop_sonic_and_cumulus() -> None:
    intended = {
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}},
        "PORT": {"Ethernet0": {"mtu": "9214"}},
    }
    running = json.loads(json.dumps(intended))
    running["PORT"]["Ethernet0"]["admin_status"] = "up"  # shared entry: other fields stay
    assert diff_config_db(running, intended).changes == []
    tree = {"qos": {"mapping": {"default-global": {"dscp": {"26": {"switch-priority": 3}}}}}}
    ranged = {"qos": {"mapping": {"default-global": {"dscp": {"26": {"switch-priority": 3}}}}}}
    assert diff_trees(ranged, tree).changes == []
    assert (
        diff_trees(
            {"interface": {"swp1-2": {"link": {"mtu": 9214}}}},
            {"interface": {"swp1,2": {"link": {"mtu": 9214}}}},
        ).changes
        == []
    )


def test_noop_cli_and_unset_rollback() -> None:
    text = "qos map dscp 26 to traffic-class 3\ninterface Ethernet1/1\n   mtu 9214\n"
    running = text + "interface Ethernet1/1\n   description x\nrouter bgp 1\n"
    assert diff_cli(running, text, EOS).changes == []
    nx = "interface Ethernet1/1\n  priority-flow-control mode on\n"
    assert diff_cli(nx + "  description up\n", nx, NXOS).changes == []
    plan = diff_trees(
        {"qos": {"roce": {"mode": "lossless"}}, "system": {"hostname": "a"}},
        {"system": {"hostname": "a"}},
    )
    assert [(c.text, c.kind, c.rollback) for c in plan.changes] == [
        ("nv unset qos roce", "roce_mode", "nv set qos roce mode lossless")
    ]


def test_noop_device_plan_via_cli(tmp_path: Path) -> None:
    from rocetune.render.run import render_device

    plans = plan_inventory(LAB, converge=True).devices
    leaf1 = next(p for p in plans if p.name == "leaf1")
    assert leaf1.status == "changes"
    from rocetune import api

    fabric = api.audit(LAB).fabric
    rendered = render_device(fabric, "leaf1")
    full = next(f.text for f in rendered.files if f.path.endswith(".config_db.json"))
    snap = tmp_path / "leaf1"
    snap.mkdir()
    running = json.loads(
        (LAB.parent / "snapshots/leaf1/show_runningconfiguration_all.json").read_text()
    )
    intended = json.loads(full)
    for table in ("PORT_QOS_MAP", "BUFFER_PG", "BUFFER_QUEUE", "QUEUE"):  # per-port: replaced
        running[table] = {
            k: v
            for k, v in running.get(table, {}).items()
            if k.split("|")[0] not in intended["PORT"]
        }
    for table, entries in intended.items():  # the device after the intended tables
        for key, fields in entries.items():
            running.setdefault(table, {}).setdefault(key, {}).update(fields)
    (snap / "show_runningconfiguration_all.json").write_text(json.dumps(running))
    inv = tmp_path / "inv.yaml"
    inv.write_text(
        LAB.read_text()
        .split("devices:")[0]
        .replace("snapshots/", str(LAB.parent / "snapshots") + "/")
        + f"devices:\n  leaf1: {{host: 10.0.0.11, groups: [leaves, sonic], snapshot: {snap}}}\n"
        + "links:\n  - {a: leaf1:Ethernet0, b: spine1:Ethernet1/1, length_m: 30}\n"
        + "  - {a: leaf1:Ethernet8, b: spine2:Ethernet1/1, length_m: 30}\n"
    )
    result = CliRunner().invoke(cli, ["plan", str(inv), "--format", "json", "--converge"])
    assert result.exit_code == 0, result.output
    [dev] = json.loads(result.output)["devices"]
    assert (dev["device"], dev["status"], dev["changes"]) == ("leaf1", "no-change", [])


def test_cli_exit_1_on_changes() -> None:
    result = CliRunner().invoke(cli, ["plan", str(LAB), "--device", "leaf1"])
    assert result.exit_code == 1
    # RT102 does not repeat RT201 (fault 1 is one root cause: no pfc_enable)
    assert "leaf1 (sonic): 3 changes, 1 disruptive, fixes RT201, RT701" in result.output
    assert "DISRUPTIVE pfc Ethernet8: fixes RT201, RT701" in result.output
    assert "spine1" not in result.output
