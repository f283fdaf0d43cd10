"""Sniffing saved files, and every Cumulus corpus file parsing without an exception."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.platforms.cumulus import PLATFORM as CUMULUS
from rocetune.platforms.cumulus.commands import (
    NV_CONFIG,
    NV_INTERFACE,
    NV_QOS_ROCE,
    UNSUPPORTED,
)
from rocetune.platforms.cumulus.unsupported import NCLU, NV_SHOW
from tests.platforms.cumulus.cumulus_helpers import CORPUS, DRIVER, FIXTURES, parse_path

_SHARED = CORPUS.parent


def _sniff(text: str) -> str | None:
    command = DRIVER.sniff("x", text)
    return command.id if command is not None else None


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("roce_leaf.yaml", NV_CONFIG),
        ("explicit_profiles_leaf.yaml", NV_CONFIG),
        ("faulty_leaf.yaml", NV_CONFIG),
        ("roce_leaf_commands.txt", NV_CONFIG),
        ("explicit_profiles_leaf_commands.txt", NV_CONFIG),
        ("roce_leaf_nv_show_interface.json", NV_INTERFACE),
        ("roce_leaf_nv_show_qos_roce.json", NV_QOS_ROCE),
        ("corpus_cl512_nv_set_roce_tuning_commands.txt", NV_CONFIG),
        ("corpus_cl512_nv_show_qos_pfc_default_global.txt", UNSUPPORTED),
        ("corpus_cl512_qos_features_pfc_and_ecn_sections.conf", UNSUPPORTED),
        ("corpus_msft_sdn_sn2700_cumulus_tor1_nclu.txt", UNSUPPORTED),
    ],
)
def test_sniff_fixtures(name: str, expected: object) -> None:
    path = FIXTURES / name
    assert DRIVER.sniff(str(path), path.read_text()) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"qos": {"roce": {"enable": "on"}}, "interface": {}}', "nv_config"),
        ('[{"header": {"rev-id": 1.0}}, {"set": {"qos": {}}}]', "nv_config"),
        ('{"header": {}, "set": {"system": {"hostname": "x"}}}', "nv_config"),
        ("qos:\n  roce:\n    enable: on\nsystem:\n  hostname: x\n", "nv_config"),
        ("# saved\n---\n- set:\n    qos: {}\n", "nv_config"),
        ('{"mode": "lossless", "pfc": {"pfc-priority": 3}}', "nv_qos_roce"),
        ('{"swp1": {"type": "swp", "link": {"speed": "100G"}}}', "nv_interface"),
        ("net add interface swp1 mtu 9216\nnet commit\n", "unsupported_text"),
        ("cumulus@sw:~$ nv show qos roce\n   operational  applied\n", "unsupported_text"),
        ("pfc.default-global.cos_list = [3]\n", "unsupported_text"),
        ('{"PORT": {"Ethernet0": {"mtu": "9100"}}}', None),
        ("devices:\n  leaf1: {host: 10.0.0.1}\n", None),
        ("interface Ethernet1\n   mtu 9214\n", None),
        ('[{"header": "TC-0", "Mode": "none"}]', None),
        ("", None),
        ("\x00\x01\x02{[", None),
        ("[" * 5000, None),
    ],
)
def test_sniff_text(text: str, expected: str | None) -> None:
    assert _sniff(text) == expected


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")
@pytest.mark.parametrize(
    "path", sorted(CORPUS.iterdir()) if CORPUS.is_dir() else [], ids=lambda p: p.name
)
def test_every_corpus_file_is_cumulus_and_parses(path: Path) -> None:
    command = DRIVER.sniff(str(path), path.read_text())
    assert command is not None
    device = parse_path(path).device
    assert device.platform == "cumulus"
    if command == UNSUPPORTED and device.facts.get("cumulus.source") == "datapath":
        # datapath files are read; what is left is reported with its line
        assert all(u.line is not None and u.file == str(path) for u in device.unparsed)
        assert all(u.features for u in device.unparsed if "pool" in u.item)
    elif command == UNSUPPORTED:
        assert device.ports == {}
        assert device.unparsed
        assert all(u.line is not None and u.file == str(path) for u in device.unparsed)
        assert all("collect `nv config show -o yaml`" in u.reason for u in device.unparsed)
    else:
        assert command == NV_CONFIG
        assert device.unparsed == ()


@pytest.mark.skipif(not _SHARED.is_dir(), reason="shared corpus not present")
def test_other_platform_files_are_not_cumulus() -> None:
    claimed = [
        p.relative_to(_SHARED)
        for p in sorted(_SHARED.rglob("*"))
        if p.is_file() and "cumulus" not in p.parts and p.suffix != ".md"
        if DRIVER.sniff(str(p), p.read_text(errors="replace")) is not None
    ]
    assert claimed == []


def test_unsupported_show_output_lines() -> None:
    device = parse_path(FIXTURES / "corpus_cl512_nv_show_qos_pfc_default_global.txt").device
    assert [u.line for u in device.unparsed] == [4, 5, 6, 7, 8, 9, 10]
    assert device.unparsed[2].item.startswith("rx ")
    assert device.unparsed[0].reason == (
        f"Cumulus {NV_SHOW} is not supported; collect `nv config show -o yaml`"
    )


def test_datapath_qos_features_file_is_read() -> None:
    """CL 5.12 qos_features.conf doc fragments: PFC tx-only on cos 0 for allports, link pause
    and the watchdog on named port sets, ECN on queues 4,5,7, strict queues 0,1,5,7."""
    path = FIXTURES / "corpus_cl512_qos_features_pfc_and_ecn_sections.conf"
    device = parse_path(path).device
    assert list(device.ports) == ["swp1", "swp2", "swp3", "swp4", "swp6"]
    swp1, swp6 = device.ports["swp1"], device.ports["swp6"]
    assert (swp1.pfc_rx, swp1.pfc_tx) == ((), (0,))
    assert swp1.link_pause is True
    assert swp1.cable_length_m == 50
    assert swp1.watchdog is not None
    assert swp1.watchdog.enabled is True
    assert swp6.watchdog is not None
    assert swp6.watchdog.enabled is False
    assert swp1.ecn is not None
    assert sorted(swp1.ecn) == [4, 5, 7]
    assert swp1.ecn[4].ecn_mark is True
    assert swp1.ecn[4].red_drop is True
    assert swp1.schedulers is not None
    assert {q for q, s in swp1.schedulers.items() if s.kind == "strict"} == {0, 1, 5, 7}
    assert swp1.trust is None  # packet_priority_source_set is not in the fragment
    assert device.unparsed == ()


def test_unsupported_nclu_reports_qos_lines_only() -> None:
    result = parse_path(FIXTURES / "corpus_msft_sdn_sn2700_cumulus_tor1_nclu.txt")
    items = [(u.line, u.item) for u in result.device.unparsed]
    assert items == [
        (24, "net add interface swp1-32 breakout 1x"),
        (47, "net add interface swp1-18,swp31-32 mtu 9216"),
    ]
    assert NCLU in result.device.unparsed[0].reason
    assert result.provenance.refs["unparsed.1"].line == 47
    assert result.provenance.refs[""].line == 1


def test_driver_contract() -> None:
    driver = CUMULUS
    assert CUMULUS.name == "cumulus"
    assert CUMULUS.kind == "switch"
    commands = driver.commands()
    assert commands[0] == NV_CONFIG
    assert NV_CONFIG.required
    assert [c.filename for c in commands] == [
        "nv_config_show_o_yaml.yaml",
        "nv_show_qos_roce_o_json.json",
        "nv_show_interface_o_json.json",
        "sudo_lldpctl_f_json.json",
    ]
    assert not any(c.required for c in commands[1:])
    assert UNSUPPORTED not in commands
