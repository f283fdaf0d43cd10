"""GitHub workflow-command annotations: format, escaping, caps and the summary line."""

from __future__ import annotations

from rocetune.model import Severity
from rocetune.report import FORMATS, render
from rocetune.report.github import CAPS, escape_data, escape_property
from tests.report.helpers import finding, result


def test_registered() -> None:
    assert FORMATS["github"] == "rocetune.report.github"


def test_escaping_follows_the_toolkit_rules() -> None:
    assert escape_data("50% a\r\nb: c, d") == "50%25 a%0D%0Ab: c, d"
    assert escape_property("50% a\r\nb: c, d") == "50%25 a%0D%0Ab%3A c%2C d"


def test_one_annotation_per_root_cause_at_its_config_line() -> None:
    same_line = [
        finding("RT104", "warning", device="leaf4", port=p, file="leaf4.yaml", line=60)
        for p in ("swp1", "swp2", "swp3")
    ]
    echo = finding("RT707", "warning", device="leaf4", port="swp1", file="leaf4.yaml", line=60)
    lines = render("github", result([*same_line, echo])).splitlines()
    assert lines == [
        "::warning file=leaf4.yaml,line=60,title=RT104 stray-dscp-lossless::"
        "leaf4 3 ports (swp1-3): RT104 message%0Aconsequence: RT707 dual-homing-symmetry on swp1"
    ]


def test_one_annotation_per_finding_by_severity() -> None:
    findings = [
        finding(
            "RT201",
            device="leaf1",
            port="Ethernet8",
            message="PFC off: 100% lossy",
            observed="rx {} tx {}",
            expected="{3}",
            file="configs/leaf,1.json",
            line=220,
        ),
        finding("RT207", "warning", device="spine1", message="forward"),
        finding("RT000", "info", device="leaf3", message="could not run"),
        finding("RT709", "info", device="leaf3", message="no app TLV"),
    ]
    lines = render("github", result(findings)).splitlines()
    assert lines == [  # RT000 is coverage, not a finding: never annotated
        "::error file=configs/leaf%2C1.json,line=220,title=RT201 pfc-on-lossless::"
        "leaf1 Ethernet8: PFC off: 100%25 lossy%0Aobserved: rx {} tx {}; expected: {3}",
        "::warning title=RT207 pfc-watchdog-action::spine1: forward",
        "::notice title=RT709 lldp-app-tlv::leaf3: no app TLV",
    ]


def test_capped_most_severe_first_with_a_summary_line() -> None:
    counts = {"error": 13, "warning": 11, "info": 12}
    findings = [
        finding("RT201", sev, device="leaf1", port=f"E{sev}{i}", file="c.json", line=i + 1)
        for sev, n in counts.items()
        for i in range(n)
    ]
    findings.reverse()  # infos first in report order: the cap must still prefer errors
    lines = render("github", result(findings)).splitlines()
    assert CAPS == {Severity.ERROR: 10, Severity.WARNING: 10, Severity.INFO: 9}
    kinds = [line.split(" ", 1)[0] for line in lines]
    assert kinds[:10] == ["::error"] * 10
    assert kinds[10:20] == ["::warning"] * 10
    assert kinds[20:29] == ["::notice"] * 9
    assert len(lines) == 30
    assert lines[-1] == (
        "::notice title=rocetune::7 more root causes not annotated; see the SARIF/text report"
    )


def test_no_summary_line_when_everything_is_annotated() -> None:
    lines = render("github", result([finding("RT201", device="leaf1")])).splitlines()
    assert len(lines) == 1
    assert render("github", result([])) == ""
