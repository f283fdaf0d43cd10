"""Cumulus: LLDP neighbours from ``sudo lldpctl -f json``."""

from __future__ import annotations

from pathlib import Path

from rocetune.platforms.cumulus import PLATFORM as CUMULUS
from rocetune.platforms.cumulus.commands import LLDP, NV_CONFIG
from rocetune.snapshot import Snapshot, SourceFile

from .cumulus_helpers import FIXTURES

LLDP_FILE = FIXTURES.parent / "lldp" / "cumulus_leaf_several.json"


def _snap(lldp: str | None) -> Snapshot:
    config = (FIXTURES / "roce_leaf.yaml").read_text()
    files = {NV_CONFIG.filename: SourceFile("s/nv.yaml", config)}
    if lldp is not None:
        files[LLDP.filename] = SourceFile(f"s/{LLDP.filename}", lldp)
    return Snapshot(files=files, origin="s")


def test_lldp_neighbors_on_the_device() -> None:
    result = CUMULUS.parse(_snap(LLDP_FILE.read_text()), "leaf3", "leaf")
    lldp = result.device.lldp
    assert lldp is not None
    assert [(n.local_port, n.remote_name, n.remote_port) for n in lldp] == [
        ("eth0", "oob-mgmt-switch", "swp10"),
        ("swp1", "gpu01", "eth2"),
        ("swp31", "spine1", "etp5"),
        ("swp32", "spine2.example.net", "swp3"),
    ]
    ref = result.provenance.lookup("lldp.2")
    assert ref is not None
    assert (ref.file, ref.line) == (f"s/{LLDP.filename}", 73)
    assert Path(LLDP_FILE).read_text().splitlines()[72].strip() == '"swp31": {'


def test_without_lldp_output_lldp_is_unknown() -> None:
    device = CUMULUS.parse(_snap(None), "leaf3", "leaf").device
    assert device.lldp is None
    assert device.ports


def test_invalid_lldp_output_is_reported_not_fatal() -> None:
    result = CUMULUS.parse(_snap('{"lldp": {"interface": [\n{'), "leaf3", "leaf")
    assert result.device.lldp is None
    item = result.device.unparsed[-1]
    assert (item.item, item.file, item.line) == (LLDP.command, f"s/{LLDP.filename}", 2)
    index = len(result.device.unparsed) - 1
    ref = result.provenance.lookup(f"unparsed.{index}")
    assert ref is not None
    assert (ref.file, ref.line) == (f"s/{LLDP.filename}", 2)


def test_lldp_file_is_not_taken_for_a_config() -> None:
    assert CUMULUS.sniff("x.json", LLDP_FILE.read_text()) is None
