"""Text report: findings most severe first, coverage (RT000) apart, concise, statistics, -q."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from rocetune.report import render
from rocetune.report.coverage import headline, merge_items, notes
from rocetune.report.text import TextOptions, concise_line
from tests.report.helpers import finding, result

RT208 = finding(
    "RT000",
    "info",
    device="leaf3",
    message="RT208 pfc-oper-state could not run: swp1: operational PFC priorities (show pfc"
    " priority) not in snapshot; swp2: operational PFC priorities (show pfc priority) not in"
    " snapshot",
    observed="not in snapshot",
    expected="data for RT208",
)
UNREAD = finding(
    "RT000",
    "info",
    device="leaf1",
    message="could not verify: c.json:12 not understood ('x'); RT201 pfc-on-lossless on"
    " Ethernet0 not reported",
    observed="not understood",
    expected="a construct rocetune can read (RT201)",
    file="c.json",
    line=12,
)


def _sample() -> list:  # type: ignore[type-arg]
    return [
        finding("RT709", "info", device="leaf1", message="no app TLV"),
        RT208,
        finding("RT207", "warning", device="leaf1", port="Ethernet8", message="forward"),
        finding("RT201", device="leaf3", port="swp2", message="PFC off", file="c.yaml", line=3),
        finding("RT201", device="leaf3", port="swp10", message="PFC off"),
        UNREAD,
    ]


def _text(options: TextOptions | None = None, findings: list | None = None) -> str:  # type: ignore[type-arg]
    res = result(findings or _sample(), {"leaf1": None, "leaf3": None}, inventory="inv.yaml")
    return render("text", res, text=options or TextOptions(width=None))


def test_findings_most_severe_first_then_coverage_then_summary() -> None:
    out = _text()
    lines = out.splitlines()
    assert lines[0] == "leaf3 (sonic)  2 errors"  # the worst device first
    assert lines[1].split() == ["error", "RT201", "pfc-on-lossless", "swp2"]  # natural port order
    assert "--> c.yaml:3  (rocetune explain RT201)" in lines[3]
    assert lines.index("leaf1 (sonic)  1 warning, 1 info") > lines.index("leaf3 (sonic)  2 errors")
    cov = lines.index("Coverage: 2 rules not checked on 2 devices")
    assert cov > max(i for i, line in enumerate(lines) if "RT709" in line)
    block = lines[cov + 1 :]
    assert block[:2] == ["  leaf1", "    " + UNREAD.message]
    assert block[2:4] == [
        "  leaf3",
        "    not checked: RT208 pfc-oper-state: operational PFC priorities (show pfc priority)"
        " not in snapshot (swp1, swp2)",
    ]
    assert "RT000" not in out.split("Coverage:")[0]  # not in the findings stream
    assert (
        "2 error(s), 1 warning(s), 1 info in 2 of 2 device(s) checked (4 root causes on 3"
        " ports; 4 findings). Coverage: 2 rules not checked on 2 devices." in lines
    )
    assert "Next: run `rocetune plan inv.yaml` to see the fixes." in lines
    assert "Next: `rocetune explain RT201` explains the most frequent top-severity rule." in lines


def test_wrapping_follows_the_width() -> None:
    long = finding("RT201", device="leaf1", port="E0", message="word " * 40)
    lines = _text(TextOptions(width=60), [long]).splitlines()
    body = [line for line in lines if line.startswith(" " * 10 + "word")]
    assert len(body) > 3
    assert all(len(line) <= 60 for line in body)
    assert len(_text(TextOptions(width=None), [long]).splitlines()[2]) > 200


def test_concise_one_line_per_finding_and_quiet() -> None:
    out = _text(TextOptions(style="concise", quiet=True, width=None))
    assert out.splitlines() == [
        "c.yaml:3: RT201 [error] leaf3 swp2: PFC off",
        "leaf3: RT201 [error] leaf3 swp10: PFC off",
        "leaf1: RT207 [warning] leaf1 Ethernet8: forward",
        "leaf1: RT709 [info] leaf1: no app TLV",
    ]
    assert concise_line(finding("RT899", "warning", message="a\nb")) == (
        "fabric: RT899 [warning] fabric: a b"
    )


def test_statistics_count_per_rule_without_coverage() -> None:
    lines = _text(TextOptions(statistics=True, width=None)).splitlines()
    assert lines[:3] == [
        "2  RT201  [error]    pfc-on-lossless",
        "1  RT207  [warning]  pfc-watchdog-action",
        "1  RT709  [info]     lldp-app-tlv",
    ]
    assert lines[3] == ""
    assert lines[4].startswith("2 error(s), 1 warning(s), 1 info")
    quiet = _text(TextOptions(statistics=True, quiet=True)).splitlines()
    assert quiet == lines[:3]


def test_quiet_grouped_prints_findings_only() -> None:
    out = _text(TextOptions(quiet=True, width=None))
    assert "Coverage" not in out
    assert "checked." not in out
    assert "Next:" not in out
    assert "RT207" in out


def test_clean_run_says_so() -> None:
    out = _text(findings=[RT208])
    assert out.splitlines()[-2:] == [
        "0 error(s), 0 warning(s), 0 info in 2 of 2 device(s) checked."
        " Coverage: 1 rule not checked on 1 device.",
        "Next: collect the missing data to check the rules listed under Coverage.",
    ]


def test_colour_and_doc_links_only_when_asked() -> None:
    res = result(_sample(), {"leaf1": None, "leaf3": None})
    plain = render("text", res, text=TextOptions())
    assert "\x1b" not in plain
    coloured = render("text", res, colour=True, text=TextOptions())
    assert "\x1b[31m" in coloured  # red error
    assert "\x1b]8;;https://" in coloured  # OSC 8 doc link
    assert "/rules/RT201.md" in coloured


def test_coverage_notes_merge_ports_and_count() -> None:
    assert merge_items("E0: x not in snapshot; E8: x not in snapshot; y; and 3 more") == (
        "x not in snapshot (E0, E8); y; and 3 more not listed"
    )
    items = notes(_sample())
    assert [(n.device, n.kind, n.rules) for n in items] == [
        ("leaf1", "not-understood", ("RT201",)),
        ("leaf3", "missing-data", ("RT208",)),
    ]
    assert headline(items) == "2 rules not checked on 2 devices"
    assert headline([]) == ""


def test_json_keeps_findings_and_adds_coverage() -> None:
    data = json.loads(render("json", result(_sample(), {"leaf1": None, "leaf3": None})))
    assert sum(f["code"] == "RT000" for f in data["findings"]) == 2  # schema v1 unchanged
    assert data["summary"] == {"error": 2, "warning": 1, "info": 3}
    assert data["coverage"] == [
        {
            "device": "leaf1",
            "port": None,
            "kind": "not-understood",
            "rules": ["RT201"],
            "message": UNREAD.message,
            "file": "c.json",
            "line": 12,
        },
        {
            "device": "leaf3",
            "port": None,
            "kind": "missing-data",
            "rules": ["RT208"],
            "message": RT208.message,
            "file": None,
            "line": None,
        },
    ]


@given(
    text=st.text(alphabet=st.sampled_from("ab -:\t\n\u00e9\u200b"), max_size=120),
    indent=st.sampled_from(["", "  ", "    "]),
    width=st.integers(min_value=1, max_value=130),
)
def test_wrap_of_a_line_that_fits_is_textwraps(text: str, indent: str, width: int) -> None:
    """The short cut for lines that fit gives what textwrap gives."""
    import textwrap

    from rocetune.report.text import MIN_WIDTH, _wrap

    room = max(width, MIN_WIDTH)
    expected = textwrap.wrap(
        text,
        width=room,
        initial_indent=indent,
        subsequent_indent=indent + "  ",
        break_long_words=False,
        break_on_hyphens=False,
    ) or [indent.rstrip()]
    assert _wrap(text, indent, width, hanging=indent + "  ") == expected


def test_a_remembered_wrap_is_a_new_list_each_time() -> None:
    """Callers extend the lines they get: a long line wrapped twice gives equal lists that
    are not the same object (the remembered wrap is not changed through them)."""
    from rocetune.report.text import _wrap

    text = "word " * 40 + "end"
    first = _wrap(text, "    ", 40, hanging="      ")
    assert len(first) > 1
    first.append("extra")
    again = _wrap(text, "    ", 40, hanging="      ")
    assert again == first[:-1]
    assert again is not _wrap(text, "    ", 40, hanging="      ")
