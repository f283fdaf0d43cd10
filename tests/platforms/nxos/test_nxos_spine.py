"""The RoCE spine fixture (AI/ML blueprint pattern) with its interface and LLDP JSON: exact
model, operational fill-in, breakout, LLDP and provenance."""

from __future__ import annotations

from rocetune import api
from rocetune.model import (
    CnpIntent,
    EcnProfile,
    Intent,
    LldpNeighbor,
    Port,
    Scheduler,
    Watchdog,
)
from rocetune.platforms.nxos.commands import INTERFACES, LLDP, RUNNING_CONFIG
from tests.platforms.nxos.nxos_helpers import (
    ALL_ZERO,
    FIXTURES,
    IDENTITY8,
    parse_outputs,
    parse_path,
    spine_outputs,
)

POLICY = "custom-8q-out-policy"
ROCE_DSCP = {**ALL_ZERO, 26: 3, 48: 7}
ECN = {
    3: EcnProfile(
        name=POLICY,
        ecn_mark=True,
        red_drop=True,
        min_threshold_bytes=150_000,
        max_threshold_bytes=3_000_000,
        max_probability_pct=7.0,
    )
}
SCHEDULERS = {
    **{q: Scheduler(name=POLICY, kind="dwrr", weight=0.0) for q in (1, 2, 4, 5, 6)},
    0: Scheduler(name=POLICY, kind="dwrr", weight=50.0),
    3: Scheduler(name=POLICY, kind="dwrr", weight=50.0),
    7: Scheduler(name=POLICY, kind="strict", weight=None),
}
WATCHDOG = Watchdog(enabled=True, detection_ms=100.0, action="drop")


def _port(name: str, **changes: object) -> Port:
    base: dict[str, object] = {
        "name": name,
        "mtu": 9216,
        "class_mtu": 9216,
        "admin_up": True,
        "trust": "dscp",
        "dscp_to_priority": ROCE_DSCP,
        "priority_to_tc": IDENTITY8,
        "tc_to_pg": IDENTITY8,
        "tc_to_queue": IDENTITY8,
        "pfc_priority_to_queue": {3: 3},
        "pfc_priority_to_pg": {3: 3},
        "pfc_rx": (3,),
        "pfc_tx": (3,),
        "pfc_mode": "on",
        "link_pause": False,
        "watchdog": WATCHDOG,
        "ecn": ECN,
        "schedulers": SCHEDULERS,
    }
    base.update(changes)
    return Port.model_validate(base)


def _plain(name: str, **changes: object) -> Port:
    """A port with no interface QoS: system policies only, PFC mode auto (DCBX-negotiated)."""
    plain: dict[str, object] = {"trust": "port", "dscp_to_priority": ALL_ZERO, "pfc_mode": "auto"}
    return _port(name, **{**plain, **changes})


def test_running_config_alone() -> None:
    dev = parse_path(FIXTURES / "roce_spine_running_config.txt", "spine01").device
    assert dev.hostname == "spine01"
    assert dev.unparsed == ()
    assert dev.lldp is None
    assert dev.watchdog_poll_ms == 100.0
    assert dev.facts == {
        "nxos.source": "show running-config",
        "nxos.queues": "8",
        "nxos.system_qos.network-qos": "custom-8q-nq-policy",
        "nxos.system_qos.queuing-out": POLICY,
        "nxos.version": "10.3(4a)",
    }
    assert dev.ports == {
        **{f"Ethernet1/{n}": _port(f"Ethernet1/{n}") for n in range(1, 5)},
        "Ethernet1/5": _plain("Ethernet1/5", mtu=1500, admin_up=False),
        "Ethernet1/33/1": _port("Ethernet1/33/1", speed_mbps=100_000),
        "Ethernet1/33/2": _port("Ethernet1/33/2", speed_mbps=100_000),  # from the breakout
        "Ethernet1/33/3": _plain("Ethernet1/33/3", mtu=1500, admin_up=None, speed_mbps=100_000),
        "Ethernet1/33/4": _plain("Ethernet1/33/4", mtu=1500, admin_up=None, speed_mbps=100_000),
    }


def test_with_operational_data_and_lldp() -> None:
    dev = parse_outputs(spine_outputs(), "spine01").device
    assert dev.unparsed == ()
    assert dev.ports["Ethernet1/1"] == _port("Ethernet1/1", speed_mbps=400_000)
    assert dev.ports["Ethernet1/4"] == _port("Ethernet1/4")  # down: "auto-speed" is no speed
    assert dev.ports["Ethernet1/33/1"].speed_mbps == 100_000
    # Config silent: the operational admin state, MTU and flow control fill in.
    assert dev.ports["Ethernet1/33/3"] == _plain(
        "Ethernet1/33/3", mtu=1500, admin_up=True, speed_mbps=100_000, link_pause=True
    )
    # Only in `show interface`: a port of the switch all the same (system policies apply).
    # No interface block: the PFC mode (and so PFC) is not known.
    assert dev.ports["Ethernet1/36"] == _plain(
        "Ethernet1/36", mtu=1500, admin_up=True, pfc_mode=None, pfc_rx=None, pfc_tx=None
    )
    assert "mgmt0" not in dev.ports
    assert dev.lldp == (
        LldpNeighbor(
            local_port="Ethernet1/1",
            remote_name="leaf01",
            remote_port="Ethernet1/49",
            remote_port_descr="spine01:Ethernet1/1",
        ),
        LldpNeighbor(
            local_port="Ethernet1/2",
            remote_name="leaf02",
            remote_port="Ethernet1/49",
            remote_port_descr="spine01:Ethernet1/2",
        ),
        LldpNeighbor(local_port="Ethernet1/3", remote_name="leaf03", remote_port="Ethernet1/49"),
        LldpNeighbor(
            local_port="Ethernet1/33/1",
            remote_name="gpu01",
            remote_port="b8ce.f6a1.0001",
            remote_port_descr="eth2",
        ),
        LldpNeighbor(
            local_port="mgmt0",
            remote_name="oob-sw1",
            remote_port="GigabitEthernet1/0/11",
            remote_port_descr="spine01 mgmt",
        ),
    )


def test_provenance_points_at_the_defining_lines() -> None:
    result = parse_outputs(spine_outputs(), "spine01")
    run, oper, lldp = (c.filename for c in (RUNNING_CONFIG, INTERFACES, LLDP))
    expected = {
        "": (run, 1),
        "hostname": (run, 6),
        "watchdog_poll_ms": (run, 14),
        "lldp": (lldp, 1),
        "ports.Ethernet1/1": (run, 74),
        "ports.Ethernet1/1.mtu": (run, 76),
        "ports.Ethernet1/1.pfc_rx": (run, 77),
        "ports.Ethernet1/1.watchdog": (run, 78),
        "ports.Ethernet1/1.trust": (run, 79),
        "ports.Ethernet1/1.dscp_to_priority": (run, 20),
        "ports.Ethernet1/1.admin_up": (run, 82),
        "ports.Ethernet1/1.ecn.3": (run, 38),
        "ports.Ethernet1/1.schedulers.7": (run, 29),
        "ports.Ethernet1/1.schedulers": (run, 27),
        "ports.Ethernet1/1.pfc_priority_to_queue": (run, 55),
        "ports.Ethernet1/1.speed_mbps": (run, 74),  # operational: falls back to the port
        "ports.Ethernet1/33/2.speed_mbps": (run, 72),  # the breakout line
        "ports.Ethernet1/33/2.watchdog": (run, 14),  # inherits the global watchdog
        "ports.Ethernet1/33/3.pfc_rx": (run, 55),  # mode auto: the no-drop class line
        "ports.Ethernet1/5.admin_up": (run, 115),
        "ports.Ethernet1/36": (oper, 112),
    }
    for path, where in expected.items():
        ref = result.provenance.lookup(path)
        assert ref is not None, path
        assert (ref.file, ref.line) == where, path


def test_lint_of_the_spine_finds_only_intent_differences() -> None:
    path = FIXTURES / "roce_spine_running_config.txt"
    roce = {"Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4"}
    roce |= {"Ethernet1/33/1", "Ethernet1/33/2"}
    result = api.lint([path])
    errors = [f for f in result.findings if f.severity.value == "error"]
    # CNP is qos-group 7 in the blueprint, the default intent says priority 6.
    assert {f.port for f in errors if f.code == "RT103"} >= roce
    assert {f.code for f in errors if f.port in roce} == {"RT103"}
    # The unconfigured breakout ports (no classification, MTU 1500) are errors of their own.
    assert {f.port for f in errors if f.port not in roce} == {"Ethernet1/33/3", "Ethernet1/33/4"}
    cisco = api.lint([path], intent=Intent(cnp=CnpIntent(dscp=48, priority=7)))
    assert [f for f in cisco.findings if f.severity.value == "error" and f.port in roce] == []
