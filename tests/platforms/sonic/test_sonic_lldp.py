"""SONiC: LLDP neighbours from the lldp container, PORT.fec and PORT.alias."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocetune.model import LldpNeighbor
from rocetune.platforms.sonic import PLATFORM as SONIC
from rocetune.platforms.sonic.commands import CONFIG_DB, LLDP
from rocetune.snapshot import Snapshot, SourceFile

LLDP_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "lldp"
CONFIG = {
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}},
    "PORT": {
        "Ethernet0": {"speed": "400000", "fec": "rs", "alias": "etp1"},
        "Ethernet8": {"speed": "400000", "fec": "none", "alias": "etp2"},
        "Ethernet16": {"speed": "100000"},
    },
}


def _snap(lldp: str | None) -> Snapshot:
    files = {CONFIG_DB.filename: SourceFile("s/config.json", json.dumps(CONFIG, indent=1))}
    if lldp is not None:
        files[LLDP.filename] = SourceFile(f"s/{LLDP.filename}", lldp)
    return Snapshot(files=files, origin="s")


def test_lldp_fills_device_lldp_with_provenance() -> None:
    result = SONIC.parse(_snap((LLDP_DIR / "sonic_one_neighbor.json").read_text()), "l", None)
    assert result.device.lldp == (
        LldpNeighbor(
            local_port="Ethernet0",
            remote_name="spine2",
            remote_port="swp1",
            remote_port_descr="swp1",
        ),
    )
    ref = result.provenance.lookup("lldp.0")
    assert ref is not None
    assert (ref.file, ref.line) == (f"s/{LLDP.filename}", 4)


def test_without_the_lldp_file_lldp_is_unknown() -> None:
    assert SONIC.parse(_snap(None), "l", None).device.lldp is None


def test_lldp_skipped_entries_become_unparsed() -> None:
    text = '{"lldp": {"interface": {"Ethernet0": {"via": "LLDP"}}}}'
    device = SONIC.parse(_snap(text), "l", None).device
    assert device.lldp == ()
    assert [(u.item, u.file) for u in device.unparsed] == [
        ("lldp interface Ethernet0", f"s/{LLDP.filename}")
    ]


def test_invalid_lldp_json_is_reported_not_fatal() -> None:
    device = SONIC.parse(_snap('{"lldp": \n'), "l", None).device
    assert device.lldp is None
    assert device.ports
    [item] = device.unparsed
    assert (item.item, item.file, item.line) == (LLDP.command, f"s/{LLDP.filename}", 2)
    assert item.reason.startswith("not valid JSON (invalid JSON: ")
    assert item.reason.endswith("); LLDP neighbours unknown")


def test_fec_and_alias() -> None:
    result = SONIC.parse(_snap(None), "l", None)
    ports = result.device.ports
    assert [(p.fec, p.alias) for p in ports.values()] == [
        ("rs", "etp1"),
        ("none", "etp2"),
        (None, None),
    ]
    ref = result.provenance.lookup("ports.Ethernet8.fec")
    assert ref is not None
    assert ref.line == 15


def test_unknown_fec_is_reported() -> None:
    config = {"PORT": {"Ethernet0": {"fec": "turbo"}}}
    snap = Snapshot(files={CONFIG_DB.filename: SourceFile("c.json", json.dumps(config))})
    device = SONIC.parse(snap, "l", None).device
    assert device.ports["Ethernet0"].fec is None
    assert [u.item for u in device.unparsed] == ["PORT|Ethernet0 fec=turbo"]


@pytest.mark.parametrize("name", ["sonic_one_neighbor.json", "cumulus_leaf_several.json"])
def test_lldp_file_is_not_taken_for_a_config_db(name: str) -> None:
    assert SONIC.sniff(name, (LLDP_DIR / name).read_text()) is None
