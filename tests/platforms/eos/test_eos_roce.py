"""The hand-written RoCE spine snapshot: exact model, LLDP, operational speed, provenance."""

from __future__ import annotations

from rocetune import api
from rocetune.model import EcnProfile, LldpNeighbor, Port, Scheduler, Watchdog
from tests.platforms.eos.eos_helpers import (
    ALL_STRICT,
    DSCP_DEFAULT,
    FIXTURES,
    IDENTITY8,
    parse_path,
)

SPINE = FIXTURES / "roce_spine"
ROCE_DSCP = {
    **DSCP_DEFAULT,
    **dict.fromkeys((24, 25, 27, 28, 29, 30, 31, 49, 50, 51, 52, 53, 54, 55), 0),
}
ROCE_ECN = EcnProfile(
    name="ROCE_FABRIC",
    ecn_mark=True,
    red_drop=False,
    min_threshold_bytes=150_000,
    max_threshold_bytes=1_500_000,
    max_probability_pct=20.0,
)
ROCE_SCHED = {
    **ALL_STRICT,
    0: Scheduler(kind="dwrr", weight=50.0),
    3: Scheduler(kind="dwrr", weight=50.0),
}
WATCHDOG = Watchdog(enabled=True, detection_ms=200.0, restoration_ms=200.0, action="drop")


def _port(name: str, **changes: object) -> Port:
    base: dict[str, object] = {
        "cos_to_tc": {},  # no `qos map cos ... to traffic-class` line
        "speed_mbps": 400_000,
        "mtu": 9214,
        "admin_up": True,
        "trust": "dscp",
        "dscp_to_priority": ROCE_DSCP,
        "priority_to_tc": IDENTITY8,
        "tc_to_queue": IDENTITY8,
        "pfc_priority_to_queue": {3: 3},
        "pfc_rx": (3,),
        "pfc_tx": (3,),
        "link_pause": False,
        "watchdog": WATCHDOG,
        "ecn": {3: ROCE_ECN},
        "schedulers": ROCE_SCHED,
        "fec": "auto",
        "dscp_rewrite": {},
        "dscp_rewrite_on_ingress": False,
    }
    base.update(changes)
    return Port(name=name, **base)


def test_roce_spine_ports() -> None:
    dev = parse_path(SPINE, "spine1").device
    assert list(dev.ports) == [
        "Ethernet1/1",
        "Ethernet2/1",
        "Ethernet3/1",
        "Ethernet4/1",
        "Ethernet32/1",
    ]
    assert dev.ports["Ethernet1/1"] == _port("Ethernet1/1")
    assert dev.ports["Ethernet2/1"] == _port("Ethernet2/1")
    # no `speed` line: the operational speed from `show interfaces status`
    assert dev.ports["Ethernet3/1"] == _port("Ethernet3/1", speed_mbps=100_000)
    # the interface's own tx-queue 3 ECN line (microseconds at 400G) overrides the profile's
    assert dev.ports["Ethernet4/1"] == _port(
        "Ethernet4/1",
        ecn={
            3: EcnProfile(
                name=None,
                ecn_mark=True,
                red_drop=False,
                min_threshold_bytes=1_000_000,
                max_threshold_bytes=4_000_000,
                max_probability_pct=20.0,
            )
        },
    )
    assert dev.ports["Ethernet32/1"] == _port(
        "Ethernet32/1",
        speed_mbps=None,  # shut down: status `disabled`, so its bandwidth is not a speed
        admin_up=False,
        pfc_priority_to_queue={},
        pfc_rx=(),
        pfc_tx=(),
        watchdog=Watchdog(enabled=False),
        ecn={},
        schedulers=ALL_STRICT,
    )


def test_roce_spine_device() -> None:
    dev = parse_path(SPINE, "spine1").device
    assert (dev.name, dev.kind, dev.platform, dev.role) == ("spine1", "switch", "eos", "spine")
    assert dev.hostname == "spine1"
    assert dev.unparsed == ()
    assert dev.watchdog_poll_ms == 100.0
    assert dev.buffer_pools is None
    assert dev.tunnel_dscp_rewrite == {}
    assert dev.facts == {
        "eos.command": "show running-config",
        "eos.model": "DCS-7280CR3-32P4",
        "eos.version": "4.30.1F",
    }
    assert dev.lldp == (
        LldpNeighbor(
            local_port="Ethernet1/1",
            remote_name="leaf1",
            remote_port="Ethernet49/1",
            remote_port_descr="spine1_Ethernet1/1",
        ),
        LldpNeighbor(
            local_port="Ethernet2/1",
            remote_name="leaf2",
            remote_port="Ethernet49/1",
            remote_port_descr="spine1_Ethernet2/1",
        ),
        # no interfaceId_v2: the quoted interfaceId, and `Et49/1` expanded
        LldpNeighbor(local_port="Ethernet3/1", remote_name="leaf3", remote_port="Ethernet49/1"),
        LldpNeighbor(
            local_port="Ethernet4/1",
            remote_name="leaf4",
            remote_port="Ethernet49/1",
            remote_port_descr="spine1_Ethernet4/1",
        ),
    )


def test_roce_spine_provenance() -> None:
    prov = parse_path(SPINE).provenance
    where = {path: (ref.file.rsplit("/", 1)[-1], ref.line) for path, ref in prov.refs.items()}
    run = "show_running_config.txt"
    assert where[""] == (run, 1)
    assert where["hostname"] == (run, 12)
    assert where["watchdog_poll_ms"] == (run, 93)
    assert where["lldp"] == ("show_lldp_neighbors_detail_json.json", 1)
    assert where["ports.Ethernet1/1"] == (run, 44)
    assert where["ports.Ethernet1/1.mtu"] == (run, 46)
    assert where["ports.Ethernet1/1.speed_mbps"] == (run, 47)
    assert where["ports.Ethernet3/1.speed_mbps"] == ("show_interfaces_status_json.json", 23)
    assert where["ports.Ethernet1/1.trust"] == (run, 25)  # the profile's `qos trust dscp`
    assert where["ports.Ethernet1/1.dscp_to_priority"] == (run, 19)
    assert where["ports.Ethernet1/1.pfc_rx"] == (run, 40)  # `priority 3 no-drop`
    assert where["ports.Ethernet1/1.link_pause"] == (run, 39)  # `priority-flow-control on`
    assert where["ports.Ethernet1/1.ecn.3"] == (run, 34)
    assert where["ports.Ethernet4/1.ecn.3"] == (run, 76)  # the interface's own line
    assert where["ports.Ethernet4/1.schedulers.3"] == (run, 32)  # the profile's `no priority`
    assert where["ports.Ethernet1/1.schedulers.6"] == (run, 37)
    assert where["ports.Ethernet1/1.watchdog"] == (run, 41)
    assert where["ports.Ethernet1/1.watchdog.action"] == (run, 42)  # port action drop
    assert where["ports.Ethernet1/1.watchdog.detection_ms"] == (run, 91)
    assert where["ports.Ethernet1/1.watchdog.restoration_ms"] == (run, 92)
    assert where["ports.Ethernet32/1.admin_up"] == (run, 80)
    assert where["ports.Ethernet32/1.mtu"] == (run, 17)  # `interface defaults` / `mtu 9214`
    ref = prov.lookup("ports.Ethernet1/1.fec")  # a default: falls back to the port
    assert ref is not None
    assert ref.line == 44


def test_roce_spine_lints_clean_of_errors() -> None:
    result = api.lint([SPINE])
    assert not result.errors
    assert result.exit_code() == 0
    codes = {f.code for f in result.findings}
    assert not codes & {"RT001", "RT101", "RT102", "RT103", "RT201", "RT204", "RT205", "RT301"}
    assert "RT304" in codes  # 150/1500 KB does not scale to 400G (intent envelope)
