"""Work shared by the rules of one run: ``CheckContext.memo`` (by identity of its inputs),
the RoCE scopes found once per device, link lengths indexed once per fabric, RT404's
carriers memoised per shared map, the lossless PGs and queues per shared maps, RT501's
headroom per port values and device objects, RT705's values per port fields, the ports
RT401-RT403, RT304, RT305, RT502 and RT505 skip (``CheckContext.quiet``): the findings are
those of every port computed alone."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rocetune.checks._chain import link_length
from rocetune.checks.base import CheckContext, Rule, RuleOptions
from rocetune.checks.ets_share import BulkStrict
from rocetune.engine import run_checks, sort_findings
from rocetune.model import (
    Device,
    Fabric,
    Finding,
    Intent,
    Link,
    LinkEnd,
    NicPort,
    Port,
    Scheduler,
)


def _as_each_alone(
    fabric: Fabric,
    rules: Sequence[type[Rule]],
    links_of: Callable[[Device, str], tuple[Link, ...]] = lambda dev, name: (),
) -> list[Finding]:
    """The findings of ``rules`` on ``fabric`` (missing-data notes aside), checked once for
    the whole fabric; asserted equal to checking each switch port and NIC port alone, on
    its device alone (with the links ``links_of(device, port name)``): what every memo or
    skip of a run must preserve."""
    together = run_checks(fabric, rules, report_missing=False)
    alone = []
    for dev in fabric.devices.values():
        for kind in ("ports", "nics"):
            for name, port in (getattr(dev, kind) or {}).items():
                one = dev.model_copy(update={kind: {name: port}})
                single = Fabric(
                    intent=fabric.intent, devices={dev.name: one}, links=links_of(dev, name)
                )
                alone += [f for f in run_checks(single, rules) if f.code != "RT000"]
    assert [f.model_dump() for f in together] == [f.model_dump() for f in sort_findings(alone)]
    return together


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
    together = _as_each_alone(fabric, [StrayDscpLossless])
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


def _pg_port(
    name: str, ptc: dict[int, int] | None, tc_pg: dict[int, int] | None, **kw: object
) -> Port:
    from rocetune.model import BufferProfile

    buffers = kw.pop("pg_buffers", {3: BufferProfile(name="lossless", xoff_bytes=50_000)})
    return Port(name=name, priority_to_tc=ptc, tc_to_pg=tc_pg, pg_buffers=buffers, **kw)


def test_lossless_pgs_are_shared_per_maps_and_each_port_gets_its_own_maps_pgs() -> None:
    """RT501/RT502/RT505's lossless PGs are found once per (intent, maps, profiles) objects:
    ports holding those objects get the same PG objects, ports with other maps (or equal
    copies) the PGs of their own maps, and the notes of a broken chain name each port."""
    from rocetune.checks._chain import pg_of
    from rocetune.checks.buffers import lossless_pgs
    from rocetune.model import BufferProfile

    ptc = {p: p for p in range(8)}
    tc_pg = {t: 3 if t in (3, 4) else 0 for t in range(8)}
    other_pg = {t: 4 if t == 3 else 0 for t in range(8)}
    e0 = _pg_port("E0", ptc, tc_pg)
    other_buffers = {3: BufferProfile(name="other", xoff_bytes=1)}
    ports = {
        "E0": e0,
        "E1": e0.model_copy(update={"name": "E1"}),  # the same map objects
        "E2": e0.model_copy(update={"name": "E2", "tc_to_pg": other_pg}),
        "E3": _pg_port("E3", dict(ptc), dict(tc_pg)),  # equal copies
        "E4": e0.model_copy(update={"name": "E4", "priority_to_tc": {0: 0}}),  # 3, 4 unmapped
        "E5": e0.model_copy(update={"name": "E5", "tc_to_pg": None}),
        "E6": e0.model_copy(update={"name": "E6", "pg_buffers": other_buffers}),
    }
    dev = Device(name="s1", kind="switch", platform="t", ports=ports)
    fabric = Fabric(intent=Intent(lossless_priorities=(3, 4)), devices={"s1": dev})
    ctx = _ctx(fabric)
    got = {name: lossless_pgs(dev, port, ctx) for name, port in ports.items()}
    assert got["E0"][0] is got["E1"][0]  # shared
    profile = e0.pg_buffers[3]  # type: ignore[index]
    assert [(g.pg, g.priorities, g.profile) for g in got["E0"][0]] == [(3, (3, 4), profile)]
    assert [(g.pg, g.priorities, g.profile) for g in got["E2"][0]] == [
        (0, (4,), None),
        (4, (3,), None),
    ]
    assert got["E3"][0] == got["E0"][0]
    assert [(g.pg, g.profile) for g in got["E6"][0]] == [(3, other_buffers[3])]
    assert got["E0"][0][0].path(ports["E1"]) == "ports.E1.pg_buffers.3"
    for name in ("E4", "E5"):
        pgs, notes = got[name]
        assert pgs == ()
        port = ports[name]
        assert notes == [pg_of("s1", port, 3), pg_of("s1", port, 4)]
        assert all(n.item.startswith(f"{name}: ") for n in notes)
    assert got["E4"][1][0].item != got["E5"][1][0].item  # priority->TC / TC->PG map


def test_lossless_queues_are_shared_per_maps_and_follow_each_ports_maps() -> None:
    """The lossless egress queues are found once per (intent, priority->TC, TC->queue)
    objects; other maps give their own queues, a broken chain the note ``queue_of`` gives,
    in the order of the priorities, each queue once."""
    from rocetune.checks._chain import queue_of
    from rocetune.checks.ecn import lossless_queues

    ptc = {p: p for p in range(8)}
    one_queue = {t: 3 if t in (3, 4) else 0 for t in range(8)}
    e0 = Port(name="E0", priority_to_tc=ptc, tc_to_queue=one_queue)
    ports = {
        "E0": e0,
        "E1": e0.model_copy(update={"name": "E1"}),
        "E2": e0.model_copy(update={"name": "E2", "tc_to_queue": {t: t for t in range(8)}}),
        "E4": Port(name="E4", priority_to_tc=ptc),  # TC->queue unknown
    }
    ports["E3"] = ports["E2"].model_copy(update={"name": "E3", "priority_to_tc": {4: 4}})
    dev = Device(name="s1", kind="switch", platform="t", ports=ports)
    fabric = Fabric(intent=Intent(lossless_priorities=(3, 4)), devices={"s1": dev})
    ctx = _ctx(fabric)
    got = {name: list(lossless_queues(dev, port, ctx)) for name, port in ports.items()}
    assert got["E0"] == got["E1"] == [3]
    assert got["E2"] == [3, 4]
    assert got["E3"] == [queue_of("s1", ports["E3"], 3), 4]  # priority 3 unmapped
    assert got["E4"] == [queue_of("s1", ports["E4"], 3), queue_of("s1", ports["E4"], 4)]
    assert got["E4"][0] != got["E3"][0]


def test_rt501_headroom_shared_per_values_and_device_facts_is_each_ports_own() -> None:
    """RT501's headroom computation is kept per run for equal port values and the same
    device objects it reads: ports at another speed or cable length, and a device with a
    shared headroom pool (another buffer pools object), get their own; the findings are
    those of every port and device checked alone."""
    from rocetune.checks.buffers import HeadroomSufficient
    from rocetune.model import BufferPool, BufferProfile

    small = {3: BufferProfile(name="small", pool="ingress_lossless_pool", xoff_bytes=4_000)}

    def port(name: str, speed: int, cable: float) -> Port:
        return _pg_port(
            name,
            {p: p for p in range(8)},
            {t: t for t in range(8)},
            pg_buffers=small,
            speed_mbps=speed,
            cable_length_m=cable,
            mtu=9100,
        )

    ports = {
        "E0": port("E0", 100_000, 5.0),
        "E1": port("E1", 100_000, 5.0),  # the same values: one computation
        "E2": port("E2", 400_000, 5.0),
        "E3": port("E3", 100_000, 300.0),
    }
    pools = {"ingress_lossless_pool": BufferPool(name="ingress_lossless_pool", lossless=True)}
    shp = {
        "ingress_lossless_pool": BufferPool(
            name="ingress_lossless_pool", lossless=True, shared_headroom_bytes=1_000_000
        )
    }
    devices = {
        name: Device(
            name=name, kind="switch", platform="t", asic="spectrum2", buffer_pools=p, ports=ports
        )
        for name, p in (("s1", pools), ("s2", shp))
    }
    fabric = Fabric(intent=Intent(), devices=devices)
    together = _as_each_alone(fabric, [HeadroomSufficient])
    expected = {(f.device, f.port): f.expected for f in together}
    assert len(expected) == 8
    assert expected["s1", "E0"] == expected["s1", "E1"]
    assert len({expected["s1", p] for p in ("E0", "E2", "E3")}) == 3
    assert expected["s1", "E0"] != expected["s2", "E0"]  # the shared headroom pool


def test_rt705_reuses_a_value_only_for_a_port_reading_the_same_objects() -> None:
    """RT705 extracts a port's value again unless the port holds the very objects of every
    field the aspect reads that the port before it held: ports that differ from the one
    before in one field (each field in turn, then back) get the values extracted from
    each of them alone, switch and NIC aspects alike."""
    from rocetune.checks.fabric_uniform import (
        _UNKNOWN,
        NIC_ASPECTS,
        SWITCH_ASPECTS,
        _device_subjects,
    )
    from rocetune.model import Watchdog

    sched = {q: Scheduler(kind="strict" if q == 6 else "dwrr", weight=10) for q in range(8)}
    e0 = Port(
        name="E0",
        dscp_to_priority={26: 3, 48: 6},
        priority_to_tc={p: p for p in range(8)},
        tc_to_queue={t: t for t in range(8)},
        schedulers=sched,
        pfc_rx=(3,),
        pfc_tx=(3,),
        watchdog=Watchdog(enabled=True, action="drop", detection_ms=200),
    )
    changes: list[dict[str, object]] = [
        {"dscp_to_priority": {26: 4, 48: 6}},
        {"pfc_rx": (3, 4)},
        {"pfc_tx": (4,)},
        {"priority_to_tc": {p: 7 - p for p in range(8)}},
        {"tc_to_queue": dict.fromkeys(range(8), 0)},
        {"schedulers": {q: Scheduler(kind="dwrr", weight=10) for q in range(8)}},
        {"watchdog": Watchdog(enabled=False)},
    ]
    ports = [e0]
    for i, change in enumerate(changes, 1):  # each differs from E0 in one field
        ports += [e0.model_copy(update={"name": f"E{2 * i - 1}", **change})]
        ports += [e0.model_copy(update={"name": f"E{2 * i}"})]  # and back
    sw = Device(name="s1", kind="switch", platform="t", ports={p.name: p for p in ports})
    nic0 = NicPort(name="eth0", dscp_to_priority={26: 3, 48: 6}, pfc_priorities=(3,))
    nics = [
        nic0,
        nic0.model_copy(update={"name": "eth1", "dscp_to_priority": {26: 4}}),
        nic0.model_copy(update={"name": "eth2", "pfc_priorities": (3, 4)}),
        nic0.model_copy(update={"name": "eth3"}),
    ]
    host = Device(name="h1", kind="host", platform="t", nics={n.name: n for n in nics})
    links = tuple(_link("s1", p.name, "x", p.name, None) for p in ports)
    fabric = Fabric(intent=Intent(), devices={"s1": sw, "h1": host}, links=links)
    ctx = _ctx(fabric)
    assert [p.name for p in ctx.roce_ports(sw)] == [p.name for p in ports]
    for dev, members, aspects, per_port in (
        (sw, ports, SWITCH_ASPECTS, False),
        (host, nics, NIC_ASPECTS, True),
    ):
        for aspect in aspects.values():
            subjects, _, _ = _device_subjects(ctx, dev, aspect, per_port)
            got = [(v, p.name) for s in subjects for v, p in s.values.items()]
            alone = [(aspect.extract(p, ctx.intent), p.name) for p in members]
            known = [(v, name) for v, name in alone if v is not _UNKNOWN]
            if not per_port:  # one subject: each value at its first port
                first: dict[object, str] = {}
                for v, name in known:
                    first.setdefault(v, name)
                known = list(first.items())
            assert got == known, aspect.label
            assert len({v for v, _ in known}) > 1 or not known, aspect.label


def test_quiet_skips_only_inputs_that_gave_nothing() -> None:
    """CheckContext.quiet: the results are computed again for inputs that gave something,
    and for other input objects; skipped for the same objects that gave nothing."""
    ctx = _ctx(Fabric())
    calls: list[str] = []
    clean, dirty = {1: 2}, {1: 3}

    def results(what: dict[int, int], name: str) -> list[str]:
        calls.append(name)
        return [name] if what[1] == 3 else []

    assert list(ctx.quiet("x", (clean,), lambda: results(clean, "a"))) == []
    assert list(ctx.quiet("x", (clean,), lambda: results(clean, "b"))) == []
    assert list(ctx.quiet("x", (dirty,), lambda: results(dirty, "c"))) == ["c"]
    assert list(ctx.quiet("x", (dirty,), lambda: results(dirty, "d"))) == ["d"]
    assert list(ctx.quiet("y", (clean,), lambda: results(clean, "e"))) == []
    assert list(ctx.quiet("x", (dict(clean),), lambda: results(clean, "f"))) == []
    assert calls == ["a", "c", "d", "e", "f"]


def test_rt401_rt402_rt403_on_ports_sharing_tables_is_what_each_port_gives_alone() -> None:
    """RT401, RT402 and RT403 skip a port whose inputs (scheduler table, maps, PFC, intent)
    are the objects of a port that gave nothing: ports sharing them, and ports that share
    all but one of them (a bad table, other maps, PFC on the CNP priority), switch and NIC
    ports alike, get what each gives alone."""
    from rocetune.checks.ets import CnpStrict, EtsWeightsValid
    from rocetune.checks.ets_share import LosslessBandwidth

    def table(weights: dict[int, float], kind: str) -> dict[int, Scheduler]:
        return {
            q: Scheduler(kind="strict", weight=0) if q == 6 else Scheduler(kind=kind, weight=w)
            for q, w in weights.items()
        }

    good = table({**dict.fromkeys(range(8), 8.0), 3: 50.0}, "dwrr")  # 98 %, queue 3 50 %
    e0 = Port(
        name="E0",
        priority_to_tc={p: p for p in range(8)},
        tc_to_queue={t: t for t in range(8)},
        schedulers=good,
        pfc_rx=(3,),
        pfc_tx=(3,),
    )
    over = {**good, 0: Scheduler(kind="dwrr", weight=60)}  # sums above 100 %
    starved = {**good, 3: Scheduler(kind="dwrr", weight=1)}  # lossless queue below 50 %
    ports = [
        e0,
        e0.model_copy(update={"name": "E1"}),
        e0.model_copy(update={"name": "E2", "schedulers": over}),
        e0.model_copy(update={"name": "E3", "schedulers": starved}),
        e0.model_copy(update={"name": "E4", "tc_to_queue": {t: 7 - t for t in range(8)}}),
        e0.model_copy(update={"name": "E5", "priority_to_tc": {p: 7 - p for p in range(8)}}),
        e0.model_copy(update={"name": "E6", "pfc_tx": (3, 6)}),
        e0.model_copy(update={"name": "E7", "pfc_rx": (3, 6)}),
        e0.model_copy(update={"name": "E8"}),
        e0.model_copy(update={"name": "E9", "schedulers": {**good, 6: Scheduler(kind="dwrr")}}),
    ]
    nic_table = table({**dict.fromkeys(range(8), 8.0), 3: 50.0, 7: 10.0}, "ets")  # 100 %
    starved_tc3 = table({3: 1.0, 7: 59.0}, "ets")  # still 100 %, TC 3 below 50 %
    nic0 = NicPort(
        name="eth0",
        priority_to_tc={p: p for p in range(8)},
        tc_scheduler=nic_table,
        pfc_priorities=(3,),
    )
    nics = [
        nic0,
        nic0.model_copy(update={"name": "eth1"}),
        nic0.model_copy(
            update={
                "name": "eth2",
                "tc_scheduler": {**nic_table, 0: Scheduler(kind="ets", weight=20)},
            }
        ),
        nic0.model_copy(update={"name": "eth3", "priority_to_tc": dict.fromkeys(range(8), 0)}),
        nic0.model_copy(update={"name": "eth4", "pfc_priorities": (3, 6)}),
        nic0.model_copy(update={"name": "eth5"}),
        nic0.model_copy(update={"name": "eth6", "tc_scheduler": {**nic_table, **starved_tc3}}),
    ]
    sw = Device(name="s1", kind="switch", platform="t", ports={p.name: p for p in ports})
    host = Device(name="h1", kind="host", platform="t", nics={n.name: n for n in nics})
    links = tuple(_link("s1", p.name, "h1", "eth0", None) for p in ports)
    rules = [EtsWeightsValid, LosslessBandwidth, CnpStrict]
    fabric = Fabric(intent=Intent(), devices={"s1": sw, "h1": host}, links=links)
    together = _as_each_alone(
        fabric,
        rules,
        lambda dev, name: tuple(lk for lk in links if dev.name == "h1" or lk.a.port == name),
    )
    found = {(f.code, f.port) for f in together}
    assert {("RT401", "E2"), ("RT402", "E3"), ("RT403", "E6"), ("RT403", "E9")} <= found
    assert {("RT401", "eth2"), ("RT402", "eth6")} <= found
    assert {p for _, p in found} >= {"E2", "E3", "E4", "E5", "E6", "E7", "eth2", "eth3", "eth4"}
    assert not {p for _, p in found} & {"E0", "E1", "E8", "eth0", "eth1", "eth5"}


def test_rt304_rt305_on_ports_sharing_inputs_is_what_each_port_gives_alone() -> None:
    """RT304 and RT305 skip a port whose inputs are those of a port that gave nothing: ports
    sharing them, and ports that differ in one of them (speed, ECN profiles, PG profiles,
    each map, the device's buffer pools) get what each gives alone."""
    from rocetune.checks.ecn_thresholds import EcnBeforePfc, EcnThresholdScale
    from rocetune.model import BufferPool, BufferProfile, EcnProfile

    def ecn(kmax: int) -> EcnProfile:
        return EcnProfile(ecn_mark=True, min_threshold_bytes=500_000, max_threshold_bytes=kmax)

    ident = {t: t for t in range(8)}
    e0 = Port(
        name="E0",
        speed_mbps=100_000,
        ecn={3: ecn(1_500_000), 4: ecn(6_000_000)},  # queue 4 marks too late
        pg_buffers={
            3: BufferProfile(pool="p", alpha=1.0, xoff_bytes=1),
            4: BufferProfile(pool="p", alpha=0.1, xoff_bytes=1),  # XOFF at ~909 KB
        },
        priority_to_tc=ident,
        tc_to_queue=ident,
        tc_to_pg=ident,
        pfc_rx=(3,),
        pfc_tx=(3,),
    )
    to4 = {**ident, 3: 4}
    variants: list[dict[str, object]] = [
        {},
        {"speed_mbps": 25_000},
        {"ecn": {3: ecn(6_000_000)}},
        {"pg_buffers": {3: BufferProfile(pool="p", alpha=0.1, xoff_bytes=1)}},
        {"priority_to_tc": to4},
        {"tc_to_queue": to4},
        {"tc_to_pg": to4},
        {},
    ]
    ports = {f"E{i}": e0.model_copy(update={"name": f"E{i}", **v}) for i, v in enumerate(variants)}
    devices = {
        name: Device(
            name=name,
            kind="switch",
            platform="t",
            buffer_pools={"p": BufferPool(name="p", size_bytes=size)},
            ports=ports,
        )
        for name, size in (("s1", 10_000_000), ("s2", 1_000_000))  # s2: XOFF at 500 KB
    }
    rules = [EcnThresholdScale, EcnBeforePfc]
    together = _as_each_alone(Fabric(intent=Intent(), devices=devices), rules)
    found = {(f.code, f.device, f.port) for f in together}
    s1 = {(code, port) for code, dev, port in found if dev == "s1"}
    assert {("RT304", "E1"), ("RT304", "E2"), ("RT305", "E2"), ("RT305", "E3")} <= s1
    assert {("RT305", "E4"), ("RT305", "E5"), ("RT305", "E6")} <= s1
    assert not {port for _, port in s1} & {"E0", "E7"}
    assert {("RT305", "s2", "E0"), ("RT305", "s2", "E7")} <= found


def test_rt502_rt505_on_ports_sharing_inputs_is_what_each_port_gives_alone() -> None:
    """RT502 and RT505 skip a port whose inputs are those of a port that gave nothing: ports
    sharing them, and ports or devices that differ in one of them (PG and queue profiles,
    each map, the buffer pools, the ASIC) get what each gives alone."""
    from rocetune.checks.buffer_limits import LosslessPool
    from rocetune.checks.buffers import XonXoffOrder
    from rocetune.model import BufferPool, BufferProfile

    def pg(xon: int, xoff: int, size: int, pool: str = "ing") -> BufferProfile:
        return BufferProfile(pool=pool, xon_bytes=xon, xoff_bytes=xoff, size_bytes=size)

    def queue(static: int) -> BufferProfile:
        return BufferProfile(pool="eg", static_th_bytes=static)

    ident = {t: t for t in range(8)}
    to4 = {**ident, 3: 4}
    good = pg(1_000, 50_000, 60_000)
    bad = pg(50_000, 50_000, 200_000, pool="eg")  # xon >= xoff, in an egress pool
    e0 = Port(
        name="E0",
        priority_to_tc=ident,
        tc_to_pg=ident,
        tc_to_queue=ident,
        pg_buffers={3: good, 4: bad},
        queue_buffers={3: queue(10_000_000), 4: queue(1_000)},  # queue 4 capped small
        pfc_rx=(3,),
        pfc_tx=(3,),
    )
    variants: list[dict[str, object]] = [
        {},
        {"pg_buffers": {3: pg(50_000, 50_000, 200_000)}},
        {"pg_buffers": {3: pg(1_000, 50_000, 2_000)}},  # size < xon + xoff
        {"pg_buffers": {3: pg(1_000, 50_000, 60_000, pool="eg")}},  # an egress pool
        {"queue_buffers": {3: queue(1_000)}},
        {"tc_to_pg": to4},
        {"priority_to_tc": to4},
        {"tc_to_queue": to4},
        {},
    ]
    ports = {f"E{i}": e0.model_copy(update={"name": f"E{i}", **v}) for i, v in enumerate(variants)}
    eg = BufferPool(name="eg", direction="egress", size_bytes=10_000_000, lossless=True)

    def ing(shared: int, lossless: bool) -> BufferPool:
        return BufferPool(
            name="ing", direction="ingress", shared_headroom_bytes=shared, lossless=lossless
        )

    s1 = Device(
        name="s1",
        kind="switch",
        platform="t",
        asic="spectrum2",
        buffer_pools={"ing": ing(0, True), "eg": eg},
        ports=ports,
    )
    s2 = s1.model_copy(  # a shared headroom pool, lossy
        update={"name": "s2", "buffer_pools": {"ing": ing(1_000_000, False), "eg": eg}}
    )
    s3 = s1.model_copy(update={"name": "s3", "asic": "broadcom"})  # s1's pools
    # the devices where a port has nothing to say come before s1, where it has
    devices = {"s3": s3, "s2": s2, "s1": s1}
    rules = [XonXoffOrder, LosslessPool]
    together = _as_each_alone(Fabric(intent=Intent(), devices=devices), rules)
    found = {(f.code, f.device, f.port) for f in together}
    on_s1 = {(code, port) for code, dev, port in found if dev == "s1"}
    assert {("RT502", "E1"), ("RT502", "E2"), ("RT505", "E3"), ("RT505", "E4")} <= on_s1
    assert {("RT502", "E5"), ("RT505", "E5"), ("RT502", "E6"), ("RT505", "E7")} <= on_s1
    assert not {port for _, port in on_s1} & {"E0", "E8"}
    assert ("RT502", "s2", "E2") not in found  # the shared headroom model
    assert ("RT502", "s3", "E2") not in found  # Broadcom
    assert {("RT505", "s2", "E0"), ("RT505", "s2", "E8")} <= found  # a lossy pool
