"""Run every rule case of tests/checks/cases/RTxxx.yaml (pass and fail cases as data).

Case file format::

    rule: RT201
    cases:
      - id: short-name
        intent: {}                 # optional Intent overrides
        devices:                   # Device model fragments; names and platform filled in,
                                   # a registered platform's limits stamped as parsing does
          leaf1:
            kind: switch
            ports:
              Ethernet0: {pfc_rx: [3], pfc_tx: [3]}
        links: [{a: leaf1:Ethernet0, b: gpu1:eth0, length_m: 3}]   # optional
        run: [RT301, RT601]        # optional: the rules to run (default: the file's rule)
        expect:                    # exactly these findings (RT000 included when listed)
          - {code: RT201, device: leaf1, port: Ethernet0}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from rocetune.checks.registry import all_rules, rule_by_code
from rocetune.engine import run_checks
from rocetune.model import Device, Fabric, Intent, Link, LinkEnd, PerftestResult, PortCounters
from rocetune.platforms import get_driver

CASES_DIR = Path(__file__).parent / "cases"


def _load_cases() -> list[Any]:
    yaml = YAML(typ="safe")
    out = []
    for path in sorted(CASES_DIR.glob("RT*.yaml")):
        data = yaml.load(path.read_text())
        for case in data["cases"]:
            out.append(pytest.param(data["rule"], case, id=f"{data['rule']}-{case['id']}"))
    return out


def _device(name: str, raw: dict[str, Any]) -> Device:
    raw = dict(raw)
    raw.setdefault("name", name)
    raw.setdefault("platform", "test")
    for key in ("ports", "nics"):
        raw[key] = {n: {"name": n, **(p or {})} for n, p in (raw.get(key) or {}).items()}
    device = Device.model_validate(raw)
    platform = get_driver(device.platform)
    return platform.stamp(device) if platform is not None else device


def _end(text: str) -> LinkEnd:
    device, _, port = text.partition(":")
    return LinkEnd(device=device, port=port)


def build_fabric(case: dict[str, Any]) -> Fabric:
    """Build a Fabric from a case's intent, devices and links."""
    links = tuple(
        Link(a=_end(lk["a"]), b=_end(lk["b"]), length_m=lk.get("length_m"))
        for lk in case.get("links") or []
    )
    return Fabric(
        intent=Intent.model_validate(case.get("intent") or {}),
        devices={n: _device(n, d) for n, d in (case.get("devices") or {}).items()},
        links=links,
        counters=tuple(PortCounters.model_validate(c) for c in case.get("counters") or []),
        perftest=tuple(PerftestResult.model_validate(r) for r in case.get("perftest") or []),
    )


@pytest.mark.parametrize(("code", "case"), _load_cases())
def test_rule_case(code: str, case: dict[str, Any]) -> None:
    rules = []
    for wanted in case.get("run") or [code]:
        rule = rule_by_code(wanted)
        assert rule is not None, f"{wanted} is not registered"
        rules.append(rule)
    findings = run_checks(build_fabric(case), rules)
    got = [f.model_dump(mode="json") for f in findings]
    expected = case.get("expect") or []
    unmatched = list(got)
    for exp in expected:
        contains = exp.get("message_contains")
        keys = {k: v for k, v in exp.items() if k != "message_contains"}
        hit = next(
            (
                g
                for g in unmatched
                if all(g.get(k) == v for k, v in keys.items())
                and (contains is None or contains in g["message"])
            ),
            None,
        )
        assert hit is not None, f"expected {exp}, got {got}"
        unmatched.remove(hit)
    assert not unmatched, f"unexpected findings: {unmatched}"


def test_every_rule_has_cases() -> None:
    have = {p.stem for p in CASES_DIR.glob("RT*.yaml")}
    needed = {r.meta.code for r in all_rules()} - {"RT000", "RT002"}
    assert needed <= have, f"rules without cases: {sorted(needed - have)}"
