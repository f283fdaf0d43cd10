"""`rocetune diff` through the real CLI: both side syntaxes, formats, exit codes, usage errors."""

from __future__ import annotations

import json

from tests.cli.conftest import ROOT, run_cli

PAIR = ROOT / "tests" / "fixtures" / "diff"
SELECT = ("--select", "RT102,RT201,RT205,RT301,RT501")


def test_text_report_and_exit_1_when_head_adds_errors() -> None:
    res = run_cli("diff", PAIR / "base", PAIR / "head", *SELECT)
    assert res.code == 1, res.err
    lines = res.out.splitlines()
    assert "  leaf1 Ethernet0: PFC priorities {3} → {}" in lines
    assert "  leaf3 swp1: DSCP 26 → priority 3 → 4" in lines
    # PFC off on leaf1 Ethernet0 is one finding (RT201; RT102 no longer repeats it)
    assert "New findings in head (3):" in lines
    assert "Fixed in head (1):" in lines
    assert lines[-1] == (
        "9 change(s); findings: 3 new (3 error(s), 0 warning(s)), 1 fixed, 2 unchanged."
    )


def test_base_head_options_json_and_fail_on() -> None:
    args = [
        "diff",
        "--base",
        PAIR / "base" / "leaf3.nvue.yaml",
        "--head",
        PAIR / "head" / "leaf3.nvue.yaml",
        "--select",
        "RT501",
        "--format",
        "json",
    ]
    res = run_cli(*args)
    assert res.code == 0, res.err  # RT501 fires on both sides: nothing new
    data = json.loads(res.out)
    assert [c["text"] for c in data["changes"]] == [
        "leaf3 swp1: DSCP 26 → priority 3 → 4",
        "leaf3 swp1: ECN queue 3 max threshold 1500000 B → 3000000 B",
        "leaf3 swp2: DSCP 26 → priority 3 → 4",
        "leaf3 swp2: ECN queue 3 max threshold 1500000 B → 3000000 B",
    ]
    assert data["summary"] == {"changes": 4, "new": 0, "fixed": 0, "unchanged": 2}


def test_usage_errors_exit_2() -> None:
    one = run_cli("diff", PAIR / "base")
    assert one.code == 2
    assert "expected BASE and HEAD" in one.err
    mixed = run_cli("diff", PAIR / "base", PAIR / "head", "--base", PAIR / "base")
    assert mixed.code == 2
    assert "not both" in mixed.err
    nothing = run_cli("diff", "--base", PAIR / "base")
    assert nothing.code == 2
