"""Small hand-written CONFIG_DB cases: shapes, references, defaults and malformed input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from rocetune.errors import ParseError
from rocetune.model import BufferProfile, Device, EcnProfile, Scheduler, Watchdog
from rocetune.platforms.base import ParseResult
from rocetune.platforms.sonic import PLATFORM as SONIC
from rocetune.platforms.sonic.commands import CONFIG_DB
from rocetune.snapshot import Snapshot, SnapshotMeta, SourceFile

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sonic"
Parse = Callable[[str], ParseResult]


def items(dev: Device) -> list[tuple[str, int | None]]:
    return [(u.item, u.line) for u in dev.unparsed]


def reasons(dev: Device) -> list[str]:
    return [u.reason for u in dev.unparsed]


def line(result: ParseResult, path: str) -> int | None:
    ref = result.provenance.lookup(path)
    return None if ref is None else ref.line


# --- duplicates, unknown tables, invalid JSON -----------------------------------------

DUPLICATES = """{
  "PORT_QOS_MAP": {
    "Ethernet0": {
      "pfc_enable": "3,4",
      "pfc_enable": "3"
    }
  },
  "BGP_NEIGHBOR": {
    "10.0.0.1": {"asn": "1", "asn": "2"}
  },
  "PORT|Ethernet0": {"mtu": "9100"},
  "PORT|Ethernet0": {"mtu": "1500"}
}
"""


def test_duplicate_keys_are_reported_with_their_line(parse_config: Parse) -> None:
    result = parse_config(DUPLICATES)
    dev = result.device
    assert items(dev) == [("PORT_QOS_MAP|Ethernet0 pfc_enable", 5), ("PORT|Ethernet0", 12)]
    assert all("the last value is used by redis/sonic-cfggen" in r for r in reasons(dev))
    assert reasons(dev)[0].startswith("duplicate key 'pfc_enable'")
    # The last value wins, and provenance points at the line that wins.
    port = dev.ports["Ethernet0"]
    assert port.pfc_rx == (3,)
    assert port.mtu == 1500
    assert line(result, "ports.Ethernet0.pfc_rx") == 5
    assert line(result, "ports.Ethernet0.mtu") == 12
    assert line(result, "unparsed.1") == 12


def test_duplicate_top_level_table(parse_config: Parse) -> None:
    text = '{\n"QUEUE": {"Ethernet0|3": {}},\n"QUEUE": {"Ethernet4|3": {}}\n}'
    dev = parse_config(text).device
    assert items(dev) == [("QUEUE", 3)]
    assert list(dev.ports) == ["Ethernet4"]


def test_unknown_qos_table_and_fields_are_reported(parse_config: Parse) -> None:
    text = """{
  "POLICER": {"p1": {"cir": "1000"}},
  "TC_TO_DOT1P_MAP": {"AZURE": {"3": "3"}},
  "VLAN": {"Vlan100": {"vlanid": "100"}},
  "MUX_CABLE": {"Ethernet0": {"state": "auto"}},
  "PORT": {"Ethernet0": {"speed": "100000", "description": "x", "pfc_mode": "on"}},
  "SCHEDULER": {"s1": {"type": "DWRR", "weight": "10", "pir": "100"}}
}
"""
    dev = parse_config(text).device
    assert items(dev) == [
        ("POLICER", 2),
        ("TC_TO_DOT1P_MAP", 3),
        ("PORT|Ethernet0 pfc_mode", 6),
        ("SCHEDULER|s1 pir", 7),
    ]
    assert reasons(dev)[0] == "table not modelled by rocetune (1 entries)"
    assert reasons(dev)[2] == "PORT field 'pfc_mode' is not modelled by rocetune"


def test_unknown_fields_are_grouped_per_table_and_field(parse_config: Parse) -> None:
    entries = ",\n".join(
        f'  "PORT_QOS_MAP|Ethernet{i}": {{"tc_to_dot1p_map": "AZURE"}}' for i in range(3)
    )
    dev = parse_config("{\n" + entries + "\n}").device
    assert items(dev) == [("PORT_QOS_MAP|Ethernet0 tc_to_dot1p_map", 2)]
    assert reasons(dev) == [
        "PORT_QOS_MAP field 'tc_to_dot1p_map' is not modelled by rocetune (3 entries)"
    ]


def test_invalid_json_raises_parse_error_with_line(parse_config: Parse) -> None:
    text = '{\n  "PORT": {\n    "Ethernet0": {"mtu": "9100",}\n  }\n}\n'
    with pytest.raises(ParseError) as err:
        parse_config(text)
    assert err.value.file == "config_db.json"
    assert err.value.line == 3
    assert "invalid JSON" in err.value.message


def test_missing_output_raises_parse_error() -> None:
    from rocetune.platforms.sonic import PLATFORM as SONIC
    from rocetune.snapshot import Snapshot

    with pytest.raises(ParseError, match="show runningconfiguration all"):
        SONIC.parse(Snapshot(files={}, origin="snap/leaf1"), "leaf1", None)


# --- malformed content never raises ----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        "42",
        '"PORT"',
        "null",
        '["PORT", 1, null]',
        '{"PORT": "Ethernet0"}',
        '{"PORT": ["Ethernet0"]}',
        '{"PORT": {"Ethernet0": "up"}}',
        '{"PORT": {"Ethernet0": {"speed": {"a": 1}, "mtu": [9100], "admin_status": true}}}',
        '{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": ["3", "4"], "dscp_to_tc_map": 7}}}',
        '{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,9"}}, "QUEUE": {"x": {}}}',
        '{"DSCP_TO_TC_MAP": {"AZURE": {"x": "1", "64": "1", "3": "-1", "4": null}}}',
        '{"QUEUE": {"Ethernet0": {"scheduler": "s"}, "Ethernet0|a-b": {}, "|3": {}}}',
        '{"BUFFER_PG": {"Ethernet0|4-3": {"profile": "p"}, "Ethernet0|0": {}}}',
        '{"BUFFER_PROFILE": {"p": {"dynamic_th": "abc", "size": "-5", "pool": "[X|y"}}}',
        '{"WRED_PROFILE": {"w": {"ecn": "maybe", "green_min_threshold": "1.5"}}}',
        '{"PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "fast"}, "Ethernet0": {"action": "panic"}}}',
        '{"CABLE_LENGTH": {"AZURE": {"Ethernet0": "40", "Ethernet4": 5}}}',
        '{"CABLE_LENGTH": {"AZURE": "40m"}}',
        '{"DEVICE_METADATA": {"localhost": {"default_pfcwd_status": "maybe", "hostname": 1}}}',
        '{"localhost": {"PORT": {"Ethernet0": {}}}, "asic0": {"PORT": 5}}',
        '{"PORT": {"Ethernet0": {"speed": "100000", "pfc_asym": "sometimes"}}, "PORT_QOS_MAP": {}}',
        '{"PORT_QOS_MAP": {"global": {"dscp_to_tc_map": "AZURE", "tc_to_pg_map": "X"}}}',
    ],
)
def test_malformed_content_is_unparsed_not_raised(parse_config: Parse, text: str) -> None:
    dev = parse_config(text).device
    assert dev.platform == "sonic"
    for item in dev.unparsed:
        assert item.file == "config_db.json"
        assert item.line is not None


def test_garbage_values_become_none_and_unparsed(parse_config: Parse) -> None:
    text = """{
  "PORT": {"Ethernet0": {"speed": "fast", "mtu": 9100, "admin_status": "sideways"}},
  "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,x"}},
  "CABLE_LENGTH": {"AZURE": {"Ethernet0": "forty"}}
}
"""
    dev = parse_config(text).device
    port = dev.ports["Ethernet0"]
    assert port.speed_mbps is None
    assert port.mtu == 9100  # a JSON number is accepted
    assert port.admin_up is None
    assert port.pfc_rx is None
    assert port.pfc_tx is None
    assert port.cable_length_m is None
    assert items(dev) == [
        ("PORT|Ethernet0 admin_status=sideways", 2),
        ("PORT|Ethernet0 speed=fast", 2),
        ("PORT_QOS_MAP|Ethernet0 pfc_enable=3,x", 3),
        ("CABLE_LENGTH|AZURE Ethernet0=forty", 4),
    ]


# --- keys, shapes, references ----------------------------------------------------------


def test_range_and_comma_keys_expand(parse_config: Parse) -> None:
    text = """{
  "PORT_QOS_MAP": {"Ethernet0,Ethernet4": {"pfc_enable": "3,4"}},
  "QUEUE": {"Ethernet0,Ethernet4|3-4": {"scheduler": "s1"}, "Ethernet0|0-2": {"scheduler": "s0"}},
  "SCHEDULER": {"s0": {"type": "DWRR", "weight": "20"}, "s1": {"type": "STRICT"}},
  "BUFFER_PG": {"Ethernet4|0,3-4": {"profile": "NULL"}}
}
"""
    result = parse_config(text)
    dev = result.device
    assert list(dev.ports) == ["Ethernet0", "Ethernet4"]
    strict = Scheduler(name="s1", kind="strict", weight_is_percent=False)
    dwrr = Scheduler(name="s0", kind="dwrr", weight=20.0, weight_is_percent=False)
    assert dev.ports["Ethernet0"].schedulers == {0: dwrr, 1: dwrr, 2: dwrr, 3: strict, 4: strict}
    assert dev.ports["Ethernet4"].schedulers == {3: strict, 4: strict}
    assert dev.ports["Ethernet4"].pfc_tx == (3, 4)
    runtime = BufferProfile(computed_at_runtime=True)
    assert dev.ports["Ethernet4"].pg_buffers == {0: runtime, 3: runtime, 4: runtime}
    assert dev.ports["Ethernet0"].pg_buffers == {}
    assert line(result, "ports.Ethernet4.schedulers.3") == 3
    assert dev.unparsed == ()


def _flatten(nested: dict[str, dict[str, object]]) -> dict[str, object]:
    flat: dict[str, object] = {}
    for table, entries in nested.items():
        if "|" in table:  # the file already mixes in a flat entry (VERSIONS|DATABASE)
            flat[table] = entries
        else:
            flat.update({f"{table}|{key}": v for key, v in entries.items()})
    return flat


def test_nested_and_flat_give_the_same_device(parse_config: Parse) -> None:
    nested = json.loads((FIXTURES / "su_dbmigrator_qos_oldref_format_3_0_1.json").read_text())
    a = parse_config(json.dumps(nested, indent=4)).device
    b = parse_config(json.dumps(_flatten(nested), indent=4)).device
    assert a.ports == b.ports
    assert a.buffer_pools == b.buffer_pools
    assert (a.hostname, a.facts) == (b.hostname, b.facts)
    assert [(u.item, u.reason) for u in a.unparsed] == [(u.item, u.reason) for u in b.unparsed]


def test_patch_list_merges_in_order() -> None:
    from rocetune.platforms.sonic.parse import parse_text as parse_file

    path = FIXTURES / "sm_configlet_add_qos_new_dbfmt.json"
    result = parse_file(path.read_text(), path.name, "t1", None)
    dev = result.device
    port = dev.ports["Ethernet63"]
    assert list(dev.ports) == ["Ethernet63"]
    # PORT admin_status "down" in the first patch, "up" in the last one.
    assert port.admin_up is True
    assert port.mtu == 9100
    assert port.pfc_rx == (3, 4)
    assert port.watchdog == Watchdog(
        enabled=True, detection_ms=400.0, restoration_ms=400.0, action="drop"
    )
    assert port.cable_length_m == 300.0
    # Referenced objects live in the device's base config, not in the configlet.
    assert port.ecn == {3: EcnProfile(name="AZURE_LOSSLESS"), 4: EcnProfile(name="AZURE_LOSSLESS")}
    assert port.dscp_to_priority is None
    assert port.trust == "dscp"
    assert ("DSCP_TO_TC_MAP|AZURE", 176) in items(dev)
    assert "referenced, but DSCP_TO_TC_MAP is not in this file" in reasons(dev)
    assert len(dev.unparsed) == 10


def test_undefined_map_reference_is_unparsed_and_none(parse_config: Parse) -> None:
    text = """{
  "DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
  "PORT_QOS_MAP": {
    "Ethernet0": {"dscp_to_tc_map": "MISSING", "tc_to_pg_map": "AZURE"},
    "Ethernet4": {"dscp_to_tc_map": "[DSCP_TO_TC_MAP|AZURE]"}
  }
}
"""
    dev = parse_config(text).device
    e0, e4 = dev.ports["Ethernet0"], dev.ports["Ethernet4"]
    assert e0.trust == "dscp"
    assert e0.dscp_to_priority is None
    assert e0.priority_to_tc is None
    assert e0.tc_to_pg is None
    assert e4.dscp_to_priority == {26: 3}
    assert e4.tc_to_pg == {}
    assert items(dev) == [("DSCP_TO_TC_MAP|MISSING", 4), ("TC_TO_PRIORITY_GROUP_MAP|AZURE", 4)]
    assert reasons(dev) == [
        "DSCP_TO_TC_MAP has no entry 'MISSING'",
        "referenced, but TC_TO_PRIORITY_GROUP_MAP is not in this file",
    ]


def test_old_reference_to_the_wrong_table(parse_fixture: Callable[[str], ParseResult]) -> None:
    dev = parse_fixture("su_mock_asic0_config_db_flat.json").device
    assert ("QUEUE|Ethernet4|0 scheduler=[SCHEDULAR|scheduler.0]", 352) in items(dev)
    assert "refers to table SCHEDULAR, expected SCHEDULER" in reasons(dev)
    e4 = dev.ports["Ethernet4"]
    assert e4.schedulers == {
        0: Scheduler(weight_is_percent=False),
        1: Scheduler(weight_is_percent=False),
    }
    assert e4.ecn is not None
    assert e4.ecn[1].ecn_mark is True
    assert ("PFC_WD|GLOBAL BIG_RED_SWITCH=enable", 124) in items(dev)
    assert dev.watchdog_poll_ms == 199.0


# --- classification -------------------------------------------------------------------


def test_global_dscp_map_and_dot1p_trust(parse_config: Parse) -> None:
    text = """{
  "DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "48": "6"}},
  "DOT1P_TO_TC_MAP": {"D": {"3": "3", "5": "1"}},
  "PORT_QOS_MAP": {
    "global": {"dscp_to_tc_map": "AZURE"},
    "Ethernet0": {"pfc_enable": "3"},
    "Ethernet4": {"dot1p_to_tc_map": "D"},
    "Ethernet8": {"dot1p_to_tc_map": "D", "dscp_to_tc_map": "AZURE"}
  },
  "PORT": {"Ethernet0": {}, "Ethernet4": {}, "Ethernet8": {}, "Ethernet12": {}}
}
"""
    result = parse_config(text)
    ports = result.device.ports
    # Ethernet0 has no map of its own: the switch-level (global) DSCP map applies.
    assert ports["Ethernet0"].trust == "dscp"
    assert ports["Ethernet0"].dscp_to_priority == {26: 3, 48: 6}
    assert ports["Ethernet0"].priority_to_tc == {i: i for i in range(8)}
    assert line(result, "ports.Ethernet0.trust") == 5
    # The global map also applies to Ethernet4, which adds dot1p: both.
    assert ports["Ethernet4"].trust == "both"
    assert ports["Ethernet8"].trust == "both"
    # A port without a PORT_QOS_MAP entry still gets the global DSCP map.
    assert ports["Ethernet12"].trust == "dscp"
    assert ports["Ethernet12"].pfc_rx == ()


def test_pcp_and_port_trust(parse_config: Parse) -> None:
    text = """{
  "DOT1P_TO_TC_MAP": {"D": {"3": "3", "5": "1"}},
  "PORT_QOS_MAP": {"Ethernet0": {"dot1p_to_tc_map": "D"}, "Ethernet4": {"pfc_enable": ""}}
}
"""
    ports = parse_config(text).device.ports
    assert ports["Ethernet0"].trust == "pcp"
    assert ports["Ethernet0"].priority_to_tc == {3: 3, 5: 1}
    assert ports["Ethernet0"].dscp_to_priority == {}
    assert ports["Ethernet4"].trust == "port"
    assert ports["Ethernet4"].priority_to_tc == {}
    assert ports["Ethernet4"].pfc_rx == ()


def test_no_port_qos_map_means_unknown(parse_config: Parse) -> None:
    text = '{"BUFFER_PG": {"Ethernet0|3-4": {"profile": "NULL"}}}'
    port = parse_config(text).device.ports["Ethernet0"]
    assert port.trust is None
    assert port.dscp_to_priority is None
    assert port.pfc_rx is None
    assert port.pfc_priority_to_pg is None
    assert port.ecn is None
    assert port.schedulers is None
    assert port.queue_buffers is None
    assert port.watchdog is None
    assert port.link_pause is False


def test_pfc_asym_on_receives_on_all_priorities(parse_config: Parse) -> None:
    text = """{
  "PORT": {"Ethernet0": {"pfc_asym": "on"}, "Ethernet4": {"pfc_asym": "off"}},
  "PORT_QOS_MAP": {"Ethernet0,Ethernet4": {"pfc_enable": "3,4"}}
}
"""
    result = parse_config(text)
    ports = result.device.ports
    assert ports["Ethernet0"].pfc_tx == (3, 4)
    assert ports["Ethernet0"].pfc_rx == (0, 1, 2, 3, 4, 5, 6, 7)
    assert ports["Ethernet4"].pfc_rx == (3, 4)
    assert line(result, "ports.Ethernet0.pfc_rx") == 2


# --- watchdog -------------------------------------------------------------------------


def _ports_with_default(n: int, status: str | None, pfc_wd: bool) -> str:
    doc: dict[str, object] = {
        "PORT": {f"Ethernet{i}": {"speed": "100000"} for i in range(n)},
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4", "pfcwd_sw_enable": "3"}},
    }
    if status is not None:
        doc["DEVICE_METADATA"] = {"localhost": {"default_pfcwd_status": status}}
    if pfc_wd:
        doc["PFC_WD"] = {"Ethernet1": {"detection_time": "300", "restoration_time": "400"}}
    return json.dumps(doc, indent=2)


def test_watchdog_default_enable_uses_start_default_values(parse_config: Parse) -> None:
    dev = parse_config(_ports_with_default(40, "enable", pfc_wd=False)).device
    # 40 ports -> multiplier 2 -> 400 ms; only ports with pfc_enable are covered.
    # A saved file is "rendered": the load-time default applies and is marked as such.
    assert dev.config_source == "rendered"
    assert dev.ports["Ethernet0"].watchdog == Watchdog(
        enabled=True,
        detection_ms=400.0,
        restoration_ms=400.0,
        action="drop",
        priorities=(3,),
        runtime_default=True,
    )
    assert dev.ports["Ethernet2"].watchdog == Watchdog(enabled=False, runtime_default=True)
    assert dev.watchdog_poll_ms == 400.0


def _collected(text: str) -> ParseResult:
    snap = Snapshot(
        files={CONFIG_DB.filename: SourceFile(path="config_db.json", text=text)},
        meta=SnapshotMeta(collected_at="2026-01-01T00:00:00Z"),
        origin="x",
    )
    return SONIC.parse(snap, "sw1", "leaf")


def test_watchdog_running_config_without_entry_is_off() -> None:
    # A collected snapshot is the running CONFIG_DB: pfcwd start_default would have written
    # PFC_WD|<port> entries, so a PFC port without one has no watchdog.
    dev = _collected(_ports_with_default(40, "enable", pfc_wd=True)).device
    assert dev.config_source == "running"
    assert dev.ports["Ethernet0"].watchdog == Watchdog(enabled=False)
    assert dev.ports["Ethernet1"].watchdog is not None
    assert dev.ports["Ethernet1"].watchdog.enabled
    dev = _collected(_ports_with_default(4, None, pfc_wd=False)).device
    assert dev.ports["Ethernet0"].watchdog == Watchdog(enabled=False)


def test_watchdog_pfcwd_sw_enable_is_the_coverage(parse_config: Parse) -> None:
    # sonic-buildimage qos_config.j2 renders pfcwd_sw_enable next to pfc_enable; the
    # watchdog covers exactly those priorities (here PFC 3,4 but watchdog only on 3).
    dev = parse_config(_ports_with_default(4, None, pfc_wd=True)).device
    text = _ports_with_default(4, None, pfc_wd=True).replace('"Ethernet1"', '"Ethernet0"')
    wd = parse_config(text).device.ports["Ethernet0"].watchdog
    assert wd is not None
    assert wd.priorities == (3,)
    assert dev.ports["Ethernet0"].pfc_tx == (3, 4)


def test_watchdog_explicit_entry_and_table_present(parse_config: Parse) -> None:
    dev = parse_config(_ports_with_default(4, None, pfc_wd=True)).device
    assert dev.ports["Ethernet1"].watchdog == Watchdog(
        enabled=True, detection_ms=300.0, restoration_ms=400.0, action="drop"
    )
    assert dev.ports["Ethernet0"].watchdog == Watchdog(enabled=False)
    assert dev.watchdog_poll_ms is None


def test_watchdog_unknown_without_table_or_default(parse_config: Parse) -> None:
    dev = parse_config(_ports_with_default(4, None, pfc_wd=False)).device
    assert dev.ports["Ethernet0"].watchdog is None
    dev = parse_config(_ports_with_default(4, "disable", pfc_wd=False)).device
    assert dev.ports["Ethernet0"].watchdog == Watchdog(enabled=False, runtime_default=True)


# Dual-ToR: DEVICE_METADATA subtype DualToR and the tunnel QoS remap as sonic-buildimage
# files/build_templates/qos_config.j2 renders them for a T1-facing port (pfc_enable 2,3,4,6,
# pfcwd_sw_enable 3,4) and a server-facing port, with the TUNNEL entry of sonic-net/SONiC
# doc/qos/tunnel_dscp_remapping.md (TC_TO_QUEUE_MAP|AZURE_TUNNEL 3 -> 2, 4 -> 6).
DUAL_TOR = """{
  "DEVICE_METADATA": {"localhost": {"subtype": "DualToR", "type": "ToRRouter"}},
  "PORT": {"Ethernet0": {"speed": "100000"}, "Ethernet4": {"speed": "100000"}},
  "TC_TO_QUEUE_MAP": {
    "AZURE": {"0": "0", "1": "1", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7"},
    "AZURE_TUNNEL": {"0": "0", "1": "1", "2": "1", "3": "2", "4": "6", "5": "5", "6": "1",
                     "7": "7"}
  },
  "TC_TO_PRIORITY_GROUP_MAP": {
    "AZURE_TUNNEL": {"0": "0", "1": "0", "2": "0", "3": "2", "4": "6", "5": "0", "6": "0",
                     "7": "0"}
  },
  "PORT_QOS_MAP": {
    "Ethernet0": {"pfc_enable": "2,3,4,6", "pfcwd_sw_enable": "3,4",
                  "tc_to_queue_map": "AZURE"},
    "Ethernet4": {"pfc_enable": "3,4", "pfcwd_sw_enable": "3,4", "tc_to_queue_map": "AZURE"}
  },
  "TUNNEL": {
    "MuxTunnel0": {
      "dscp_mode": "pipe", "dst_ip": "10.1.0.32", "src_ip": "10.1.0.33",
      "tunnel_type": "IPINIP", "ttl_mode": "pipe",
      "decap_tc_to_pg_map": "AZURE_TUNNEL",
      "encap_tc_to_queue_map": "AZURE_TUNNEL"
    }
  }
}
"""


def test_dual_tor_tunnel_priorities(parse_config: Parse) -> None:
    result = parse_config(DUAL_TOR)
    dev = result.device
    assert dev.tunnel_lossless_priorities == (2, 6)
    assert dev.ports["Ethernet0"].pfc_tx == (2, 3, 4, 6)
    wd = dev.ports["Ethernet0"].watchdog
    assert wd is None or wd.priorities in (None, (3, 4))
    assert not [u for u in dev.unparsed if "encap_tc_to_queue_map" in u.item]
    assert line(result, "tunnel_lossless_priorities") == 2


def test_not_dual_tor_has_no_tunnel_priorities(parse_config: Parse) -> None:
    text = DUAL_TOR.replace('"subtype": "DualToR"', '"subtype": "SmartSwitch"')
    assert parse_config(text).device.tunnel_lossless_priorities == ()
    text = '{"PORT": {"Ethernet0": {"speed": "100000"}}}'
    assert parse_config(text).device.tunnel_lossless_priorities is None


# --- multi-ASIC -----------------------------------------------------------------------


def test_multi_asic_output_is_merged(parse_config: Parse) -> None:
    doc = {
        "localhost": {
            "DEVICE_METADATA": {
                "localhost": {"hostname": "chassis1", "platform": "x86_64-mlnx_msn4700-r0"}
            },
            "PORT": {"Ethernet0": {"speed": "100000"}},
        },
        "asic0": {
            "PORT": {"Ethernet0": {"speed": "400000"}, "Ethernet-BP0": {"speed": "400000"}},
            "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "size": "1000"}},
            "BUFFER_PROFILE": {"p": {"pool": "ingress_lossless_pool", "size": "0", "xoff": "9"}},
            "BUFFER_PG": {"Ethernet0|3": {"profile": "p"}},
            "bgpraw": "router bgp 65100",
        },
        "asic1": {
            "PORT": {"Ethernet8": {"speed": "400000"}, "Ethernet-BP0": {}},
            "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "size": "2000"}},
        },
    }
    dev = parse_config(json.dumps(doc, indent=2)).device
    assert list(dev.ports) == ["Ethernet0", "Ethernet8", "Ethernet-BP0"]
    assert dev.ports["Ethernet0"].speed_mbps == 400000  # the ASIC namespace wins
    pg = dev.ports["Ethernet0"].pg_buffers
    assert pg is not None
    assert pg[3].pool == "asic0:ingress_lossless_pool"
    assert dev.buffer_pools is not None
    assert sorted(dev.buffer_pools) == [
        "asic0:ingress_lossless_pool",
        "asic1:ingress_lossless_pool",
    ]
    assert dev.buffer_pools["asic1:ingress_lossless_pool"].size_bytes == 2000
    assert dev.hostname == "chassis1"
    assert dev.asic == "spectrum3"
    assert items(dev) == [("asic1 Ethernet-BP0", 49)]


def test_rendered_qos_json_tunnel_maps_without_tunnel_table(parse_config: Parse) -> None:
    # The rendered qos.json of a dual-ToR SKU (sonic-buildimage sample_output
    # qos-arista7050cx3-dualtor.json) has the AZURE_TUNNEL maps but neither DEVICE_METADATA
    # nor TUNNEL (minigraph adds those): the maps named *TUNNEL* are the remap.
    doc = json.loads(DUAL_TOR)
    del doc["DEVICE_METADATA"], doc["TUNNEL"]
    dev = parse_config(json.dumps(doc, indent=2)).device
    assert dev.tunnel_lossless_priorities == (2, 6)
    # Without those maps (remap disabled): plain PFC priorities, nothing to explain.
    for table in ("TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP"):
        doc[table].pop("AZURE_TUNNEL")
    assert parse_config(json.dumps(doc, indent=2)).device.tunnel_lossless_priorities == ()
