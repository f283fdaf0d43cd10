"""Severity overrides, suppressions (config ignores and inventory suppressions), baselines."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from pydantic import ValidationError

from rocetune.errors import ConfigError, InventoryError
from rocetune.fingerprint import fingerprints
from rocetune.inventory import load_inventory
from rocetune.model import Finding, Severity
from rocetune.suppress import (
    Policy,
    Suppression,
    apply_policy,
    read_baseline,
    write_baseline,
)


def finding(code: str = "RT201", device: str | None = "leaf1", **kw: object) -> Finding:
    names = {"RT201": "pfc-on-lossless", "RT701": "link-pfc-match", "RT705": "fabric-uniform"}
    base: dict[str, object] = {
        "code": code,
        "name": names.get(code, "x"),
        "severity": Severity.ERROR,
        "device": device,
        "message": "m",
        "observed": "rx {} tx {3}",
    }
    base.update(kw)
    return Finding.model_validate(base)


def sup(**kw: object) -> Suppression:
    return Suppression.model_validate({"rule": "RT201", "device": "leaf*", "reason": "r", **kw})


@pytest.mark.parametrize(
    ("entry", "target", "hit"),
    [
        ({}, finding(port="Ethernet0"), True),
        ({"device": "spine*"}, finding(), False),
        ({"rule": "RT2"}, finding(), True),
        ({"rule": "pfc-on-lossless"}, finding(), True),
        ({"rule": "RT202"}, finding(), False),
        ({"port": "Ethernet[04]"}, finding(port="Ethernet4"), True),
        ({"port": "Ethernet8"}, finding(port="Ethernet4"), False),
        ({"port": "*"}, finding(port=None), False),
        (
            {"rule": "RT701", "link": "leaf1:*--spine*"},
            finding("RT701", link="leaf1:E0--spine1:E0"),
            True,
        ),
        ({"rule": "RT705", "device": "*"}, finding("RT705", device=None), True),
        ({"rule": "RT705", "device": "leaf*"}, finding("RT705", device=None), False),
    ],
)
def test_matching(entry: dict[str, object], target: Finding, hit: bool) -> None:
    assert sup(**entry).matches(target) is hit


def test_entries_are_validated() -> None:
    with pytest.raises(ValidationError, match="a reason is required"):
        sup(reason="  ")
    with pytest.raises(ValidationError, match="unknown rule 'RT2x'"):
        sup(rule="RT2x")
    with pytest.raises(ValidationError, match="Extra inputs"):
        sup(ports="x")


def test_policy_order_counts_unused_and_expired() -> None:
    findings = [finding(port="Ethernet0"), finding("RT705", device=None), finding(device="spine1")]
    policy = Policy(
        severities={"RT705": Severity.INFO},
        suppressions=(
            sup(port="Ethernet0"),
            sup(device="nothing*"),
            sup(device="spine1", expires=date(2024, 12, 31)),
            sup(device="spine1", expires=date(2025, 1, 1)),
        ),
        today=date(2025, 1, 1),
    )
    kept, report = apply_policy(findings, policy)
    assert [(f.code, f.device, f.severity) for f in kept] == [("RT705", None, Severity.INFO)]
    assert report.suppressed == 2
    assert [s.device for s in report.unused] == ["nothing*"]
    assert [s.expires for s in report.expired] == [date(2024, 12, 31)]
    assert report.notes() == [
        "expired suppression (2024-12-31): RT201 on spine1",
        "unused suppression: RT201 on nothing* (r)",
        "2 finding(s) suppressed",
    ]


def test_baseline_round_trip_hides_known_findings_only(tmp_path: Path) -> None:
    old = [finding(port="Ethernet0"), finding(port="Ethernet0"), finding(port="Ethernet4")]
    path = tmp_path / "baseline.json"
    assert write_baseline(path, old) == 3
    data = json.loads(path.read_text())
    assert data["fingerprint"] == "rocetune/v1"
    assert [r["fingerprint"] for r in data["findings"]] == fingerprints(old)
    assert data["findings"][0]["port"] == "Ethernet0"
    assert data["findings"][0]["observed"] == "rx {} tx {3}"
    now = [*old, finding(port="Ethernet0"), finding(port="Ethernet4", observed="rx {3} tx {}")]
    kept, report = apply_policy(now, Policy(baseline=read_baseline(path)))
    assert report.baselined == 3
    # a third occurrence of a known problem and a new value on a known port are new
    assert [(f.port, f.observed) for f in kept] == [
        ("Ethernet0", "rx {} tx {3}"),
        ("Ethernet4", "rx {3} tx {}"),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]", "not a rocetune baseline"),
        ("{", "baseline is not JSON"),
        ('{"version": 1, "fingerprint": "rocetune/v0", "findings": []}', "write it again"),
        ('{"version": 1, "fingerprint": "rocetune/v1", "findings": [1]}', "must be a list"),
    ],
)
def test_bad_baselines(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "b.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        read_baseline(path)
    with pytest.raises(ConfigError, match="cannot read baseline"):
        read_baseline(tmp_path / "missing.json")


INVENTORY = """\
devices:
  leaf1: {platform: sonic}
suppressions:
  - rule: RT201
    device: leaf1
    port: Ethernet8
    reason: uplink being migrated
    expires: 2030-06-30
"""


def test_inventory_suppressions(tmp_path: Path) -> None:
    path = tmp_path / "inv.yaml"
    path.write_text(INVENTORY)
    inv = load_inventory(path)
    assert inv.suppressions == (
        Suppression(
            rule="RT201",
            device="leaf1",
            port="Ethernet8",
            reason="uplink being migrated",
            expires=date(2030, 6, 30),
        ),
    )
    path.write_text("devices: {}\n")
    assert load_inventory(path).suppressions == ()


@pytest.mark.parametrize(
    ("entry", "message", "line"),
    [
        ("    prot: Ethernet8\n", "unknown key 'prot' in suppressions.0 (did you mean 'port'?)", 8),
        ("    expires: someday\n", "suppressions.0.expires: Input should be a valid date", 8),
    ],
)
def test_inventory_suppression_errors(tmp_path: Path, entry: str, message: str, line: int) -> None:
    path = tmp_path / "inv.yaml"
    path.write_text(INVENTORY.replace("    expires: 2030-06-30\n", entry))
    with pytest.raises(InventoryError) as info:
        load_inventory(path)
    assert info.value.message.startswith(message), info.value.message
    assert info.value.line == line


def test_inventory_suppression_without_reason(tmp_path: Path) -> None:
    path = tmp_path / "inv.yaml"
    path.write_text(INVENTORY.replace("    reason: uplink being migrated\n", ""))
    with pytest.raises(InventoryError, match=r"suppressions\.0\.reason: Field required"):
        load_inventory(path)
