"""`rocetune diff` library: state changes on the model, findings new/fixed/unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocetune import api
from rocetune.diff import DiffResult, diff, is_inventory, match_findings, to_data
from rocetune.discover import discover
from rocetune.engine import Selection
from rocetune.fingerprint import FINGERPRINT_KEY, fingerprint
from rocetune.model import Finding, Severity
from rocetune.report.sarif import to_sarif

ROOT = Path(__file__).resolve().parents[2]
PAIR = ROOT / "tests" / "fixtures" / "diff"
LAB = ROOT / "inventories" / "lab" / "inventory.yaml"
# A fixed rule set keeps the expected findings independent of rules added later.
RULES = Selection(select=("RT102", "RT201", "RT205", "RT301", "RT501"))

EXPECTED_CHANGES = [
    "leaf1 Ethernet0: PFC priorities {3} → {}",
    "leaf1 Ethernet0: ECN queue 3 min threshold 1600000 B → 800000 B",
    "leaf1 Ethernet8: PFC priorities {} → {3}",
    "leaf1 Ethernet8: ECN queue 3 min threshold 1600000 B → 800000 B",
    "leaf1 Ethernet8: PFC watchdog off → on, detection 200 ms, restoration 200 ms, "
    "action drop, priorities {3}",
    "leaf3 swp1: DSCP 26 → priority 3 → 4",
    "leaf3 swp1: ECN queue 3 max threshold 1500000 B → 3000000 B",
    "leaf3 swp2: DSCP 26 → priority 3 → 4",
    "leaf3 swp2: ECN queue 3 max threshold 1500000 B → 3000000 B",
]


def keys(findings: list[Finding]) -> list[tuple[str, str | None, str | None]]:
    return [(f.code, f.device, f.port) for f in findings]


@pytest.fixture(scope="module")
def pair() -> DiffResult:
    return diff([PAIR / "base"], [PAIR / "head"], RULES)


def test_exactly_the_changed_fields(pair: DiffResult) -> None:
    assert [str(c) for c in pair.changes] == EXPECTED_CHANGES


def test_new_fixed_and_unchanged_findings(pair: DiffResult) -> None:
    # PFC off on leaf1 is RT201 alone (RT102 does not repeat the same root cause)
    assert keys(pair.new) == [
        ("RT201", "leaf1", "Ethernet0"),
        ("RT102", "leaf3", "swp1"),
        ("RT102", "leaf3", "swp2"),
    ]
    assert keys(pair.fixed) == [("RT201", "leaf1", "Ethernet8")]
    assert keys(pair.unchanged) == [
        ("RT501", "leaf3", "swp1"),
        ("RT501", "leaf3", "swp2"),
    ]


def test_exit_code_counts_only_new_findings(pair: DiffResult) -> None:
    assert pair.exit_code(Severity.ERROR) == 1
    only_old = diff([PAIR / "base"], [PAIR / "head"], Selection(select=("RT501",)))
    assert only_old.new == []
    assert only_old.exit_code(Severity.INFO) == 0  # RT501 still fires, but not newly


def test_json_data_and_fingerprints_match_sarif(pair: DiffResult) -> None:
    data = json.loads(json.dumps(to_data(pair)))
    assert data["summary"] == {"changes": 9, "new": 3, "fixed": 1, "unchanged": 2}
    first = data["changes"][0]
    assert first == {
        "device": "leaf1",
        "port": "Ethernet0",
        "field": "PFC priorities",
        "before": "{3}",
        "after": "{}",
        "kind": "changed",
        "text": "leaf1 Ethernet0: PFC priorities {3} → {}",
    }
    head = pair.head
    sarif = to_sarif(head, base=ROOT)["runs"][0]["results"]
    sarif_prints = {r["partialFingerprints"][FINGERPRINT_KEY] for r in sarif}
    for r in sarif:  # a root cause lists the fingerprints of its findings and consequences
        sarif_prints.update(r["properties"]["findings"])
        sarif_prints.update(r["properties"].get("consequences", ()))
    for row, f in zip(data["findings"]["new"], pair.new, strict=True):
        assert row["fingerprint"] == fingerprint(f)
        assert row["fingerprint"] in sarif_prints


def test_one_file_per_side_named_apart_is_one_device(tmp_path: Path) -> None:
    for side in ("base", "head"):
        cfg = json.loads((PAIR / side / "leaf1_config_db.json").read_text())
        del cfg["DEVICE_METADATA"]["localhost"]["hostname"]
        (tmp_path / f"{side}.json").write_text(json.dumps(cfg, indent=4))
    got = diff([tmp_path / "base.json"], [tmp_path / "head.json"], RULES)
    assert [str(c) for c in got.changes] == [
        c.replace("leaf1 ", "base ", 1) for c in EXPECTED_CHANGES if c.startswith("leaf1")
    ]
    assert keys(got.fixed) == [("RT201", "base", "Ethernet8")]


def test_devices_added_and_removed_and_multiple_paths_per_side() -> None:
    got = diff(
        [PAIR / "base" / "leaf1_config_db.json"],
        [PAIR / "head" / "leaf1_config_db.json", PAIR / "head" / "leaf3.nvue.yaml"],
        RULES,
    )
    assert "leaf3: device added" in [str(c) for c in got.changes]
    assert ("RT102", "leaf3", "swp1") in keys(got.new)
    back = diff([PAIR / "base"], [PAIR / "head" / "leaf3.nvue.yaml"], RULES)
    assert str(back.changes[0]) == "leaf1: device removed"


def test_inventory_side_against_itself_is_empty() -> None:
    assert is_inventory(LAB)
    assert not is_inventory(PAIR / "base" / "leaf3.nvue.yaml")
    same = diff([LAB], [LAB], RULES)
    assert same.changes == []
    assert same.new == same.fixed == []
    assert len(same.unchanged) == len(api.audit(LAB, RULES).findings) > 0
    assert same.exit_code() == 0


def test_directory_sides_are_searched_for_config_files_and_snapshots(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("notes\n")
    (tmp_path / ".hidden.json").write_text("{}\n")
    (tmp_path / "b.json").write_text("{}\n")
    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "meta.json").write_text("{}\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "c.yaml").write_text("x: 1\n")
    assert discover([tmp_path]) == [tmp_path / "b.json", tmp_path / "other" / "c.yaml", snap]
    assert discover([snap]) == [snap]


def test_matching_counts_repeated_fingerprints() -> None:
    base = api.audit(LAB, RULES).findings
    twice = [base[0], base[0]]
    new, fixed, unchanged = match_findings(base[:1], twice)
    assert (len(new), len(fixed), len(unchanged)) == (1, 0, 1)
    new, fixed, unchanged = match_findings(twice, base[:1])
    assert (len(new), len(fixed), len(unchanged)) == (0, 1, 1)
