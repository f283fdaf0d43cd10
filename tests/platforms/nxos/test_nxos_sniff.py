"""Sniffing: NX-OS running-configs and JSON outputs are recognised; EOS, SONiC, Cumulus and
other files are not; sniffing never raises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocetune.platforms.nxos.commands import COMMANDS, INTERFACES, LLDP, RUNNING_CONFIG
from tests.platforms.nxos.nxos_helpers import CORPUS, DRIVER, FIXTURES

ROOT_FIXTURES = FIXTURES.parent
SHARED = CORPUS.parent


def test_commands_and_file_names() -> None:
    assert [(c.id, c.command, c.encoding, c.required) for c in COMMANDS] == [
        ("running_config", "show running-config", "text", True),
        ("interfaces", "show interface | json", "json", False),
        ("lldp_neighbors", "show lldp neighbors detail | json", "json", False),
    ]
    assert [c.filename for c in COMMANDS] == [
        "show_running_config.txt",
        "show_interface_json.json",
        "show_lldp_neighbors_detail_json.json",
    ]
    assert DRIVER.commands(("eth0",)) == COMMANDS
    assert DRIVER.name == "nxos"
    assert DRIVER.kind == "switch"


@pytest.mark.parametrize(
    "text",
    [
        "!Command: show running-config\n!Time: Tue Mar 12 10:30:02 2024\n",
        "version 9.3(8) Bios:version 05.45\nhostname leaf1\n",
        "version 10.2(5)\n",
        "feature lldp\nfeature bgp\n",
        "switchname leaf1\n",
        "vdc leaf1 id 1\n  limit-resource vlan minimum 16 maximum 4094\n",
        "system qos\n  service-policy type network-qos jumbo\n",
        "policy-map type network-qos NQ\n  class type network-qos c-8q-nq3\n    pause pfc-cos 3\n",
        "class-map type queuing match-any c-out-8q-q7\n  match qos-group 7\n",
        "hardware access-list tcam region ing-qos 256\n",
        "interface Ethernet1/1\n  priority-flow-control watch-dog-interval on\n",
        "interface Ethernet1/1\r\n  service-policy type queuing output Q\r\n",
        "\ufeff!RANCID-CONTENT-TYPE: cisco-nx\nhostname x\n",
    ],
)
def test_nxos_text_is_running_config(text: str) -> None:
    assert DRIVER.sniff("x.cfg", text) == RUNNING_CONFIG


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hostname leaf1\ninterface Ethernet1/1\n  mtu 9216\n",  # could be any Cisco-like OS
        "! Command: show running-config\nhostname spine1\nsystem qos\n",  # EOS header
        "! device: leaf1 (DCS-7050, EOS-4.2)\nfeature x\n",
        "service routing protocols model multi-agent\nsystem qos\n",
        "qos map dscp 26 to traffic-class 3\nfeature lldp\n",
        "qos profile P\n   tx-queue 3\n      bandwidth percent 50\nsystem qos\n",
        "management api http-commands\nfeature lldp\n",
        "platform sand qos map traffic-class 1 to network-qos 7\n",
        "class-map type qos match-any ROCE\n   match dscp 26\n",  # EOS uses this form too
        "- header:\n    rev-id: 1.0\n- set:\n    qos: {}\n",
        "nv set qos roce mode lossless\n",
        '{"PORT": {"Ethernet0": {"mtu": "9100"}}}',
        '{"TABLE_vlanbrief": {"ROW_vlanbrief": {"vlanshowbr-vlanid": 1}}}',
        "[1, 2",
        "{not json",
    ],
)
def test_other_text_is_not_nxos(text: str) -> None:
    assert DRIVER.sniff("x", text) is None


def test_json_outputs() -> None:
    lldp = (FIXTURES / "roce_spine_lldp.json").read_text()
    interfaces = (FIXTURES / "roce_spine_show_interface.json").read_text()
    assert DRIVER.sniff("a.json", lldp) == LLDP
    assert DRIVER.sniff("b.json", interfaces) == INTERFACES
    wrapped = {"ins_api": {"outputs": {"output": {"body": json.loads(lldp), "code": "200"}}}}
    assert DRIVER.sniff("c.json", json.dumps(wrapped)) == LLDP
    assert DRIVER.sniff("d.json", json.dumps({"output": {"body": json.loads(interfaces)}})) == (
        INTERFACES
    )
    assert DRIVER.sniff("e.json", '{"neigh_hdr": "neigh_hdr", "neigh_count": 0}') == LLDP
    status = {"TABLE_interface": {"ROW_interface": {"interface": "Ethernet1/1", "state": "up"}}}
    assert DRIVER.sniff("f.json", json.dumps(status)) is None  # show interface status


@pytest.mark.parametrize("junk", ["\x00" * 10, "{" * 5000, "[" * 100000, "é☃\u202e", "0x1F"])
def test_sniff_never_raises(junk: str) -> None:
    assert DRIVER.sniff("junk", junk) is None


def _other_files() -> list[Path]:
    roots = [*(SHARED / d for d in ("eos", "sonic", "cumulus", "onyx", "juniper", "host"))]
    roots += [ROOT_FIXTURES / d for d in ("eos", "sonic", "cumulus", "lldp")]
    return sorted(
        p for r in roots if r.is_dir() for p in r.rglob("*") if p.is_file() and p.suffix != ".md"
    )


@pytest.mark.parametrize("path", _other_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_other_platforms_files_are_not_nxos(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    assert DRIVER.sniff(str(path), text) is None


def test_every_nxos_corpus_file_is_a_running_config() -> None:
    paths = sorted(FIXTURES.glob("corpus_*.cfg"))
    assert len(paths) == 7
    for path in paths:
        assert DRIVER.sniff(str(path), path.read_text()) == RUNNING_CONFIG, path.name
