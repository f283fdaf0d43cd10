"""EOS semantics on small configs: precedence, PFC, watchdog, link pause, RT001, errors."""

from __future__ import annotations

import pytest

from rocetune.errors import ParseError
from rocetune.model import EcnProfile, Scheduler, Watchdog
from rocetune.platforms.eos.commands import INTERFACES_STATUS, LLDP_BRIEF, RUNNING_CONFIG
from rocetune.snapshot import Snapshot, SourceFile
from tests.platforms.eos.eos_helpers import DRIVER, FIXTURES, device, items, parse_path, parse_text

FAULTY = FIXTURES / "faulty_leaf.cfg"
ROCE_PROFILE = """
qos profile P
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
"""


def test_faulty_leaf_unparsed() -> None:
    dev = parse_path(FAULTY).device
    assert [(u.item, u.line) for u in dev.unparsed] == [
        ("qos rewrite dscp", 10),
        ("qos map dscp 26 to trafic-class 3", 12),
        (
            "qos random-detect ecn global-buffer minimum-threshold 10 kbytes maximum-threshold "
            "20 kbytes",
            13,
        ),
        ("priorty-flow-control priority 4 no-drop", 45),
        ("service-policy type qos input CLASSIFY", 72),
        (
            "random-detect ecn minimum-threshold 2 milliseconds maximum-threshold 8 milliseconds",
            21,
        ),
        ("service-profile MISSING", 73),
    ]
    assert all(u.file == str(FAULTY) for u in dev.unparsed)
    assert dev.tunnel_dscp_rewrite is None  # interface Vxlan1
    assert dev.watchdog_poll_ms is None


def test_faulty_leaf_ports() -> None:
    ports = parse_path(FAULTY).device.ports
    assert list(ports) == [f"Ethernet{n}" for n in (1, 2, 3, 4, 5, 6, 7, 9, 10, 11)]
    got = {
        name: (p.admin_up, p.mtu, p.speed_mbps, p.trust, p.pfc_rx, p.link_pause, p.fec)
        for name, p in ports.items()
    }
    assert got == {
        "Ethernet1": (True, 1500, 100_000, "dscp", (3,), False, "rs"),
        "Ethernet2": (True, 1500, 100_000, "dscp", (3,), False, "auto"),
        "Ethernet3": (True, 9000, None, "dscp", (3,), False, "auto"),
        "Ethernet4": (True, 1500, None, "dscp", (3,), False, "auto"),
        "Ethernet5": (True, None, None, "pcp", (), True, "auto"),
        "Ethernet6": (False, None, None, "pcp", (), False, "auto"),  # interface defaults
        "Ethernet7": (True, None, None, "pcp", (), True, "auto"),
        "Ethernet9": (True, 9214, None, "dscp", (3,), False, "auto"),  # Port-Channel10
        "Ethernet10": (True, 9214, None, "dscp", (), False, "auto"),  # its own `no pfc`
        # l2 mtu; the unread service-policy may classify: the pcp default is not asserted
        "Ethernet11": (True, 9214, None, None, (), False, "auto"),
    }
    watchdogs = {n: ports[n].watchdog for n in ("Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4")}
    # Timers and actions but no `priority-flow-control pause watchdog` line: whether the
    # watchdog runs is the undocumented EOS default, so it is unknown (RT205 -> RT000).
    assert watchdogs == {
        "Ethernet1": None,
        "Ethernet2": None,
        "Ethernet3": None,
        "Ethernet4": Watchdog(enabled=False),
    }
    ecn = {
        "Ethernet1": EcnProfile(
            name="RDMA",
            ecn_mark=True,
            red_drop=False,
            min_threshold_bytes=25_000_000,  # 2 ms at 100 Gb/s
            max_threshold_bytes=100_000_000,
        )
    }
    assert ports["Ethernet1"].ecn == {4: ecn["Ethernet1"]}
    assert ports["Ethernet3"].ecn == {
        4: EcnProfile(name="RDMA", ecn_mark=True, red_drop=False)  # no speed: unknown bytes
    }
    for name in ports:
        assert ports[name].dscp_rewrite is None
        assert ports[name].dscp_rewrite_on_ingress is None


def test_interface_lines_override_profile_lines() -> None:
    interfaces = (
        "interface Ethernet1\n"
        "   service-profile P\n"
        "   qos trust cos\n"
        "   no priority-flow-control priority 3\n"
        "   priority-flow-control priority 4 no-drop\n"
        "!\n"
        "interface Ethernet2\n"
        "   service-profile P\n"
        "   priority-flow-control off\n"
        "!\n"
    )
    dev = device(ROCE_PROFILE + interfaces)
    first, second = dev.ports["Ethernet1"], dev.ports["Ethernet2"]
    assert (first.trust, first.pfc_rx, first.pfc_priority_to_queue) == ("pcp", (4,), {4: 4})
    assert (second.trust, second.pfc_rx, second.watchdog) == ("dscp", (), Watchdog(enabled=False))


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["priority-flow-control mode on", "priority-flow-control priority 3 no-drop"], (3,)),
        (
            [
                "priority-flow-control on",
                "priority-flow-control priority 4 no-drop",
                "priority-flow-control priority 3 no-drop",
            ],
            (3, 4),
        ),
        (["priority-flow-control on"], ()),
        (["priority-flow-control priority 3 no-drop"], ()),  # PFC itself is off (S19 default)
        (["priority-flow-control on", "priority-flow-control priority 3 drop"], ()),
        (
            [
                "priority-flow-control on",
                "priority-flow-control priority 3 no-drop",
                "no priority-flow-control",
            ],
            (),
        ),
        (
            [
                "priority-flow-control on",
                "priority-flow-control priority 3 no-drop",
                "no priority-flow-control mode",
            ],
            (),
        ),
    ],
)
def test_pfc_variants(lines: list[str], expected: tuple[int, ...]) -> None:
    body = "".join(f"   {line}\n" for line in lines)
    port = device(f"interface Ethernet1\n{body}!\n").ports["Ethernet1"]
    assert (port.pfc_rx, port.pfc_tx) == (expected, expected)


def test_tc_to_queue_map_moves_the_pfc_queue() -> None:
    port = device(
        "qos map traffic-class 3 to tx-queue 5\nqos map traffic-class 6 7 to tx-queue 7\n"
        + ROCE_PROFILE
        + "interface Ethernet1\n   service-profile P\n!\n"
    ).ports["Ethernet1"]
    assert port.tc_to_queue == {0: 0, 1: 1, 2: 2, 3: 5, 4: 4, 5: 5, 6: 7, 7: 7}
    assert port.pfc_priority_to_queue == {3: 5}


def test_dscp_map_with_ranges_and_drop_precedence() -> None:
    port = device(
        "qos map dscp 0-7,9 to traffic-class 1\n"
        "qos map dscp 26 to traffic-class 4 drop-precedence 1\n"
        "interface Ethernet1\n!\n"
    ).ports["Ethernet1"]
    assert port.dscp_to_priority is not None
    assert [port.dscp_to_priority[d] for d in (0, 7, 8, 9, 26, 48)] == [1, 1, 1, 1, 4, 6]


ON = "priority-flow-control pause watchdog\n   "
"""The explicit enable line: EOS watchdog defaults are not asserted (no documented source)."""


@pytest.mark.parametrize(
    ("glob", "iface", "expected"),
    [
        # No watchdog line: the EOS default is undocumented -> unknown (RT000), not "on".
        ("", "", None),
        ("priority-flow-control pause watchdog action drop\n", "", None),
        (
            "priority-flow-control pause watchdog action drop\n",
            ON,
            Watchdog(enabled=True, action="drop"),
        ),
        # Enabled, no action anywhere: the default action is not asserted either.
        ("", ON, Watchdog(enabled=True)),
        (
            "priority-flow-control pause watchdog action no-drop\n",
            ON + "priority-flow-control pause watchdog port action notify-only",
            Watchdog(enabled=True, action="alert"),
        ),
        (
            "priority-flow-control pause watchdog override action drop\n",
            ON + "priority-flow-control pause watchdog port action errdisable",
            Watchdog(enabled=True, action="drop"),
        ),
        (
            "priority-flow-control pause watchdog default timeout 0.3\n"
            "priority-flow-control pause watchdog default recovery-time 0.6\n",
            ON,
            Watchdog(enabled=True, detection_ms=300.0, restoration_ms=600.0),
        ),
        (
            "priority-flow-control pause watchdog default timeout 0.3\n",
            ON + "priority-flow-control pause watchdog port timer timeout 0.1 polling-interval "
            "0.05 recovery-time 0.1",
            Watchdog(enabled=True, detection_ms=100.0, restoration_ms=100.0),
        ),
        ("", "no priority-flow-control pause watchdog", Watchdog(enabled=False)),
    ],
)
def test_watchdog(glob: str, iface: str, expected: Watchdog | None) -> None:
    text = f"{glob}{ROCE_PROFILE}interface Ethernet1\n   service-profile P\n   {iface}\n!\n"
    assert device(text).ports["Ethernet1"].watchdog == expected


def test_interface_clears_the_profile_port_timer() -> None:
    profile = ROCE_PROFILE.replace(
        "!\n",
        "   priority-flow-control pause watchdog port timer timeout 1 polling-interval auto "
        "recovery-time 1\n!\n",
        1,
    )
    text = (
        "priority-flow-control pause watchdog default timeout 0.2\n"
        + profile
        + "interface Ethernet1\n   service-profile P\n   priority-flow-control pause watchdog\n"
        "   no priority-flow-control pause watchdog port timer\n!\n"
        "interface Ethernet2\n   service-profile P\n   priority-flow-control pause watchdog\n!\n"
    )
    ports = device(text).ports
    assert ports["Ethernet1"].watchdog == Watchdog(enabled=True, detection_ms=200.0)
    assert ports["Ethernet2"].watchdog == Watchdog(
        enabled=True, detection_ms=1000.0, restoration_ms=1000.0
    )


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ([], False),
        (["flowcontrol receive on"], True),
        (["flowcontrol send desired"], True),
        (["flowcontrol send on", "no flowcontrol send"], False),
        (["flowcontrol send off", "flowcontrol receive off"], False),
        # PFC disables 802.3x flow control on the interface (S19), but the configuration
        # asks for both: link_pause stays True so RT204 reports the contradiction.
        (["flowcontrol receive on", "priority-flow-control on"], True),
        (["priority-flow-control on"], False),
    ],
)
def test_link_pause(lines: list[str], expected: bool) -> None:
    body = "".join(f"   {line}\n" for line in lines)
    assert device(f"interface Ethernet1\n{body}!\n").ports["Ethernet1"].link_pause is expected


def test_schedulers_and_guaranteed_bandwidth() -> None:
    port = device(
        """
        interface Ethernet1
           tx-queue 1
              no priority
              bandwidth guaranteed percent 30
           !
           uc-tx-queue 2
              no priority
              bandwidth percent 20
              bandwidth guaranteed percent 5
           !
           tx-queue 3
              bandwidth guaranteed percent 40
           !
           mc-tx-queue 4
              no priority
           !
           tx-queue 5
              no priority
              bandwidth percent 30
              no bandwidth percent
        !
        """
    ).ports["Ethernet1"]
    assert port.schedulers == {
        0: Scheduler(kind="strict"),
        1: Scheduler(kind="dwrr", weight=30.0),
        2: Scheduler(kind="dwrr", weight=20.0),
        3: Scheduler(kind="strict"),  # a guaranteed share does not weigh a strict queue
        4: Scheduler(kind="strict"),  # multicast queues are not modelled
        5: Scheduler(kind="dwrr"),  # weight cleared: unknown
        6: Scheduler(kind="strict"),
        7: Scheduler(kind="strict"),
    }


def test_ecn_cleared_and_ecn_with_drop() -> None:
    port = device(
        """
        qos profile P
           tx-queue 3
              random-detect ecn minimum-threshold 100 kbytes maximum-threshold 200 kbytes
              random-detect drop minimum-threshold 300 kbytes maximum-threshold 400 kbytes \
drop-probability 10
           !
           tx-queue 4
              random-detect ecn minimum-threshold 100 kbytes maximum-threshold 200 kbytes
        !
        interface Ethernet1
           service-profile P
           tx-queue 4
              no random-detect ecn
        !
        """
    ).ports["Ethernet1"]
    assert port.ecn == {
        3: EcnProfile(
            name="P",
            ecn_mark=True,
            red_drop=True,
            min_threshold_bytes=100_000,
            max_threshold_bytes=200_000,
        )
    }


def test_unknown_and_unreadable_qos_lines_are_rt001() -> None:
    dev = device(
        """
        hostname sw
        qos profile P
           qos shaping global
           frobnicate
           tx-queue 3
              random-detect ecn minimum-threshold 10 parsecs maximum-threshold 20 kbytes
              bandwidth percent 150
              ecn-magic
           tx-queue 99
        !
        interface Ethernet1
           mtu jumbo
           speed fast
           priority-flow-control priority 9 no-drop
           priority-flow-control frob
           qos trust everything
           buffer-profile deep
           description mtu is fine here
           ip address 10.0.0.1/31
        !
        interface Ethernet1/4-1
           mtu 9214
        !
        interface Vlan10
           service-profile P
        !
        priority-flow-control pause watchdog default timeout soon
        priority-flow-control everything
        platform trident mmu buffer-profile deep
        platform trident forwarding-table partition 2
        """
    )
    assert items(dev) == [
        ("qos shaping global", 3),
        ("frobnicate", 4),
        ("random-detect ecn minimum-threshold 10 parsecs maximum-threshold 20 kbytes", 6),
        ("bandwidth percent 150", 7),
        ("ecn-magic", 8),
        ("tx-queue 99", 9),
        ("mtu jumbo", 12),
        ("speed fast", 13),
        ("priority-flow-control priority 9 no-drop", 14),
        ("priority-flow-control frob", 15),
        ("qos trust everything", 16),
        ("buffer-profile deep", 17),
        ("interface Ethernet1/4-1", 21),
        ("service-profile P", 25),
        ("priority-flow-control pause watchdog default timeout soon", 27),
        ("priority-flow-control everything", 28),
        ("platform trident mmu buffer-profile deep", 29),
    ]
    port = dev.ports["Ethernet1"]
    # "qos trust everything" was not understood: the switched-port default (pcp) is not asserted
    assert (port.mtu, port.speed_mbps, port.trust) == (None, None, None)
    assert dev.hostname == "sw"


def test_trust_defaults_and_global_trust() -> None:
    ports = device(
        """
        interface Ethernet1
           no switchport
        !
        interface Ethernet2
        !
        interface Ethernet3
           no qos trust
        !
        """
    ).ports
    assert [ports[n].trust for n in ("Ethernet1", "Ethernet2", "Ethernet3")] == [
        "dscp",
        "pcp",
        "port",
    ]
    ports = device("qos trust dscp\ninterface Ethernet1\n!\n").ports
    assert ports["Ethernet1"].trust == "dscp"


def test_interface_ranges_merge_in_file_order() -> None:
    dev = parse_text(
        """
        interface Ethernet1/1-2
           mtu 9214
           speed 100g
        !
        interface Ethernet1/2
           mtu 9000
        !
        """
    )
    ports = dev.device.ports
    assert [(n, p.mtu, p.speed_mbps) for n, p in ports.items()] == [
        ("Ethernet1/1", 9214, 100_000),
        ("Ethernet1/2", 9000, 100_000),
    ]
    lines = {k: v.line for k, v in dev.provenance.refs.items()}
    assert (lines["ports.Ethernet1/1"], lines["ports.Ethernet1/2"]) == (1, 1)
    assert (lines["ports.Ethernet1/2.mtu"], lines["ports.Ethernet1/2.speed_mbps"]) == (6, 3)


def test_fec() -> None:
    ports = device(
        "interface Ethernet1\n   error-correction encoding fire-code\n!\n"
        "interface Ethernet2\n   no error-correction encoding\n!\n"
        "interface Ethernet3\n   error-correction encoding reed-solomon\n"
        "   default error-correction encoding\n!\n"
    ).ports
    assert [p.fec for p in ports.values()] == ["fc", "none", "auto"]


def test_missing_running_config_is_a_parse_error() -> None:
    with pytest.raises(ParseError) as caught:
        DRIVER.parse(Snapshot(files={}, origin="snap/sw1"), "sw1", None)
    assert caught.value.file == "snap/sw1"


def _snapshot(**outputs: str) -> Snapshot:
    names = {
        "run": RUNNING_CONFIG,
        "brief": LLDP_BRIEF,
        "status": INTERFACES_STATUS,
    }
    files = {names[k].filename: SourceFile(path=f"{k}.out", text=v) for k, v in outputs.items()}
    return Snapshot(files=files, origin="mem")


def test_brief_lldp_and_broken_entries() -> None:
    brief = (
        '{"lldpNeighbors": [\n'
        '  {"port": "Et1", "neighborDevice": "h1", "neighborPort": "eth2", "ttl": 120},\n'
        '  {"port": "Ethernet2", "neighborDevice": "s1", "neighborPort": "Et7"},\n'
        '  {"port": "Ethernet3"}\n'
        "]}"
    )
    dev = DRIVER.parse(_snapshot(run="interface Ethernet1\n!\n", brief=brief), "sw", None).device
    assert [(n.local_port, n.remote_name, n.remote_port) for n in dev.lldp or ()] == [
        ("Ethernet1", "h1", "eth2"),
        ("Ethernet2", "s1", "Ethernet7"),
    ]
    assert [(u.item, u.line, u.file) for u in dev.unparsed] == [
        ("lldpNeighbors[2]", 4, "brief.out")
    ]


@pytest.mark.parametrize(
    ("text", "line"),
    [("{not json", 1), ('{"lldp": {}}', 1), ('{\n"lldpNeighbors": 7}', 2)],
)
def test_unreadable_lldp_is_unparsed_not_fatal(text: str, line: int) -> None:
    dev = DRIVER.parse(_snapshot(run="interface Ethernet1\n!\n", brief=text), "sw", None).device
    assert dev.lldp is None
    assert [u.line for u in dev.unparsed] == [line]
    assert list(dev.ports) == ["Ethernet1"]


def test_status_only_port_and_errdisabled() -> None:
    status = (
        '{"interfaceStatuses": {\n'
        '"Ethernet1": {"linkStatus": "notconnect", "bandwidth": 100000000000},\n'
        '"Ethernet2": {"linkStatus": "errdisabled", "bandwidth": 25000000000},\n'
        '"Ethernet3.10": {"linkStatus": "connected", "bandwidth": 25000000000},\n'
        '"Port-Channel1": {"linkStatus": "connected", "bandwidth": 200000000000}\n'
        "}}"
    )
    result = DRIVER.parse(_snapshot(run="interface Ethernet1\n!\n", status=status), "sw", None)
    ports = result.device.ports
    assert list(ports) == ["Ethernet1", "Ethernet2"]
    assert (ports["Ethernet1"].speed_mbps, ports["Ethernet1"].admin_up) == (None, True)
    assert (ports["Ethernet2"].speed_mbps, ports["Ethernet2"].admin_up) == (None, True)
    ref = result.provenance.lookup("ports.Ethernet2")
    assert ref is not None
    assert (ref.file, ref.line) == ("status.out", 3)


def test_cos_map_and_mtu_limit() -> None:
    # AVD eos_cli_config_gen qos.cfg lines 234-235 (tests/fixtures/eos/SOURCES.md).
    text = (
        "qos map cos 1 2 3 4 to traffic-class 2\n"
        "qos map cos 3 to traffic-class 3\n"
        "interface Ethernet1\n   mtu 9216\n!\n"
    )
    dev = device(text)
    assert dev.mtu_max == 9214  # EOS accepts mtu 68-9214; RT601 reports the 9216
    port = dev.ports["Ethernet1"]
    assert port.cos_to_tc == {1: 2, 2: 2, 3: 3, 4: 2}
    assert port.mtu == 9216
    assert device("interface Ethernet1\n!\n").ports["Ethernet1"].cos_to_tc == {}
