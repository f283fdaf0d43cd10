"""Real NVIDIA documentation runbooks as users paste them: prose, fences, prompts, `nv show`
output, breakouts; and the RT000 contract (ports and features on every unparsed item)."""

from __future__ import annotations

import time

from tests.platforms.cumulus.cumulus_helpers import FIXTURES, parse_fixture, parse_text


def test_breakout_runbook_replaces_the_parent_by_its_children() -> None:
    dev = parse_fixture("docs_cl56_breakout_runbook.md").device
    assert list(dev.ports) == ["swp1s0", "swp1s1", "swp1s2", "swp1s3"]
    assert {p.speed_mbps for p in dev.ports.values()} == {10_000}
    assert {p.admin_up for p in dev.ports.values()} == {True}
    assert dev.unparsed == ()
    # prose, shortcodes and `nv config apply` are skipped, not RT001
    assert int(dev.facts["nvue.skipped_lines"]) >= 5


def test_breakout_disabled_takes_the_port_out_and_bad_modes_are_invalid() -> None:
    dev = parse_text(
        "nv set interface swp1 link breakout 4x\n"
        "nv set interface swp2 link breakout disabled\n"
        "nv set interface swp3 link breakout 2x lanes-per-port 4\n"
        "nv set interface swp4 link breakout 3y\n"
        "nv set interface swp5 link mtu 9216\n"
    ).device
    assert not {"swp1", "swp2", "swp3"} & set(dev.ports)
    assert {"swp1s3", "swp3s0", "swp3s1", "swp4", "swp5"} <= set(dev.ports)
    assert "swp3s2" not in dev.ports
    (bad,) = dev.unparsed
    assert bad.item == "interface.swp4.link.breakout"
    assert "invalid value '3y'" in bad.reason
    assert (bad.ports, bad.features) == (("swp4",), ("ports",))


def test_runbook_with_nv_show_output_reads_only_the_commands() -> None:
    mixed = parse_fixture("docs_cl512_roce_runbook_with_show.txt").device
    alone = parse_fixture("corpus_cl512_nv_set_roce_tuning_commands.txt").device
    assert mixed.unparsed == ()
    assert mixed.facts["nvue.roce_mode"] == alone.facts["nvue.roce_mode"]
    assert mixed.ports == alone.ports
    show_lines = (FIXTURES / "docs_cl512_roce_runbook_with_show.txt").read_text().splitlines()
    start = next(i for i, ln in enumerate(show_lines) if "nv show qos roce" in ln)
    output = [ln for ln in show_lines[start + 1 :] if ln.strip()]
    assert int(mixed.facts["nvue.skipped_lines"]) >= len(output)


def test_misspelt_qos_key_is_invalid_with_features() -> None:
    dev = parse_text(
        "cumulus@leaf01:mgmt:~$ nv set qos roce\n"
        "cumulus@leaf01:mgmt:~$ nv set qos congestion-control default-global "
        "traffic-class 3 min-treshold 40000\n"
        "cumulus@leaf01:mgmt:~$ nv set interface swp1 qos pfc profile lossless\n"
    ).device
    bad = next(u for u in dev.unparsed if "min-treshold" in u.item)
    assert bad.reason.startswith("invalid")
    assert (bad.ports, bad.features) == (None, ("ecn",))
    missing = next(u for u in dev.unparsed if u.item == "interface.swp1.qos.pfc.profile")
    assert missing.ports == ("swp1",)
    assert "pfc" in missing.features


def test_root_prompt_sudo_and_unknown_nv_lines() -> None:
    dev = parse_text(
        "# nv set qos roce mode lossless\n"
        "$ sudo nv set interface swp1 link mtu 9000\n"
        "nv sett qos pfc default-global switch-priority 4\n"
        "net add interface swp2 pfc\n"
        "Then check the result with the show commands below.\n"
    ).device
    assert dev.facts["nvue.roce_mode"] == "lossless"
    assert dev.ports["swp1"].mtu == 9000
    items = {u.line: u for u in dev.unparsed}
    assert set(items) == {3, 4}
    assert (items[4].ports, items[4].features) == (("swp2",), ("pfc",))
    assert dev.facts["nvue.skipped_lines"] == "1"


def test_unparsed_accounting_is_linear() -> None:
    """10 000 unknown keys: collecting them must not be quadratic (list membership)."""
    lines = [f"nv set qos pfc default-global bogus-{i} 1" for i in range(10_000)]
    start = time.perf_counter()
    dev = parse_text("\n".join(lines) + "\n").device
    elapsed = time.perf_counter() - start
    assert len(dev.unparsed) == 10_000
    assert elapsed < 20


def test_traffic_conf_is_read_as_the_switch_does() -> None:
    dev = parse_fixture("corpus_cl37_traffic_conf_storage_optimized_pfc.conf").device
    assert list(dev.ports) == ["swp1"]
    swp1 = dev.ports["swp1"]
    assert swp1.trust == "dscp"
    assert swp1.dscp_to_priority is not None
    assert (swp1.dscp_to_priority[26], swp1.dscp_to_priority[48]) == (3, 2)
    assert (swp1.pfc_rx, swp1.pfc_tx) == ((3,), (3,))
    assert swp1.ecn is not None
    assert swp1.ecn[3].ecn_mark is True
    assert swp1.ecn[3].min_threshold_bytes == 153_600
    assert swp1.schedulers is not None
    assert swp1.schedulers[2].kind == "strict"
    assert swp1.schedulers[3].kind == "dwrr"
    # "pfc.port_group_list = [ROCE_PFC]" names a group whose settings are written under
    # another name: read as applied, and said
    items = {u.item.split(" ")[0]: u for u in dev.unparsed}
    assert set(items) == {"pfc.port_group_list", "ecn_red.port_group_list"}
    assert items["pfc.port_group_list"].features == ("pfc",)


def test_traffic_conf_without_pfc_section_has_no_pfc() -> None:
    dev = parse_fixture("corpus_cl37_traffic_conf_storage_optimized_ecn_only.conf").device
    swp1 = dev.ports["swp1"]
    assert (swp1.pfc_rx, swp1.pfc_tx) == ((), ())
    assert swp1.ecn is not None
    assert 3 in swp1.ecn
    assert all("pfc" not in u.features for u in dev.unparsed)
