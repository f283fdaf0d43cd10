"""The lab's remediation plan (issue #13): minimal, finding-driven, stable and reviewable.

Planted faults are listed in inventories/lab/README.md. Per fault at most 3 changes; devices
without a finding in scope get none; every disruptive change is one a finding requires; the
objects the switch already uses are edited in place (no ``rocetune-*`` objects, no new map);
no MTU changes except the one a finding asks for.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from rocetune.api import plan as plan_report
from rocetune.cli import cli
from rocetune.model import Severity
from rocetune.render.plan_output import to_json

LAB = Path(__file__).parents[2] / "inventories" / "lab" / "inventory.yaml"
FAULTS: dict[str, dict[str, int]] = {
    # device -> planted faults (README numbers) in scope at each --fail-on level
    "error": {
        "leaf1": 1,
        "leaf2": 1,
        "spine2": 2,
        "leaf3": 1,
        "leaf4": 1,
        "gpu02": 1,
        "gpu03": 1,
        "gpu04": 1,
    },
    "warning": {
        "spine1": 2,
        "leaf1": 1,
        "leaf2": 1,
        "spine2": 2,
        "leaf3": 1,
        "leaf4": 2,
        "gpu02": 1,
        "gpu03": 1,
        "gpu04": 1,
    },
}


@cache
def _plan(level: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(to_json(plan_report(LAB, fail_on=Severity(level))))
    return data


def _devices(level: str) -> dict[str, dict[str, Any]]:
    return {d["device"]: d for d in _plan(level)["devices"]}


@pytest.mark.parametrize("level", ["error", "warning"])
def test_at_most_three_changes_per_fault_and_none_elsewhere(level: str) -> None:
    for name, dev in _devices(level).items():
        faults = FAULTS[level].get(name, 0)
        assert len(dev["changes"]) <= 3 * faults, (name, dev["changes"])
        if faults == 0:
            assert dev["changes"] == [], name
            assert dev["status"] == "no-change", name
    assert _devices(level)["gpu01"]["changes"] == []  # clean by design


@pytest.mark.parametrize("level", ["error", "warning"])
def test_no_disruptive_change_without_a_finding(level: str) -> None:
    for name, dev in _devices(level).items():
        for change in dev["changes"]:
            if change["disruptive"]:
                assert change["fixes"], (name, change)
                assert change["reason"]


@pytest.mark.parametrize("level", ["error", "warning"])
def test_objects_are_edited_in_place(level: str) -> None:
    text = json.dumps(_plan(level))
    for word in ("rocetune-before", "rocetune-plan", "rocetune-<run>"):
        text = text.replace(word, "")
    assert "rocetune-" not in text  # no rocetune-* object replaces an existing one
    assert "ROCETUNE" not in text
    leaf1 = _devices(level)["leaf1"]
    ops = [op for c in leaf1["changes"] for op in c["patch"]]
    assert {"op": "add", "path": "/PORT_QOS_MAP/Ethernet8/pfc_enable", "value": "3"} in ops
    assert not any(op["path"].startswith("/DSCP_TO_TC_MAP") for op in ops)
    # MTU: only leaf4 swp32 (RT601/RT703) changes
    mtu = [
        (name, c["port"])
        for name, dev in _devices(level).items()
        for c in dev["changes"]
        if c["kind"] == "mtu"
    ]
    assert mtu == [("leaf4", "swp32")]
    # DSCPs the intent does not mention keep their priority (RT104 at warning is the exception:
    # it names them)
    leaf3 = [cmd for c in _devices(level)["leaf3"]["changes"] for cmd in c["commands"]]
    assert leaf3 == ["nv set qos mapping default-global dscp 26 switch-priority 3"]


def test_rollback_orders_and_safe_apply() -> None:
    devs = _devices("error")
    assert devs["leaf1"]["rollback"]["patch"][0] == {
        "op": "remove",
        "path": "/PORT_QOS_MAP/Ethernet8/pfc_enable",
    }
    leaf2 = devs["leaf2"]["rollback"]["patch"]
    # unbind the new profile before removing it
    assert leaf2[-1] == {"op": "remove", "path": "/BUFFER_PROFILE/pg_lossless_400000_100m_profile"}
    assert devs["leaf3"]["rollback"]["commands"] == [
        "nv set qos mapping default-global dscp 26 switch-priority 0"
    ]
    assert devs["gpu03"]["rollback"]["commands"] == [
        "echo 4 > /sys/class/net/eth2/ecn/roce_np/cnp_dscp"
    ]
    methods = {n: d["safe_apply"]["method"] for n, d in devs.items() if d["changes"]}
    assert methods["leaf3"] == "nvue-apply-confirm"
    assert "--confirm 10m" in devs["leaf3"]["safe_apply"]["steps"]
    assert "rollback running-config checkpoint" in devs["spine2"]["safe_apply"]["steps"]
    assert "config checkpoint" in devs["leaf1"]["safe_apply"]["steps"]
    assert all(d["running_config_hash"].startswith("sha256:") for d in devs.values())


def test_warning_level_fixes_spine1_in_place() -> None:
    spine1 = _devices("warning")["spine1"]
    [change] = spine1["changes"]
    assert change["commands"] == ["priority-flow-control pause watchdog action drop"]
    assert spine1["rollback"]["commands"] == ["priority-flow-control pause watchdog action no-drop"]
    assert {u["code"] for u in spine1["unfixed"]} == {"RT404"}  # scheduling: no automatic fix
    for item in spine1["unfixed"]:  # said plainly, per finding: which queues, and why not
        assert item["why"].startswith("queues {1,2,4,5,7} would each need a DWRR/ETS share")
        assert "policy decision, so no automatic change is safe" in item["why"]


def test_rt705_without_remedy_says_why() -> None:
    from rocetune.model import Finding
    from rocetune.render.remedy import no_remedy_reason, rt705_rules

    finding = Finding(
        code="RT705",
        name="fabric-uniform",
        severity=Severity.WARNING,
        device="spine1",
        message="spine1 has PFC watchdog policy on, forward, 200/200 ms, while 4 of 5 ...",
    )
    assert rt705_rules(finding) == ("RT205", "RT207")
    why = no_remedy_reason(finding)
    assert "not with the intent" in why
    assert "(RT205/RT207)" in why


def test_error_level_names_the_cause_of_a_raised_rt705() -> None:
    # leaf1 gets a watchdog at error level; spine1's action (forward, RT207: a warning, out of
    # scope) is then the fabric's odd one: the plan says it is the same root cause
    spine1 = _devices("error")["spine1"]
    assert spine1["changes"] == []
    assert [f["code"] for f in spine1["new_findings"]] == ["RT705"]
    assert any("repeats RT207 (warning) on spine1" in n for n in spine1["notes"])


def test_json_is_stable_and_complete() -> None:
    first = to_json(plan_report(LAB))
    assert first == to_json(plan_report(LAB))
    data = json.loads(first)
    assert data["format"] == "rocetune-plan/1"
    assert [d["device"] for d in data["devices"]] == sorted(d["device"] for d in data["devices"])
    for dev in data["devices"]:
        assert set(dev) >= {"platform", "running_config_hash", "changes", "rollback", "safe_apply"}
        for c in dev["changes"]:
            assert set(c) >= {"id", "fixes", "disruptive", "reason", "rollback"}
            assert ("patch" in c) != ("commands" in c)


def test_cli_json_device_and_output(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    result = CliRunner().invoke(
        cli, ["plan", str(LAB), "--format", "json", "--device", "gpu03", "-o", str(out)]
    )
    assert result.exit_code == 1, result.output
    assert result.output == ""
    [dev] = json.loads(out.read_text())["devices"]
    assert dev["device"] == "gpu03"
    assert dev["summary"] == {"changes": 1, "disruptive": 0, "fixes": ["RT313"]}
    bad = CliRunner().invoke(cli, ["plan", str(LAB), "--device", "nope"])
    assert bad.exit_code == 2


def test_converge_is_the_full_template_diff() -> None:
    full = plan_report(LAB, converge=True)
    assert sum(len(d.changes) for d in full.devices) > 10 * sum(
        len(d.changes) for d in plan_report(LAB).devices
    )


def test_a_plan_that_cannot_be_replayed_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    import rocetune.render.plan as plan_module

    def broken(snapshot: object, texts: list[str]) -> object:
        raise ValueError("cannot replay host command 'x'")

    from dataclasses import replace

    real = plan_module.planner("linux_host")
    assert real is not None
    monkeypatch.setattr(plan_module, "planner", lambda platform: replace(real, simulate=broken))
    [dev] = plan_report(LAB, devices=["gpu03"]).devices
    assert [c.text for c in dev.changes] == ["echo 48 > /sys/class/net/eth2/ecn/roce_np/cnp_dscp"]
    assert dev.changes[0].fixes  # the finding it was made for, not verified
    assert any("not replayed, so the fixes are unverified" in n for n in dev.notes)


@pytest.mark.parametrize("level", ["error", "warning"])
def test_the_audits_findings_are_the_plans_baseline(
    level: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``rocetune plan`` takes its audit's findings as the summary's baseline instead of
    linting the audited fabric again: one whole-fabric lint (every change replayed), and
    the same plan as with the baseline linted (the summary's RT705 included)."""
    from rocetune.api import changes, fixes
    from rocetune.api.audits import audit_inventory
    from rocetune.inventory import load_inventory
    from rocetune.render.plan import Source

    whole: list[int] = []
    lint = fixes.replay_lint

    def counted(fabric: Any, provenance: Any, only: frozenset[str] | None = None) -> Any:
        if only is None:
            whole.append(1)
        return lint(fabric, provenance, only)

    monkeypatch.setattr(changes, "replay_lint", counted)
    given = to_json(plan_report(LAB, fail_on=Severity(level)))
    assert len(whole) == 1
    inv = load_inventory(LAB)
    result = audit_inventory(inv)
    result.inventory = str(LAB)
    sources = [Source(e.name, e.platform, e.snapshot) for e in inv.devices.values()]
    linted = to_json(fixes.plan_audited(result, sources, lint, Severity(level)))
    assert given == linted
    assert json.loads(given) == _plan(level)
