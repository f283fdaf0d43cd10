"""Exact model values for every hand-written Cumulus fixture."""

from __future__ import annotations

from rocetune.model import BufferPool, BufferProfile, EcnProfile, Scheduler, Watchdog
from tests.platforms.cumulus.cumulus_helpers import (
    DSCP_DEFAULT,
    ROCE_SP_TO_TC,
    parse_fixture,
)


def _ecn(
    name: str, low: int | None, high: int | None, *, red: bool = False, prob: float | None = 100.0
) -> EcnProfile:
    return EcnProfile(
        name=name,
        ecn_mark=True,
        red_drop=red,
        min_threshold_bytes=low,
        max_threshold_bytes=high,
        max_probability_pct=prob,
    )


ROCE_ECN = {
    0: _ecn("default-global", 150_000, 1_500_000),
    3: _ecn("default-global", 150_000, 1_500_000),
}
ROCE_ETS = {
    0: Scheduler(name="default-global", kind="dwrr", weight=50.0),
    3: Scheduler(name="default-global", kind="dwrr", weight=50.0),
    6: Scheduler(name="default-global", kind="strict", weight=None),
}
NVUE_ETS = {
    tc: Scheduler(name="default-global", kind="dwrr", weight=12.0 if tc % 2 == 0 else 13.0)
    for tc in range(8)
}


def test_roce_leaf_ports() -> None:
    """The whole model is the parser golden cumulus/roce_leaf_config_only; the decisions:"""
    result = parse_fixture("roce_leaf.yaml", "leaf01")
    dev = result.device
    assert list(dev.ports) == ["swp1", "swp2", "swp3", "swp4", "swp31", "swp32"]
    for port in dev.ports.values():  # `qos roce` alone: its documented expansion
        assert (port.trust, port.mtu, port.pfc_rx, port.pfc_tx) == ("both", 9216, (3,), (3,))
        assert port.priority_to_tc == ROCE_SP_TO_TC
        assert port.tc_to_pg == {0: 0, 3: 3, 6: 6}
        assert (port.ecn, port.schedulers) == (ROCE_ECN, ROCE_ETS)
        assert port.pg_buffers == {
            3: BufferProfile(
                name="default-global", pool="roce-lossless", alpha=1.0, computed_at_runtime=True
            )
        }
        assert port.cable_length_m == 100.0
    watchdog = Watchdog(enabled=True, detection_ms=300.0, restoration_ms=100.0, action="drop")
    for name in ("swp1", "swp2", "swp3", "swp4"):
        assert (dev.ports[name].speed_mbps, dev.ports[name].watchdog) == (100_000, watchdog)
    for name in ("swp31", "swp32"):
        assert (dev.ports[name].speed_mbps, dev.ports[name].watchdog) == (
            None,
            Watchdog(enabled=False),
        )


def test_roce_leaf_device() -> None:
    dev = parse_fixture("roce_leaf.yaml", "leaf01").device
    assert dev.name == "leaf01"
    assert dev.kind == "switch"
    assert dev.platform == "cumulus"
    assert dev.role == "leaf"
    assert dev.hostname == "leaf01"
    assert dev.unparsed == ()
    assert dev.watchdog_poll_ms == 100.0
    assert dev.buffer_pools == {
        "default-lossy": BufferPool(name="default-lossy", percent=None, lossless=False),
        "roce-lossless": BufferPool(name="roce-lossless", percent=None, lossless=True),
    }
    assert dev.facts["nvue.roce_mode"] == "lossless"
    assert dev.facts["nvue.version"] == "Cumulus Linux 5.9.1"
    assert dev.facts["nvue.source"] == "yaml"


def test_roce_leaf_provenance() -> None:
    prov = parse_fixture("roce_leaf.yaml").provenance
    lines = {path: ref.line for path, ref in prov.refs.items()}
    assert lines[""] == 1
    assert lines["ports.swp1"] == 24  # the `swp1-4:` key
    assert lines["ports.swp31"] == 33  # the `swp31,32:` key
    assert lines["ports.swp1.mtu"] == 26
    assert lines["ports.swp1.speed_mbps"] == 27
    assert lines["ports.swp1.admin_up"] == 28
    assert lines["ports.swp1.watchdog"] == 31
    assert lines["ports.swp1.pfc_rx"] == 40  # inherited from `roce:`
    assert lines["ports.swp1.ecn"] == 40
    assert lines["hostname"] == 44
    ref = prov.lookup("ports.swp31.speed_mbps")  # nothing configured: falls back to the port
    assert ref is not None
    assert ref.line == 33
    assert ref.file.endswith("roce_leaf.yaml")


def test_explicit_profiles_leaf() -> None:
    """The whole model is the parser golden cumulus/explicit_profiles_leaf; the decisions:"""
    dev = parse_fixture("explicit_profiles_leaf.yaml", "leaf02").device
    assert list(dev.ports) == ["swp1", "swp2", "swp3", "swp5", "swp6"]
    dscp = {**DSCP_DEFAULT, **dict.fromkeys(range(24, 32), 0), 26: 3, 48: 6}
    for name in ("swp1", "swp2"):  # the named lossless profiles they bind
        port = dev.ports[name]
        assert (port.trust, port.dscp_to_priority) == ("dscp", dscp)
        assert (port.speed_mbps, port.mtu, port.admin_up) == (400_000, 9216, None)
        assert (port.pfc_rx, port.cable_length_m) == ((3,), 5.0)
        assert port.ecn == {3: _ecn("roce-ecn", 150_000, 1_500_000)}
        assert port.schedulers == {
            0: Scheduler(name="roce-ets", kind="dwrr", weight=50.0),
            3: Scheduler(name="roce-ets", kind="dwrr", weight=50.0),
            6: Scheduler(name="roce-ets", kind="strict"),
        }
        assert port.pg_buffers == {
            3: BufferProfile(
                name="roce-pfc",
                pool="default-lossless",
                size_bytes=70_000,
                xoff_bytes=18_000,
                xon_bytes=2_000,
                alpha=2.0,
            )
        }
    assert dev.ports["swp1"].watchdog == Watchdog(
        enabled=True, detection_ms=1000.0, restoration_ms=200.0, action="drop"
    )
    assert dev.ports["swp2"].watchdog == Watchdog(enabled=False)
    for name in ("swp3", "swp5", "swp6"):  # no profile: the NVUE defaults
        port = dev.ports[name]
        assert (port.trust, port.pfc_rx, port.schedulers) == ("pcp", (), NVUE_ETS)
        assert port.ecn == {0: _ecn("default-global", 150_000, 1_500_000)}
    swp3 = dev.ports["swp3"]
    assert (swp3.speed_mbps, swp3.mtu, swp3.admin_up) == (25_000, 9216, False)
    assert dev.ports["swp5"].mtu == dev.ports["swp6"].mtu == 9000  # the bond's MTU
    assert dev.hostname == "leaf02"
    assert dev.unparsed == ()
    assert dev.watchdog_poll_ms == 200.0
    assert dev.buffer_pools == {
        "default-lossless": BufferPool(name="default-lossless", percent=50.0, lossless=True),
        "default-lossy": BufferPool(name="default-lossy", percent=50.0, lossless=False),
    }
    assert dev.facts["nvue.roce_mode"] == "off"


def test_explicit_profiles_provenance() -> None:
    prov = parse_fixture("explicit_profiles_leaf.yaml").provenance
    lines = {path: ref.line for path, ref in prov.refs.items()}
    assert lines["ports.swp1"] == 21  # first key naming swp1
    assert lines["ports.swp2"] == 25  # `swp1-2:`
    assert lines["ports.swp5"] == 13  # the bond `bond1:`
    assert lines["ports.swp5.mtu"] == 19  # the bond's `mtu: 9000`
    assert lines["ports.swp1.trust"] == 76  # profile roce-l3 `trust: l3`
    assert lines["ports.swp1.dscp_to_priority"] == 69
    assert lines["ports.swp1.pfc_rx"] == 81
    assert lines["ports.swp1.pfc_tx"] == 84
    assert lines["ports.swp1.cable_length_m"] == 79
    assert lines["ports.swp1.pg_buffers"] == 80
    assert lines["ports.swp1.ecn"] == 52
    assert lines["ports.swp1.schedulers"] == 61
    assert lines["ports.swp1.watchdog"] == 23
    assert lines["watchdog_poll_ms"] == 88
    assert lines["buffer_pools"] == 90
    assert lines["hostname"] == 100


def test_faulty_leaf_models_the_faults() -> None:
    dev = parse_fixture("faulty_leaf.yaml", "leaf03").device
    swp1 = dev.ports["swp1"]
    assert swp1.trust == "pcp"
    assert swp1.pfc_tx == (0,)
    assert swp1.pfc_rx == ()
    assert swp1.priority_to_tc == {0: 0, 1: 1, 2: 7, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}
    assert swp1.tc_to_pg == {0: 0, 1: 1, 3: 3, 4: 4, 5: 5, 6: 6, 7: 2}
    assert swp1.pfc_priority_to_pg == {0: 0}
    assert swp1.pfc_priority_to_queue == {0: 0}
    assert swp1.cable_length_m == 50.0
    assert swp1.mtu == 9100
    assert swp1.pg_buffers == {
        0: BufferProfile(
            name="default-global",
            pool=None,
            size_bytes=25_000,
            xoff_bytes=10_000,
            xon_bytes=2_000,
            alpha=1.0,
        )
    }
    red = _ecn("default-global", 40_000, 200_000, red=True)
    assert swp1.ecn == {4: red, 5: red, 7: red}
    strict = Scheduler(name="default-global", kind="strict")
    assert swp1.schedulers == {
        0: strict,
        1: strict,
        2: Scheduler(name="default-global", kind="dwrr", weight=30.0),
        3: Scheduler(name="default-global", kind="dwrr", weight=20.0),
        4: Scheduler(name="default-global", kind="dwrr", weight=20.0),
        5: strict,
        6: Scheduler(name="default-global", kind="dwrr", weight=30.0),
        7: strict,
    }
    assert swp1.link_pause is False
    assert dev.ports["swp4"].link_pause is True
    assert dev.ports["swp4"].pfc_tx == (0,)
    assert dev.watchdog_poll_ms == 100.0  # the misspelt `pfc-wachdog` does not count


def test_faulty_leaf_reports_what_it_cannot_model() -> None:
    dev = parse_fixture("faulty_leaf.yaml").device
    found = {(u.item, u.line) for u in dev.unparsed}
    assert found == {("qos.pfc-wachdog.polling-interval", 67)}
    assert all(u.file and u.file.endswith("faulty_leaf.yaml") for u in dev.unparsed)
    prov = parse_fixture("faulty_leaf.yaml").provenance
    assert [prov.refs[f"unparsed.{i}"].line for i in range(1)] == [u.line for u in dev.unparsed]
    # The remark profile is modelled: swp4 lets packets it receives be DSCP-remarked.
    assert dev.ports["swp4"].dscp_rewrite_on_ingress is True
    assert dev.ports["swp4"].dscp_rewrite == {}
    assert dev.ports["swp1"].dscp_rewrite_on_ingress is False
