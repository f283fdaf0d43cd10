"""Reading real NX-OS files as the switch does: banners, unindented scripts, CLI transcripts,
every unconsumed line reported with its ports and features, forward-nonecn, unread lines
that leave port defaults unknown (issue #11 items 2, 3 and 7)."""

from __future__ import annotations

import time
from pathlib import Path

from rocetune.model import Device
from tests.platforms.nxos.nxos_helpers import FIXTURES, parse_path, parse_text

AZURE = FIXTURES / "corpus_azurelocal_tor_qos_policy_nxos.cfg"
REALWORLD = Path(__file__).resolve().parents[2] / "realworld" / "configs" / "nxos"
TOR1 = REALWORLD / "msft_sdn_n3132_tor1.cfg"  # SOURCES: tests/realworld/SOURCES.md


def _unindented(path: Path) -> str:
    """The file as a pasted script: the same lines without their indentation."""
    return "\n".join(line.strip() for line in path.read_text().splitlines())


def _transcript(path: Path, host: str = "leaf01") -> str:
    """The file as a CLI session shows it: one prompt per command, no indentation."""
    out = [f"{host}# configure terminal"]
    for line in path.read_text().splitlines():
        text = line.strip()
        if not text or text.startswith("!"):
            continue
        mode = "(config)" if line == line.lstrip() else "(config-sub)"
        out.append(f"{host}{mode}# {text}")
    out.append(f"{host}(config)# end")
    return "\n".join(out) + "\n"


def _same_model(a: Device, b: Device) -> None:
    assert a.ports == b.ports
    assert [(u.line, u.item) for u in a.unparsed] == [(u.line, u.item) for u in b.unparsed]


def test_real_running_config_with_banner_and_breakout_ports() -> None:
    dev = parse_path(TOR1).device
    assert dev.hostname == "TOR1"
    # the banner (lines 18-28), routing, ACL, CoPP and VLAN blocks are consumed silently
    assert [(u.line, u.features) for u in dev.unparsed] == [
        (260, ("pfc", "buffers")),  # hardware profile pfc mmu buffer-reservation
    ]
    assert all(u.ports is None for u in dev.unparsed)
    assert "port-channel1" not in dev.ports
    assert {"Ethernet1/3/1", "Ethernet1/3/4", "Ethernet1/6/1"} <= set(dev.ports)
    # `pause no-drop` (line 131) takes CoS 3 from `match cos 3` -> `set qos-group 3`
    assert dev.ports["Ethernet1/3/1"].pfc_priority_to_queue == {3: 3}
    # line 122 of the bound INPUT_QUEUING: pause buffer-size 101920 pause-threshold 46800
    # resume-threshold 34320 -> the qos-group 3 ingress buffer
    pg = (dev.ports["Ethernet1/3/1"].pg_buffers or {})[3]
    assert (pg.size_bytes, pg.pause_threshold_bytes, pg.xon_bytes, pg.xoff_bytes) == (
        101920,
        46800,
        34320,
        101920 - 46800,
    )
    port = dev.ports["Ethernet1/3/1"]
    assert (port.speed_mbps, port.admin_up, port.trust) == (10_000, True, "pcp")
    assert port.schedulers is not None
    assert {q: s.weight for q, s in port.schedulers.items()} == {3: 50.0, 0: 50.0}


def test_unindented_script_reads_like_the_running_config() -> None:
    indented = parse_path(AZURE).device
    script = parse_text(_unindented(AZURE)).device
    _same_model(indented, script)
    assert script.ports["Ethernet1/17"].pfc_rx == (3,)


def test_cli_transcript_with_prompts_reads_like_the_running_config() -> None:
    indented = parse_path(AZURE).device
    session = parse_text(_transcript(AZURE)).device
    assert session.hostname == "leaf01"  # from the prompt: the file has no hostname line
    assert session.ports == indented.ports
    assert session.unparsed == ()


def test_tor1_as_unindented_script() -> None:
    indented = parse_path(TOR1).device
    script = parse_text(_unindented(TOR1)).device
    assert script.ports == indented.ports


def test_column0_class_line_stays_in_its_policy() -> None:
    dev = parse_path(FIXTURES / "corpus_invalid_mixed_syntax_roce_guide_n9300.cfg").device
    port = dev.ports["Ethernet1/1"]
    assert port.schedulers is not None
    assert port.schedulers[7].kind == "strict"
    assert 29 not in [u.line for u in dev.unparsed]


def test_forward_nonecn_in_the_no_drop_class_clears_red_drop() -> None:
    text = AZURE.read_text().replace(
        "    pause pfc-cos 3\n",
        "    pause pfc-cos 3\n    congestion-control random-detect forward-nonecn\n",
    )
    dev = parse_text(text).device
    assert dev.unparsed == ()
    ecn = dev.ports["Ethernet1/17"].ecn
    assert ecn is not None
    assert (ecn[3].ecn_mark, ecn[3].red_drop) == (True, False)
    plain = parse_path(AZURE).device.ports["Ethernet1/17"].ecn
    assert plain is not None
    assert plain[3].red_drop is None  # ecn alone: non-ECT handling undocumented


def test_global_forward_nonecn() -> None:
    text = "congestion-control random-detect forward-nonecn\n" + AZURE.read_text()
    ecn = parse_text(text).device.ports["Ethernet1/17"].ecn
    assert ecn is not None
    assert ecn[3].red_drop is False


def test_unread_random_detect_is_flagged_ecn_not_absent() -> None:
    text = AZURE.read_text().replace(
        "random-detect minimum-threshold 300 kbytes maximum-threshold 300 kbytes"
        " drop-probability 100 weight 0 ecn",
        "random-detect dscp-based ecn",
    )
    dev = parse_text(text).device
    [item] = dev.unparsed
    assert (item.item, item.features, item.ports) == (
        "random-detect dscp-based ecn",
        ("ecn",),
        None,
    )


def test_unread_interface_lines_leave_port_defaults_unknown() -> None:
    text = AZURE.read_text().replace(
        "  mtu 9216\n  no logging", "  qos trust cos\n  mtu jumbo\n  no logging"
    )
    dev = parse_text(text).device
    port = dev.ports["Ethernet1/17"]
    assert port.mtu is None  # not the 1500 default: "mtu jumbo" was not understood
    assert port.trust == "pcp"  # the bound type-qos policy set it: a read line wins
    items = {u.item: u for u in dev.unparsed}
    assert items["mtu jumbo"].ports == ("Ethernet1/17",)
    assert items["mtu jumbo"].features == ("mtu",)
    assert items["qos trust cos"].features == ("trust", "dscp_map")


def test_unbound_port_with_unread_trust_line_has_unknown_trust() -> None:
    dev = parse_text("interface Ethernet1/1\n  qos trust dscp\n  mtu 9216\n").device
    assert (dev.ports["Ethernet1/1"].trust, dev.ports["Ethernet1/1"].mtu) == (None, 9216)


def test_invalid_cos_is_a_finding_and_no_pfc_class() -> None:
    dev = parse_text(AZURE.read_text().replace("pause pfc-cos 3", "pause pfc-cos 9")).device
    [item] = dev.unparsed
    assert item.item == "pause pfc-cos 9"
    assert item.features == ("pfc",)
    assert dev.ports["Ethernet1/17"].pfc_rx is None


def test_every_unknown_line_is_reported_known_blocks_are_not() -> None:
    text = (
        "feature lldp\nrouter bgp 65000\n  neighbor 10.0.0.1 remote-as 65001\n"
        "frobnicate the switch\ninterface Ethernet1/1\n  mtu 9216\n  wibble on\n"
        "  description uplink\n"
    )
    dev = parse_text(text).device
    assert [(u.line, u.item, u.ports) for u in dev.unparsed] == [
        (4, "frobnicate the switch", None),
        (7, "wibble on", ("Ethernet1/1",)),
    ]


def test_parsing_cost_is_linear() -> None:
    body = "".join(
        f"interface Ethernet{n // 100 + 1}/{n % 100 + 1}\n  mtu 9216\n  wibble {n}\n"
        "  priority-flow-control mode on\n"
        for n in range(20_000)
    )
    start = time.perf_counter()
    dev = parse_text(body).device
    elapsed = time.perf_counter() - start
    assert len(dev.unparsed) == 20_000
    assert len(dev.ports) == 20_000
    assert elapsed < 60  # quadratic de-duplication took minutes here
