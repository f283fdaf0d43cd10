"""The optional JSON outputs: shapes, envelopes, errors; a snapshot without running-config."""

from __future__ import annotations

import json

import pytest

from rocetune.errors import ParseError
from rocetune.model import LldpNeighbor
from rocetune.platforms.nxos.commands import INTERFACES, LLDP, RUNNING_CONFIG
from rocetune.snapshot import Command, Snapshot, SourceFile
from tests.platforms.nxos.nxos_helpers import DRIVER, parse_outputs

BASE = "hostname leaf1\ninterface Ethernet1/1\n  mtu 9216\n"


def _lldp(body: object) -> tuple[tuple[LldpNeighbor, ...] | None, list[str]]:
    dev = parse_outputs({RUNNING_CONFIG: BASE, LLDP: json.dumps(body, indent=1)}).device
    return dev.lldp, [u.item for u in dev.unparsed]


def test_single_neighbour_object_and_envelope() -> None:
    row = {"l_port_id": "Eth1/1", "sys_name": "leaf2", "port_id": "Ethernet1/2", "ttl": 120}
    single = {"TABLE_nbor_detail": {"ROW_nbor_detail": row}, "neigh_count": 1}
    expected = (
        LldpNeighbor(local_port="Ethernet1/1", remote_name="leaf2", remote_port="Ethernet1/2"),
    )
    assert _lldp(single) == (expected, [])
    envelope = {"ins_api": {"outputs": {"output": {"body": single, "code": "200"}}}}
    assert _lldp(envelope) == (expected, [])


def test_no_neighbours_and_incomplete_rows() -> None:
    assert _lldp({"neigh_hdr": "neigh_hdr", "neigh_count": 0}) == ((), [])
    rows = [
        {"l_port_id": "Eth1/1", "chassis_id": "aabb.cc00.0001", "port_id": "Eth1/9"},
        {"l_port_id": "Eth1/2", "sys_name": "x"},
        "junk",
    ]
    lldp, issues = _lldp({"TABLE_nbor_detail": {"ROW_nbor_detail": rows}})
    assert lldp == (
        LldpNeighbor(
            local_port="Ethernet1/1", remote_name="aabb.cc00.0001", remote_port="Ethernet1/9"
        ),
    )
    assert issues == ["ROW_nbor_detail", "ROW_nbor_detail"]
    assert _lldp({"TABLE_nbor_detail": "x"}) == ((), ["TABLE_nbor_detail"])
    assert _lldp([1, 2]) == ((), ["(document)"])


def test_interface_rows() -> None:
    rows = {
        "TABLE_interface": {
            "ROW_interface": [
                {"interface": "Ethernet1/1", "eth_speed": "25 Gb/s", "eth_mtu": "1500"},
                {
                    "interface": "Ethernet1/2",
                    "admin_state": "down",
                    "eth_speed": "2.5 Gb/s",
                    "eth_mtu": 9216,
                    "eth_in_flowctrl": "off",
                    "eth_out_flowctrl": "on",
                },
                {"interface": "Vlan10", "eth_mtu": "1500"},
                {"interface": "Ethernet1/3", "eth_speed": "fast", "eth_mtu": "huge"},
            ]
        }
    }
    dev = parse_outputs({RUNNING_CONFIG: BASE, INTERFACES: json.dumps(rows)}).device
    got = {n: (p.speed_mbps, p.mtu, p.admin_up, p.link_pause) for n, p in dev.ports.items()}
    assert got == {
        "Ethernet1/1": (25_000, 9216, None, False),  # config MTU and (default) pause win
        "Ethernet1/2": (2_500, 9216, False, True),
        "Ethernet1/3": (None, None, None, None),
    }


@pytest.mark.parametrize("command", [LLDP, INTERFACES])
def test_invalid_json_is_a_parse_error_with_file_and_line(command: Command) -> None:
    text = '{\n  "TABLE_x": {\n    "a": 1,,\n  }\n}\n'
    with pytest.raises(ParseError) as err:
        parse_outputs({RUNNING_CONFIG: BASE, command: text})
    assert err.value.file == command.filename
    assert err.value.line == 3


def test_snapshot_without_running_config() -> None:
    snap = Snapshot(files={LLDP.filename: SourceFile(path="l.json", text="{}")}, origin="snap")
    with pytest.raises(ParseError, match="no `show running-config`") as err:
        DRIVER.parse(snap, "sw1", None)
    assert err.value.file == "snap"
    assert DRIVER.followup_commands(snap) == ()
