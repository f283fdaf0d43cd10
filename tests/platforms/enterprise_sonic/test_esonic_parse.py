"""Enterprise SONiC (sonic-cli) parsing: real samples and the reading rules of issue 11."""

from __future__ import annotations

import pytest

from rocetune.model import Device
from rocetune.platforms.enterprise_sonic.parse import parse_text
from tests.paths import CORPUS

SAMPLES = CORPUS / "enterprise_sonic"


def _parse(text: str, file: str = "run.txt") -> Device:
    return parse_text(text, file, "leaf1", None).device


def _sample(name: str) -> Device:
    path = SAMPLES / name
    return parse_text(path.read_text(encoding="utf-8"), str(path), "leaf1", None).device


def test_amd_z9664f_config_reads_every_qos_line() -> None:
    dev = _sample("amd_rocm_z9664f_dcqcn_running_config.txt")
    assert dev.platform == "enterprise_sonic"
    assert list(dev.ports) == ["Eth1/1", "Eth1/2", "Eth1/3"]
    port = dev.ports["Eth1/1"]
    assert port.mtu == 9216
    assert port.speed_mbps == 400_000
    assert port.admin_up is True
    assert port.fec == "rs"
    assert port.dscp_to_priority is not None
    assert port.dscp_to_priority[26] == 3
    assert port.dscp_to_priority[24] == 3
    assert port.dscp_to_priority[48] == 6
    assert port.tc_to_pg == {3: 3, 4: 4, 0: 7, 1: 7, 2: 7, 5: 7, 6: 7, 7: 7}
    assert port.pfc_rx == (3, 4)
    assert port.pfc_tx == (3, 4)
    assert port.watchdog is not None
    assert (port.watchdog.detection_ms, port.watchdog.restoration_ms) == (200.0, 400.0)
    assert port.watchdog.action == "drop"
    ecn = port.ecn[3]
    assert ecn.ecn_mark is True
    assert (ecn.min_threshold_bytes, ecn.max_threshold_bytes) == (2_048_000, 12_480_000)
    assert ecn.max_probability_pct == 15.0
    assert sorted(port.schedulers) == [0, 3, 4, 6]
    assert port.schedulers[6].kind == "strict"
    assert port.schedulers[3].kind == "dwrr"
    assert port.schedulers[3].weight == 50.0
    # only the management-plane service policy of `line vty` is not read
    assert [u.line for u in dev.unparsed] == [78]


def test_ansible_interface_sample_reports_what_the_file_lacks() -> None:
    dev = _sample("ansible_qos_interfaces_eth1_5_merged.txt")
    port = dev.ports["Eth1/5"]
    assert port.cable_length_m == 40.0
    assert port.pfc_tx == (0, 1)
    assert port.watchdog is not None
    assert port.watchdog.action == "alert"
    reasons = {u.item: u.reason for u in dev.unparsed}
    assert "not defined in this file" in reasons["scheduler-policy policy1"]
    assert all(u.ports == ("Eth1/5",) for u in dev.unparsed)


def test_transcript_prompts_and_placeholder_interface() -> None:
    dev = _sample("sonic_hld_rocev2_buffer_transcript.txt")
    assert list(dev.ports) == ["Ethernet0"]
    port = dev.ports["Ethernet0"]
    assert port.trust == "pcp"
    assert port.pfc_tx == (3, 4)
    assert port.tc_to_queue is not None
    assert port.tc_to_queue[3] == 1
    assert port.schedulers[7].kind == "strict"
    assert port.schedulers[6].weight == 40.0
    assert dev.facts["enterprise_sonic.buffer_init"] == "lossless"
    assert dev.unparsed == ()


INDENTED = """\
hostname leaf7
interface-naming standard
!
qos map dscp-tc RDMA
 dscp 26 traffic-class 3
 dscp 48 traffic-class 6
!
qos wred-policy RDMA
 green minimum-threshold 150 maximum-threshold 1500 drop-probability 10
 ecn ecn_green
!
interface Eth1/1
 mtu 9100
 speed 100000
 qos-map dscp-tc RDMA
 priority-flow-control priority 3
 queue 3 wred-policy RDMA
 flowcontrol receive on
!
interface Eth1/2
 mtu 9100
 ip address 10.0.0.1/31
!
interface PortChannel 1
 priority-flow-control priority 3
!
"""


def test_indented_running_config() -> None:
    dev = _parse(INDENTED)
    assert dev.hostname == "leaf7"
    assert dev.facts["enterprise_sonic.interface_naming"] == "standard"
    assert list(dev.ports) == ["Eth1/1", "Eth1/2"]
    one = dev.ports["Eth1/1"]
    assert one.dscp_to_priority == {26: 3, 48: 6}
    assert one.ecn[3].min_threshold_bytes == 150_000
    assert dev.ports["Eth1/2"].mtu == 9100


def test_unread_lines_are_rt001_bound_to_their_ports() -> None:
    dev = _parse(INDENTED)
    by_item = {u.item: u for u in dev.unparsed}
    flow = by_item["flowcontrol receive on"]
    assert flow.line == 18
    assert flow.ports == ("Eth1/1",)
    assert "pfc" in flow.features
    pc = by_item["priority-flow-control priority 3"]
    assert pc.line == 25
    assert "not a physical port" in pc.reason


def test_unread_line_makes_the_field_unknown_not_default() -> None:
    text = "interface Eth1/3\n qos-map dscp-tc X\n mtu jumbo\n"
    dev = _parse("qos map dscp-tc X\n dscp 26 traffic-class 3\n" + text)
    port = dev.ports["Eth1/3"]
    assert port.mtu is None
    assert any(u.item == "mtu jumbo" and u.ports == ("Eth1/3",) for u in dev.unparsed)


def test_interface_range_and_spaced_names() -> None:
    text = (
        "interface range Eth 1/1-1/4\n mtu 9100\n!\n"
        "interface Eth 1/5\n mtu 9100\n!\ninterface Ethernet 8\n mtu 9100\n"
    )
    dev = _parse(text)
    assert sorted(dev.ports) == ["Eth1/1", "Eth1/2", "Eth1/3", "Eth1/4", "Eth1/5", "Ethernet8"]
    assert all(p.mtu == 9100 for p in dev.ports.values())


def test_breakout_parent_is_replaced_by_its_children() -> None:
    text = (
        "interface breakout port 1/49 mode 4x25G\n!\ninterface Eth1/49\n mtu 9100\n!\n"
        "interface Eth1/49/1\n mtu 9100\n!\ninterface Eth1/49/2\n mtu 9100\n"
    )
    dev = _parse(text)
    assert list(dev.ports) == ["Eth1/49/1", "Eth1/49/2"]
    assert dev.facts is not None


def test_buffer_profiles_and_bindings() -> None:
    text = (
        "buffer init lossless\n"
        "buffer pool ingress_lossless_pool shared-headroom-size 3500000\n"
        "buffer profile pg_lossless ingress_lossless_pool 1248 dynamic-threshold -3 pause"
        " pause-threshold 177632 resume-threshold 2288 resume-offset-threshold 2288\n"
        "!\ninterface Eth1/1\n buffer priority-group 3-4 pg_lossless\n"
        " priority-flow-control priority 3\n"
    )
    dev = _parse(text)
    assert dev.buffer_pools is not None
    assert dev.buffer_pools["ingress_lossless_pool"].shared_headroom_bytes == 3_500_000
    pg = dev.ports["Eth1/1"].pg_buffers[3]
    assert (pg.xoff_bytes, pg.xon_bytes, pg.size_bytes) == (177_632, 2288, 1248)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("qos map dscp-tc M\n dscp 64 traffic-class 3\n", "invalid"),
        ("qos map dscp-tc M\n dot1p 3 traffic-class 3\n", "not understood"),
        (
            "qos wred-policy W\n green minimum-threshold a maximum-threshold 2"
            " drop-probability 5\n",
            "not understood",
        ),
        ("priority-flow-control watchdog polling-interval x\n", "not understood"),
    ],
)
def test_invalid_values_are_findings(line: str, reason: str) -> None:
    dev = _parse(line)
    assert any(reason in u.reason for u in dev.unparsed)
