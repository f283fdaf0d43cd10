"""rocetune.model.share: equal values of ports are held once; nothing a rule or a report
reads changes."""

from __future__ import annotations

import tempfile
from pathlib import Path

from rocetune import api
from rocetune.model import EcnProfile, Finding, Port
from rocetune.model.share import Sharer, built, sharing
from tests.paths import ROOT


def _port(name: str, **kw: object) -> Port:
    return Port.model_validate({"name": name, **kw})


def test_equal_maps_and_profiles_are_shared() -> None:
    dscp = {d: (3 if d == 26 else 0) for d in range(64)}
    ecn = {3: {"ecn_mark": True, "min_threshold_bytes": 150_000}}
    a = _port("a", dscp_to_priority=dscp, ecn=ecn, pfc_tx=(3,))
    b = _port("b", dscp_to_priority=dict(dscp), ecn=ecn, pfc_tx=(3,))
    assert a.dscp_to_priority is not b.dscp_to_priority  # pydantic copies
    sharer = Sharer()
    for port in (a, b):
        sharer._fields(port)
    assert a.dscp_to_priority is b.dscp_to_priority
    assert a.ecn is b.ecn
    assert a.pfc_tx == b.pfc_tx
    assert a.ecn is not None
    assert isinstance(a.ecn[3], EcnProfile)
    assert sharer.shared >= 3


def test_equal_priority_tuples_and_numbers_of_ports_are_shared() -> None:
    """Every port's own PFC tuples and MTU/speed ints are replaced by the first equal one;
    small ints are left alone (CPython shares them already)."""
    a = _port("a", pfc_rx=[3, 4], pfc_tx=[1], mtu=9214, speed_mbps=400_000, lanes=8)
    b = _port("b", pfc_rx=[3, 4], mtu=int("9214"), speed_mbps=int("400000"), lanes=int("8"))
    c = _port("c", pfc_rx=[3, 4], mtu=int("9215"))
    assert a.pfc_rx is not b.pfc_rx
    assert a.mtu is not b.mtu
    sharer = Sharer()
    for port in (a, b, c):
        sharer._fields(port)
    assert a.pfc_rx is b.pfc_rx
    assert a.pfc_rx is c.pfc_rx
    assert a.mtu is b.mtu
    assert a.speed_mbps is b.speed_mbps
    assert c.mtu == 9215
    assert c.mtu is not a.mtu
    assert sharer.shared == 4  # b's pfc_rx, mtu and speed; c's pfc_rx
    again = _port("b", pfc_rx=[3, 4], mtu=9214, speed_mbps=400_000, lanes=8)
    assert b.model_dump() == again.model_dump()


def test_values_of_other_types_stay_apart() -> None:
    sharer = Sharer()
    ints, bools = {0: 1}, {0: True}
    assert sharer.value(ints) is ints
    assert sharer.value(bools) is bools
    assert sharer.value({0: 1.0}) is not ints
    unset, explicit = EcnProfile(), EcnProfile(ecn_mark=None)
    assert sharer.value(unset) is unset
    assert sharer.value(explicit) is explicit  # fields set differ: dumps differ


def test_lint_results_are_unchanged_by_sharing() -> None:
    configs = sorted((ROOT / "inventories" / "lab" / "configs").iterdir())
    result = api.lint(configs, None)
    again = api.lint(configs, None)
    assert result.fabric.model_dump_json() == again.fabric.model_dump_json()
    dumped = {n: d.model_dump(mode="json") for n, d in result.fabric.devices.items()}
    rebuilt = {
        n: type(d).model_validate(dumped[n]).model_dump(mode="json")
        for n, d in result.fabric.devices.items()
    }
    assert dumped == rebuilt
    ports = [p for d in result.fabric.devices.values() for p in d.ports.values()]
    maps = {id(p.dscp_to_priority) for p in ports if p.dscp_to_priority}
    assert len(maps) < len([p for p in ports if p.dscp_to_priority])


def test_ports_built_while_sharing_share_their_values_at_once() -> None:
    dscp = {d: (3 if d == 26 else 0) for d in range(64)}
    ecn = {3: {"ecn_mark": True, "min_threshold_bytes": 150_000}}
    alone = built(_port("x", dscp_to_priority=dscp))
    assert alone.dscp_to_priority is not dscp  # no run is sharing: nothing happens
    sharer = Sharer()
    with sharing(sharer):
        a = built(_port("a", dscp_to_priority=dscp, ecn=ecn))
        b = built(_port("b", dscp_to_priority=dict(dscp), ecn=ecn))
        built(_port("z"))  # the copies replaced in b are forgotten when the next port comes
    c = built(_port("c", dscp_to_priority=dict(dscp)))
    assert a.dscp_to_priority is b.dscp_to_priority
    assert a.ecn is b.ecn
    assert c.dscp_to_priority is not a.dscp_to_priority  # after the block: not shared
    assert not sharer._seen  # replaced copies are not kept alive
    before = sharer.shared
    sharer._fields(b)  # the device pass finds pooled values by identity
    assert sharer.shared == before


def test_frozen_models_share_their_set_of_set_fields() -> None:
    a, b = _port("a", mtu=9100), _port("b", mtu=1500)
    assert a.model_fields_set is b.model_fields_set
    c = a.model_copy(update={"speed_mbps": 400_000})
    assert c.model_fields_set == {"name", "mtu", "speed_mbps"}
    assert a.model_fields_set == {"name", "mtu"}
    assert a.model_dump(exclude_unset=True) == {"name": "a", "mtu": 9100}


def test_equal_finding_texts_are_held_once_and_unchanged() -> None:
    from benchmarks.memory import eos_config
    from rocetune import engine

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "eos.txt"
        path.write_text(eos_config(16), encoding="utf-8")
        shared = api.lint([path], "eos").findings
        original = engine.share_texts
        engine.share_texts = lambda finding, texts: finding
        try:
            plain = api.lint([path], "eos").findings
        finally:
            engine.share_texts = original
    assert [f.model_dump() for f in shared] == [f.model_dump() for f in plain]
    assert len(shared) >= 16

    def texts(findings: list[Finding]) -> list[str]:
        fields = ("message", "observed", "expected")
        return [t for f in findings for t in (getattr(f, n) for n in fields) if t is not None]

    assert len({id(t) for t in texts(shared)}) == len(set(texts(shared)))  # one object each
    assert len({id(t) for t in texts(plain)}) > len(set(texts(plain)))  # pinned: rules copy


def test_share_texts_keeps_values_and_other_fields() -> None:
    from rocetune.engine import share_texts
    from rocetune.model import Finding

    def make(port: str) -> Finding:
        message = " ".join(["queue", "7", "is", "strict"])  # a new string object each time
        return Finding(code="RT1", name="n", severity="error", message=message, port=port)

    texts: dict[str, str] = {}
    first, second = share_texts(make("a"), texts), share_texts(make("b"), texts)
    assert first.message is second.message
    assert first.message == "queue 7 is strict"
    assert (first.port, second.port, second.observed) == ("a", "b", None)
    assert second == make("b")
