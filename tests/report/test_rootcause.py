"""One finding per root cause: grouping per config line, consequences nested, counts."""

from __future__ import annotations

from rocetune.fingerprint import fingerprint
from rocetune.model import Finding
from rocetune.report import render
from rocetune.report.rootcause import affected_ports, compact, counts, index, root_causes
from rocetune.report.text import TextOptions
from tests.report.helpers import finding, result


def _stray(port: str, line: int = 60) -> Finding:
    return finding(
        "RT104",
        "warning",
        device="leaf4",
        port=port,
        message=f"stray DSCPs on {port}",
        observed="{24,25}",
        expected="only {26}",
        file="leaf4.yaml",
        line=line,
    )


def test_one_config_line_is_one_root_cause_listing_its_ports() -> None:
    ports = [f"swp{n}" for n in (10, 2, 1, 3, 31)]
    causes = root_causes([_stray(p) for p in ports])
    assert len(causes) == 1
    rc = causes[0]
    assert rc.ports == ("swp1", "swp2", "swp3", "swp10", "swp31")  # natural order
    assert rc.finding.port == "swp1"  # the first place is shown
    assert len(rc.members) == 5
    assert rc.id == fingerprint(rc.finding)
    assert counts(causes) == {"error": 0, "warning": 1, "info": 0}
    assert affected_ports(causes) == 5


def test_different_lines_or_values_stay_apart() -> None:
    other_value = _stray("swp3").model_copy(update={"observed": "{24}"})
    causes = root_causes([_stray("swp1"), _stray("swp2", line=70), other_value])
    assert len(causes) == 3


def test_consequences_nest_under_the_cause_on_the_same_line() -> None:
    cause = [
        finding("RT102", device="leaf3", port=p, observed="0", file="n.yaml", line=49)
        for p in ("swp1", "swp2")
    ]
    link = finding(
        "RT702", device="leaf3", port="swp1", link="gpu01:eth2--leaf3:swp1", observed="a",
        file="n.yaml", line=49,
    )  # fmt: skip
    uniform = finding("RT705", "warning", device="leaf3", observed="x", file="n.yaml", line=49)
    sym = [
        finding("RT707", "warning", device="leaf3", port=p, observed=p, file="n.yaml", line=49)
        for p in ("swp2", "swp1")
    ]
    fabric = finding("RT705", "warning", message="fabric-wide")
    elsewhere = finding("RT707", "warning", device="leaf9", port="swp1", file="o.yaml", line=1)
    causes = root_causes([*cause, link, uniform, *sym, fabric, elsewhere])
    assert [(rc.code, rc.device) for rc in causes] == [
        ("RT102", "leaf3"),
        ("RT707", "leaf9"),  # no cause on leaf9: a root cause of its own
        ("RT705", None),  # fabric-wide: nothing explains it
    ]
    top = causes[0]
    assert [(c.code, c.places) for c in top.consequences] == [
        ("RT702", ("gpu01:eth2--leaf3:swp1",)),
        ("RT705", ()),
        ("RT707", ("swp1", "swp2")),  # one entry per rule under a cause
    ]
    assert counts(causes) == {"error": 1, "warning": 2, "info": 0}
    where = index(causes)
    assert where[id(link)][1] is top
    assert where[id(fabric)][1] is None


def test_a_consequence_is_never_nested_under_a_milder_cause() -> None:
    cause = finding("RT316", "warning", device="gpu03", port="eth2", file="m.txt", line=2)
    echo = finding("RT702", "error", device="gpu03", port="eth2", link="gpu03:eth2--leaf1:E16")
    causes = root_causes([cause, echo])
    assert [rc.code for rc in causes] == ["RT702", "RT316"]  # the error stays a headline


def test_port_match_when_the_lines_differ() -> None:
    cause = finding("RT316", "warning", device="gpu03", port="eth2", file="m.txt", line=2)
    echo = finding("RT705", "warning", device="gpu03", port="eth2", file="cnp.txt", line=1)
    (rc,) = root_causes([cause, echo])
    assert [c.code for c in rc.consequences] == ["RT705"]


def test_compact_port_lists() -> None:
    names = ["swp1", "swp2", "swp3", "swp31", "swp32", "Ethernet1/1", "Ethernet1/2"]
    assert compact(names) == "swp1-3, swp31, swp32, Ethernet1/1, Ethernet1/2"
    assert compact(["Ethernet0", "Ethernet4", "Ethernet8"]) == "Ethernet0, Ethernet4, Ethernet8"


def test_text_prints_a_root_cause_once_with_ports_fix_and_consequences() -> None:
    findings = [_stray(f"swp{n}") for n in range(1, 19)]
    echo = finding("RT707", "warning", device="leaf4", port="swp1", file="leaf4.yaml", line=60)
    res = result([*findings, echo], {"leaf4": None})
    change = "nv set qos mapping default-global dscp 24 switch-priority 0"
    res.fixes = {fingerprint(findings[3]): (change,)}
    lines = render("text", res, text=TextOptions(width=None)).splitlines()
    assert lines[1].split() == [
        "warning",
        "RT104",
        "stray-dscp-lossless",
        "18",
        "ports:",
        "swp1-18",
    ]
    assert sum(line.startswith("  warning") for line in lines) == 1  # printed once
    assert " " * 10 + f"fix: {change}" in lines
    assert " " * 10 + "consequence: RT707 dual-homing-symmetry [warning] on swp1" in lines
    assert lines[-2].startswith("0 error(s), 1 warning(s), 0 info in 1 of 1 device(s) checked")
    assert "(1 root cause on 18 ports; 19 findings)" in lines[-2]


def test_fix_lines_are_capped_in_text() -> None:
    findings = [_stray(f"swp{n}") for n in range(1, 6)]
    res = result(findings, {"leaf4": None})
    res.fixes = {fingerprint(f): (f"change {f.port} " + "x" * 300,) for f in findings}
    lines = render("text", res, text=TextOptions(width=None)).splitlines()
    fixes = [line.strip() for line in lines if line.strip().startswith("fix:")]
    assert len(fixes) == 4  # three changes and a line saying how many more
    assert fixes[0].startswith("fix: change swp1 xxx")
    assert fixes[0].endswith("... (312 characters: `rocetune plan` shows it whole)")
    assert fixes[3] == "fix: and 2 more change(s): `rocetune plan` shows them all"
