"""Ports configured alike are built once per kind (rocetune.platforms.sonic.alike).

Every port built from its kind's template must be exactly what building it on its own
gives: the same model (types included), the same provenance (every path and line, in
order, and the same map tables) and the same unparsed items. The tests parse every SONiC
file of the repository, generated switches and hand-written edge cases both ways.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.fabricgen import sonic_config
from rocetune.platforms.common.construct import same
from rocetune.platforms.enterprise_sonic import PLATFORM as ENTERPRISE_SONIC
from rocetune.platforms.sonic import alike
from rocetune.platforms.sonic.parse import parse_text, read_configs
from rocetune.platforms.sonic.shape import PortCfg, WatchdogCfg
from rocetune.snapshot import read_single_file
from tests.paths import ROOT

FOLDERS = (
    "tests/corpus/sonic",
    "tests/realworld/configs/sonic",
    "tests/platforms/goldens/sonic",
    "tests/fixtures/sonic",
)
ENTERPRISE = ("tests/corpus/enterprise_sonic", "tests/fixtures/enterprise_sonic")


def _files() -> Iterator[Path]:
    for folder in FOLDERS:
        yield from sorted((ROOT / folder).rglob("*.json"))


def _parse(text: str, *, memo: bool, running: bool = False) -> Any:
    with pytest.MonkeyPatch.context() as mp:
        if not memo:
            mp.setattr(alike, "own_data", lambda cfg, name: None)  # every port on its own
        return parse_text(text, "config_db.json", "sw1", "leaf", running=running)


def _assert_alike_equals_alone(text: str, *, running: bool = False) -> None:
    memo = _parse(text, memo=True, running=running)
    alone = _parse(text, memo=False, running=running)
    assert same(memo.device, alone.device)
    assert list(memo.provenance.items()) == list(alone.provenance.items())
    assert list(memo.provenance.maps.items()) == list(alone.provenance.maps.items())
    for path in ("ports.Ethernet4.mtu", "ports.Ethernet4.ecn.3", "ports.Ethernet8.watchdog"):
        assert memo.provenance.lookup(path) == alone.provenance.lookup(path)


def _port(mtu: str = "9216", **extra: str) -> dict[str, str]:
    return {"admin_status": "up", "mtu": mtu, "speed": "400000", **extra}


def _config(ports: int = 4, **tables: dict[str, Any]) -> dict[str, Any]:
    names = [f"Ethernet{4 * i}" for i in range(ports)]
    doc: dict[str, Any] = {
        "DEVICE_METADATA": {"localhost": {"hostname": "sw1", "default_pfcwd_status": "enable"}},
        "PORT": {n: _port() for n in names},
        "DSCP_TO_TC_MAP": {"AZURE": {str(d): "3" if d == 26 else "0" for d in range(64)}},
        "TC_TO_QUEUE_MAP": {"AZURE": {str(t): str(t) for t in range(8)}},
        "PORT_QOS_MAP": {
            n: {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "pfc_enable": "3,4"}
            for n in names
        },
        "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "green_min_threshold": "1000"}},
        "SCHEDULER": {"s0": {"type": "DWRR", "weight": "14"}},
        "QUEUE": {f"{n}|3": {"scheduler": "s0", "wred_profile": "AZURE_LOSSLESS"} for n in names},
        "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "size": "1000000"}},
        "BUFFER_PROFILE": {"p3": {"pool": "ingress_lossless_pool", "size": "0", "xoff": "9"}},
        "BUFFER_PG": {f"{n}|3-4": {"profile": "p3"} for n in names},
        "PFC_WD": {n: {"action": "drop", "detection_time": "200"} for n in names},
        "CABLE_LENGTH": {"AZURE": dict.fromkeys(names, "40m")},
    }
    doc.update(tables)
    return doc


def test_a_port_of_a_kind_gets_its_own_lines() -> None:
    """The second port of a kind is built from the first one's template, with its own
    lines: a template that kept the first port's lines fails here."""
    doc = _config(2)
    text = json.dumps(doc, indent=4)
    lines = text.splitlines()
    memo = _parse(text, memo=True)
    for port in ("Ethernet0", "Ethernet4"):
        mtu = memo.provenance.lookup(f"ports.{port}.mtu")
        assert mtu is not None
        assert mtu.line is not None
        assert lines[mtu.line - 1].strip() == '"mtu": "9216",'
        queue = memo.provenance.lookup(f"ports.{port}.ecn.3")
        assert queue is not None
        assert queue.line is not None
        assert lines[queue.line - 1].strip() == f'"{port}|3": {{'
    first = memo.provenance.lookup("ports.Ethernet0.ecn.3")
    second = memo.provenance.lookup("ports.Ethernet4.ecn.3")
    assert first is not None
    assert second is not None
    assert first.line != second.line
    assert memo.device.ports["Ethernet4"].name == "Ethernet4"
    _assert_alike_equals_alone(text)


def test_the_kinds_are_built_from_templates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the first port of each kind is built with port_values (the memo is used)."""
    built: list[str] = []
    real = alike.port_values

    def counted(ctx: Any, name: str, default: Any) -> dict[str, Any]:
        built.append(name)
        return real(ctx, name, default)

    monkeypatch.setattr(alike, "port_values", counted)
    doc = _config(8)
    doc["PORT"]["Ethernet12"]["mtu"] = "1500"  # a second kind
    parse_text(json.dumps(doc, indent=2), "config_db.json", "sw1", "leaf")
    assert built == ["Ethernet0", "Ethernet12"]


@pytest.mark.parametrize("indent", [None, 0, 2, 4])
@pytest.mark.parametrize("running", [False, True])
def test_alike_ports_equal_ports_built_alone(indent: int | None, running: bool) -> None:
    doc = _config(6)
    doc["PORT"]["Ethernet8"]["mtu"] = "1500"
    doc["PORT"]["Ethernet12"] = {"speed": "400000", "alias": "etp4", "lanes": "0,1,2,3"}
    doc["PORT"]["Ethernet16"]["pfc_asym"] = "on"
    doc["PORT"]["Ethernet20"]["mtu"] = "x"  # unreadable: At(None)
    del doc["PFC_WD"]["Ethernet4"]
    doc["QUEUE"]["Ethernet8|0-2"] = {"scheduler": "missing"}  # a dangling reference
    doc["QUEUE"]["Ethernet12|0-2"] = {"scheduler": "missing"}
    doc["PORT_QOS_MAP"]["Ethernet16"]["tc_to_pg_map"] = "nowhere"
    doc["PORT_QOS_MAP"]["Ethernet20"]["tc_to_pg_map"] = "nowhere"
    _assert_alike_equals_alone(json.dumps(doc, indent=indent), running=running)


def test_port_lists_ranges_and_fragments_equal_ports_built_alone() -> None:
    doc = _config(4)
    doc["PORT_QOS_MAP"] = {
        "Ethernet0,Ethernet4": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3"},
        "Ethernet8,Ethernet12": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3"},
        "global": {"dscp_to_tc_map": "AZURE"},
    }
    doc["BUFFER_QUEUE"] = {"Ethernet0,Ethernet4,Ethernet8|0-2": {"profile": "p3"}}
    _assert_alike_equals_alone(json.dumps(doc, indent=4))
    del doc["PORT"]  # a fragment: the ports are named by the other tables
    _assert_alike_equals_alone(json.dumps(doc, indent=4))


def test_generated_switch_equals_ports_built_alone() -> None:
    peers = {i: f"gpu{i}" for i in range(0, 64, 2)}
    _assert_alike_equals_alone(sonic_config("leaf0", peers, no_pfc=5))


@pytest.mark.parametrize("path", list(_files()), ids=lambda p: str(p.relative_to(ROOT)))
def test_repository_files_equal_ports_built_alone(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        json.loads(text)
    except ValueError:
        pytest.skip("not a JSON document")
    _assert_alike_equals_alone(text)


@pytest.mark.parametrize(
    "path",
    [p for folder in ENTERPRISE for p in sorted((ROOT / folder).rglob("*.txt"))],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_enterprise_sonic_files_equal_ports_built_alone(path: Path) -> None:
    """Enterprise SONiC builds its ports with SONiC's builder (and its memo)."""
    snapshot = read_single_file(path, ENTERPRISE_SONIC.commands()[0])
    memo = ENTERPRISE_SONIC.parse(snapshot, "sw1", "leaf")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(alike, "own_data", lambda cfg, name: None)
        alone = ENTERPRISE_SONIC.parse(snapshot, "sw1", "leaf")
    assert same(memo.device, alone.device)
    assert list(memo.provenance.items()) == list(alone.provenance.items())


def test_the_kind_covers_every_field_of_a_port() -> None:
    """A new PortCfg or WatchdogCfg field must be added to the kind (or to PORT_OWN)."""
    port = {f.name for f in dataclasses.fields(PortCfg)} - {"name", "line"}
    assert port == {*alike.PORT_FIELDS, *alike.PORT_OWN}
    watchdog = {f.name for f in dataclasses.fields(WatchdogCfg)} - {"line"}
    assert watchdog == set(alike.WATCHDOG_FIELDS)


def test_a_field_absent_and_a_field_unread_are_two_kinds() -> None:
    """A port's kind tells a field that is not there from one that is but could not be
    read (the second records a line): ports that differ only so are not built from one
    template, and each equals the port built alone."""
    doc = _config(8)
    del doc["PORT"]["Ethernet4"]["mtu"]
    doc["PORT"]["Ethernet8"]["mtu"] = "nine"
    del doc["QUEUE"]["Ethernet12|3"]["scheduler"]
    doc["QUEUE"]["Ethernet16|3"]["scheduler"] = ""
    doc["BUFFER_PG"]["Ethernet20|3-4"] = {"x": "1"}
    doc["PFC_WD"]["Ethernet24"]["action"] = "explode"
    text = json.dumps(doc, indent=4)
    kinds = [alike.own_data(_cfg(text), f"Ethernet{4 * i}") for i in range(8)]
    assert all(own is not None for own in kinds)
    assert len({own[0] for own in kinds if own is not None}) == 7  # Ethernet28 is Ethernet0's
    _assert_alike_equals_alone(text)


def test_a_port_provenance_node_is_keyed_by_the_model_name() -> None:
    """Ports record their own path through ``Provenance.add_member``: the node of a port
    is keyed by the Port's name string itself (one string per port held, not a copy cut
    from a path), whether built from a template or alone."""
    text = json.dumps(_config(4), indent=4)
    for memo in (True, False):
        parsed = _parse(text, memo=memo)
        table = parsed.provenance._tables[0]
        for name, port in parsed.device.ports.items():
            key = next(k for k in table if k == name)
            assert key is port.name
            assert parsed.provenance.lookup(f"ports.{name}") is not None


def _cfg(text: str) -> Any:
    configs, _ = read_configs(text, "config_db.json")
    return configs[0]
