"""Every EOS corpus file parses, with exact models; and lints with exit code 0 or 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocetune import api
from rocetune.model import EcnProfile, Scheduler, Watchdog
from rocetune.platforms.eos.blocks import Issues, read_tree
from rocetune.platforms.eos.reader import read_config
from rocetune.platforms.eos.shape import At, PortTimer, Red
from rocetune.platforms.eos.values import Threshold
from tests.cli.conftest import run_cli
from tests.platforms.eos.eos_helpers import (
    ALL_STRICT,
    CORPUS,
    DSCP_DEFAULT,
    FIXTURES,
    IDENTITY8,
    device,
    items,
    parse_path,
)

CORPUS_FILES = sorted(p for p in CORPUS.iterdir() if p.is_file()) if CORPUS.is_dir() else []
FIXTURE_FILES = sorted(FIXTURES.glob("*.cfg"))
QOS = FIXTURES / "corpus_avd_eos_cli_config_gen_qos.cfg"
PLATFORM = FIXTURES / "corpus_avd_eos_cli_config_gen_platform.cfg"
SHOW_RUN_ALL = FIXTURES / "corpus_batfish_arista_interface_show_run_all.cfg"
POLICY = "QoS policy-maps can set the traffic class per flow; class-based policies are not modelled"

_TC1 = (
    "8 9 10 11 12 13 14 15 16 17 19 21 23 24 25 27 29 31 32 33 35 37 39 40 41 42 43 44 45 47 "
    "49 50 51 52 53 54 55 57 58 59 60 61 62 63"
)
QOS_DSCP = {
    **DSCP_DEFAULT,
    **dict.fromkeys(map(int, _TC1.split()), 1),
    **dict.fromkeys((18, 20, 22, 26, 28, 30, 34, 36, 38), 4),
    46: 5,
}
QOS_QUEUES = {**IDENTITY8, 6: 2}


def _sched(**changes: Scheduler) -> dict[int, Scheduler]:
    out = dict(ALL_STRICT)
    out.update({int(k[1:]): v for k, v in changes.items()})
    return out


EXPERIMENT = _sched(
    q3=Scheduler(kind="dwrr", weight=30.0),
    q5=Scheduler(kind="strict", weight=40.0),
    q7=Scheduler(kind="strict", weight=30.0),
)


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_every_shared_corpus_file_parses(path: Path) -> None:
    dev = parse_path(path).device
    assert dev.platform == "eos"
    assert dev.kind == "switch"
    for item in dev.unparsed:
        assert item.file == str(path)
        assert item.line is not None
        assert item.line >= 1


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_fixture_copies_are_unchanged(path: Path) -> None:
    assert (FIXTURES / f"corpus_{path.name}").read_bytes() == path.read_bytes()


def test_avd_qos_ports() -> None:
    """The whole model is the parser golden eos/avd_qos; the decisions:"""
    dev = parse_path(QOS).device
    assert list(dev.ports) == ["Ethernet1", "Ethernet3", "Ethernet4", "Ethernet6", "Ethernet7"]
    for port in dev.ports.values():
        assert port.cos_to_tc == {1: 2, 2: 2, 3: 3, 4: 2}  # lines 234-235: the later line wins
        assert port.dscp_to_priority == QOS_DSCP
        assert port.tc_to_queue == QOS_QUEUES
        assert port.pfc_mode == "off"  # explicit: `priority-flow-control all off` / `no ...`
        assert (port.pfc_rx, port.link_pause) == ((), False)
        assert port.dscp_rewrite is None  # `qos rewrite dscp`: the EOS defaults are not modelled
    eth1 = dev.ports["Ethernet1"]
    assert (eth1.mtu, eth1.trust) == (1500, "dscp")  # its own lines
    assert eth1.ecn == {
        2: EcnProfile(
            name="test",
            ecn_mark=True,
            red_drop=False,
            min_threshold_bytes=320_000,
            max_threshold_bytes=320_000,
            max_probability_pct=90.0,
        ),
        4: EcnProfile(  # thresholds in segments: 320 x 208 bytes
            name="test",
            ecn_mark=True,
            red_drop=False,
            min_threshold_bytes=320 * 208,
            max_threshold_bytes=320 * 208,
        ),
    }
    assert eth1.schedulers == _sched(
        q1=Scheduler(kind="dwrr", weight=50.0), q2=Scheduler(kind="strict", weight=10.0)
    )
    # Port-Channel3 members inherit its `qos trust cos` and service-profile experiment
    for name in ("Ethernet3", "Ethernet4", "Ethernet6"):
        assert (dev.ports[name].trust, dev.ports[name].mtu) == ("pcp", None)
        assert dev.ports[name].schedulers == EXPERIMENT
    assert dev.ports["Ethernet7"].schedulers == _sched(
        q0=Scheduler(kind="strict", weight=1.0),
        q1=Scheduler(kind="strict", weight=80.0),
        q5=Scheduler(kind="dwrr", weight=19.0),
    )


def test_avd_qos_device() -> None:
    result = parse_path(QOS)
    dev = result.device
    rewrite = (
        "DSCP rewrite is on: egress DSCP follows the traffic-class to DSCP map, whose EOS "
        "defaults are not modelled"
    )
    assert [(u.item, u.line, u.reason) for u in dev.unparsed] == [
        ("service-policy type qos input test_qos_policy_v1", 5, POLICY),
        ("service-policy type qos input pmap_test1", 27, POLICY),
        ("service-policy type qos input pmap_test1", 60, POLICY),
        ("service-policy type qos input pmap_test1", 171, POLICY),
        ("service-policy type qos input pmap_test1", 181, POLICY),
        ("qos rewrite dscp", 233, rewrite),
    ]
    assert dev.watchdog_poll_ms == 10_001.0
    assert dev.hostname is None
    assert dev.tunnel_dscp_rewrite == {}
    assert dev.facts == {
        "eos.ecn_allow_non_ect": "chip-based",
        "eos.segment_bytes_assumed": "208 [unverified]",
    }
    lines = {k: v.line for k, v in result.provenance.refs.items()}
    assert lines["ports.Ethernet3"] == 186
    assert lines["ports.Ethernet3.trust"] == 173  # the Port-Channel's `qos trust cos`
    assert lines["ports.Ethernet3.schedulers.3"] == 8  # `no priority` in profile experiment
    assert lines["ports.Ethernet1.ecn.2"] == 53  # profile test, tx-queue 2
    assert lines["ports.Ethernet1.trust"] == 183  # the interface's own line wins
    assert lines["ports.Ethernet1.mtu"] == 178
    assert lines["ports.Ethernet1.tc_to_queue"] == 241
    assert lines["watchdog_poll_ms"] == 277


def test_avd_qos_vendor_shape() -> None:
    text = QOS.read_text()
    issues = Issues("qos.cfg")
    config = read_config(text, read_tree(text, issues), issues)
    pfc = config.profiles["test_with_pfc"]
    assert pfc.pfc_on == At(True, 72)
    assert pfc.pfc_priorities == {0: At(True, 73), 1: At(False, 74)}
    assert pfc.watchdog == At(True, 75)
    assert pfc.watchdog_action == At("drop", 76)
    assert pfc.watchdog_timer == At(PortTimer(50.0, 1110.0, None, forced=True), 77)
    g = config.globals
    assert g.pfc_all_off == At(True, 274)
    assert (g.watchdog_timeout_ms, g.watchdog_recovery_ms, g.watchdog_poll_ms) == (
        At(50.0, 275),
        At(1220.0, 276),
        At(10_001.0, 277),
    )
    assert g.watchdog_action == At("forward", 278)
    assert config.profiles["no_qos_trust"].trust == At("port", 22)
    uc = config.profiles["uc_mc_queues_test"].queues
    assert sorted(uc) == [1, 2, 4]  # mc-tx-queue blocks are not modelled
    assert uc[1].ecn is not None
    assert uc[1].ecn.value == Red(
        Threshold(3, "milliseconds"),
        Threshold(9, "milliseconds"),
        90.0,
        "random-detect ecn minimum-threshold 3 milliseconds maximum-threshold 9 milliseconds "
        "max-mark-probability 90",
    )


def _attach(profile: str, keep_all_off: bool = False, speed: str = "") -> str:
    text = QOS.read_text()
    if not keep_all_off:
        text = text.replace("priority-flow-control all off\n", "")
    extra = f"   speed {speed}\n" if speed else ""
    return f"{text}interface Ethernet20\n{extra}   service-profile {profile}\n!\n"


def test_profile_with_pfc_applied() -> None:
    port = device(_attach("test_with_pfc")).ports["Ethernet20"]
    assert (port.pfc_rx, port.pfc_tx, port.pfc_priority_to_queue) == ((0,), (0,), {0: 0})
    assert port.watchdog == Watchdog(
        enabled=True, detection_ms=50.0, restoration_ms=1110.0, action="drop"
    )
    assert port.link_pause is False
    assert port.schedulers == _sched(
        q0=Scheduler(kind="strict", weight=1.0),
        q1=Scheduler(kind="strict", weight=80.0),
        q5=Scheduler(kind="dwrr", weight=19.0),
    )


def test_global_all_off_beats_the_profile() -> None:
    port = device(_attach("test_with_pfc", keep_all_off=True)).ports["Ethernet20"]
    assert (port.pfc_rx, port.pfc_tx, port.watchdog) == ((), (), Watchdog(enabled=False))


def test_wred_drop_profiles() -> None:
    port = device(_attach("wred_queues_test")).ports["Ethernet20"]

    def drop(low: int, high: int, prob: float) -> EcnProfile:
        return EcnProfile(
            name="wred_queues_test",
            ecn_mark=False,
            red_drop=True,
            min_threshold_bytes=low,
            max_threshold_bytes=high,
            max_probability_pct=prob,
        )

    assert port.ecn == {
        1: drop(1000, 10_000, 100.0),
        2: drop(2000, 200_000, 50.0),  # only a drop-precedence line: its thresholds
        3: EcnProfile(
            name="wred_queues_test",
            ecn_mark=True,
            red_drop=False,
            min_threshold_bytes=320_000,
            max_threshold_bytes=320_000,
        ),
        4: drop(1000, 10_000, 90.0),
    }


def test_time_thresholds_use_the_port_speed() -> None:
    port = device(_attach("wred_uc_queues_test", speed="100g")).ports["Ethernet20"]
    assert port.ecn is not None
    assert {q: (p.min_threshold_bytes, p.max_threshold_bytes) for q, p in port.ecn.items()} == {
        1: (12_500, 125_000),  # 1 / 10 microseconds at 100 Gb/s
        2: (25_000_000, 250_000_000),  # 2 / 20 milliseconds
        4: (12_500, 125_000),
    }
    dev = device(_attach("uc_mc_queues_test"))
    ecn = dev.ports["Ethernet20"].ecn
    assert ecn is not None
    assert (ecn[1].min_threshold_bytes, ecn[1].max_threshold_bytes) == (None, None)
    assert (
        "random-detect ecn minimum-threshold 3 milliseconds maximum-threshold 9 milliseconds "
        "max-mark-probability 90",
        85,
    ) in items(dev)


def test_batfish_show_run_all() -> None:
    result = parse_path(SHOW_RUN_ALL)
    dev = result.device
    assert dev.hostname == "arista_interface_show_run_all"
    assert dev.unparsed == ()
    assert dev.watchdog_poll_ms is None
    assert dev.facts == {
        "eos.command": "show running-config all",
        "eos.model": "DCS-7260CX-64",
        "eos.version": "4.19.1F",
    }
    assert list(dev.ports) == ["Ethernet1/1", "Ethernet1/2"]
    # the whole model is the parser golden eos/batfish_show_run_all; the decisions:
    eth1 = dev.ports["Ethernet1/1"]
    assert eth1.speed_mbps == 100  # the last of its speed lines: `speed 100full`
    assert (eth1.mtu, eth1.trust, eth1.fec) == (9212, "dscp", "auto")
    assert eth1.schedulers == _sched(
        q0=Scheduler(kind="dwrr", weight=69.0),
        q1=Scheduler(kind="dwrr", weight=1.0),
        q2=Scheduler(kind="dwrr", weight=20.0),
        q4=Scheduler(kind="dwrr", weight=10.0),
    )
    # all defaults: `default qos trust` on a switchport, every queue strict, no PFC
    eth2 = dev.ports["Ethernet1/2"]
    assert (eth2.trust, eth2.mtu, eth2.schedulers) == ("pcp", None, ALL_STRICT)
    assert (eth2.cos_to_tc, eth2.dscp_to_priority) == ({}, DSCP_DEFAULT)
    for port in (eth1, eth2):
        assert (port.pfc_mode, port.pfc_rx, port.link_pause) == ("off", (), False)
        assert port.watchdog == Watchdog(enabled=False)
        assert (port.ecn, port.dscp_rewrite, port.dscp_rewrite_on_ingress) == ({}, {}, False)
    lines = {k: v.line for k, v in result.provenance.refs.items()}
    assert lines["ports.Ethernet1/1.mtu"] == 14
    assert lines["ports.Ethernet1/1.pfc_rx"] == 116  # `no priority-flow-control`


def test_avd_platform_buffer_profiles() -> None:
    dev = parse_path(PLATFORM).device
    assert dev.ports == {}
    reason = "platform QoS/buffer setting not modelled"
    assert [(u.item, u.line, u.reason) for u in dev.unparsed] == [
        ("platform sand qos map traffic-class 0 to network-qos 0", 28, reason),
        ("platform sand qos map traffic-class 1 to network-qos 7", 29, reason),
        ("platform sand qos map traffic-class 2 to network-qos 15", 30, reason),
        (
            "platform trident mmu queue profile mc_example_profile apply",
            40,
            "MMU queue profiles change egress queue buffers; not modelled",
        ),
    ]
    assert dev.facts == {
        "eos.mmu_queue_profile_applied": "mc_example_profile",
        "eos.mmu_queue_profiles": "mc_example_profile,unused_profile",
    }


@pytest.mark.parametrize("path", [*FIXTURE_FILES, FIXTURES / "roce_spine"], ids=lambda p: p.name)
def test_fixture_lints_with_exit_0_or_1(path: Path) -> None:
    result = api.lint([path], platform="eos")
    assert not result.errors, [str(e) for e in result.errors]
    assert result.exit_code() in {0, 1}
    assert [d.platform for d in result.fabric.devices.values()] == ["eos"]


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_shared_corpus_lints_with_exit_0_or_1(path: Path) -> None:
    result = api.lint([path], platform="eos")
    assert not result.errors, [str(e) for e in result.errors]
    assert result.exit_code() in {0, 1}


def test_lint_cli_accepts_platform_eos() -> None:
    files = [*FIXTURE_FILES, FIXTURES / "roce_spine"]
    res = run_cli("lint", *files, "--platform", "eos", "--format", "json")
    assert res.code in {0, 1}, res.err
    assert "Traceback" not in res.err
    assert len(json.loads(res.out)["devices"]) == len(files)
