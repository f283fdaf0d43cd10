"""Link assembly from the inventory and LLDP (rocetune.topology) and its use by the audit."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from rocetune.api import audit
from rocetune.checks.neighbors import NeighborIndex
from rocetune.checks.topology import UnknownNeighbor
from rocetune.engine import Selection, run_checks
from rocetune.model import (
    Device,
    DeviceProblem,
    Fabric,
    Intent,
    Link,
    LinkEnd,
    LldpNeighbor,
    NicPort,
    Port,
)
from rocetune.platforms.cumulus.commands import LLDP as CUMULUS_LLDP
from rocetune.platforms.sonic.commands import LLDP as SONIC_LLDP
from rocetune.topology import default_length, lldp_links, merge_links

SNAPSHOTS = Path(__file__).resolve().parents[1] / "fixtures" / "topology"


def _nb(local: str, name: str, port: str, descr: str | None = None) -> LldpNeighbor:
    return LldpNeighbor(
        local_port=local, remote_name=name, remote_port=port, remote_port_descr=descr
    )


def _switch(name: str, ports: dict[str, str | None], lldp: Any = None, **kw: Any) -> Device:
    return Device(
        name=name,
        kind="switch",
        platform="test",
        ports={p: Port(name=p, alias=alias) for p, alias in ports.items()},
        lldp=lldp,
        **kw,
    )


def _host(name: str, nics: list[str], lldp: Any = None) -> Device:
    return Device(
        name=name,
        kind="host",
        platform="test",
        role="host",
        nics={n: NicPort(name=n) for n in nics},
        lldp=lldp,
    )


def _link(a: str, b: str, source: str = "inventory", length: float | None = None) -> Link:
    def end(text: str) -> LinkEnd:
        dev, _, port = text.partition(":")
        return LinkEnd(device=dev, port=port)

    return Link.model_validate({"a": end(a), "b": end(b), "source": source, "length_m": length})


def _devices(*devs: Device) -> dict[str, Device]:
    return {d.name: d for d in devs}


def test_lldp_only_link_is_added() -> None:
    devices = _devices(
        _switch("leaf1", {"Ethernet0": None}, [_nb("Ethernet0", "spine1", "swp1")]),
        _switch("spine1", {"swp1": None}),
    )
    assert merge_links(devices, (), Intent()) == (_link("leaf1:Ethernet0", "spine1:swp1", "lldp"),)


def test_both_ends_seeing_each_other_give_one_link() -> None:
    devices = _devices(
        _switch("spine1", {"swp1": None}, [_nb("swp1", "leaf1", "etp1", "to spine")]),
        _switch("leaf1", {"Ethernet0": "etp1"}, [_nb("Ethernet0", "spine1", "swp1")]),
    )
    assert lldp_links(devices) == [_link("leaf1:Ethernet0", "spine1:swp1", "lldp")]


def test_inventory_wins_on_either_end() -> None:
    devices = _devices(
        _switch("leaf1", {"Ethernet0": None}, [_nb("Ethernet0", "spine1", "swp1")]),
        _switch("spine1", {"swp1": None, "swp2": None}, [_nb("swp1", "leaf1", "Ethernet0")]),
        _switch("leaf2", {"Ethernet0": None}, [_nb("Ethernet0", "spine1", "swp2")]),
    )
    declared = (_link("leaf1:Ethernet0", "spine1:swp9", length=30.0),)
    got = merge_links(devices, declared, Intent())
    assert got == (declared[0], _link("leaf2:Ethernet0", "spine1:swp2", "lldp"))


def test_neighbor_outside_the_inventory_gives_no_link_but_rt710() -> None:
    devices = _devices(
        _switch("leaf1", {"Ethernet0": None}, [_nb("Ethernet0", "gpu77", "eth2")]),
    )
    links = merge_links(devices, (), Intent())
    assert links == ()
    fabric = Fabric(devices=devices, links=links)
    found = [(f.code, f.device, f.port, f.observed) for f in run_checks(fabric, [UnknownNeighbor])]
    assert found == [("RT710", "leaf1", "Ethernet0", "gpu77:eth2")]


def test_known_device_outside_the_model_keeps_the_lldp_port() -> None:
    devices = _devices(
        _switch("leaf1", {"Ethernet0": None}, [_nb("Ethernet0", "spine1.dc.example", "etp3")]),
    )
    links = merge_links(devices, (), Intent(), known=["leaf1", "spine1"])
    assert links == (_link("leaf1:Ethernet0", "spine1:etp3", "lldp"),)
    fabric = Fabric(devices=devices, links=links, known_devices=("leaf1", "spine1"))
    assert run_checks(fabric, [UnknownNeighbor]) == []


def test_names_resolve_by_hostname_domain_case_and_description() -> None:
    devices = _devices(
        _switch("sw-a", {"swp1": None, "swp2": None}, hostname="LEAF1.dc.example"),
        _host("gpu1", ["eth2"]),
    )
    index = NeighborIndex(devices)
    assert index.device("leaf1.dc.example") == "sw-a"
    assert index.device("leaf1") == "sw-a"
    assert index.device("GPU1.lab") == "gpu1"
    assert index.device("leaf2") is None
    peer = index.peer(_nb("Ethernet0", "gpu1", "b8:ce:f6:00:00:02", "eth2"))
    assert peer is not None
    assert (str(peer.end), peer.resolved) == ("gpu1:eth2", True)
    peer = index.peer(_nb("Ethernet0", "sw-a", "swp9"))
    assert peer is not None
    assert (str(peer.end), peer.resolved) == ("sw-a:swp9", False)


def test_a_port_is_used_by_one_lldp_link_and_self_loops_are_skipped() -> None:
    devices = _devices(
        _switch("a", {"p1": None}, [_nb("p1", "b", "q1")]),
        _switch("b", {"q1": None}),
        _switch("c", {"r1": None, "r2": None}, [_nb("r1", "b", "q1"), _nb("r2", "c", "r2")]),
    )
    assert lldp_links(devices) == [_link("a:p1", "b:q1", "lldp")]


def test_problem_devices_are_known_to_rt710() -> None:
    devices = _devices(_switch("leaf1", {"Ethernet0": None}))
    problem = DeviceProblem(device="spine1", kind="not-collected", message="x")
    links = (_link("leaf1:Ethernet0", "spine1:swp1"),)
    fabric = Fabric(devices=devices, links=links, problems=(problem,))
    assert run_checks(fabric, [UnknownNeighbor]) == []


CABLES = {"host-leaf": 5.0, "leaf-spine": 40.0, "spine": 100.0, "default": 2.0}


@pytest.mark.parametrize(
    ("roles", "table", "expected"),
    [
        (("host", "leaf"), CABLES, 5.0),
        (("leaf", "host"), CABLES, 5.0),
        (("spine", "leaf"), CABLES, 40.0),
        (("spine", "superspine"), CABLES, 100.0),
        (("leaf", "leaf"), CABLES, 2.0),
        (("leaf", None), CABLES, 2.0),
        (("leaf", "leaf"), {"leaf": 3.0, "default": 9.0}, 3.0),
        (("leaf", "spine"), {"leaf": 3.0, "spine": 30.0}, 30.0),
        (("host", "leaf"), {}, None),
        (("leaf", "leaf"), {"host-leaf": 5.0}, None),
    ],
)
def test_default_cable_length(
    roles: tuple[str, str | None], table: dict[str, float], expected: float | None
) -> None:
    devices = {"a": _switch("a", {}, role=roles[0])}
    if roles[1] is not None:
        devices["b"] = _switch("b", {}, role=roles[1])
    assert default_length(_link("a:p", "b:q"), devices, table) == expected


def test_device_without_role_counts_as_its_kind() -> None:
    devices = _devices(_switch("a", {}), _host("h", []))
    assert default_length(_link("a:p", "h:q"), devices, {"host-switch": 4.0}) == 4.0


def test_merge_fills_lengths_but_declared_length_wins() -> None:
    devices = _devices(
        _switch("leaf1", {"Ethernet0": None, "Ethernet4": None}, role="leaf"),
        _host("gpu1", ["eth2", "eth3"], [_nb("eth3", "leaf1", "Ethernet4")]),
    )
    declared = (_link("leaf1:Ethernet0", "gpu1:eth2", length=7.0),)
    intent = Intent(cable_length_m={"host-leaf": 3})
    got = merge_links(devices, declared, intent)
    assert [(lk.label, lk.length_m, lk.source) for lk in got] == [
        ("leaf1:Ethernet0--gpu1:eth2", 7.0, "inventory"),
        ("gpu1:eth3--leaf1:Ethernet4", 3.0, "lldp"),
    ]
    assert merge_links(devices, (), Intent())[0].length_m is None


@pytest.mark.parametrize("table", [{"leaf": 0}, {"leaf": -1}, {" ": 3}, {"leaf": 200_000}])
def test_intent_rejects_bad_cable_lengths(table: dict[str, float]) -> None:
    with pytest.raises(ValidationError):
        Intent(cable_length_m=table)


def _lldp_json(local: str, name: str, port_type: str, port: str) -> str:
    entry = {
        local: {
            "via": "LLDP",
            "chassis": {name: {"id": {"type": "mac", "value": "1c:34:da:00:00:02"}}},
            "port": {"id": {"type": port_type, "value": port}, "descr": "x"},
        }
    }
    return json.dumps({"lldp": {"interface": entry}}, indent=2)


def test_audit_takes_links_from_lldp_when_the_inventory_has_none(tmp_path: Path) -> None:
    for name in ("leaf1", "spine2"):
        shutil.copytree(SNAPSHOTS / name, tmp_path / name)
    leaf_lldp = _lldp_json("Ethernet8", "spine2", "ifname", "swp1")
    (tmp_path / "leaf1" / SONIC_LLDP.filename).write_text(leaf_lldp)
    spine_lldp = _lldp_json("swp1", "leaf1", "local", "etp2")
    (tmp_path / "spine2" / CUMULUS_LLDP.filename).write_text(spine_lldp)
    (tmp_path / "inventory.yaml").write_text(
        "intent: {cable_length_m: {leaf-spine: 30}}\n"
        "devices:\n"
        "  leaf1: {platform: sonic, role: leaf, snapshot: leaf1}\n"
        "  spine2: {platform: cumulus, role: spine, snapshot: spine2}\n"
    )
    result = audit(tmp_path / "inventory.yaml", Selection(select=("RT701",)))
    assert result.errors == []
    assert [(lk.label, lk.source, lk.length_m) for lk in result.fabric.links] == [
        ("leaf1:Ethernet8--spine2:swp1", "lldp", 30.0)
    ]
    assert result.fabric.known_devices == ("leaf1", "spine2")
    found = [(f.code, f.device, f.port, f.link) for f in result.findings]
    assert found == [("RT701", "leaf1", "Ethernet8", "leaf1:Ethernet8--spine2:swp1")]
    assert result.findings[0].file is not None
    assert result.findings[0].file.endswith("show_runningconfiguration_all.json")
