"""`lint`/`audit --format sarif|junit|github` through the real CLI."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.cli.conftest import ROOT, run_cli

CONFIG = ROOT / "tests" / "fixtures" / "diff" / "base" / "leaf1_config_db.json"


def test_lint_sarif_to_a_file(tmp_path: Path) -> None:
    target = tmp_path / "r.sarif"
    res = run_cli("lint", CONFIG, "--select", "RT201", "--format", "sarif", "-o", target)
    assert res.code == 1, res.err
    log = json.loads(target.read_text())
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["properties"]["port"]) for r in results] == [("RT201", "Ethernet8")]


def test_lint_junit_and_github() -> None:
    junit = run_cli("lint", CONFIG, "--select", "RT201", "--format", "junit")
    assert junit.code == 1, junit.err
    root = ET.fromstring(junit.out)
    assert [s.get("name") for s in root.iter("testsuite")] == ["leaf1"]
    gh = run_cli("lint", CONFIG, "--select", "RT201", "--format", "github")
    assert gh.code == 1, gh.err
    assert gh.out.startswith(
        "::error file=tests/fixtures/diff/base/leaf1_config_db.json,line=220,"
        "title=RT201 pfc-on-lossless::leaf1 Ethernet8: "
    )
