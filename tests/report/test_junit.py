"""JUnit XML report: suites per device/links/fabric, one test case per rule, outcomes."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import xmlschema

from rocetune import api
from rocetune.report import FORMATS, render
from tests.report.helpers import LAB, finding, link, result

LINK = "leaf1:Ethernet0--spine1:Ethernet0"
XSD = Path(__file__).resolve().parents[1] / "fixtures" / "junit" / "junit-10.xsd"
SCHEMA = xmlschema.XMLSchema(XSD)


def parse(body: str) -> ET.Element:
    assert body.startswith("<?xml")
    SCHEMA.validate(body)  # Jenkins xUnit's junit-10.xsd: raises on any violation
    return ET.fromstring(body)


def suites(root: ET.Element) -> dict[str, ET.Element]:
    return {s.get("name", ""): s for s in root.iter("testsuite")}


def cases(suite: ET.Element) -> dict[str, ET.Element]:
    return {c.get("name", ""): c for c in suite.iter("testcase")}


def sample() -> str:
    findings = [
        finding("RT201", device="leaf1", port="Ethernet0", observed="rx {} tx {}"),
        finding("RT201", device="leaf1", port="Ethernet8", file="cfg/leaf1.json", line=12),
        finding("RT202", "warning", device="leaf1", port="Ethernet8"),
        finding(
            "RT000",
            "info",
            device="leaf1",
            message="RT501 headroom-sufficient could not run: Ethernet0: headroom not in snapshot",
        ),
        finding("RT701", device="leaf1", port="Ethernet0", link=LINK),
        finding("RT002", device="leaf2", message="platform 'foo' is not supported yet"),
    ]
    res = result(
        findings,
        {"leaf1": None, "leaf2": "platform 'foo' is not supported yet"},
        rules=("RT000", "RT002", "RT201", "RT202", "RT301", "RT501", "RT701"),
        links=(link("leaf1:Ethernet0", "spine1:Ethernet0"),),
    )
    return render("junit", res)


def test_registered() -> None:
    assert FORMATS["junit"] == "rocetune.report.junit"


def test_one_suite_per_device_plus_links_and_one_case_per_rule() -> None:
    root = parse(sample())
    assert root.tag == "testsuites"
    got = suites(root)
    assert list(got) == ["leaf1", "leaf2", "links"]
    assert list(cases(got["leaf1"])) == [
        "RT000 missing-data",
        "RT002 unknown-device-kind",
        "RT201 pfc-on-lossless",
        "RT202 pfc-extra-priority",
        "RT301 ecn-on-lossless-queue",
        "RT501 headroom-sufficient",
    ]
    assert list(cases(got["links"])) == ["RT701 link-pfc-match"]


def test_failures_carry_all_messages_of_a_rule() -> None:
    leaf1 = cases(suites(parse(sample()))["leaf1"])
    failures = leaf1["RT201 pfc-on-lossless"].findall("failure")
    assert len(failures) == 1
    assert failures[0].get("type") == "error"
    assert failures[0].get("message", "").startswith("2 finding(s): ")
    text = failures[0].text or ""
    assert "[error] Ethernet0: RT201 message" in text
    assert "observed: rx {}" in text
    assert "[error] Ethernet8: RT201 message" in text
    assert "at cfg/leaf1.json:12" in text
    assert leaf1["RT202 pfc-extra-priority"].find("failure").get("type") == "warning"  # type: ignore[union-attr]
    assert list(leaf1["RT301 ecn-on-lossless-queue"]) == []  # passed


def test_missing_data_is_skipped_with_its_message_and_so_are_the_rules_it_names() -> None:
    leaf1 = cases(suites(parse(sample()))["leaf1"])
    for name in ("RT000 missing-data", "RT501 headroom-sufficient"):
        skipped = leaf1[name].find("skipped")
        assert skipped is not None, name
        assert skipped.get("message", "").startswith("RT501 headroom-sufficient could not run")


def test_unchecked_device_is_an_error_case_and_counts_add_up() -> None:
    root = parse(sample())
    leaf2 = suites(root)["leaf2"]
    got = cases(leaf2)
    assert list(got) == ["snapshot", "RT002 unknown-device-kind"]
    error = got["snapshot"].find("error")
    assert error is not None
    assert error.get("message") == "platform 'foo' is not supported yet"
    assert got["RT002 unknown-device-kind"].find("failure") is not None
    assert (leaf2.get("tests"), leaf2.get("errors"), leaf2.get("failures")) == ("2", "1", "1")
    leaf1 = suites(root)["leaf1"]
    assert (leaf1.get("tests"), leaf1.get("failures"), leaf1.get("skipped")) == ("6", "2", "2")
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("9", "4", "1")
    assert sum(int(s.get("skipped", "0")) for s in suites(root).values()) == 2


def test_fabric_suite_for_findings_without_device() -> None:
    res = result([finding("RT899", "warning", message="plans differ")], rules=("RT201",))
    got = suites(parse(render("junit", res)))
    assert list(got) == ["leaf1", "fabric"]
    fabric = cases(got["fabric"])
    assert list(fabric) == ["RT899 name-rt899"]


def test_lab_report_parses_with_a_suite_per_device() -> None:
    root = parse(render("junit", api.audit(LAB)))
    got = suites(root)
    for name in ("leaf1", "leaf2", "leaf3", "leaf4", "spine1", "spine2", "links"):
        assert name in got
    rt201 = cases(got["leaf1"])["RT201 pfc-on-lossless"].find("failure")
    assert rt201 is not None
    assert "Ethernet8" in (rt201.text or "")


def test_control_characters_are_neutralised_and_the_xml_stays_valid() -> None:
    hostile = "line \x1b[31mred\x1b[0m \x00nul \u202eevil\x07"
    res = result(
        [finding("RT001", "warning", device="leaf1", message=hostile, observed=hostile)],
        rules=("RT001",),
    )
    body = render("junit", res)
    root = parse(body)
    assert "\x1b" not in body
    assert "\u202e" not in body
    text = "".join(root.itertext())
    assert "line \\x1b[31mred\\x1b[0m \\x00nul \\u202eevil\\x07" in text
