"""Work shared by the rules of one run: ``CheckContext.memo`` (by identity of its inputs),
the RoCE scopes found once per device, link lengths indexed once per fabric, and RT404's
carriers memoised per shared map: the findings are those of every port computed alone."""

from __future__ import annotations

from rocetune.checks._chain import link_length
from rocetune.checks.base import CheckContext, RuleOptions
from rocetune.checks.ets_share import BulkStrict
from rocetune.engine import run_checks, sort_findings
from rocetune.model import Device, Fabric, Intent, Link, LinkEnd, NicPort, Port, Scheduler


def _ctx(fabric: Fabric) -> CheckContext:
    return CheckContext(fabric=fabric, options=RuleOptions())


def test_memo_computes_once_per_identical_inputs_and_again_for_equal_copies() -> None:
    ctx = _ctx(Fabric())
    calls: list[int] = []
    first = {1: 2}
    equal = {1: 2}

    def compute() -> int:
        calls.append(1)
        return len(calls)

    assert ctx.memo("x", (first,), compute) == 1
    assert ctx.memo("x", (first,), compute) == 1
    assert ctx.memo("x", (equal,), compute) == 2  # equal but another object: computed
    assert ctx.memo("y", (first,), compute) == 3  # another computation of the same input
    assert len(calls) == 3


def _link(a: str, pa: str, b: str, pb: str, length: float | None) -> Link:
    return Link(a=LinkEnd(device=a, port=pa), b=LinkEnd(device=b, port=pb), length_m=length)


def test_link_length_is_the_longest_known_length_at_that_port() -> None:
    links = (
        _link("s1", "E0", "s2", "E0", 3.0),
        _link("s1", "E0", "s3", "E0", 30.0),
        _link("s1", "E1", "s2", "E1", None),
        _link("s1", "E2", "s1", "E2", 5.0),  # a loop: both ends on one port
        _link("s2", "E2", "s1", "E3", 7.0),
    )
    ctx = _ctx(Fabric(links=links))
    assert link_length(ctx, "s1", "E0") == 30.0
    assert link_length(ctx, "s2", "E0") == 3.0
    assert link_length(ctx, "s1", "E1") is None
    assert link_length(ctx, "s1", "E2") == 5.0
    assert link_length(ctx, "s1", "E3") == 7.0
    assert link_length(ctx, "s3", "E1") is None


def test_the_links_of_a_few_devices_are_those_a_scan_finds_in_fabric_order() -> None:
    """CheckContext.subject_links with ``only``: a few devices go through the link index
    (a plan's re-check), many through a scan; both give the scan's links, in fabric order,
    a link listed twice twice, a loop once."""
    loop = _link("s1", "E2", "s1", "E2", 5.0)
    twice = _link("s3", "E9", "s4", "E9", None)
    links = tuple(_link(f"h{i}", "eth2", f"s{i % 5}", f"E{i}", None) for i in range(60))
    links = (*links[:10], loop, twice, *links[10:40], twice, *links[40:])
    fabric = Fabric(links=links)
    many = {f"h{i}" for i in range(10)} | {"s2"}  # scanned (8 x 11 >= 63 links)
    for only in ({"s1"}, {"s3", "h7"}, {"s1", "s4", "nowhere"}, set(), many):
        ctx = CheckContext(fabric=fabric, options=RuleOptions(), only=frozenset(only))
        want = [lk for lk in links if lk.a.device in only or lk.b.device in only]
        got = list(ctx.subject_links())
        assert len(got) == len(want)
        assert all(a is b for a, b in zip(got, want, strict=True))


def _strict_port(name: str, dmap: dict[int, int], ptc: dict[int, int]) -> Port:
    scheds = {q: Scheduler(kind="strict" if q == 3 else "dwrr", weight=10) for q in range(8)}
    return Port(
        name=name,
        dscp_to_priority=dmap,
        priority_to_tc=ptc,
        tc_to_queue={t: t for t in range(8)},
        schedulers=scheds,
        pfc_rx=(3,),
        pfc_tx=(3,),
    )


def test_rt404_on_ports_sharing_maps_is_what_each_port_gives_alone() -> None:
    shared = {d: d // 8 for d in range(64)}
    ptc = {p: p for p in range(8)}
    other = {**shared, 10: 3, 11: 3}
    ports = {
        "E0": _strict_port("E0", shared, ptc),
        "E1": _strict_port("E1", shared, ptc),  # the same map objects: memoised
        "E2": _strict_port("E2", dict(shared), dict(ptc)),  # equal copies
        "E3": _strict_port("E3", other, ptc),  # another map: its own carriers
    }
    dev = Device(name="s1", kind="switch", platform="t", ports=ports)
    fabric = Fabric(intent=Intent(), devices={"s1": dev})
    together = run_checks(fabric, [BulkStrict])
    alone = []
    for name, port in ports.items():
        one = Fabric(
            intent=Intent(), devices={"s1": dev.model_copy(update={"ports": {name: port}})}
        )
        alone += run_checks(one, [BulkStrict])
    assert [f.model_dump() for f in together] == [f.model_dump() for f in alone]
    assert {f.port for f in together} == {"E0", "E1", "E2", "E3"}
    e3 = next(f for f in together if f.port == "E3")
    assert "10,11" in e3.message
    assert "10,11" not in next(f for f in together if f.port == "E0").message


def test_rt104_on_ports_sharing_maps_is_what_each_port_gives_alone() -> None:
    """RT104's stray DSCPs are memoised per (DSCP map, priority->TC map) object pair and
    the port's lossless TCs: ports and a NIC sharing one pair, a switch port and a NIC
    sharing another (the NIC has no lossless TCs, so a DSCP into TC 3 is stray on the
    switch port only), equal copies, and another map."""
    from rocetune.checks.classification import StrayDscpLossless

    dmap = {0: 0, 10: 3, 26: 3, 48: 6}
    ptc = {p: p for p in range(8)}
    into_tc3 = {**ptc, 0: 3}
    e0 = Port(name="E0", dscp_to_priority=dmap, priority_to_tc=ptc)
    e2 = e0.model_copy(update={"name": "E2", "priority_to_tc": into_tc3})  # E0's DSCP map
    ports = {
        "E0": e0,
        "E1": e0.model_copy(update={"name": "E1"}),  # the same map objects
        "E2": e2,
        "E3": Port(name="E3", dscp_to_priority=dict(dmap), priority_to_tc=dict(ptc)),
        "E4": Port(name="E4", dscp_to_priority={**dmap, 11: 3}, priority_to_tc=ptc),
    }
    nic = NicPort(name="eth2").model_copy(
        update={"dscp_to_priority": e2.dscp_to_priority, "priority_to_tc": e2.priority_to_tc}
    )
    nic2 = nic.model_copy(update={"name": "eth3"})
    sw = Device(name="s1", kind="switch", platform="t", ports=ports)
    host = Device(name="h1", kind="host", platform="t", nics={"eth2": nic, "eth3": nic2})
    fabric = Fabric(intent=Intent(), devices={"s1": sw, "h1": host})
    together = run_checks(fabric, [StrayDscpLossless], report_missing=False)
    alone = []
    for dev, kind in ((sw, "ports"), (host, "nics")):
        for name, port in getattr(dev, kind).items():
            one = dev.model_copy(update={kind: {name: port}})
            got = run_checks(Fabric(intent=Intent(), devices={dev.name: one}), [StrayDscpLossless])
            alone += [f for f in got if f.code != "RT000"]
    assert [f.model_dump() for f in together] == [f.model_dump() for f in sort_findings(alone)]
    observed = {(f.device, f.port): f.observed for f in together}
    assert observed == {
        ("h1", "eth2"): "{10}",
        ("h1", "eth3"): "{10}",
        ("s1", "E0"): "{10}",
        ("s1", "E1"): "{10}",
        ("s1", "E2"): "{0,10}",
        ("s1", "E3"): "{10}",
        ("s1", "E4"): "{10,11}",
    }
