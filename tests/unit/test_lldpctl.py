"""The ``lldpctl -f json`` reader shared by the switch and host platforms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocetune.errors import ParseError
from rocetune.model import Device, LldpNeighbor
from rocetune.platforms.base import ParseResult, Provenance
from rocetune.platforms.common.lldpctl import parse_lldpctl_json, read_lldpctl_json, with_lldp
from rocetune.snapshot import Command, Snapshot, SourceFile

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lldp"


def _n(local: str, name: str, port: str, descr: str | None = None) -> LldpNeighbor:
    return LldpNeighbor(
        local_port=local, remote_name=name, remote_port=port, remote_port_descr=descr
    )


def test_one_neighbor_object_form() -> None:
    text = (FIXTURES / "sonic_one_neighbor.json").read_text()
    read = read_lldpctl_json(text, "lldp.json")
    assert read.neighbors == (_n("Ethernet0", "spine2", "swp1", "swp1"),)
    assert read.lines == (4,)
    assert read.skipped == ()


def test_several_neighbors_list_form() -> None:
    text = (FIXTURES / "cumulus_leaf_several.json").read_text()
    got = parse_lldpctl_json(text, "lldp.json")
    assert got == (
        _n("eth0", "oob-mgmt-switch", "swp10", "swp10"),
        _n("swp1", "gpu01", "eth2", "eth2"),
        _n("swp31", "spine1", "etp5", "leaf3:swp31"),
        _n("swp32", "spine2.example.net", "swp3", "swp3"),
    )


def test_lines_point_at_each_entry() -> None:
    text = (FIXTURES / "cumulus_leaf_several.json").read_text()
    lines = read_lldpctl_json(text, "f").lines
    starts = [i + 1 for i, raw in enumerate(text.splitlines()) if raw.strip().endswith('": {')]
    for local, line in zip(("eth0", "swp1", "swp31", "swp32"), lines, strict=True):
        assert line in starts
        assert text.splitlines()[line - 1].strip() == f'"{local}": {{'


def test_no_neighbors() -> None:
    assert parse_lldpctl_json('{\n  "lldp": {\n  }\n}\n', "f") == ()
    assert read_lldpctl_json('{"lldp": [{}]}', "f").skipped == ()


def test_same_port_twice_and_name_inside_entry() -> None:
    doc = {
        "lldp": {
            "interface": [
                {"name": "swp5", "chassis": {"hostA": {"id": "x"}}, "port": {"id": "eth0"}},
                {"swp5": {"chassis": {"name": "hostB"}, "port": {"descr": "eth1"}}},
            ]
        }
    }
    got = parse_lldpctl_json(json.dumps(doc), "f")
    assert got == (_n("swp5", "hostA", "eth0"), _n("swp5", "hostB", "eth1", "eth1"))


def test_nameless_chassis_uses_chassis_id() -> None:
    doc = {
        "lldp": {
            "interface": {
                "swp7": {
                    "chassis": {"id": {"type": "mac", "value": "b8:ce:f6:00:00:01"}, "descr": "x"},
                    "port": {"id": {"type": "mac", "value": "b8:ce:f6:00:00:02"}},
                }
            }
        }
    }
    got = parse_lldpctl_json(json.dumps(doc), "f")
    assert got == (_n("swp7", "b8:ce:f6:00:00:01", "b8:ce:f6:00:00:02"),)


def test_json0_lists_are_unwrapped() -> None:
    doc = {
        "lldp": [
            {
                "interface": [
                    {
                        "name": "eno1",
                        "chassis": [{"name": [{"value": "leaf9"}]}],
                        "port": [{"id": [{"type": "ifname", "value": "swp9"}]}],
                    }
                ]
            }
        ]
    }
    assert parse_lldpctl_json(json.dumps(doc), "f") == (_n("eno1", "leaf9", "swp9"),)


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"port": {"id": "swp1"}}, "expected an entry with chassis and port objects"),
        ({"chassis": {"sw": {"id": "x"}}}, "expected an entry with chassis and port objects"),
        ({"chassis": {"descr": "no id"}, "port": {"id": "swp1"}}, "neither a system name"),
        ({"chassis": {"sw": {}}, "port": {"ttl": "120"}}, "neither an ID nor a description"),
        ("text", "expected an entry with chassis and port objects"),
        ({"chassis": {"sw": {}}, "port": {"id": "swp\n1"}}, "neither an ID nor a description"),
    ],
)
def test_missing_fields_are_skipped_and_reported(entry: object, reason: str) -> None:
    good = {"chassis": {"spine1": {"id": "m"}}, "port": {"id": "swp2"}}
    doc = {"lldp": {"interface": [{"swp9": entry}, {"swp2": good}]}}
    read = read_lldpctl_json(json.dumps(doc, indent=1), "lldp.json")
    assert read.neighbors == (_n("swp2", "spine1", "swp2"),)
    assert len(read.skipped) == 1
    item = read.skipped[0]
    assert item.item == "lldp interface swp9"
    assert reason in item.reason
    assert (item.file, item.line) == ("lldp.json", 5)


@pytest.mark.parametrize(
    "text",
    ["[]", '{"lldpd": {}}', '"x"', '{"lldp": 3}', '{"lldp": {"interface": 7}}'],
)
def test_unexpected_documents_do_not_raise(text: str) -> None:
    read = read_lldpctl_json(text, "f")
    assert read.neighbors == ()
    assert len(read.skipped) == 1


def test_bad_local_name_is_skipped() -> None:
    doc = {"lldp": {"interface": {"sw\tp1": {"chassis": {"a": {}}, "port": {"id": "b"}}}}}
    read = read_lldpctl_json(json.dumps(doc), "f")
    assert read.neighbors == ()
    assert read.skipped[0].reason == "not an interface name"


def test_duplicate_keys_are_reported() -> None:
    text = '{"lldp": {"interface": {"swp1": {"chassis": {"a": {}}, "port": {"id": "b"}},\n'
    text += '"swp1": {"chassis": {"c": {}}, "port": {"id": "d"}}}}}'
    read = read_lldpctl_json(text, "f")
    assert read.neighbors == (_n("swp1", "c", "d"),)
    assert [(u.item, u.line) for u in read.skipped] == [("lldp.interface.swp1", 2)]


@pytest.mark.parametrize("text", ["", '{"lldp": {', "lldpctl: cannot connect", '{"lldp": {}} x'])
def test_invalid_json_raises_parse_error_with_a_line(text: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_lldpctl_json(text, "snap/lldp.json")
    assert info.value.file is not None
    assert str(info.value.file).endswith("lldp.json")
    assert info.value.line == 1


LLDP = Command(id="lldp", command="lldpctl -f json", encoding="json", required=False)


def _result() -> ParseResult:
    prov = Provenance()
    prov.add("", "cfg", 1)
    dev = Device(name="leaf1", kind="switch", platform="x")
    return ParseResult(dev, prov)


def test_with_lldp_fills_device_and_provenance() -> None:
    text = '{"lldp": {"interface": [{"swp1": {"chassis": {"s": {}}, "port": {"id": "p"}}},\n'
    text += '{"swp2": {"port": {}}}]}}'
    snap = Snapshot(files={LLDP.filename: SourceFile("snap/lldpctl_f_json.json", text)})
    got = with_lldp(_result(), snap, LLDP)
    assert got.device.lldp == (_n("swp1", "s", "p"),)
    assert [u.item for u in got.device.unparsed] == ["lldp interface swp2"]
    refs = got.provenance.refs
    assert (refs["lldp"].file, refs["lldp"].line) == ("snap/lldpctl_f_json.json", 1)
    assert refs["lldp.0"].line == 1
    assert refs["unparsed.0"].line == 2


@pytest.mark.parametrize("files", [{}, {LLDP.filename: SourceFile("f", "  \n")}])
def test_with_lldp_absent_or_empty_output_is_unknown(files: dict[str, SourceFile]) -> None:
    got = with_lldp(_result(), Snapshot(files=files), LLDP)
    assert got.device.lldp is None
    assert "lldp" not in got.provenance.refs


def test_with_lldp_invalid_json_is_one_unparsed_item() -> None:
    snap = Snapshot(files={LLDP.filename: SourceFile("snap/l.json", "lldpctl: cannot connect")})
    got = with_lldp(_result(), snap, LLDP)
    assert got.device.lldp is None
    [item] = got.device.unparsed
    assert (item.item, item.file, item.line) == ("lldpctl -f json", "snap/l.json", 1)
    assert got.provenance.refs["unparsed.0"].file == "snap/l.json"
