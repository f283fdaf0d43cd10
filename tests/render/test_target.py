"""The vendor-neutral target: class plan, headroom, ECN, watchdog, NIC settings, reasons."""

from __future__ import annotations

import pytest

from rocetune.model import Intent, NicPort, Port
from rocetune.tune.classes import TargetError, class_plan
from rocetune.tune.ecn import scaled_thresholds
from rocetune.tune.headroom import HeadroomInputs, asic_constants, compute_headroom
from rocetune.tune.target import device_target, link_lengths
from tests.render.fabrics import fabric, switch


def test_class_plan_of_the_default_intent() -> None:
    plan = class_plan(Intent())
    assert plan.dscp_to_priority[26] == 3
    assert plan.dscp_to_priority[48] == 6
    assert {d for d, p in plan.dscp_to_priority.items() if p != 0} == {26, 48}
    assert len(plan.dscp_to_priority) == 64
    assert plan.tc_to_pg == {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 0, 7: 0}
    weights = {tc: (s.kind, s.weight_pct) for tc, s in plan.schedulers.items()}
    assert weights == {0: ("dwrr", 50), 3: ("dwrr", 50), 6: ("strict", None)}


def test_two_lossless_priorities_share_the_lossless_bandwidth() -> None:
    intent = Intent(lossless_priorities=(3, 4), roce_dscp=(26, 34), lossless_min_bandwidth_pct=51)
    plan = class_plan(intent)
    assert plan.dscp_to_priority[26] == 3
    assert plan.dscp_to_priority[34] == 4
    weights = {tc: s.weight_pct for tc, s in plan.schedulers.items()}
    assert weights == {0: 49, 3: 26, 4: 25, 6: None}
    assert plan.tc_to_pg[4] == 4


@pytest.mark.parametrize(
    ("intent", "fragment"),
    [
        (Intent(lossless_priorities=(3, 6)), "CNP priority 6 is also a lossless priority"),
        (Intent(lossless_priorities=(0, 3)), "priority 0 is the default lossy class"),
        (Intent(cnp={"dscp": 48, "priority": 0}), "CNP priority 0 is the default lossy class"),
        (Intent(lossless_priorities=(2, 3, 4)), "exceed intent.max_lossless_priorities 2"),
    ],
)
def test_contradictory_intents_are_refused(intent: Intent, fragment: str) -> None:
    with pytest.raises(TargetError, match=fragment):
        class_plan(intent)


def test_port_values_equal_the_calculators() -> None:
    intent = Intent()
    dev = switch("sonic", 100_000, asic="spectrum2")
    target = device_target(dev, intent, fabric(dev, 47).links)
    port = target.ports["Ethernet0"]
    # the tuner sizes with the computation RT501 checks against: SONiC's default traffic
    # pattern (1024 B lossless MTU, 50 % small packets) when the device holds none
    expected = compute_headroom(
        HeadroomInputs(
            speed_mbps=100_000, cable_m=47, port_mtu=9216, lossless_mtu=1024, small_packet_pct=50
        ),
        asic_constants("spectrum2"),
    )
    assert (port.headroom.xoff, port.headroom.xon, port.headroom.size) == (
        expected.xoff,
        expected.xon,
        expected.size,
    )
    assert (port.ecn.kmin_bytes, port.ecn.kmax_bytes) == scaled_thresholds(100_000, 100, 400)
    assert (port.ecn.kmin_bytes, port.ecn.kmax_bytes) == (400_000, 1_600_000)
    assert port.ecn.probability_pct == 20
    assert port.cable_m == 47
    whats = {r.what for r in port.reasons}
    assert {"lossless PG xoff", "lossless PG xon", "ECN Kmin", "ECN Kmax", "cable length"} <= whats


def test_unknown_asic_gives_an_estimate_with_a_stated_xon() -> None:
    dev = switch("cumulus", 400_000)
    port = device_target(dev, Intent(), fabric(dev, 30).links).ports["swp1"]
    assert port.headroom.result.estimate
    assert port.headroom.xon == 2 * 9216
    assert port.headroom.size == port.headroom.xoff + port.headroom.xon
    xon = next(r for r in port.reasons if r.what == "lossless PG xon")
    assert "2 x port MTU 9216" in xon.why


def test_cable_from_link_then_configured_else_left_out() -> None:
    dev = switch("sonic", 100_000, asic="spectrum3")
    ports = dict(dev.ports)
    ports["Ethernet8"] = Port(name="Ethernet8", speed_mbps=100_000, cable_length_m=5)
    ports["Ethernet16"] = Port(name="Ethernet16", speed_mbps=100_000)
    ports["Ethernet24"] = Port(name="Ethernet24", cable_length_m=5)
    dev = dev.model_copy(update={"ports": ports})
    links = fabric(dev, 12.2).links[:1]  # only Ethernet0 is cabled
    target = device_target(dev, Intent(), links)
    assert target.ports["Ethernet0"].cable_m == 13  # rounded up to whole metres
    assert target.ports["Ethernet8"].cable_m == 5
    assert set(target.ports) == {"Ethernet0", "Ethernet8"}
    assert target.problems == (
        "port Ethernet16 left out: its cable length is not known",
        "port Ethernet24 left out: its speed is not known",
    )


def test_link_lengths_take_the_longest_link() -> None:
    dev = switch("sonic", 100_000)
    links = (*fabric(dev, 10).links, *fabric(dev, 40).links[:1])
    assert link_lengths("sw1", links) == {"Ethernet0": 40, "Ethernet8": 10}


def test_watchdog_poll_never_exceeds_the_timers() -> None:
    intent = Intent(pfc_watchdog={"detection_ms": 50, "restoration_ms": 400, "action": "drop"})
    target = device_target(switch("sonic", 100_000), intent)
    assert target.watchdog.poll_ms == 50
    assert device_target(switch("sonic", 100_000), Intent()).watchdog.poll_ms == 100


def test_nic_target() -> None:
    dev = switch("sonic", 100_000).model_copy(
        update={"kind": "host", "ports": {}, "nics": {"eth2": NicPort(name="eth2")}}
    )
    intent = Intent(lossless_priorities=(3, 4))
    target = device_target(dev, intent, fabric(dev.model_copy(update={"ports": {}}), 3).links)
    nic = target.nics["eth2"]
    assert nic.pfc == (False, False, False, True, True, False, False, False)
    assert nic.roce_tos == 106  # DSCP 26 << 2 | ECT(0)
    assert (nic.cnp_dscp, nic.cnp_priority, nic.mtu) == (48, 6, 9000)
    assert nic.dcqcn_priorities == (3, 4)
    assert nic.cable_m is None  # no link ends at eth2
    none = device_target(dev, intent.model_copy(update={"congestion_control": "none"}))
    assert none.nics["eth2"].dcqcn_priorities == ()
