"""Recognising saved EOS files, and not claiming anyone else's."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.platforms import drivers
from rocetune.platforms.eos.commands import (
    COMMANDS,
    INTERFACES_STATUS,
    LLDP_BRIEF,
    LLDP_DETAIL,
    RUNNING_CONFIG,
)
from rocetune.snapshot import Snapshot
from tests.platforms.eos.eos_helpers import CORPUS, DRIVER, FIXTURES

_SHARED = CORPUS.parent
OTHER_FILES = (
    sorted(
        p
        for p in _SHARED.rglob("*")
        if p.is_file() and p.name != "SOURCES.md" and p.parent.name != "eos"
    )
    if _SHARED.is_dir()
    else []
)
OTHER_FIXTURES = sorted(
    p
    for p in FIXTURES.parent.rglob("*")
    if p.is_file() and "eos" not in p.relative_to(FIXTURES.parent).parts and p.suffix != ".md"
)


def _id(text: str) -> str | None:
    command = DRIVER.sniff("x", text)
    return command.id if command is not None else None


def test_commands_and_file_names() -> None:
    assert [c.id for c in COMMANDS] == ["running_config", "lldp_neighbors", "interfaces_status"]
    assert [c.filename for c in COMMANDS] == [
        "show_running_config.txt",
        "show_lldp_neighbors_detail_json.json",
        "show_interfaces_status_json.json",
    ]
    assert [c.required for c in COMMANDS] == [True, False, False]
    assert LLDP_BRIEF.filename == "show_lldp_neighbors_json.json"
    assert DRIVER.commands(("eth0",)) == COMMANDS
    assert DRIVER.followup_commands(Snapshot(files={})) == ()


def test_registered_after_sonic_and_cumulus() -> None:
    assert list(drivers())[:3] == ["sonic", "cumulus", "eos"]
    assert drivers()["eos"].name == "eos"
    assert drivers()["eos"].kind == "switch"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("corpus_avd_eos_cli_config_gen_platform.cfg", RUNNING_CONFIG),
        ("corpus_avd_eos_cli_config_gen_qos.cfg", RUNNING_CONFIG),
        ("corpus_batfish_arista_interface_show_run_all.cfg", RUNNING_CONFIG),
        ("faulty_leaf.cfg", RUNNING_CONFIG),
        ("roce_spine/show_running_config.txt", RUNNING_CONFIG),
        ("roce_spine/show_lldp_neighbors_detail_json.json", LLDP_DETAIL),
        ("roce_spine/show_interfaces_status_json.json", INTERFACES_STATUS),
    ],
)
def test_sniff_fixtures(name: str, expected: object) -> None:
    path = FIXTURES / name
    assert DRIVER.sniff(str(path), path.read_text()) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("! Command: show running-config\nhostname x\n", "running_config"),
        ("! device: sw1 (DCS-7050SX3-48YC8, EOS-4.28.1F)\n!\nhostname sw1\n", "running_config"),
        ("service routing protocols model multi-agent\n", "running_config"),
        ("transceiver qsfp default-mode 4x10G\n", "running_config"),
        ("management api http-commands\n   no shutdown\n", "running_config"),
        ("qos map dscp 26 to traffic-class 3\n", "running_config"),
        ("qos profile ROCE\n   qos trust dscp\n", "running_config"),
        ("priority-flow-control pause watchdog default timeout 0.2\n", "running_config"),
        ("interface Ethernet1\n   tx-queue 3\n      no priority\n", "running_config"),
        ("interface Ethernet1\n   priority-flow-control priority 3 no-drop\n", "running_config"),
        ("interface Ethernet1\n   mtu 9214\n!\n", "running_config"),
        ('{"lldpNeighbors": {"Ethernet1": {"lldpNeighborInfo": []}}}', "lldp_neighbors"),
        ('{"lldpNeighbors": [], "tablesInserts": 3}', "lldp_neighbors_brief"),
        ('{"interfaceStatuses": {}}', "interfaces_status"),
        # NX-OS and others are not claimed
        ("!Command: show running-config\nversion 9.3(8)\nhostname n9k\n", None),
        ("feature lldp\ninterface Ethernet1/1\n   mtu 9216\n", None),
        ("system qos\n  service-policy type network-qos jumbo\n", None),
        ("policy-map type network-qos jumbo\n  class type network-qos class-default\n", None),
        ("interface Ethernet1/1\n  mtu 9216\n", None),  # two-space indent: NX-OS style
        ("hostname x\n", None),
        ("net add interface swp1 mtu 9216\n", None),
        ("- set:\n    qos: {}\n", None),
        ('{"PORT": {"Ethernet0": {"mtu": "9100"}}}', None),
        ('{"lldpNeighbors": 3}', None),
        ("[1, 2]", None),
        ("{not json", None),
        ("", None),
        ("\x00\ufffd", None),
    ],
)
def test_sniff_text(text: str, expected: str | None) -> None:
    assert _id(text) == expected


@pytest.mark.parametrize("path", OTHER_FILES, ids=lambda p: str(p.relative_to(_SHARED)))
def test_other_platforms_corpus_not_claimed(path: Path) -> None:
    assert DRIVER.sniff(str(path), path.read_text(errors="replace")) is None


@pytest.mark.parametrize("path", OTHER_FIXTURES, ids=lambda p: p.name)
def test_other_platforms_fixtures_not_claimed(path: Path) -> None:
    assert DRIVER.sniff(str(path), path.read_text(errors="replace")) is None


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*")) if CORPUS.is_dir() else [])
def test_eos_corpus_not_claimed_by_other_drivers(path: Path) -> None:
    text = path.read_text()
    others = {n: d.sniff(str(path), text) for n, d in drivers().items() if n != "eos"}
    assert others == dict.fromkeys(others)
