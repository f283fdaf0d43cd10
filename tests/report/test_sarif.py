"""SARIF 2.1.0 report: schema-valid, every rule declared, stable fingerprints, GitHub limits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import jsonschema
import pytest

from rocetune import api
from rocetune.checks import registry
from rocetune.checks.base import DeviceRule, RuleMeta
from rocetune.fingerprint import FINGERPRINT_KEY, fingerprint
from rocetune.model import Severity
from rocetune.report import FORMATS, render
from rocetune.report.sarif import to_sarif
from tests.report.helpers import LAB, ROOT, finding, result

SCHEMA = json.loads((ROOT / "tests" / "fixtures" / "sarif" / "sarif-schema-2.1.0.json").read_text())


def validate(log: dict[str, Any]) -> None:
    jsonschema.Draft4Validator(SCHEMA).validate(log)


@pytest.fixture(scope="module")
def lab_log() -> dict[str, Any]:
    return to_sarif(api.audit(LAB), base=ROOT)


def test_registered_and_lab_report_is_schema_valid(lab_log: dict[str, Any]) -> None:
    assert FORMATS["sarif"] == "rocetune.report.sarif"
    rendered = json.loads(render("sarif", api.audit(LAB)))
    validate(rendered)
    assert rendered["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"] == (
        Path.cwd().resolve().as_uri() + "/"
    )
    validate(lab_log)
    assert lab_log["version"] == "2.1.0"
    assert len(lab_log["runs"]) == 1


def test_driver_declares_every_registered_rule_with_docs(lab_log: dict[str, Any]) -> None:
    driver = lab_log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "rocetune"
    assert driver["version"]
    assert driver["informationUri"].startswith("https://")
    rules = {r["id"]: r for r in driver["rules"]}
    assert list(rules) == [r.meta.code for r in registry.all_rules()]
    rt201 = rules["RT201"]
    assert rt201["name"] == "pfc-on-lossless"
    assert rt201["defaultConfiguration"] == {"level": "error"}
    assert rt201["helpUri"].endswith("/rules/RT201.md")
    assert "pfc_rx" in rt201["fullDescription"]["text"]  # "What it checks"
    assert "PORT_QOS_MAP" in rt201["help"]["text"]  # "How to fix"
    assert rules["RT000"]["defaultConfiguration"] == {"level": "note"}
    assert rules["RT207"]["defaultConfiguration"] == {"level": "warning"}


def test_results_point_at_config_lines_relative_to_srcroot(lab_log: dict[str, Any]) -> None:
    run = lab_log["runs"][0]
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == ROOT.as_uri() + "/"
    by_rule = {(r["ruleId"], r["properties"].get("port")): r for r in run["results"]}
    rt201 = by_rule[("RT201", "Ethernet8")]
    assert rt201["level"] == "error"
    loc = rt201["locations"][0]
    art = loc["physicalLocation"]["artifactLocation"]
    assert art["uriBaseId"] == "SRCROOT"
    assert art["uri"] == "inventories/lab/snapshots/leaf1/show_runningconfiguration_all.json"
    assert loc["physicalLocation"]["region"]["startLine"] > 1
    assert loc["logicalLocations"][0]["fullyQualifiedName"] == "leaf1/Ethernet8"
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for res in run["results"]:
        assert rule_ids[res["ruleIndex"]] == res["ruleId"]


def test_fingerprints_stable_across_runs_and_distinct(lab_log: dict[str, Any]) -> None:
    again = to_sarif(api.audit(LAB), base=ROOT)
    first = [r["partialFingerprints"][FINGERPRINT_KEY] for r in lab_log["runs"][0]["results"]]
    second = [r["partialFingerprints"][FINGERPRINT_KEY] for r in again["runs"][0]["results"]]
    assert first == second
    assert len(set(first)) == len(first)


def test_fingerprint_ignores_file_line_and_wording_but_not_the_value() -> None:
    base = finding("RT201", device="leaf1", port="Ethernet0", observed="rx {} tx {}")
    moved = base.model_copy(update={"file": "b.json", "line": 99, "message": "reworded"})
    spaced = base.model_copy(update={"observed": "RX {}  tx {}"})
    assert fingerprint(base) == fingerprint(moved) == fingerprint(spaced)
    for change in ({"observed": "rx {3} tx {}"}, {"port": "Ethernet8"}, {"code": "RT202"}):
        assert fingerprint(base.model_copy(update=change)) != fingerprint(base)


def test_missing_data_groups_are_told_apart_by_the_rules_that_could_not_run() -> None:
    a = finding(
        "RT000", "info", device="leaf1", observed="not in snapshot", expected="data for RT501"
    )
    b = a.model_copy(update={"expected": "data for RT208", "message": "other"})
    assert fingerprint(a) != fingerprint(b)
    assert fingerprint(a) == fingerprint(a.model_copy(update={"message": "reworded"}))


def test_duplicate_findings_are_one_result_with_distinct_fingerprints() -> None:
    twice = [finding("RT201", device="leaf1", port="Ethernet0", observed="rx {} tx {}")] * 2
    log = to_sarif(result(twice))
    (only,) = log["runs"][0]["results"]
    first = only["partialFingerprints"][FINGERPRINT_KEY]
    assert only["properties"]["findings"] == [first, first + ":2"]


def test_finding_without_file_falls_back_and_names_device_port(tmp_path: Path) -> None:
    cfg = tmp_path / "leaf1.json"
    findings = [
        finding("RT201", device="leaf1", port="Ethernet0"),
        finding("RT899", "warning", message="fabric-wide"),
        finding("RT201", device="ghost", port="Ethernet4"),
    ]
    res = result(findings, {"leaf1": None, "ghost": "not collected"}, files={"leaf1": str(cfg)})
    log = to_sarif(res, base=tmp_path)
    validate(log)
    by_port = {r["properties"].get("port"): r for r in log["runs"][0]["results"]}
    locs = [by_port[p]["locations"][0] for p in ("Ethernet0", None, "Ethernet4")]
    assert locs[0]["physicalLocation"] == {
        "artifactLocation": {"uri": "leaf1.json", "uriBaseId": "SRCROOT"}
    }
    assert locs[0]["logicalLocations"][0]["fullyQualifiedName"] == "leaf1/Ethernet0"
    assert locs[1]["physicalLocation"]["artifactLocation"]["uri"] == "leaf1.json"
    assert locs[1]["logicalLocations"][0]["fullyQualifiedName"] == "fabric"
    assert "physicalLocation" not in locs[2]
    assert locs[2]["logicalLocations"][0]["fullyQualifiedName"] == "ghost/Ethernet4"
    with_inventory = to_sarif(
        result(findings[1:2], inventory=str(tmp_path / "inv.yaml")), base=tmp_path
    )
    loc = with_inventory["runs"][0]["results"][0]["locations"][0]
    assert loc["physicalLocation"]["artifactLocation"]["uri"] == "inv.yaml"


def test_link_finding_logical_location_is_device_link() -> None:
    f = finding("RT701", device="leaf1", port="Ethernet8", link="leaf1:Ethernet8--spine2:swp1")
    log = to_sarif(result([f]))
    logical = log["runs"][0]["results"][0]["locations"][0]["logicalLocations"][0]
    assert logical["fullyQualifiedName"] == "leaf1/leaf1:Ethernet8--spine2:swp1"


def test_truncation_keeps_most_severe_and_says_so() -> None:
    sev = ["info", "warning", "error", "info", "error", "warning"]
    findings = [  # distinct values: six root causes
        finding("RT201", s, device="leaf1", port=f"Ethernet{i}", observed=str(i))
        for i, s in enumerate(sev)
    ]
    log = to_sarif(result(findings), max_results=3)
    validate(log)
    run = log["runs"][0]
    assert [r["properties"]["port"] for r in run["results"]] == [
        "Ethernet2",  # root-cause order: most severe first
        "Ethernet4",
        "Ethernet1",
    ]
    assert run["properties"]["truncated"] is True
    assert run["properties"]["totalResults"] == 6
    assert run["properties"]["reportedResults"] == 3
    note = run["invocations"][0]["toolExecutionNotifications"][0]
    assert note["descriptor"]["id"] == "truncated"
    assert note["message"]["text"].startswith("3 of 6 results were left out")
    untruncated = to_sarif(result(findings))["runs"][0]
    assert untruncated["properties"]["truncated"] is False
    assert "toolExecutionNotifications" not in untruncated["invocations"][0]


def test_rules_are_read_at_render_time(monkeypatch: pytest.MonkeyPatch) -> None:
    class NewRule(DeviceRule):
        meta: ClassVar[RuleMeta] = RuleMeta(
            code="RT999",
            name="brand-new",
            severity=Severity.WARNING,
            scope="device",
            summary="a rule added after the reporter was written",
        )

        def check_device(self, dev: Any, ctx: Any) -> Any:
            return ()

    original = registry.all_rules()
    monkeypatch.setattr(registry, "all_rules", lambda: (*original, NewRule))
    log = to_sarif(result([]))
    validate(log)
    new = log["runs"][0]["tool"]["driver"]["rules"][-1]
    assert new["id"] == "RT999"
    assert new["shortDescription"]["text"] == "a rule added after the reporter was written"
    assert new["fullDescription"]["text"] == new["shortDescription"]["text"]  # no doc yet
    assert new["defaultConfiguration"]["level"] == "warning"


def test_coverage_notes_are_notifications_not_results(lab_log: dict[str, Any]) -> None:
    run = lab_log["runs"][0]
    assert all(r["ruleId"] != "RT000" for r in run["results"])
    notes = run["invocations"][0]["toolExecutionNotifications"]
    coverage = [n for n in notes if n["descriptor"]["id"] == "RT000"]
    assert coverage
    assert {n["level"] for n in coverage} == {"note"}
    pfc = [n for n in coverage if n["message"]["text"].startswith("leaf1: RT208 pfc-oper-state")]
    assert len(pfc) == 1
    assert pfc[0]["properties"] == {"rules": ["RT208"], "kind": "missing-data"}
    assert pfc[0]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "leaf1"
    props = run["properties"]
    assert props["totalResults"] == len(run["results"])
    assert sum(props["summary"].values()) == len(run["results"])
    assert props["coverage"]["notes"] == len(coverage)
