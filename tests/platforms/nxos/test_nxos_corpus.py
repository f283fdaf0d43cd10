"""Every NX-OS corpus file parses (the shared corpus when present, and the copies with origin
lines in tests/fixtures/nxos); exact expected models per file; lint exits 0 or 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocetune import api
from rocetune.model import EcnProfile, Scheduler, Watchdog
from tests.cli.conftest import run_cli
from tests.platforms.nxos.nxos_helpers import (
    ALL_ZERO,
    CORPUS,
    FIXTURES,
    parse_path,
)

COPIES = sorted(FIXTURES.glob("corpus_*.cfg"))
SHARED = sorted(CORPUS.iterdir()) if CORPUS.is_dir() else []


def _copy(name: str) -> Path:
    return FIXTURES / f"corpus_{name}"


@pytest.mark.parametrize("path", SHARED + COPIES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_corpus_file_parses(path: Path) -> None:
    dev = parse_path(path).device
    assert dev.platform == "nxos"
    assert dev.kind == "switch"
    for item in dev.unparsed:
        assert item.file == str(path)
        assert item.line is not None
        assert 1 <= item.line <= len(path.read_text().splitlines())


def test_copies_are_identical_to_the_shared_corpus() -> None:
    assert SHARED, f"no corpus files under {CORPUS}"
    assert [p.name for p in SHARED] == [p.name.removeprefix("corpus_") for p in COPIES]
    for shared in SHARED:
        assert _copy(shared.name).read_bytes() == shared.read_bytes()


def test_azurelocal_cos_trusting_tor() -> None:
    result = parse_path(_copy("azurelocal_tor_qos_policy_nxos.cfg"))
    dev = result.device
    assert dev.unparsed == ()
    assert dev.hostname is None
    assert dev.watchdog_poll_ms == 100.0
    assert dev.facts == {
        "nxos.source": "show running-config",
        "nxos.queues": "8",
        "nxos.system_qos.network-qos": "QOS_NETWORK",
        "nxos.system_qos.queuing-out": "QOS_EGRESS_PORT",
    }
    # the whole model: parser golden nxos/azurelocal_tor; the decisions:
    assert list(dev.ports) == ["Ethernet1/17"]
    port = dev.ports["Ethernet1/17"]
    assert port.class_mtu == 9216  # network-qos class c-8q-nq3 mtu 9216 (line 6)
    assert port.trust == "pcp"  # match cos 3 / cos 7 only: routed RoCE falls to qos-group 0
    assert port.dscp_to_priority == ALL_ZERO
    assert port.pfc_mode == "on"  # priority-flow-control mode on send-tlv
    assert (port.pfc_rx, port.pfc_tx, port.link_pause) == ((3,), (3,), False)
    assert port.watchdog == Watchdog(enabled=False)
    assert port.ecn == {
        3: EcnProfile(
            name="QOS_EGRESS_PORT",
            ecn_mark=True,
            red_drop=None,  # ecn alone: non-ECT handling undocumented
            min_threshold_bytes=300_000,
            max_threshold_bytes=300_000,
            max_probability_pct=100.0,
        )
    }
    assert port.schedulers is not None
    weights = {0: 48.0, 1: 0.0, 2: 0.0, 3: 50.0, 4: 0.0, 5: 0.0, 6: 0.0, 7: 1.0}
    assert {q: s.weight for q, s in port.schedulers.items()} == weights
    lines = {
        "ports.Ethernet1/17": 42,
        "ports.Ethernet1/17.mtu": 50,
        "ports.Ethernet1/17.pfc_rx": 48,
        "ports.Ethernet1/17.trust": 52,
        "ports.Ethernet1/17.dscp_to_priority": 15,
        "ports.Ethernet1/17.ecn.3": 24,
        "ports.Ethernet1/17.schedulers.7": 28,
        "ports.Ethernet1/17.pfc_priority_to_queue": 4,
        "ports.Ethernet1/17.admin_up": 53,
        "ports.Ethernet1/17.watchdog": 42,  # nothing configured: falls back to the port
        "": 1,
    }
    for path, line in lines.items():
        ref = result.provenance.lookup(path)
        assert ref is not None
        assert (ref.file, ref.line) == (str(_copy("azurelocal_tor_qos_policy_nxos.cfg")), line)


def test_invalid_mixed_syntax_guide_reports_every_foreign_line() -> None:
    dev = parse_path(_copy("invalid_mixed_syntax_roce_guide_n9300.cfg")).device
    assert [(u.line, u.item) for u in dev.unparsed] == [
        (2, "priority-flow-control mode on"),
        (3, "priority-flow-control priority 3 enable"),
        (6, "ecn enable"),
        (22, "mls qos map cos-dscp 3 26"),
        (26, "# ROCEv2"),
        (30, "#q7 for CNP packet"),
        (35, "#enable pause frame"),
        (44, "priority-flow-control receive on"),
        (45, "priority-flow-control send on"),
    ]
    # the whole model: parser golden nxos/invalid_mixed_guide_n9300; the decisions:
    port = dev.ports["Ethernet1/1"]
    assert list(dev.ports) == ["Ethernet1/1"]
    assert port.mtu == 1500  # no interface mtu: the 4200 of the no-drop class does not raise it
    assert port.class_mtu == 4200  # the no-drop class's own MTU (RT601 checks it too)
    assert port.dscp_to_priority == {**ALL_ZERO, 26: 3, 48: 7}
    # No interface "priority-flow-control mode" line: the default auto, PFC on the no-drop
    # CoS only while DCBX negotiates it (RT201 reports it).
    assert (port.pfc_mode, port.pfc_rx, port.pfc_tx) == ("auto", (3,), (3,))
    assert port.link_pause is None  # unread priority-flow-control lines: pause state unknown
    assert port.schedulers == {
        3: Scheduler(name="ROCE-QUEUE", kind="dwrr", weight=50.0),
        # the column-0 class line stays in the policy-map, as the CLI reads it
        7: Scheduler(name="ROCE-QUEUE", kind="strict"),
    }
    interface = [u for u in dev.unparsed if u.line in (44, 45)]
    assert all(u.ports == ("Ethernet1/1",) and u.features == ("pfc",) for u in interface)
    assert all(u.ports is None for u in dev.unparsed if u.line not in (44, 45))


def test_invalid_guide_lints_with_rt001_findings() -> None:
    path = _copy("invalid_mixed_syntax_roce_guide_n9300.cfg")
    result = api.lint([path])
    assert not result.errors
    rt001 = sorted(f.line for f in result.findings if f.code == "RT001" and f.line is not None)
    assert rt001 == [2, 3, 6, 22, 26, 30, 35, 44, 45]
    assert result.exit_code() == 1


def test_interface_properties() -> None:
    dev = parse_path(_copy("batfish_nxos_interface_properties.cfg")).device
    assert dev.hostname == "nxos_interface_properties"
    assert [(u.line, u.item, u.ports) for u in dev.unparsed] == [
        (52, "packet latency threshold 8", ("Ethernet1/1",)),
        (54, "service-policy type qos output pm_qos_out", ("Ethernet1/1",)),
    ]
    # the whole model is the parser golden nxos/batfish_interface_properties; the decisions:
    assert list(dev.ports) == ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet100/100"]
    for port in dev.ports.values():
        assert (port.trust, port.dscp_to_priority) == ("port", ALL_ZERO)
        assert port.pfc_rx == ()  # no network-qos policy: no no-drop class, PFC off in any mode
        assert port.pfc_mode == "auto"  # the default (line 131 says it explicitly on one port)
        assert (port.link_pause, port.watchdog, port.ecn) == (False, Watchdog(enabled=False), {})
    eth1 = dev.ports["Ethernet1/1"]
    assert (eth1.mtu, eth1.admin_up, eth1.schedulers) == (9216, True, {})
    assert [p.mtu for p in dev.ports.values()] == [9216, 1500, 1500, 1500]


def test_policy_map_and_class_map_grammar_files() -> None:
    dev = parse_path(_copy("batfish_nxos_policy_map.cfg")).device
    # no interface, but `system qos` policies: one template port for every port
    assert list(dev.ports) == ["Ethernet*"]
    assert dev.ports["Ethernet*"].template
    assert (dev.ports["Ethernet*"].mtu, dev.ports["Ethernet*"].pfc_rx) == (None, None)
    assert [(u.line, u.item) for u in dev.unparsed] == [
        (32, "class type network-qos cm_network_qos"),
        (33, "mtu 9216"),
    ]  # the queuing class-default (line 50) is the default queue 0 (Nexus 3000/5000 style)
    assert dev.facts["nxos.system_qos.qos"] == "pm_qos"
    assert dev.facts["nxos.system_qos.network-qos"] == "pm_network_qos"
    classes = parse_path(_copy("batfish_nxos_class_map.cfg")).device
    assert [(u.line, u.item) for u in classes.unparsed] == [
        (37, "match protocol fcoe"),
        (41, "match access-group name acl1"),
    ]


def test_system_jumbo_undefined_policy() -> None:
    dev = parse_path(_copy("batfish_nxos_system_jumbo.cfg")).device
    assert dev.hostname == "nxos_system"
    assert [(u.line, u.item, u.reason) for u in dev.unparsed] == [
        (8, "fex queue-limit", "system qos command not modelled"),
        (
            11,
            "service-policy type network-qos jumbo",
            "policy-map (network-qos) not defined in this config; what it does is unknown",
        ),
    ]


def test_nexus5000_style_file() -> None:
    dev = parse_path(_copy("batfish_cisco_qos_nx5k_style.cfg")).device
    assert dev.hostname == "cisco_qos"
    assert dev.ports == {}
    lines = [u.line for u in dev.unparsed]
    unknown_nq = [50, *range(51, 62), 62, 63, 64, 65, 66, 67, 68, 69, *range(80, 96)]
    unknown_nq += [*range(108, 117), *range(118, 123)]
    # IOS/ASA blocks that are not NX-OS: object network (31-32), service-template (141-149)
    foreign = [31, 32, *range(141, 150)]
    expected = [16, 17, 24, *foreign, *unknown_nq, 101, 102, 103, 104, 106, 150, 151, 152, 153]
    assert lines == sorted(expected)
    assert {u.reason for u in dev.unparsed if u.line in (150, 153)} == {
        "global QoS command not modelled"
    }


@pytest.mark.parametrize("path", COPIES, ids=lambda p: p.name)
def test_lint_exits_0_or_1(path: Path) -> None:
    result = api.lint([path], platform="nxos")
    assert not result.errors, [str(e) for e in result.errors]
    assert result.exit_code() in {0, 1}
    assert {d.platform for d in result.fabric.devices.values()} == {"nxos"}


def test_lint_detects_nxos_via_the_cli() -> None:
    res = run_cli("lint", *COPIES, "--format", "json")
    assert res.code in {0, 1}, res.err
    assert "Traceback" not in res.err
    devices = json.loads(res.out)["devices"]
    assert len(devices) == len(COPIES)
    assert {d["platform"] for d in devices.values()} == {"nxos"}
    assert {d["status"] for d in devices.values()} == {"ok"}


def test_lint_with_platform_option_via_the_cli() -> None:
    path = _copy("batfish_nxos_system_jumbo.cfg")
    res = run_cli("lint", path, "--platform", "nxos", "--format", "json")
    assert res.code in {0, 1}, res.err
    assert json.loads(res.out)["devices"]["nxos_system"]["platform"] == "nxos"
