"""What the Onyx parser reads, its defaults, and what it refuses to assert."""

from __future__ import annotations

from rocetune.model import Scheduler
from tests.platforms.onyx.onyx_helpers import parse_text

ECN_LINE = "traffic-class 3 congestion-control ecn minimum-absolute 150 maximum-absolute 1500"
LOSSLESS = f"""
##
## Running database "initial"
##
no cli default prefix-modes enable
   interface ethernet 1/1-1/2 mtu 9216 force
   interface ethernet 1/1-1/2 speed 100G force
   interface ethernet 1/1-1/2 {ECN_LINE}
   interface ethernet 1/1-1/2 traffic-class 6 dcb ets strict
   interface ethernet 1/1-1/2 traffic-class 3 dcb ets wrr 50
   interface ethernet 1/1-1/2 qos trust L3
   dcb priority-flow-control enable force
   dcb priority-flow-control priority 3 enable
   interface ethernet 1/1-1/2 dcb priority-flow-control mode on force
   traffic pool roce type lossless
   traffic pool roce memory percent 50.00
   traffic pool roce map switch-priority 3
   lldp
   hostname leaf01
"""


def test_flat_running_config_is_read_line_by_line() -> None:
    result = parse_text(LOSSLESS)
    dev = result.device
    assert dev.hostname == "leaf01"
    assert sorted(dev.ports) == ["Eth1/1", "Eth1/2"]
    port = dev.ports["Eth1/2"]
    assert port.trust == "dscp"
    assert port.pfc_rx == port.pfc_tx == (3,)
    assert port.pfc_mode == "on"
    assert port.mtu == 9216
    assert port.speed_mbps == 100_000
    assert port.dscp_to_priority is not None
    assert port.dscp_to_priority[26] == 3
    assert port.dscp_to_priority[48] == 6
    ecn = port.ecn
    assert ecn is not None
    assert ecn[3].ecn_mark is True
    assert (ecn[3].min_threshold_bytes, ecn[3].max_threshold_bytes) == (150_000, 1_500_000)
    schedulers = port.schedulers
    assert schedulers is not None
    assert schedulers[6] == Scheduler(kind="strict")
    assert schedulers[3].weight == 50.0
    assert schedulers[0] == Scheduler(kind="wrr")  # share not in the configuration
    assert dev.buffer_pools is not None
    assert dev.buffer_pools["roce"].lossless is True
    assert dev.buffer_pools["roce"].percent == 50.0
    assert dev.unparsed == ()
    assert result.provenance.lookup("ports.Eth1/2.pfc_rx").line == 13  # type: ignore[union-attr]
    assert result.provenance.lookup("ports.Eth1/2.trust").line == 10  # type: ignore[union-attr]


def test_defaults_without_qos_lines() -> None:
    port = parse_text("interface ethernet 1/5 description host\n").device.ports["Eth1/5"]
    assert port.trust == "pcp"  # qos trust default L2
    assert port.pfc_rx == ()  # PFC is off until enabled globally
    assert port.pfc_mode == "auto"
    assert port.ecn == {}
    assert port.mtu == 1500
    assert port.admin_up is True


def test_port_mode_on_without_global_enable_is_no_pfc() -> None:
    text = """
    interface ethernet 1/1 dcb priority-flow-control mode on force
    dcb priority-flow-control priority 3 enable
    """
    port = parse_text(text).device.ports["Eth1/1"]
    assert port.pfc_rx == ()
    assert port.pfc_mode == "on"


def test_context_mode_transcript_with_prompts_and_show_output() -> None:
    text = """
    switch > enable
    switch # configure terminal
    switch (config) # interface ethernet 1/3
    switch (config interface ethernet 1/3) # qos trust both
    switch (config interface ethernet 1/3) # mtu 4200 force
    switch (config interface ethernet 1/3) # exit
    switch (config) # dcb priority-flow-control enable force
    switch (config) # dcb priority-flow-control priority 3 enable
    switch (config) # show dcb priority-flow-control
    PFC: enabled
    Priority Enabled List: 3
    Eth1/3           Auto             Disabled
    switch (config) # interface ethernet 1/4 mtu 9216 force
    """
    result = parse_text(text)
    dev = result.device
    assert dev.hostname == "switch"
    assert sorted(dev.ports) == ["Eth1/3", "Eth1/4"]
    assert dev.ports["Eth1/3"].trust == "both"
    assert dev.ports["Eth1/3"].mtu == 4200
    assert dev.ports["Eth1/3"].pfc_rx == (3,)
    assert dev.ports["Eth1/4"].trust == "pcp"
    assert dev.unparsed == ()


def test_roce_mode_expands_to_the_documented_defaults_and_says_so() -> None:
    result = parse_text("roce\ninterface ethernet 1/1 mtu 9216 force\n")
    dev = result.device
    port = dev.ports["Eth1/1"]
    assert port.trust == "dscp"
    assert port.pfc_rx == port.pfc_tx == (3,)
    assert port.ecn is not None
    assert port.ecn[3].min_threshold_bytes == 150_000
    assert port.ecn[3].name is not None
    assert "documented defaults of the roce command" in port.ecn[3].name
    assert port.schedulers is not None
    assert port.schedulers[6].kind == "strict"
    assert port.schedulers[3].weight == 50.0
    assert "documented defaults of the roce command" in dev.facts["onyx.roce_defaults"]
    assert dev.lldp_app_tlvs is not None
    assert dev.lldp_app_tlvs[0].protocol == 4791
    for field in ("trust", "pfc_rx", "ecn", "schedulers"):
        assert result.provenance.lookup(f"ports.Eth1/1.{field}").line == 1  # type: ignore[union-attr]


def test_roce_lossy_has_no_pfc_and_semi_lossless_only_honours_pause() -> None:
    lossy = parse_text("roce lossy\ninterface ethernet 1/1\n").device.ports["Eth1/1"]
    assert lossy.pfc_rx == lossy.pfc_tx == ()
    assert lossy.ecn is not None
    assert lossy.ecn[3].ecn_mark
    semi = parse_text("roce semi-lossless\ninterface ethernet 1/1\n").device.ports["Eth1/1"]
    assert (semi.pfc_rx, semi.pfc_tx) == ((3,), ())


def test_explicit_lines_override_the_roce_defaults() -> None:
    text = "roce\ninterface ethernet 1/1 qos trust L2\n"
    assert parse_text(text).device.ports["Eth1/1"].trust == "pcp"


def test_breakout_replaces_the_parent_by_its_subports() -> None:
    text = """
    interface ethernet 1/1 module-type qsfp-split-4 force
    interface ethernet 1/1/2 qos trust L3
    interface ethernet 1/2 mtu 9216 force
    """
    dev = parse_text(text).device
    assert sorted(dev.ports) == ["Eth1/1/1", "Eth1/1/2", "Eth1/1/3", "Eth1/1/4", "Eth1/2"]
    assert dev.ports["Eth1/1/2"].trust == "dscp"
    assert dev.ports["Eth1/1/1"].trust == "pcp"


def test_members_inherit_the_port_channel_qos() -> None:
    cc = "congestion-control ecn minimum-absolute 100 maximum-absolute 900"
    text = f"""
    interface port-channel 1
    interface ethernet 1/7-1/8 channel-group 1 mode active
    interface port-channel 1 qos trust L3
    interface port-channel 1 traffic-class 3 {cc}
    interface ethernet 1/8 qos trust both
    """
    dev = parse_text(text).device
    assert sorted(dev.ports) == ["Eth1/7", "Eth1/8"]
    assert dev.ports["Eth1/7"].trust == "dscp"
    assert dev.ports["Eth1/8"].trust == "both"
    ecn = dev.ports["Eth1/7"].ecn
    assert ecn is not None
    assert ecn[3].max_threshold_bytes == 900_000


def test_unread_interface_line_blocks_the_defaults_it_may_change() -> None:
    text = """
    interface ethernet 1/1 traffic-class 3 congestion-control ecn minimum-percent 5 maximum-pct 9
    interface ethernet 1/1 qos trust-mode dscp
    interface ethernet 1/2 mtu 9216 force
    """
    dev = parse_text(text).device
    port = dev.ports["Eth1/1"]
    assert port.ecn is None  # not "no ECN"
    assert port.trust is None  # not "trusts L2"
    assert dev.ports["Eth1/2"].ecn == {}
    items = {u.line: u for u in dev.unparsed}
    assert set(items) == {1, 2}
    assert items[1].ports == ("Eth1/1",)
    assert "ecn" in items[1].features


def test_relative_thresholds_mark_without_byte_values() -> None:
    text = (
        "interface ethernet 1/1 traffic-class 3 congestion-control both"
        " minimum-relative 10 maximum-relative 80\n"
    )
    ecn = parse_text(text).device.ports["Eth1/1"].ecn
    assert ecn is not None
    assert ecn[3].ecn_mark
    assert ecn[3].red_drop
    assert ecn[3].min_threshold_bytes is None


def test_invalid_values_are_reported_not_accepted() -> None:
    text = """
    interface ethernet 1/1 mtu 12000 force
    interface ethernet 1/1 qos trust L4
    dcb priority-flow-control priority 9 enable
    """
    dev = parse_text(text).device
    assert {u.line for u in dev.unparsed} == {1, 2, 3}
    assert dev.ports["Eth1/1"].mtu is None


def test_prose_and_markdown_are_skipped_not_reported() -> None:
    text = """
    # Lossless RoCE on the leaf
    Lossless fabric (requires PFC)
    ```
    interface ethernet 1/1 qos trust L3
    ```
    - Switch: see the community page
    """
    dev = parse_text(text).device
    assert dev.unparsed == ()
    assert dev.facts["onyx.skipped_lines"] == "4"


def test_unknown_qos_looking_commands_are_reported() -> None:
    text = "dcb ets tc 3 bw-percent 50\ntraffic ecn enable\npfc-watchdog enable\n"
    dev = parse_text(text).device
    assert [u.line for u in dev.unparsed] == [1, 2, 3]


def test_shutdown_and_no_shutdown() -> None:
    text = "interface ethernet 1/2-1/3 shutdown\ninterface ethernet 1/3 no shutdown\n"
    ports = parse_text(text).device.ports
    assert ports["Eth1/2"].admin_up is False
    assert ports["Eth1/3"].admin_up is True


def test_qos_rewrite_dscp_makes_the_rewrite_unknown() -> None:
    port = parse_text("interface ethernet 1/1 qos rewrite dscp\n").device.ports["Eth1/1"]
    assert port.dscp_rewrite is None
    plain = parse_text("interface ethernet 1/1 qos rewrite pcp\n").device.ports["Eth1/1"]
    assert plain.dscp_rewrite == {}
