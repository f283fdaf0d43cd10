"""Expected models of real SONiC files (copies in tests/fixtures/sonic, see SOURCES.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from rocetune.model import BufferPool, BufferProfile, EcnProfile, Scheduler, Watchdog
from rocetune.platforms.base import ParseResult, Provenance
from rocetune.platforms.sonic.parse import parse_text, read_configs
from rocetune.platforms.sonic.resolve import Ctx
from rocetune.platforms.sonic.values import At

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sonic"
ParseFixture = Callable[[str], ParseResult]

AZURE_DSCP = dict.fromkeys(range(64), 1) | {3: 3, 4: 4, 5: 2, 8: 0, 46: 5, 48: 6}
IDENTITY8 = {i: i for i in range(8)}
AZURE_LOSSLESS = EcnProfile(
    name="AZURE_LOSSLESS",
    ecn_mark=True,
    red_drop=False,
    min_threshold_bytes=1048576,
    max_threshold_bytes=2097152,
    max_probability_pct=5.0,
)
DWRR14 = Scheduler(name="scheduler.0", kind="dwrr", weight=14.0, weight_is_percent=False)
DWRR15 = Scheduler(name="scheduler.1", kind="dwrr", weight=15.0, weight_is_percent=False)


def line(result: ParseResult, path: str) -> int | None:
    ref = result.provenance.lookup(path)
    return None if ref is None else ref.line


# --- su_config_qos.json: maps and WRED defined but bound to no port -------------------


def test_config_qos_normalised_maps_and_wred() -> None:
    text = (FIXTURES / "su_config_qos.json").read_text()
    (cfg,), problems = read_configs(text, "su_config_qos.json")
    assert cfg.maps["DSCP_TO_TC_MAP"]["AZURE"].values == AZURE_DSCP
    assert cfg.maps["DSCP_TO_TC_MAP"]["AZURE"].lines[3] == 485
    assert cfg.maps["TC_TO_PRIORITY_GROUP_MAP"]["AZURE"].values == {
        0: 0, 1: 0, 2: 0, 3: 3, 4: 4, 5: 0, 6: 0, 7: 7,
    }  # fmt: skip
    assert cfg.maps["MAP_PFC_PRIORITY_TO_QUEUE"]["AZURE"].values == IDENTITY8
    assert cfg.maps["TC_TO_QUEUE_MAP"]["AZURE"].values == IDENTITY8
    wred = cfg.wred["AZURE_LOSSLESS"]
    assert wred.ecn == At("ecn_all", 590)
    assert wred.green_min == At(1048576, 593)
    assert wred.green_max == At(2097152, 592)
    assert wred.green_probability == At(5.0, 591)
    assert wred.green_enable == At(True, 597)
    # Step 3 turns the vendor shape into the neutral profile.
    ctx = Ctx(cfg=cfg, pr=problems, prov=Provenance(), file="su_config_qos.json")
    assert ctx.ecn_profile(At("AZURE_LOSSLESS", 1)) == AZURE_LOSSLESS


def test_config_qos_ports(parse_fixture: ParseFixture) -> None:
    result = parse_fixture("su_config_qos.json")
    dev = result.device
    assert len(dev.ports) == 32
    assert list(dev.ports)[:3] == ["Ethernet0", "Ethernet4", "Ethernet8"]
    p = dev.ports["Ethernet0"]
    # PORT_QOS_MAP is {}: maps exist but none applies; PFC known off.
    assert p.trust == "port"
    assert p.dscp_to_priority == {}
    assert p.priority_to_tc == {}
    assert p.tc_to_pg == {}
    assert p.pfc_priority_to_pg == IDENTITY8
    assert p.pfc_rx == ()
    assert p.pfc_tx == ()
    assert p.ecn == {}
    assert p.schedulers == {}
    assert p.watchdog is None
    assert p.link_pause is False
    assert p.speed_mbps is None
    assert p.mtu is None
    assert p.cable_length_m == 300.0
    assert p.pg_buffers == {
        0: BufferProfile(
            name="ingress_lossy_profile",
            pool="ingress_lossless_pool",
            size_bytes=0,
            dynamic_th=3,
            alpha=8.0,
        )
    }
    assert p.queue_buffers is not None
    assert sorted(p.queue_buffers) == [0, 1, 2, 3, 4, 5, 6]
    assert p.queue_buffers[3] == BufferProfile(
        name="egress_lossless_profile",
        pool="egress_lossless_pool",
        size_bytes=0,
        static_th_bytes=12766208,
    )
    assert line(result, "ports.Ethernet0.queue_buffers.3") == 138
    assert line(result, "ports.Ethernet0.cable_length_m") == 426


def test_config_qos_pools_and_unparsed(parse_fixture: ParseFixture) -> None:
    result = parse_fixture("su_config_qos.json")
    dev = result.device
    assert dev.buffer_pools == {
        "egress_lossless_pool": BufferPool(
            name="egress_lossless_pool",
            direction="egress",
            mode="static",
            size_bytes=12766208,
            lossless=True,
        ),
        "egress_lossy_pool": BufferPool(
            name="egress_lossy_pool",
            direction="egress",
            mode="dynamic",
            size_bytes=7326924,
            lossless=False,
        ),
        "ingress_lossless_pool": BufferPool(
            name="ingress_lossless_pool",
            direction="ingress",
            mode="dynamic",
            size_bytes=12766208,
            shared_headroom_bytes=0,  # no pool xoff: independent headroom (S9)
            lossless=True,
        ),
    }
    assert line(result, "buffer_pools.ingress_lossless_pool") == 111
    assert [(u.item, u.line) for u in dev.unparsed] == [("MPLS_TC_TO_TC_MAP", 540)]
    assert line(result, "unparsed.0") == 540
    assert dev.hostname is None
    assert dev.asic is None
    assert dev.watchdog_poll_ms is None


# --- su_dbmigrator_qos_oldref_format_3_0_1.json: old [TABLE|name] references ----------


def test_oldref_references_resolve(parse_fixture: ParseFixture) -> None:
    result = parse_fixture("su_dbmigrator_qos_oldref_format_3_0_1.json")
    dev = result.device
    p = dev.ports["Ethernet0"]
    lossless = BufferProfile(
        name="pg_lossless_100000_40m_profile",
        pool="ingress_lossless_pool",
        size_bytes=1248,
        xon_bytes=2288,
        xoff_bytes=177632,
        xon_offset_bytes=2288,
        dynamic_th=-3,
        alpha=0.125,
    )
    assert p.pg_buffers is not None
    assert p.pg_buffers[3] == lossless
    assert p.pg_buffers[4] == lossless
    assert p.pg_buffers[0].name == "ingress_lossy_profile"
    assert p.trust == "dscp"
    assert p.dscp_to_priority == AZURE_DSCP
    assert p.priority_to_tc == IDENTITY8
    assert p.tc_to_pg == {0: 0, 1: 0, 2: 0, 3: 3, 4: 4, 5: 0, 6: 0, 7: 7}
    assert p.tc_to_queue == IDENTITY8
    assert p.pfc_priority_to_queue == IDENTITY8
    assert p.pfc_rx == (3, 4)
    assert p.pfc_tx == (3, 4)
    assert p.ecn == {3: AZURE_LOSSLESS, 4: AZURE_LOSSLESS}
    assert p.schedulers == {q: DWRR15 if q in (3, 4) else DWRR14 for q in range(7)}
    assert p.queue_buffers is not None
    assert p.queue_buffers[3].static_th_bytes == 43468672
    # default_pfcwd_status "disable" and no PFC_WD table: off by the load-time default.
    assert p.watchdog == Watchdog(enabled=False, runtime_default=True)
    assert (p.speed_mbps, p.mtu, p.admin_up) == (100000, 9100, True)
    assert p.cable_length_m is None


def test_oldref_device_and_provenance(parse_fixture: ParseFixture) -> None:
    result = parse_fixture("su_dbmigrator_qos_oldref_format_3_0_1.json")
    dev = result.device
    assert len(dev.ports) == 66
    assert dev.hostname == "sonic"
    assert dev.asic == "broadcom"  # Dell Z9264F: sonic-buildimage platform_asic broadcom
    assert dev.facts["buffer_model"] == "traditional"
    assert dev.facts["hwsku"] == "DellEMC-Z9264f-C64"
    assert dev.facts["config_db_version"] == "version_3_0_1"
    assert dev.buffer_pools is not None
    assert dev.buffer_pools["ingress_lossless_pool"].shared_headroom_bytes == 7847424
    # BUFFER_PROFILE ``mode dynamic`` next to dynamic_th is read (it names the same mode).
    assert dev.unparsed == ()
    assert line(result, "ports.Ethernet0") == 1138
    assert line(result, "ports.Ethernet0.pfc_rx") == 1670
    assert line(result, "ports.Ethernet0.dscp_to_priority") == 1669
    assert line(result, "ports.Ethernet0.pg_buffers.3") == 6
    assert line(result, "ports.Ethernet0.ecn.3") == 2141
    assert line(result, "ports.Ethernet0.watchdog") == 1048
    assert line(result, "hostname") == 1049


# --- su_mock_config_db_flat.json: flat form, NULL profiles, PFC_WD ----------------------


def test_mock_flat_ethernet0(parse_fixture: ParseFixture) -> None:
    result = parse_fixture("su_mock_config_db_flat.json")
    p = result.device.ports["Ethernet0"]
    assert (p.speed_mbps, p.mtu, p.admin_up) == (40000, 9100, None)
    # pfc_enable but no dscp/tc maps on the port and no global map.
    assert p.pfc_rx == (3, 4)
    assert p.pfc_tx == (3, 4)
    assert p.trust == "port"
    assert p.dscp_to_priority == {}
    assert p.tc_to_pg == {}
    assert p.watchdog == Watchdog(
        enabled=True, detection_ms=600.0, restoration_ms=600.0, action="drop"
    )
    assert p.pg_buffers is not None
    assert p.pg_buffers[3] == BufferProfile(computed_at_runtime=True)
    assert p.pg_buffers[4] == BufferProfile(computed_at_runtime=True)
    assert p.pg_buffers[0] == BufferProfile(
        name="ingress_lossy_profile",
        pool="ingress_lossy_pool",
        size_bytes=0,
        dynamic_th=3,
        alpha=8.0,
    )
    assert p.queue_buffers == {
        q: BufferProfile(
            name="egress_lossless_profile",
            pool="egress_lossless_pool",
            size_bytes=0,
            dynamic_th=0,
            alpha=1.0,
        )
        for q in (3, 4)
    }
    assert p.ecn == {3: AZURE_LOSSLESS, 4: AZURE_LOSSLESS}
    assert p.schedulers is not None
    assert p.schedulers[3] == DWRR15
    assert line(result, "ports.Ethernet0") == 26
    assert line(result, "ports.Ethernet0.speed_mbps") == 35
    assert line(result, "ports.Ethernet0.pfc_tx") == 2550
    assert line(result, "ports.Ethernet0.pg_buffers.3") == 2540
    assert line(result, "ports.Ethernet0.watchdog") == 2320
    assert line(result, "ports.Ethernet0.schedulers.3") == 2628


def test_mock_flat_other_ports_and_device(parse_fixture: ParseFixture) -> None:
    result = parse_fixture("su_mock_config_db_flat.json")
    dev = result.device
    assert len(dev.ports) == 32
    e8 = dev.ports["Ethernet8"]
    assert e8.pfc_rx == ()
    assert e8.admin_up is True
    assert e8.watchdog is not None
    assert e8.watchdog.enabled
    assert e8.pg_buffers == {}
    assert e8.queue_buffers == {}
    e12 = dev.ports["Ethernet12"]
    # Not in PFC_WD, no pfc_enable: start_default would skip it.
    assert e12.watchdog == Watchdog(enabled=False, runtime_default=True)
    assert e12.pfc_rx == ()
    assert dev.hostname == "sonic-switch"
    assert dev.asic == "spectrum2"
    assert dev.watchdog_poll_ms == 600.0
    assert line(result, "watchdog_poll_ms") == 2339
    assert dev.facts["default_pfcwd_status"] == "enable"
    assert dev.facts["default_lossless_buffer_parameter.over_subscribe_ratio"] == "2"
    assert dev.buffer_pools is not None
    assert dev.buffer_pools["ingress_lossless_pool"] == BufferPool(
        name="ingress_lossless_pool",
        direction="ingress",
        mode="dynamic",
        shared_headroom_bytes=0,
        lossless=True,
    )
    assert dev.buffer_pools["ingress_lossy_pool"].lossless is False
    assert [(u.item, u.line) for u in dev.unparsed] == [("PORT_QOS_MAP|Ethernet0 scheduler", 2551)]


# --- su_dbmigrator_qos_map_input_flat.json: single-entry stub maps -----------------------


def test_qos_map_input_flat(parse_fixture: ParseFixture) -> None:
    result = parse_fixture("su_dbmigrator_qos_map_input_flat.json")
    dev = result.device
    assert list(dev.ports) == ["Ethernet0", "Ethernet92", "Ethernet96", "Ethernet100"]
    e0 = dev.ports["Ethernet0"]
    assert e0.speed_mbps == 1000
    assert e0.trust == "dscp"
    assert e0.dscp_to_priority == {0: 0}
    assert e0.priority_to_tc == IDENTITY8
    assert e0.tc_to_pg == {0: 0}
    assert e0.tc_to_queue == {0: 0}
    assert e0.pfc_priority_to_queue == {0: 0}
    assert e0.pfc_priority_to_pg == IDENTITY8
    assert e0.pfc_rx == (3, 4)
    assert dev.ports["Ethernet92"].pfc_rx == ()
    assert dev.ports["Ethernet92"].pfc_tx == ()
    # No QUEUE/BUFFER/PFC_WD/DEVICE_METADATA tables: unknown, not empty.
    assert e0.ecn is None
    assert e0.schedulers is None
    assert e0.pg_buffers is None
    assert e0.queue_buffers is None
    assert e0.watchdog is None
    assert e0.cable_length_m is None
    assert dev.buffer_pools is None
    assert dev.unparsed == ()
    assert line(result, "ports.Ethernet0") == 35
    assert line(result, "ports.Ethernet0.pfc_rx") == 7
    assert line(result, "ports.Ethernet0.dscp_to_priority.0") == 34


# --- sb_qos_mellanox4600c_d48c40_t0.json: a rendered, fully bound qos.json --------------


def test_mellanox4600c_bound_port(parse_fixture: ParseFixture) -> None:
    result = parse_fixture("sb_qos_mellanox4600c_d48c40_t0.json")
    dev = result.device
    p = dev.ports["Ethernet2"]
    assert p.trust == "dscp"
    assert p.dscp_to_priority is not None
    assert (p.dscp_to_priority[3], p.dscp_to_priority[4], p.dscp_to_priority[26]) == (3, 4, 1)
    assert p.dscp_to_priority[33] == 8
    # TC 8 is used by the DSCP map, so the identity covers it.
    assert p.priority_to_tc == {i: i for i in range(9)}
    assert p.tc_to_pg == {0: 0, 1: 0, 2: 2, 3: 3, 4: 4, 5: 0, 6: 6, 7: 0, 8: 0}
    assert p.pfc_rx == (3, 4)
    wred = EcnProfile(
        name="AZURE_LOSSLESS",
        ecn_mark=True,
        red_drop=False,
        min_threshold_bytes=2000000,
        max_threshold_bytes=10000000,
        max_probability_pct=5.0,
    )
    assert p.ecn == {3: wred, 4: wred}
    assert p.schedulers is not None
    assert sorted(p.schedulers) == list(range(8))
    assert p.pg_buffers is None
    # The tunnel's TC_TO_DSCP_MAP is modelled; no port binds it and no TUNNEL uses it here.
    assert dev.unparsed == ()
    assert p.dscp_rewrite == {}
    assert p.dscp_rewrite_on_ingress is True
    assert dev.tunnel_dscp_rewrite is None  # a qos.json fragment: no PORT table
    assert line(result, "ports.Ethernet2.trust") == 296
    assert line(result, "ports.Ethernet2.ecn.3") == 525


def test_buffer_profile_mode_must_match_its_threshold_field() -> None:
    """``mode`` is read; one that contradicts the threshold field the profile sets is RT001."""
    doc = {
        "BUFFER_POOL": {"p": {"type": "egress", "mode": "dynamic", "size": "1000000"}},
        "BUFFER_PROFILE": {
            "ok": {"pool": "p", "size": "1518", "dynamic_th": "3", "mode": "dynamic"},
            "bad": {"pool": "p", "size": "1518", "dynamic_th": "3", "mode": "static"},
        },
    }
    dev = parse_text(json.dumps(doc, indent=1), "x.json", "sw1", None).device
    assert [u.item for u in dev.unparsed] == ["BUFFER_PROFILE|bad mode"]
