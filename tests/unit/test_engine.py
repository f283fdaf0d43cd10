"""Engine: rule selection, RT000 aggregation and provenance resolution."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from rocetune.checks.base import CheckContext, Issue, Missing, PortRule, Result, RuleMeta
from rocetune.checks.coverage import MissingData, UnparsedConfig
from rocetune.engine import Selection, run_checks, select_rules
from rocetune.errors import ConfigError
from rocetune.model import Device, Fabric, Port, Provenance, Severity, Unparsed


class MtuProbe(PortRule):
    meta = RuleMeta(
        code="RT999", name="mtu-probe", severity=Severity.WARNING, scope="port", summary="test"
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterable[Result]:
        if port.mtu is None:
            yield Missing(device=dev.name, item=f"{port.name}: MTU", path=f"ports.{port.name}.mtu")
        elif port.mtu < 9000:
            yield Issue(
                message="small",
                device=dev.name,
                port=port.name,
                observed=port.mtu,
                expected=(9000, 9216),
                path=f"ports.{port.name}.mtu",
            )


def fabric() -> Fabric:
    ports = {
        "Ethernet0": Port(name="Ethernet0", mtu=1500),
        "Ethernet4": Port(name="Ethernet4"),
        "Ethernet8": Port(name="Ethernet8"),
        "Ethernet12": Port(name="Ethernet12", mtu=9100, admin_up=False),
    }
    dev = Device(
        name="leaf1",
        kind="switch",
        platform="test",
        ports=ports,
        unparsed=(Unparsed(item="FOO_TABLE", reason="unknown table"),),
    )
    return Fabric(devices={"leaf1": dev})


def test_selection_by_code_prefix_name_and_all() -> None:
    rules = (MissingData, UnparsedConfig, MtuProbe)
    assert select_rules(rules, Selection()) == list(rules)
    assert select_rules(rules, Selection(select=("RT9",))) == [MtuProbe]
    assert select_rules(rules, Selection(select=("mtu-probe",))) == [MtuProbe]
    assert select_rules(rules, Selection(ignore=("RT0",))) == [MtuProbe]
    with pytest.raises(ConfigError, match="unknown rule selector 'RT77'"):
        select_rules(rules, Selection(select=("RT77",)))


def test_missing_data_once_per_device_and_provenance() -> None:
    prov = Provenance()
    prov.add("", "leaf1.json", 1)
    prov.add("ports.Ethernet0", "leaf1.json", 10)
    prov.add("ports.Ethernet0.mtu", "leaf1.json", 12)
    findings = run_checks(fabric(), [MtuProbe], provenance={"leaf1": prov})
    assert [(f.code, f.port) for f in findings] == [("RT000", None), ("RT999", "Ethernet0")]
    missing, issue = findings
    assert missing.severity is Severity.INFO
    assert "Ethernet4: MTU; Ethernet8: MTU" in missing.message  # admin-down Ethernet12 skipped
    assert (missing.file, missing.line) == ("leaf1.json", 1)
    assert (issue.file, issue.line) == ("leaf1.json", 12)
    assert issue.observed == "1500"
    assert issue.expected == "{9000,9216}"


def test_rt000_can_be_switched_off_and_rt001_reports_unparsed() -> None:
    findings = run_checks(fabric(), [MtuProbe, UnparsedConfig], report_missing=False)
    assert [f.code for f in findings] == ["RT001", "RT999"]
    assert "FOO_TABLE" in findings[0].message


class MtuProbeTwo(MtuProbe):
    meta = RuleMeta(
        code="RT998", name="mtu-probe-two", severity=Severity.WARNING, scope="port", summary="t"
    )


def test_rules_missing_the_same_items_share_one_rt000() -> None:
    findings = run_checks(fabric(), [MtuProbe, MtuProbeTwo])
    missing = [f for f in findings if f.code == "RT000"]
    assert len(missing) == 1
    assert missing[0].message.startswith("RT999 mtu-probe, RT998 mtu-probe-two could not run")
    assert missing[0].expected == "data for RT999, RT998"


def test_a_switch_without_ports_is_missing_data_not_a_pass() -> None:
    empty = Fabric(devices={"sw": Device(name="sw", kind="switch", platform="test")})
    findings = run_checks(empty, [MtuProbe])
    assert [(f.code, f.device) for f in findings] == [("RT000", "sw")]
    assert "no switch ports in the snapshot" in findings[0].message
    host = Fabric(devices={"h": Device(name="h", kind="host", platform="test")})
    assert "no NIC ports" in run_checks(host, [MtuProbe])[0].message


def test_unverified_places_are_listed_and_counted_as_a_dict_of_every_place_would() -> None:
    """_Collected keeps, per unparsed item, only the first places and a count (bit sets per
    device and place): the listed places, their kinds and the count equal what one dict of
    every place per item gives, for random orders, repeats and link/port mixes."""
    import random

    from rocetune.checks.base import Rule
    from rocetune.engine import _MAX_LISTED, Record, _Collected

    rng = random.Random(5)
    places = [f"Ethernet{i}" for i in range(12)] + [f"link{i}" for i in range(4)]
    for _ in range(300):
        keys = [(rng.choice(["a", "b"]), rng.randint(0, 70)) for _ in range(rng.randint(1, 4))]
        collected = _Collected()
        reference: dict[tuple[str, int], dict[str, bool]] = {}
        for _ in range(rng.randint(1, 60)):
            place = rng.choice(places)
            link = place.startswith("link") or rng.random() < 0.05
            unverified = tuple(rng.sample(keys, rng.randint(1, len(keys))))
            rec = Record(
                unverified=unverified,
                link=place if link else None,
                port=None if link else place,
            )
            collected.add(Rule, rec)
            for key in unverified:
                reference.setdefault(key, {})[place] = link
        assert collected.unverified.keys() == reference.keys()
        for key, every in reference.items():
            what = collected.unverified[key]
            assert what.count == len(every)
            assert list(what.where) == list(every)[: _MAX_LISTED + 1]
            assert all(what.where[p] == every[p] for p in what.where)
