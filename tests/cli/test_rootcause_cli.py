"""One finding per root cause on the lab: baselines, suppressions and exit codes unchanged."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.cli.conftest import ROOT, run_cli

LAB = ROOT / "inventories" / "lab" / "inventory.yaml"
BEFORE = ROOT / "tests" / "fixtures" / "baseline" / "lab-before-rootcause.json"
"""``rocetune audit inventories/lab/inventory.yaml --write-baseline`` written by main before
findings were grouped into root causes (86 fingerprints, RT000 included)."""


def test_a_baseline_taken_before_grouping_still_hides_the_same_findings() -> None:
    old = {row["fingerprint"] for row in json.loads(BEFORE.read_text())["findings"]}
    res = run_cli("audit", LAB, "--format", "json", "--baseline", BEFORE)
    shown = json.loads(res.out)["findings"]
    assert not [f for f in shown if f["fingerprint"] in old]  # every old fingerprint matches
    match = re.search(r"(\d+) finding\(s\) hidden by the baseline", res.err)
    assert match is not None, res.err
    plain = json.loads(run_cli("audit", LAB, "--format", "json").out)["findings"]
    assert int(match[1]) == sum(f["fingerprint"] in old for f in plain) >= 80
    assert res.code == (1 if any(f["severity"] == "error" for f in shown) else 0)
    text = run_cli("audit", LAB, "--baseline", BEFORE)
    assert text.code == res.code
    assert "RT104" not in text.out.split("Coverage:")[0]


def test_root_cause_counts_and_exit_code_follow_the_findings(tmp_path: Path) -> None:
    res = run_cli("audit", LAB, "--format", "json")
    data = json.loads(res.out)
    assert res.code == 1  # errors found: exit code unchanged by grouping
    summary = data["root_cause_summary"]
    assert summary["root_causes"] < summary["findings"]
    rt104 = [rc for rc in data["root_causes"] if rc["code"] == "RT104"]
    assert [(rc["device"], rc["ports"]) for rc in rt104] == [
        ("leaf4", ["swp1", "swp2", "swp31", "swp32"])
    ]
    assert rt104[0]["fix"] == [
        "nv set qos mapping default-global dscp 24-25,27-31 switch-priority 0"
    ]
    # a suppression of one port of a root cause leaves the other ports' finding in it
    cfg = tmp_path / "rocetune.toml"
    cfg.write_text(
        '[[ignores]]\nrule = "RT104"\ndevice = "leaf4"\nport = "swp1"\nreason = "test"\n'
    )
    kept = json.loads(run_cli("audit", LAB, "--format", "json", "--config", cfg).out)
    (rc,) = [rc for rc in kept["root_causes"] if rc["code"] == "RT104"]
    assert rc["ports"] == ["swp2", "swp31", "swp32"]
    warn_only = run_cli("audit", LAB, "--select", "RT104", "--fail-on", "warning")
    assert warn_only.code == 1
    assert run_cli("audit", LAB, "--select", "RT104").code == 0  # warnings below error


def test_fix_texts_are_the_plans_changes_for_each_finding() -> None:
    from rocetune import api
    from rocetune.model import Severity

    result = api.audit(LAB)
    api.attach_fixes(result)
    plan = api.plan(LAB, fail_on=Severity.INFO)
    made: dict[str, set[str]] = {}
    for device in plan.devices:
        for change in device.changes:
            for fp in change.fixes:
                made.setdefault(fp.partition(":")[0], set()).add(change.text)
    assert len(result.fixes) >= 30
    for fp, texts in result.fixes.items():
        assert set(texts) <= made[fp]  # no second fix generator: the plan's own changes
