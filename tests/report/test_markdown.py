"""The Markdown report: counts equal the other formats', cells cannot break the table."""

from __future__ import annotations

import json

from rocetune import api
from rocetune.model import Finding, Severity
from rocetune.report import render
from rocetune.report.markdown import MAX_ROWS, cell, finding_rows
from tests.paths import ROOT

LAB = ROOT / "inventories" / "lab" / "inventory.yaml"


def test_lab_summary_counts_match_the_json_report() -> None:
    result = api.audit(LAB)
    md = render("markdown", result)
    data = json.loads(render("json", result))
    counts = data["root_cause_summary"]  # one row per root cause, as in the text report
    head = md.splitlines()[0]
    assert f"{counts['error']} errors" in head
    assert f"{counts['warning']} warnings" in head
    assert head.startswith("❌")
    rows = [line for line in md.splitlines() if line.startswith("| 🔴") or line.startswith("| 🟠")]
    assert len(rows) == counts["error"] + counts["warning"]
    assert "RT000" not in "\n".join(rows)  # coverage notes are not findings
    assert "<details><summary>Not checked" in md


def test_cells_escape_table_and_markup() -> None:
    assert cell("a | b") == r"a \| b"
    assert cell("<script>x</script>") == r"\<script\>x\</script\>"
    assert cell("line1\nline2") == "line1 line2"
    hostile = Finding(
        code="RT201",
        name="pfc-on-lossless",
        severity=Severity.ERROR,
        device="leaf|1",
        port="`Eth0`",
        message="x | y\n| injected | row |",
    )
    (row,) = finding_rows([hostile])[2:]
    assert row.count(" | ") == 4  # five cells, no injected column or row
    assert "\n" not in row


def test_rows_are_capped_with_a_note() -> None:
    many = [
        Finding(code="RT201", name="n", severity=Severity.WARNING, device=f"d{i}", message="m")
        for i in range(MAX_ROWS + 3)
    ]
    rows = finding_rows(many)
    assert len([r for r in rows if r.startswith("| 🟠")]) == MAX_ROWS
    assert rows[-1] == "3 more finding(s) not shown; see the SARIF or JSON report."
