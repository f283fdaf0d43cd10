"""Cumulus inputs of RT107, RT208 and RT709: remark profiles, VXLAN DSCP, runtime RoCE state."""

from __future__ import annotations

import json

from hypothesis import given

from rocetune.model.device import AppTlv
from rocetune.platforms.base import ParseResult
from rocetune.platforms.cumulus.commands import NV_CONFIG, NV_QOS_ROCE
from rocetune.snapshot import Snapshot, SourceFile
from tests.fuzz.mutations import FUZZ_SETTINGS, mutated
from tests.fuzz.snapshots import check_parse_files
from tests.platforms.cumulus.cumulus_helpers import (
    DRIVER,
    FIXTURES,
    device,
    nvue,
    parse_fixture,
)

ROCE_TLV = AppTlv(selector="udp", protocol=4791, priority=3)


def test_remark_profiles_per_port() -> None:
    result = parse_fixture("remark_leaf.yaml")
    ports = result.device.ports
    # swp1: rewrite l3 on ingress, no egress map of its own.
    assert (ports["swp1"].dscp_rewrite_on_ingress, ports["swp1"].dscp_rewrite) == (True, {})
    # swp2: egress map SP 0,1 -> DSCP 37, no rewrite for packets it receives.
    assert ports["swp2"].dscp_rewrite_on_ingress is False
    assert ports["swp2"].dscp_rewrite == {0: 37, 1: 37}
    # swp3: default-global (rewrite both, SP 3 -> DSCP 26).
    assert (ports["swp3"].dscp_rewrite_on_ingress, ports["swp3"].dscp_rewrite) == (True, {3: 26})
    lines = {path: ref.line for path, ref in result.provenance.refs.items()}
    assert lines["ports.swp1.dscp_rewrite_on_ingress"] == 43
    assert lines["ports.swp2.dscp_rewrite"] == 45
    assert lines["ports.swp3.dscp_rewrite"] == 38
    assert [(u.item, u.line) for u in result.device.unparsed] == [
        ("qos.remark.default-global.switch-priority.3.pcp", 41)
    ]


def test_vxlan_outer_dscp_and_roce_app_tlv() -> None:
    result = parse_fixture("remark_leaf.yaml")
    dev = result.device
    assert dev.tunnel_dscp_rewrite == {"vxlan": dict.fromkeys(range(8), 16)}
    assert result.provenance.refs["tunnel_dscp_rewrite.vxlan"].line == 28
    assert dev.lldp_app_tlvs == (ROCE_TLV,)
    assert result.provenance.refs["lldp_app_tlvs"].line == 50  # the `roce:` key


def test_no_remark_config_means_no_remarking() -> None:
    dev = device(nvue("interface:\n  swp1:\n    type: swp\n"))
    port = dev.ports["swp1"]
    assert (port.dscp_rewrite, port.dscp_rewrite_on_ingress) == ({}, False)
    assert dev.tunnel_dscp_rewrite == {}
    assert dev.lldp_app_tlvs is None  # no `qos roce`: not documented


def test_remark_from_nv_set_commands() -> None:
    text = "\n".join(
        [
            "nv set qos remark default-global rewrite l3",
            "nv set qos remark default-global switch-priority 0 dscp 22",
            "nv set qos remark default-global switch-priority 1,2 dscp 40",
            "nv set interface swp1 type swp",
        ]
    )
    port = device(text).ports["swp1"]
    assert port.dscp_rewrite == {0: 22, 1: 40, 2: 40}
    assert port.dscp_rewrite_on_ingress is True


def test_invalid_remark_values_are_unknown_and_reported() -> None:
    dev = device(
        nvue(
            """
            interface:
              swp1:
                type: swp
            qos:
              remark:
                default-global:
                  rewrite: l4
                  switch-priority:
                    '3':
                      dscp: 99
                  colour: red
            """
        )
    )
    port = dev.ports["swp1"]
    assert (port.dscp_rewrite, port.dscp_rewrite_on_ingress) == (None, None)
    assert sorted(u.item for u in dev.unparsed) == [
        "qos.remark.default-global.colour",
        "qos.remark.default-global.rewrite",
        "qos.remark.default-global.switch-priority.3.dscp",
    ]


def test_vxlan_actions() -> None:
    def tunnels(dscp: str) -> object:
        return device(
            nvue(f"nve:\n  vxlan:\n    encapsulation:\n      dscp:\n{dscp}")
        ).tunnel_dscp_rewrite

    assert tunnels("        action: copy\n") == {"vxlan": {}}
    assert tunnels("        action: derive\n") == {"vxlan": None}
    assert tunnels("        action: set\n        value: 99\n") == {"vxlan": None}
    assert device(nvue("nve:\n  vxlan:\n    state: disabled\n")).tunnel_dscp_rewrite == {}
    assert device(nvue("nve:\n  vxlan:\n    state: enabled\n")).tunnel_dscp_rewrite == {
        "vxlan": None
    }


def _with_roce(show: object) -> ParseResult:
    files = {
        NV_CONFIG.filename: SourceFile(
            path="c.yaml", text=(FIXTURES / "explicit_profiles_leaf.yaml").read_text()
        ),
        NV_QOS_ROCE.filename: SourceFile(path="roce.json", text=json.dumps(show, indent=1)),
    }
    return DRIVER.parse(Snapshot(files=files), "sw1", None)


def test_show_qos_roce_fills_pfc_oper_of_default_global_ports() -> None:
    show = {
        "mode": "lossless",
        "pfc": {"pfc-priority": "3,4", "rx-enabled": "enabled", "tx-enabled": "enabled"},
        "lldp-app-tlv": {"priority": 4, "protocol-id": 4791, "selector": "UDP"},
    }
    result = _with_roce(show)
    ports = result.device.ports
    # swp1 and swp2 bind their own PFC profile: the global RoCE view says nothing about them.
    assert (ports["swp1"].pfc_oper, ports["swp2"].pfc_oper) == (None, None)
    assert {ports[n].pfc_oper for n in ("swp3", "swp5", "swp6")} == {(3, 4)}
    ref = result.provenance.refs["ports.swp3.pfc_oper"]
    assert (ref.file, ref.line) == ("roce.json", 3)
    assert result.device.lldp_app_tlvs == (AppTlv(selector="udp", protocol=4791, priority=4),)
    assert result.provenance.refs["lldp_app_tlvs"].line == 8


def test_show_qos_roce_tx_disabled_and_bad_values() -> None:
    off = _with_roce({"pfc": {"pfc-priority": 3, "tx-enabled": "disabled"}}).device
    assert off.ports["swp3"].pfc_oper == ()
    assert off.lldp_app_tlvs is None  # nothing runtime, and no `qos roce` in the config
    bad = _with_roce(
        {"pfc": {"pfc-priority": "3,9"}, "lldp-app-tlv": {"priority": 9, "selector": "UDP"}}
    ).device
    assert bad.ports["swp3"].pfc_oper is None
    assert bad.lldp_app_tlvs is None
    assert sorted(u.item for u in bad.unparsed) == ["lldp-app-tlv", "pfc.pfc-priority"]
    listed = _with_roce(
        {
            "pfc": {"pfc-priority": [3, "4"]},
            "lldp-app-tlv": [{"priority": 3, "protocol-id": 26, "selector": "dscp"}],
        }
    ).device
    assert listed.ports["swp3"].pfc_oper == (3, 4)
    assert listed.lldp_app_tlvs == (AppTlv(selector="dscp", protocol=26, priority=3),)
    assert _with_roce({"mode": "lossless"}).device.ports["swp3"].pfc_oper is None


ROCE_SHOWS = [
    json.dumps(
        {
            "enable": "on",
            "pfc": {"pfc-priority": 3, "rx-enabled": "enabled", "tx-enabled": "enabled"},
            "lldp-app-tlv": {"priority": 3, "protocol-id": 4791, "selector": "UDP"},
        },
        indent=2,
    ),
    (FIXTURES / "roce_leaf_nv_show_qos_roce.json").read_text(),
]


@FUZZ_SETTINGS
@given(mutated(ROCE_SHOWS))
def test_show_qos_roce_mutations(text: str) -> None:
    config = (FIXTURES / "roce_leaf.yaml").read_text()
    result = check_parse_files(DRIVER, {NV_CONFIG: config, NV_QOS_ROCE: text})
    if result is not None:
        for port in result.device.ports.values():
            assert port.pfc_oper is None or set(port.pfc_oper) <= set(range(8))
