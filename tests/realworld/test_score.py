"""The scorer's matching rules (README.md): any-of codes, "*" ports, port_re, line, NOPORT."""

from __future__ import annotations

from typing import Any

from tests.realworld import score


def _item(code: Any, **kw: Any) -> score.Item:
    return score._items([{"code": code, **kw}])[0]


def test_exact_port_and_any_of_codes() -> None:
    item = _item(["RT101", "RT102"], port="Ethernet1/3/1")
    assert score._matches(item, {"code": "RT102", "port": "Ethernet1/3/1"})
    assert not score._matches(item, {"code": "RT102", "port": "Ethernet1/3/2"})
    assert not score._matches(item, {"code": "RT201", "port": "Ethernet1/3/1"})


def test_star_port_matches_ports_and_device_level() -> None:
    item = _item("RT201", port="*")
    assert score._matches(item, {"code": "RT201", "port": "swp1"})
    assert score._matches(item, {"code": "RT201", "port": None})


def test_port_re_and_star_code() -> None:
    item = _item("*", port_re=r".*\|.*")
    assert score._matches(item, {"code": "RT102", "port": "lc2|asic0|Ethernet8"})
    assert not score._matches(item, {"code": "RT102", "port": "Ethernet8"})
    assert not score._matches(item, {"code": "RT102", "port": None})


def test_line_items_match_only_that_line() -> None:
    item = _item("RT001", line=22)
    assert score._matches(item, {"code": "RT001", "line": 22, "port": None})
    assert not score._matches(item, {"code": "RT001", "line": 23, "port": None})


def test_precision_counts_only_judged_actionable_findings() -> None:
    r = score.FileResult(
        "x/y.cfg",
        "nxos",
        1,
        None,
        [
            {"code": "RT301", "severity": "error", "port": "Ethernet1"},
            {"code": "RT201", "severity": "error", "port": "Ethernet2"},
            {"code": "RT000", "severity": "info", "port": None},
            {"code": "RT404", "severity": "warning", "port": "Ethernet1"},
        ],
    )
    r.found = [_item("RT301", port="Ethernet1")]
    r.matched_ids = {0, 2}
    r.false_ids = {1}
    r.violations = [(_item("RT201", port="Ethernet2"), r.findings[1])]
    t = score.Totals()
    score._add(t, r)
    assert (t.true_pos, t.false_pos, t.violations) == (1, 1, 1)
    assert t.precision() == 0.5
    assert t.recall() == 1.0
    assert t.distinct_precision() == 0.5
