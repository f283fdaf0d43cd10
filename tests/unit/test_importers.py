"""Importers (rocetune init): each source becomes an inventory that loads with
load_inventory and validates against the published JSON Schema, and no password is copied."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML

from rocetune.errors import RocetuneError
from rocetune.importers import Scaffold, platform_for, render
from rocetune.importers.ansible import expand, import_ansible
from rocetune.importers.hostlist import import_hosts, parse_hosts
from rocetune.importers.lldp import import_lldp
from rocetune.importers.netbox import NetboxUnreachable, import_netbox
from rocetune.importers.nornir import import_nornir
from rocetune.inventory import load_inventory
from tests.paths import ROOT

FIX = ROOT / "tests" / "fixtures" / "importers"
SCHEMA = json.loads((ROOT / "schemas" / "inventory.schema.json").read_text(encoding="utf-8"))


def loads(scaffold: Scaffold, tmp_path: Path) -> tuple[str, Any]:
    """Render, check against the schema and load; return the text and the Inventory."""
    text = render(scaffold)
    assert "not-a-real-password" not in text
    jsonschema.validate(YAML(typ="safe").load(text), SCHEMA)
    path = tmp_path / "inventory.yaml"
    path.write_text(text, encoding="utf-8")
    return text, load_inventory(path)


@pytest.mark.parametrize(
    ("name", "platform"),
    [
        ("arista.eos.eos", "eos"),
        ("eos", "eos"),
        ("cisco.nxos.nxos", "nxos"),
        ("nxos", "nxos"),
        ("dellemc.enterprise_sonic.sonic", "sonic"),
        ("sonic", "sonic"),
        ("nvidia.nvue.nvue", "cumulus"),
        ("cumulus", "cumulus"),
        ("cumulus-linux", "cumulus"),
        ("arista-eos", "eos"),
        ("linux", "linux_host"),
        ("junipernetworks.junos.junos", None),
        ("ios", None),
        (None, None),
    ],
)
def test_platform_names(name: str | None, platform: str | None) -> None:
    assert platform_for(name) == platform


def test_ansible_ranges() -> None:
    assert expand("leaf[01:03]") == ["leaf01", "leaf02", "leaf03"]
    assert expand("node[a:c].x") == ["nodea.x", "nodeb.x", "nodec.x"]
    assert expand("n[0:4:2]") == ["n0", "n2", "n4"]
    assert expand("plain") == ["plain"]


@pytest.mark.parametrize("fixture", ["ansible_hosts.ini", "ansible_hosts.yml"])
def test_ansible(fixture: str, tmp_path: Path) -> None:
    scaffold = import_ansible(FIX / fixture)
    text, inv = loads(scaffold, tmp_path)
    dev = inv.devices
    assert dev["spine1"].host == "10.0.0.1"
    assert dev["spine1"].platform == "eos"
    assert dev["spine2"].platform == "nxos"
    assert dev["mgmt-jump"].platform is None
    assert dev["mgmt-jump"].host == "192.0.2.1"
    assert "Passwords in the Ansible inventory were not copied" in text
    assert "no ansible_network_os" in text


def test_ansible_ini_details(tmp_path: Path) -> None:
    text, inv = loads(import_ansible(FIX / "ansible_hosts.ini"), tmp_path)
    assert {"leaf1", "leaf2", "leaf3", "edge1"} <= set(inv.devices)
    assert inv.devices["leaf1"].platform == "sonic"
    assert inv.devices["leaf1"].host is None  # no ansible_host: left for the user
    assert inv.devices["leaf3"].platform == "cumulus"
    assert inv.devices["edge1"].platform is None
    assert "'junipernetworks.junos.junos' is not a platform rocetune reads" in text
    assert inv.devices["spine1"].access.username == "netops"  # [fabric:vars] ansible_user
    assert inv.devices["edge1"].access.username is None


def test_ansible_yaml_details(tmp_path: Path) -> None:
    _, inv = loads(import_ansible(FIX / "ansible_hosts.yml"), tmp_path)
    assert inv.devices["leaf01"].platform == "sonic"
    assert inv.devices["leaf03"].platform == "cumulus"
    assert inv.devices["leaf03"].access.port == 2222
    # host vars win over group vars (spine2 overrides the spines' arista.eos.eos)
    assert inv.devices["spine2"].platform == "nxos"
    assert inv.devices["gpu01"].access.username == "netops"  # all: vars


def test_ansible_bad_line_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "hosts.ini"
    bad.write_text("[spines]\nspine1 ansible_host\n", encoding="utf-8")
    with pytest.raises(RocetuneError) as err:
        import_ansible(bad)
    assert err.value.line == 2
    assert err.value.file == str(bad)


def test_nornir(tmp_path: Path) -> None:
    text, inv = loads(import_nornir(FIX / "nornir"), tmp_path)
    dev = inv.devices
    assert (dev["spine1"].platform, dev["spine1"].role, dev["spine1"].host) == (
        "eos",
        "spine",
        "10.0.0.1",
    )
    # platform from a group, role from that group's parent group
    assert (dev["leaf1"].platform, dev["leaf1"].role) == ("sonic", "leaf")
    assert (dev["gpu01"].platform, dev["gpu01"].role) == ("linux_host", "host")
    assert dev["edge1"].platform is None
    assert "Nornir platform 'junos'" in text
    assert dev["spine2"].access.username == "netops"  # defaults.yaml
    assert "Passwords in the Nornir inventory were not copied" in text


def test_nornir_needs_hosts_yaml(tmp_path: Path) -> None:
    with pytest.raises(RocetuneError, match=r"no hosts\.yaml"):
        import_nornir(tmp_path)


def test_hosts(tmp_path: Path) -> None:
    text, inv = loads(import_hosts(FIX / "hosts.txt"), tmp_path)
    assert inv.devices["leaf1"].host == "10.0.0.11"
    assert inv.devices["leaf2"].host is None
    assert inv.devices["gpu01"].host == "gpu01.example.com"
    assert all(d.platform is None for d in inv.devices.values())
    assert text.count("set platform:") == 3


@pytest.mark.parametrize(
    ("text", "line", "msg"),
    [
        ("a 1.2.3.4 extra\n", 1, "expected `name \\[address\\]`"),
        ("ok\n-bad\n", 2, "not a device name"),
        ("a 1.2.3.4\na 1.2.3.5\n", 2, "listed twice"),
        ("a bad/addr\n", 1, "not a host name or address"),
    ],
)
def test_hosts_errors(text: str, line: int, msg: str) -> None:
    with pytest.raises(RocetuneError, match=msg) as err:
        parse_hosts(text, Path("hosts.txt"))
    assert err.value.line == line


def test_lldp_eos_spine(tmp_path: Path) -> None:
    scaffold = import_lldp(ROOT / "tests" / "fixtures" / "eos" / "roce_spine")
    _, inv = loads(scaffold, tmp_path)
    assert inv.devices["spine1"].platform == "eos"
    assert {"leaf1", "leaf2", "leaf3", "leaf4"} <= set(inv.devices)
    ends = {(link.a.device, link.a.port, link.b.device, link.b.port) for link in inv.links}
    assert ("spine1", "Ethernet1/1", "leaf1", "Ethernet49/1") in ends
    assert len(inv.links) == len(scaffold.links) >= 4


def test_lldp_host(tmp_path: Path) -> None:
    _, inv = loads(import_lldp(ROOT / "inventories" / "lab" / "snapshots" / "gpu01"), tmp_path)
    assert inv.devices["gpu01"].platform == "linux_host"
    ends = {(link.a.port, link.b.device, link.b.port) for link in inv.links}
    assert ends == {("eth2", "leaf3", "swp1"), ("eth3", "leaf4", "swp1")}


def test_lldp_without_neighbours_is_an_error() -> None:
    with pytest.raises(RocetuneError, match="no LLDP neighbours"):
        import_lldp(ROOT / "inventories" / "lab" / "snapshots" / "leaf1")


class _NetBox(BaseHTTPRequestHandler):
    seen: list[tuple[str, str | None]] = []  # noqa: RUF012 (the test reads it)

    def do_GET(self) -> None:
        type(self).seen.append((self.path, self.headers.get("Authorization")))
        page = "devices_page2.json" if "offset=2" in self.path else "devices_page1.json"
        base = f"http://{self.server.server_address[0]}:{self.server.server_address[1]}"
        body = (FIX / "netbox" / page).read_text(encoding="utf-8").replace("{base}", base)
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def netbox() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NetBox)
    _NetBox.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_netbox(netbox: str, tmp_path: Path) -> None:
    scaffold = import_netbox(netbox, env={"NETBOX_TOKEN": "0123456789abcdef"})
    text, inv = loads(scaffold, tmp_path)
    assert "0123456789abcdef" not in text
    dev = inv.devices
    assert (dev["leaf1"].host, dev["leaf1"].platform, dev["leaf1"].role) == (
        "10.0.0.11",
        "sonic",
        "leaf",
    )
    assert (dev["spine1"].platform, dev["spine1"].role) == ("eos", "spine")
    assert (dev["leaf2"].platform, dev["leaf2"].role, dev["leaf2"].host) == (
        "cumulus",
        "leaf",  # NetBox 3 `device_role`
        None,
    )
    assert dev["edge1"].host == "2001:db8::1"
    assert dev["edge1"].platform is None
    assert "no primary IP in NetBox" in text
    assert [p for p, _ in _NetBox.seen] == [
        "/api/dcim/devices/?limit=200",
        "/api/dcim/devices/?limit=2&offset=2",
    ]
    assert {auth for _, auth in _NetBox.seen} == {"Token 0123456789abcdef"}


def test_netbox_filters(netbox: str, tmp_path: Path) -> None:
    scaffold = import_netbox(netbox, site="dc1", role="leaf", env={})
    _, inv = loads(scaffold, tmp_path)
    assert set(inv.devices) == {"leaf1", "leaf2"}
    assert _NetBox.seen[0] == ("/api/dcim/devices/?limit=200&site=dc1&role=leaf", None)


def test_netbox_unreachable() -> None:
    with pytest.raises(NetboxUnreachable, match="cannot reach NetBox"):
        import_netbox("http://127.0.0.1:9", env={})


def test_netbox_bad_url() -> None:
    with pytest.raises(RocetuneError, match="not an http"):
        import_netbox("ftp://netbox", env={})


def test_names_rocetune_refuses_are_left_out(tmp_path: Path) -> None:
    bad = tmp_path / "hosts.yml"
    bad.write_text("all:\n  hosts:\n    good1: {ansible_host: 10.0.0.1}\n    _bad: {}\n")
    text, inv = loads(import_ansible(bad), tmp_path)
    assert set(inv.devices) == {"good1"}
    assert "left out '_bad'" in text
