"""Per-port settings: PFC modes, watchdog, MTU, speed, admin state, link pause, breakout."""

from __future__ import annotations

import pytest

from rocetune.model import Watchdog
from tests.platforms.nxos.nxos_helpers import BLUEPRINT_QOS, device, parse_text, port, unparsed


@pytest.mark.parametrize(
    ("lines", "expected", "mode"),
    [
        ("  priority-flow-control mode on\n", (3,), "on"),
        ("  priority-flow-control mode on send-tlv\n", (3,), "on"),
        ("  priority-flow-control mode off\n", (), "off"),
        # auto: the no-drop CoS, but only while DCBX with the peer agrees (RT201 reports it)
        ("  priority-flow-control mode auto\n", (3,), "auto"),
        ("", (3,), "auto"),  # auto is the default
    ],
)
def test_pfc_modes(lines: str, expected: tuple[int, ...], mode: str) -> None:
    got = port(BLUEPRINT_QOS + "interface Ethernet1/1\n" + lines)
    assert (got.pfc_rx, got.pfc_tx) == (expected, expected)
    assert got.pfc_mode == mode
    assert got.pfc_priority_to_queue == {3: 3}
    assert got.pfc_priority_to_pg == {3: 3}


def test_without_no_drop_class_pfc_is_off_whatever_the_mode() -> None:
    got = port("interface Ethernet1/1\n  priority-flow-control mode auto\n")
    assert (got.pfc_rx, got.pfc_tx, got.pfc_priority_to_queue) == ((), (), {})


def test_watchdog_interface_global_and_timers() -> None:
    text = (
        "priority-flow-control watch-dog-interval on\n"
        "priority-flow-control watch-dog interval 200\n"
        "priority-flow-control watch-dog shutdown-multiplier 3\n"
        "priority-flow-control auto-restore multiplier 10\n"
        "interface Ethernet1/1\n"
        "interface Ethernet1/2\n  priority-flow-control watch-dog-interval off\n"
    )
    dev = device(text)
    assert dev.unparsed == ()
    assert dev.watchdog_poll_ms == 100.0
    assert dev.ports["Ethernet1/1"].watchdog == Watchdog(
        enabled=True, detection_ms=600.0, restoration_ms=2000.0, action="drop"
    )
    assert dev.ports["Ethernet1/2"].watchdog == Watchdog(enabled=False)
    fixed = "priority-flow-control fixed-restore multiplier 5\n"
    fixed += "priority-flow-control auto-restore multiplier 10\n"
    got = port(fixed + "interface Ethernet1/1\n  priority-flow-control watch-dog-interval on\n")
    assert got.watchdog == Watchdog(
        enabled=True, detection_ms=100.0, restoration_ms=500.0, action="drop"
    )
    off = "no priority-flow-control watch-dog-interval\ninterface Ethernet1/1\n"
    assert port(off).watchdog == Watchdog(enabled=False)
    assert port("interface Ethernet1/1\n").watchdog == Watchdog(enabled=False)


def test_watchdog_values_out_of_range_are_reported() -> None:
    text = (
        "priority-flow-control watch-dog interval 5\npriority-flow-control watch-dog-interval 100\n"
    )
    assert unparsed(text) == [
        (1, "priority-flow-control watch-dog interval 5"),
        (2, "priority-flow-control watch-dog-interval 100"),
    ]


def test_no_drop_class_mtu_is_the_class_mtu() -> None:
    # The network-qos class MTU is kept apart from the port MTU (RT601 checks both).
    nq = BLUEPRINT_QOS.replace("    mtu 9216\n", "    mtu 4200\n")
    got = port(nq + "interface Ethernet1/1\n  mtu 9216\n")
    assert (got.mtu, got.class_mtu) == (9216, 4200)
    assert port(nq + "interface Ethernet1/1\n").mtu == 1500
    got = port(BLUEPRINT_QOS + "interface Ethernet1/1\n  mtu 9000\n")
    assert (got.mtu, got.class_mtu) == (9000, 9216)
    result = parse_text(nq + "interface Ethernet1/1\n  mtu 9216\n")
    ref = result.provenance.lookup("ports.Ethernet1/1.class_mtu")
    assert ref is not None
    assert ref.line == 13  # the class MTU line
    ref = result.provenance.lookup("ports.Ethernet1/1.mtu")
    assert ref is not None
    assert ref.line == 17  # the interface line


def test_speed_mtu_shutdown_and_invalid_values() -> None:
    text = (
        "switchname leaf7\n"
        "interface Ethernet1/1\n  speed 25000\n  mtu 9216\n  shutdown\n"
        "interface Ethernet1/2\n  speed auto\n  mtu 99999\n  no shutdown\n"
        "interface Ethernet1/3\n  speed fast\n"
    )
    dev = device(text)
    assert dev.hostname == "leaf7"
    got = {n: (p.speed_mbps, p.mtu, p.admin_up) for n, p in dev.ports.items()}
    assert got == {
        "Ethernet1/1": (25_000, 9216, False),
        "Ethernet1/2": (None, None, True),  # mtu 99999 is invalid: the MTU is unknown
        "Ethernet1/3": (None, 1500, None),
    }
    assert [(u.line, u.item) for u in dev.unparsed] == [(8, "mtu 99999"), (11, "speed fast")]


def test_link_pause() -> None:
    assert port("interface Ethernet1/1\n  flowcontrol receive on\n").link_pause is True
    assert port("interface Ethernet1/1\n  flowcontrol send on\n").link_pause is True
    off = "interface Ethernet1/1\n  flowcontrol receive off\n  no flowcontrol send\n"
    assert port(off).link_pause is False
    assert port("interface Ethernet1/1\n").link_pause is False


def test_breakout_replaces_the_parent_ports() -> None:
    text = (
        "interface breakout module 1 port 1-2 map 25g-4x\n"
        "interface breakout module 1 port 9 map 400g\n"
        "interface Ethernet1/1/2\n  speed 10000\n"
        "interface Ethernet1/3\n"
    )
    dev = device(text)
    names = [f"Ethernet1/{p}/{n}" for p in (1, 2) for n in range(1, 5)]
    assert list(dev.ports) == [*names[:4], *names[4:], "Ethernet1/3"]
    assert {n: p.speed_mbps for n, p in dev.ports.items()} == {
        **dict.fromkeys(names, 25_000),
        "Ethernet1/1/2": 10_000,
        "Ethernet1/3": None,
    }
    assert unparsed(text) == [(2, "interface breakout module 1 port 9 map 400g")]


def test_interface_ranges_and_non_ethernet_interfaces() -> None:
    text = (
        "interface Ethernet1/1-2\n  mtu 9216\n"
        "interface port-channel10\n  service-policy type qos input P\n"
        "interface Ethernet1/1.100\n  mtu 1500\n"
        "interface loopback0\ninterface mgmt0\n"
    )
    dev = device(text)
    assert {n: p.mtu for n, p in dev.ports.items()} == {"Ethernet1/1": 9216, "Ethernet1/2": 9216}
    assert dev.unparsed == ()


def test_natural_port_order() -> None:
    text = "".join(f"interface Ethernet1/{n}\n" for n in (10, 2, 1)) + "interface Ethernet2/1\n"
    assert list(device(text).ports) == ["Ethernet1/1", "Ethernet1/2", "Ethernet1/10", "Ethernet2/1"]
