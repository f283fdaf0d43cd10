"""Verification results in the reports: pair rows, JSON ``verify`` key, HTML chart + table."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from rocetune.model import (
    AuditResult,
    BandwidthRow,
    Intent,
    LatencyRow,
    PairResult,
    PerftestError,
    PerftestResult,
)
from rocetune.report import json as json_report
from rocetune.report.html import render_html
from rocetune.report.html_verify import CHART_W, LABEL_W, axis_max
from rocetune.verify.results import pair_results
from tests.report.html_fixture import EVIL_DEVICE, small_result, stub_fixes
from tests.report.test_html import Page


def _bw(gbps: float | None, rate: float | None = 400.0, **kw: object) -> PerftestResult:
    rows = (
        () if gbps is None else (BandwidthRow(size_bytes=65536, iterations=1, average_gbps=gbps),)
    )
    base: dict[str, object] = {
        "tool": "ib_write_bw",
        "kind": "bw",
        "role": "client",
        "bandwidth": rows,
        "complete": True,
        "line_rate_gbps": rate,
    }
    return PerftestResult.model_validate({**base, **kw})


def _lat(typical: float, avg: float) -> PerftestResult:
    row = LatencyRow(size_bytes=2, iterations=1000, t_typical_us=typical, t_avg_us=avg)
    return PerftestResult(
        tool="ib_send_lat", kind="lat", role="client", latency=(row,), complete=True
    )


FAILED = _bw(
    None,
    complete=False,
    errors=(PerftestError(kind="connect", text="Couldn't connect to 10.0.0.4:18515"),),
)
TESTS = [
    ("gpu01:eth2", "gpu02:eth2", _bw(392.47)),
    ("gpu02:eth3", "gpu03:eth3", _bw(301.18)),
    ("gpu03:eth2", "gpu04:eth2", FAILED),
    ("gpu04:eth3", "gpu01:eth3", _bw(812.55)),
    ("gpu01:eth2", "gpu02:eth2", _lat(1.93, 2.04)),
    ("gpu02:eth3", "gpu03:eth3", _lat(7.5, 7.9)),
]


def _verified(tests: list[tuple[str, str, PerftestResult]] = TESTS) -> AuditResult:
    return replace(small_result(), verify=pair_results(tests, Intent()))


def test_pair_results_verdicts_and_numbers() -> None:
    rows = pair_results(TESTS, Intent())
    assert [(r.client, r.test, r.verdict) for r in rows] == [
        ("gpu01:eth2", "bw", "pass"),
        ("gpu02:eth3", "bw", "low"),
        ("gpu03:eth2", "bw", "failed"),
        ("gpu04:eth3", "bw", "impossible"),
        ("gpu01:eth2", "lat", "pass"),
        ("gpu02:eth3", "lat", "high"),
    ]
    assert rows[1].percent_of_line_rate == pytest.approx(75.295)
    assert rows[2].error == "Couldn't connect to 10.0.0.4:18515"


def test_json_verify_key_only_when_verification_ran() -> None:
    assert "verify" not in json.loads(json_report.render(small_result()))
    data = json.loads(json_report.render(_verified()))
    assert list(data) == [
        "version",
        "findings",
        "devices",
        "summary",
        "coverage",
        "root_causes",
        "root_cause_summary",
        "verify",
    ]
    assert data["verify"][0] == {
        "pair": {"client": "gpu01:eth2", "server": "gpu02:eth2"},
        "test": "bw",
        "tool": "ib_write_bw",
        "bandwidth_gbps": 392.47,
        "line_rate_gbps": 400.0,
        "percent_of_line_rate": 98.12,
        "latency_us": None,
        "verdict": "pass",
        "error": None,
    }
    assert data["verify"][5]["latency_us"] == {"t_typical": 7.5, "t_avg": 7.9}
    assert data["verify"][2]["error"] == "Couldn't connect to 10.0.0.4:18515"


def test_no_verification_section_in_audit_reports() -> None:
    page = Page(render_html(small_result(), fixes=stub_fixes))
    assert page.all("section", id="verification") == []
    assert page.all("svg", cls="verify-chart") == []


def test_chart_has_one_bar_per_bandwidth_pair_and_the_threshold_line() -> None:
    page = Page(render_html(_verified(), fixes=stub_fixes))
    assert len(page.all("section", id="verification")) == 1
    bars = page.all("rect", cls="bar")
    assert [b["class"] for b in bars] == [
        "bar lvl-ok",
        "bar lvl-error",
        "bar lvl-error",
        "bar lvl-error",  # impossible (above line rate) is RT903, an error: red like any error
    ]
    top = axis_max([98.1175, 75.295, 203.1375])
    assert top == 225.0
    scale = CHART_W / top
    assert [float(b["width"]) for b in bars] == [
        round(98.1175 * scale, 1),
        round(75.295 * scale, 1),
        0.0,
        round(203.1375 * scale, 1),
    ]
    assert all(b["x"] == f"{LABEL_W:.1f}" for b in bars)
    (threshold,) = page.all("line", cls="threshold")
    assert float(threshold["x1"]) == pytest.approx(LABEL_W + 90 * scale, abs=0.05)
    assert threshold["x1"] == threshold["x2"]
    (rate,) = page.all("line", cls="line-rate")
    assert float(rate["x1"]) == pytest.approx(LABEL_W + 100 * scale, abs=0.05)
    rows = page.all("tr", cls="verify-row")
    assert [(r["data-client"], r["data-test"]) for r in rows] == [(c, r.kind) for c, _, r in TESTS]


def test_threshold_follows_the_intent() -> None:
    intent = Intent.model_validate({"verify": {"min_bandwidth_fraction": 0.5}})
    fabric = small_result().fabric.model_copy(update={"intent": intent})
    result = replace(small_result(), fabric=fabric, verify=pair_results(TESTS[:1], intent))
    page = Page(render_html(result, fixes=stub_fixes))
    (threshold,) = page.all("line", cls="threshold")
    assert threshold["x1"] == f"{LABEL_W + 50 * CHART_W / 100:.1f}"


def test_pair_names_are_escaped_and_deterministic() -> None:
    tests = [(EVIL_DEVICE + ":eth0", "gpu02:eth2", _bw(390.0))]
    html = render_html(_verified(tests), fixes=stub_fixes)
    assert EVIL_DEVICE not in html
    assert html == render_html(_verified(tests), fixes=stub_fixes)
    page = Page(html)
    assert page.all("tr", cls="verify-row")[0]["data-client"] == EVIL_DEVICE + ":eth0"


def test_section_without_bandwidth_tests_has_no_chart() -> None:
    page = Page(render_html(_verified(TESTS[4:]), fixes=stub_fixes))
    assert len(page.all("section", id="verification")) == 1
    assert page.all("svg", cls="verify-chart") == []
    assert len(page.all("tr", cls="verify-row")) == 2


def test_pair_result_percent_unknown_without_line_rate() -> None:
    row = PairResult("a:e", "b:e", "bw", "ib_write_bw", 100.0, None, None, None, "pass")
    assert row.percent_of_line_rate is None
    assert row.to_data()["percent_of_line_rate"] is None
