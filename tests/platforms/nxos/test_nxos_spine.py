"""The RoCE spine fixture (AI/ML blueprint pattern) with its interface and LLDP JSON: exact
model, operational fill-in, breakout, LLDP and provenance."""

from __future__ import annotations

from rocetune import api
from rocetune.model import CnpIntent, Intent, Watchdog
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
ROCE = ("Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4", "Ethernet1/33/1")
"""The ports with the RoCE interface QoS (Ethernet1/33/2 too: its breakout line)."""
# The whole models are the parser goldens nxos/roce_spine_config_only (running-config alone)
# and nxos/roce_spine (with `show interface` and LLDP); these tests name the decisions.


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
    assert list(dev.ports) == [
        *ROCE[:4],
        "Ethernet1/5",
        "Ethernet1/33/1",
        "Ethernet1/33/2",
        "Ethernet1/33/3",
        "Ethernet1/33/4",
    ]
    for name in (*ROCE, "Ethernet1/33/2"):
        port = dev.ports[name]
        assert (port.trust, port.mtu, port.pfc_mode, port.pfc_rx) == ("dscp", 9216, "on", (3,))
        assert port.dscp_to_priority == {**ALL_ZERO, 26: 3, 48: 7}
        assert port.watchdog == Watchdog(enabled=True, detection_ms=100.0, action="drop")
        assert set(port.ecn or {}) == {3}
        assert port.schedulers is not None
        assert port.schedulers[7].kind == "strict"
    # the breakout's children: its speed; the unconfigured ones admin state unknown
    assert [dev.ports[f"Ethernet1/33/{n}"].speed_mbps for n in range(1, 5)] == [100_000] * 4
    # no interface QoS: system policies only, trust by port, PFC mode auto (DCBX-negotiated)
    for name, admin_up in (("Ethernet1/5", False), ("Ethernet1/33/3", None)):
        port = dev.ports[name]
        assert (port.trust, port.pfc_mode, port.mtu, port.admin_up) == (
            "port",
            "auto",
            1500,
            admin_up,
        )
        assert port.dscp_to_priority == ALL_ZERO
        assert port.class_mtu == 9216
        assert port.priority_to_tc == IDENTITY8


def test_with_operational_data_and_lldp() -> None:
    dev = parse_outputs(spine_outputs(), "spine01").device
    assert dev.unparsed == ()
    assert dev.ports["Ethernet1/1"].speed_mbps == 400_000
    assert dev.ports["Ethernet1/4"].speed_mbps is None  # down: "auto-speed" is no speed
    assert dev.ports["Ethernet1/33/1"].speed_mbps == 100_000
    # Config silent: the operational admin state, MTU and flow control fill in.
    plain = dev.ports["Ethernet1/33/3"]
    assert (plain.admin_up, plain.mtu, plain.link_pause) == (True, 1500, True)
    # Only in `show interface`: a port of the switch all the same (system policies apply).
    # No interface block: the PFC mode (and so PFC) is not known.
    only_oper = dev.ports["Ethernet1/36"]
    assert (only_oper.trust, only_oper.admin_up, only_oper.mtu) == ("port", True, 1500)
    assert (only_oper.pfc_mode, only_oper.pfc_rx, only_oper.pfc_tx) == (None, None, None)
    assert "mgmt0" not in dev.ports
    assert dev.lldp is not None
    assert [(n.local_port, n.remote_name, n.remote_port) for n in dev.lldp] == [
        ("Ethernet1/1", "leaf01", "Ethernet1/49"),
        ("Ethernet1/2", "leaf02", "Ethernet1/49"),
        ("Ethernet1/3", "leaf03", "Ethernet1/49"),
        ("Ethernet1/33/1", "gpu01", "b8ce.f6a1.0001"),  # a MAC as port id: kept as given
        ("mgmt0", "oob-sw1", "GigabitEthernet1/0/11"),  # LLDP of a non-switch port is kept
    ]
    assert dev.lldp[0].remote_port_descr == "spine01:Ethernet1/1"


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
