"""Classification, queuing and network-qos semantics, and RT001 on QoS lines not understood."""

from __future__ import annotations

from pathlib import Path

from rocetune.model import EcnProfile, Scheduler
from tests.platforms.nxos.nxos_helpers import ALL_ZERO, BLUEPRINT_QOS, device, port, unparsed

IFACE = "interface Ethernet1/1\n  priority-flow-control mode on\n"
BIND = "  service-policy type qos input P\n"


def _classify(classes: str, class_maps: str = "") -> tuple[str | None, dict[int, int] | None]:
    text = f"{class_maps}policy-map type qos P\n{classes}interface Ethernet1/1\n{BIND}"
    got = port(text)
    return got.trust, got.dscp_to_priority


def test_first_matching_class_wins_and_class_default_catches_the_rest() -> None:
    maps = (
        "class-map type qos match-any A\n  match dscp 26,46\n"
        "class-map type qos match-any B\n  match dscp 26-27\n"
        "class-map match-any C\n  match precedence 6\n"
    )
    classes = (
        "  class A\n    set qos-group 3\n"
        "  class B\n    set qos-group 5\n"
        "  class type qos C\n    set qos-group 7\n"
        "  class class-default\n    set qos-group 1\n"
    )
    trust, dmap = _classify(classes, maps)
    assert trust == "dscp"
    expected = dict.fromkeys(range(64), 1)
    expected.update({26: 3, 46: 3, 27: 5, **dict.fromkeys(range(48, 56), 7)})
    assert dmap == expected


def test_class_without_set_qos_group_keeps_qos_group_0() -> None:
    maps = "class-map type qos A\n  match dscp ef\nclass-map type qos B\n  match dscp 46\n"
    classes = "  class A\n  class B\n    set qos-group 5\n"
    assert _classify(classes, maps) == ("dscp", ALL_ZERO)


def test_trust_from_the_criteria() -> None:
    cos_map = "class-map type qos K\n  match cos 3\n"
    both = cos_map + "class-map type qos D\n  match dscp 26\n"
    assert _classify("  class K\n    set qos-group 3\n", cos_map) == ("pcp", ALL_ZERO)
    trust, dmap = _classify(
        "  class K\n    set qos-group 3\n  class D\n    set qos-group 4\n", both
    )
    assert trust == "both"
    assert dmap == {**ALL_ZERO, 26: 4}
    assert _classify("  class class-default\n    set qos-group 2\n") == (
        "port",
        dict.fromkeys(range(64), 2),
    )


def test_no_policy_means_port_trust_and_qos_group_0() -> None:
    got = port("interface Ethernet1/1\n  mtu 9216\n")
    assert (got.trust, got.dscp_to_priority) == ("port", ALL_ZERO)
    builtin = "system qos\n  service-policy type qos input default-in-policy\n"
    got = port(builtin + "interface Ethernet1/1\n")
    assert (got.trust, got.dscp_to_priority) == ("port", ALL_ZERO)
    assert unparsed(builtin) == []


def test_interface_policy_replaces_the_system_policy() -> None:
    text = (
        "class-map type qos R\n  match dscp 26\n"
        "policy-map type qos SYS\n  class R\n    set qos-group 3\n"
        "policy-map type qos OWN\n  class R\n    set qos-group 4\n"
        "system qos\n  service-policy type qos input SYS\n"
        "interface Ethernet1/1\n"
        "interface Ethernet1/2\n  service-policy type qos input OWN\n"
        "interface Ethernet1/3\n  service-policy input OWN\n"
    )
    ports = device(text).ports
    assert {n: p.dscp_to_priority[26] for n, p in ports.items() if p.dscp_to_priority} == {
        "Ethernet1/1": 3,
        "Ethernet1/2": 4,
        "Ethernet1/3": 4,
    }


def test_undefined_policy_and_class_map_are_reported_and_unknown() -> None:
    text = (
        "policy-map type qos P\n  class MISSING\n    set qos-group 3\n"
        "interface Ethernet1/1\n  service-policy type qos input NOPE\n"
        "interface Ethernet1/2\n  service-policy type qos input P\n"
    )
    dev = device(text)
    assert dev.ports["Ethernet1/1"].trust is None
    assert dev.ports["Ethernet1/1"].dscp_to_priority is None
    assert dev.ports["Ethernet1/2"].trust == "port"
    assert [(u.line, u.item) for u in dev.unparsed] == [
        (2, "class MISSING"),
        (5, "service-policy type qos input NOPE"),
    ]


def test_remarks_are_facts() -> None:
    text = (
        "class-map type qos R\n  match dscp 26\n"
        "policy-map type qos P\n  class R\n    set qos-group 3\n    set dscp af41\n"
        "    set cos 3\n  class class-default\n    set precedence 1\n"
    )
    dev = device(text)
    assert dev.unparsed == ()
    assert {k: v for k, v in dev.facts.items() if k.startswith("nxos.remark")} == {
        "nxos.remark.P.R": "set dscp af41; set cos 3",
        "nxos.remark.P.class-default": "set precedence 1",
    }


def test_match_all_and_unevaluable_criteria() -> None:
    maps = (
        "class-map type qos match-all A\n  match dscp 24-27\n  match dscp 26,30\n"
        "class-map type qos match-all B\n  match dscp 46\n  match cos 5\n"
        "class-map type qos match-any C\n  match access-group name ACL\n  match dscp 10\n"
    )
    classes = "  class A\n    set qos-group 3\n  class B\n    set qos-group 5\n"
    classes += "  class C\n    set qos-group 1\n"
    trust, dmap = _classify(classes, maps)
    assert trust == "both"
    assert dmap == {**ALL_ZERO, 26: 3, 46: 5, 10: 1}
    items = unparsed(maps + "policy-map type qos P\n" + classes)
    assert items == [(4, "class-map type qos match-all B"), (8, "match access-group name ACL")]


def _egress(actions: str) -> tuple[object, object, list[tuple[int | None, str]]]:
    text = (
        "policy-map type queuing Q\n  class type queuing c-out-8q-q3\n"
        f"{actions}system qos\n  service-policy type queuing output Q\n"
        "interface Ethernet1/1\n"
    )
    got = port(text)
    return got.ecn, got.schedulers, unparsed(text)


def test_wred_ecn_forms() -> None:
    line = "    random-detect minimum-threshold 1 mbytes maximum-threshold 3000000 bytes"
    ecn, _, issues = _egress(f"{line} drop-probability 5 weight 0\n")
    assert ecn == {
        3: EcnProfile(
            name="Q",
            ecn_mark=False,
            red_drop=True,
            min_threshold_bytes=1_000_000,
            max_threshold_bytes=3_000_000,
            max_probability_pct=5.0,
        )
    }
    assert issues == []
    ecn, _, issues = _egress(
        "    random-detect minimum-threshold 10 packets maximum-threshold 20 packets"
        " drop-probability 5 weight 0 ecn\n"
    )
    # with ecn: what non-ECT packets get is not documented -> unknown
    assert ecn == {3: EcnProfile(name="Q", ecn_mark=True, red_drop=None, max_probability_pct=5.0)}
    assert [line for line, _ in issues] == [3]


def test_burst_optimized_and_non_ecn_threshold() -> None:
    ecn, _, issues = _egress(
        "    random-detect threshold burst-optimized ecn\n"
        "    random-detect non-ecn threshold 500 kbytes\n"
    )
    assert ecn == {3: EcnProfile(name="Q", ecn_mark=True, red_drop=None)}
    assert issues == []
    text = (
        "policy-map type queuing Q\n  class type queuing c-out-8q-q3\n"
        "    random-detect threshold mesh-optimized ecn\n"
    )
    assert device(text).facts["nxos.wred.Q.q3"] == "mesh-optimized"


def test_schedulers() -> None:
    _, sched, issues = _egress("    bandwidth percent 20\n")
    assert sched == {3: Scheduler(name="Q", kind="dwrr", weight=20.0)}
    _, sched, _ = _egress("    priority level 1\n    bandwidth remaining percent 14\n")
    assert sched == {3: Scheduler(name="Q", kind="strict", weight=14.0)}
    _, sched, _ = _egress("    priority\n")
    assert sched == {3: Scheduler(name="Q", kind="strict", weight=None)}
    _, sched, issues = _egress("    shape min 0 gbps max 10 gbps\n    queue-limit 100 kbytes\n")
    assert sched == {}
    assert issues == [(3, "shape min 0 gbps max 10 gbps"), (4, "queue-limit 100 kbytes")]


def test_queue_classes() -> None:
    text = (
        "class-map type queuing match-any c-out-8q-q6\n  match qos-group 6\n"
        "policy-map type queuing Q\n"
        "  class type queuing c-out-8q-q6\n    bandwidth remaining percent 10\n"
        "  class type queuing c-out-q-default\n    bandwidth remaining percent 20\n"
        "  class type queuing c-out-q2\n    bandwidth remaining percent 30\n"
        "  class type queuing c-in-q1\n    bandwidth percent 50\n"
        "  class type queuing weird\n    bandwidth percent 5\n"
        "interface Ethernet1/1\n  service-policy type queuing output Q\n"
    )
    got = port(text)
    assert {q: s.weight for q, s in (got.schedulers or {}).items()} == {0: 20.0, 2: 30.0, 6: 10.0}
    assert unparsed(text) == [
        (11, "bandwidth percent 50"),
        (12, "class type queuing weird"),
        (13, "bandwidth percent 5"),
    ]


def test_no_queuing_policy_means_the_default_policy() -> None:
    got = port("interface Ethernet1/1\n")
    assert (got.ecn, got.schedulers) == ({}, None)
    text = "system qos\n  service-policy type queuing output default-8q-out-policy\n"
    got = port(text + "interface Ethernet1/1\n")
    assert (got.ecn, got.schedulers) == ({}, None)
    assert unparsed(text) == []
    text = "system qos\n  service-policy type queuing output MISSING\ninterface Ethernet1/1\n"
    got = port(text)
    assert (got.ecn, got.schedulers) == (None, None)
    assert unparsed(text) == [(2, "service-policy type queuing output MISSING")]


def _network(classes: str, class_maps: str = "") -> tuple[object, object, object, object]:
    text = (
        f"{class_maps}policy-map type network-qos NQ\n{classes}"
        "system qos\n  service-policy type network-qos NQ\n"
        "interface Ethernet1/1\n  mtu 9216\n  priority-flow-control mode on\n"
    )
    got = port(text)
    mtu = got.mtu if got.class_mtu is None else min(got.mtu or 0, got.class_mtu)
    return got.pfc_rx, got.pfc_priority_to_queue, mtu, unparsed(text)


def test_pause_forms() -> None:
    assert _network("  class type network-qos c-8q-nq3\n    pause pfc-cos 3\n") == (
        (3,),
        {3: 3},
        9216,
        [],
    )
    cos4 = "  class type network-qos c-8q-nq3\n    pause pfc-cos 4\n    mtu 4200\n"
    assert _network(cos4) == ((4,), {4: 3}, 4200, [])
    cmap = "class-map type network-qos match-any ND\n  match qos-group 2\n  match cos 2\n"
    assert _network("  class type network-qos ND\n    pause no-drop\n", cmap) == (
        (2,),
        {2: 2},
        9216,
        [],
    )
    buffer = "    pause buffer-size 100 pause-threshold 80 resume-threshold 60 pfc-cos 3\n"
    rx, _, _, issues = _network(f"  class type network-qos c-8q-nq3\n{buffer}")
    assert (rx, issues) == ((3,), [])  # the N9K network-qos form is read (no RT001)
    bad = "    pause buffer-size 100 pause-threshold 80 pfc-cos 3\n"
    rx, _, _, issues = _network(f"  class type network-qos c-8q-nq3\n{bad}")
    assert (rx, issues) == ((3,), [(3, bad.strip())])  # a form not understood stays RT001


NQ_BUFFER = (
    "policy-map type network-qos NQ\n"
    "  class type network-qos c-8q-nq3\n"
    "    pause buffer-size 100000 pause-threshold 60000 resume-threshold 40000 pfc-cos 3\n"
    "    mtu 9216\n"
    "system qos\n  service-policy type network-qos NQ\n"
)


def test_network_qos_pause_buffer_is_every_ports_pg_buffer() -> None:
    text = NQ_BUFFER + "interface Ethernet1/1\n  priority-flow-control mode on\n"
    got = port(text)
    pg = (got.pg_buffers or {})[3]
    assert (pg.size_bytes, pg.pause_threshold_bytes, pg.xon_bytes, pg.xoff_bytes) == (
        100_000,
        60_000,
        40_000,
        40_000,
    )
    assert got.pfc_priority_to_queue == {3: 3}


def test_input_queuing_pause_buffer_wins_over_network_qos() -> None:
    text = NQ_BUFFER + (
        "class-map type queuing match-any RDMA\n  match qos-group 3\n"
        "policy-map type queuing IN\n  class type queuing RDMA\n"
        "    pause buffer-size 90000 pause-threshold 50000 resume-threshold 30000\n"
        "interface Ethernet1/1\n  priority-flow-control mode on\n"
        "  service-policy type queuing input IN\n"
    )
    pg = (port(text).pg_buffers or {})[3]
    assert (pg.size_bytes, pg.pause_threshold_bytes, pg.xon_bytes) == (90_000, 50_000, 30_000)


def test_no_drop_class_without_cos_is_unknown() -> None:
    got = _network("  class type network-qos c-8q-nq3\n    pause no-drop\n")
    assert got == (None, None, 9216, [(3, "pause no-drop")])


def test_no_pause_and_four_queue_templates() -> None:
    text = (
        "policy-map type network-qos NQ\n  class type network-qos c-nq1\n    no pause\n"
        "  class type network-qos c-nq2\n    pause pfc-cos 2\n"
        "system qos\n  service-policy type network-qos NQ\n"
        "interface Ethernet1/1\n  priority-flow-control mode on\n"
    )
    dev = device(text)
    got = dev.ports["Ethernet1/1"]
    assert (got.pfc_rx, got.pfc_priority_to_queue) == ((2,), {2: 2})
    assert got.priority_to_tc == {n: n for n in range(4)}
    assert dev.facts["nxos.queues"] == "4"


def test_unknown_qos_lines_are_rt001() -> None:
    text = (
        BLUEPRINT_QOS
        + "qos copy policy-map type qos P Q\n"
        + "hardware qos ns-buffer-profile burst\n"
        + "priority-flow-control watch-dog internal-interface-multiplier 20\n"
        + "table-map T\n  default copy\n"
        + "class-map type qos match-first X\n  match dscp 1\n"
        + "policy-map type qos QOS_CLASSIFICATION\n  class CNP\n    police cir 1 gbps\n"
        + "policy-map type network-qos NQ\n  class type network-qos c-8q-nq3\n"
        + "    multicast-optimize\n"
        + "interface Ethernet1/1\n  priority-flow-control mode foo\n  mls qos trust dscp\n"
        + "  qos trust dscp\n  service-policy type network-qos NQ\n  flowcontrol receive maybe\n"
        + "  ip address 10.0.0.1/31\n  bandwidth 10000\n  no ip redirects\n"
    )
    assert unparsed(text) == [
        (16, "qos copy policy-map type qos P Q"),
        (17, "hardware qos ns-buffer-profile burst"),
        (18, "priority-flow-control watch-dog internal-interface-multiplier 20"),
        (19, "table-map T"),
        (20, "default copy"),
        (21, "class-map type qos match-first X"),
        (25, "police cir 1 gbps"),
        (28, "multicast-optimize"),
        (30, "priority-flow-control mode foo"),
        (31, "mls qos trust dscp"),
        (32, "qos trust dscp"),
        (33, "service-policy type network-qos NQ"),
        (34, "flowcontrol receive maybe"),
    ]


def test_network_qos_pause_buffer_feeds_rt501_rt502(tmp_path: Path) -> None:
    from rocetune import api

    body = (
        "interface Ethernet1/1\n  priority-flow-control mode on\n  mtu 9216\n"
        "  service-policy type qos input Q\n"
    )
    qos = (
        "class-map type qos match-all ROCE\n  match dscp 26\n"
        "policy-map type qos Q\n  class ROCE\n    set qos-group 3\n"
    )
    good = tmp_path / "good.cfg"
    good.write_text(qos + NQ_BUFFER + body)
    codes = {f.code for f in api.lint([good], platform="nxos").findings}
    assert "RT502" not in codes
    # resume above pause: the order RT502 checks (R < P < B) is broken
    bad = tmp_path / "bad.cfg"
    bad.write_text(
        qos + NQ_BUFFER.replace("resume-threshold 40000", "resume-threshold 70000") + body
    )
    found = [f for f in api.lint([bad], platform="nxos").findings if f.code == "RT502"]
    assert [(f.port, f.severity.value) for f in found] == [("Ethernet1/1", "error")]
    # the headroom B - P (40 000 B) is judged against an estimate: at most a warning
    rt501 = [f for f in api.lint([good], platform="nxos").findings if f.code == "RT501"]
    assert all(f.severity.value != "error" for f in rt501)
