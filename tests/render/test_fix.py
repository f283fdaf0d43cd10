"""``--only-fix`` feature selection from findings."""

from __future__ import annotations

from rocetune.model import Finding, Link, LinkEnd, Severity
from rocetune.render.fix import features_to_fix


def _f(code: str, severity: Severity = Severity.ERROR, **where: str) -> Finding:
    return Finding(code=code, name="x", severity=severity, message="m", **where)


def test_features_by_device_link_and_fabric() -> None:
    link = Link(
        a=LinkEnd(device="leaf1", port="Ethernet8"), b=LinkEnd(device="spine2", port="swp1")
    )
    findings = [
        _f("RT501", device="leaf2", port="Ethernet8"),
        _f("RT304", Severity.WARNING, device="leaf2", port="Ethernet8"),
        _f("RT701", link=link.label),
        _f("RT000", Severity.INFO, device="leaf3"),
        _f("RT001", Severity.WARNING, device="leaf3"),
        _f("RT706"),
    ]
    got = features_to_fix(findings, [link], ["leaf1", "leaf2", "spine2", "leaf3"])
    assert got == {
        "leaf2": frozenset({"buffers", "ecn"}),
        "leaf1": frozenset({"pfc", "ecn"}),
        "spine2": frozenset({"pfc", "ecn"}),
        "leaf3": frozenset({"ecn"}),
    }


def test_info_findings_select_nothing() -> None:
    assert features_to_fix([_f("RT501", Severity.INFO, device="a")], [], ["a"]) == {}
