"""`rocetune init`: writes an inventory that loads and validates, refuses to overwrite without
--force, takes exactly one source, and reports bad input as exit 2 with file and line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jsonschema
import pytest
from ruamel.yaml import YAML

from rocetune.inventory import load_inventory
from tests.cli.conftest import ROOT, run_cli

FIX = ROOT / "tests" / "fixtures" / "importers"
SCHEMA = json.loads((ROOT / "schemas" / "inventory.schema.json").read_text(encoding="utf-8"))


def _valid(path: Path) -> None:
    jsonschema.validate(YAML(typ="safe").load(path.read_text(encoding="utf-8")), SCHEMA)
    load_inventory(path)


@pytest.mark.parametrize(
    "args",
    [
        ("--hosts", FIX / "hosts.txt"),
        ("--from-ansible", FIX / "ansible_hosts.ini"),
        ("--from-ansible", FIX / "ansible_hosts.yml"),
        ("--from-nornir", FIX / "nornir"),
        ("--from-lldp", ROOT / "tests" / "fixtures" / "eos" / "roce_spine"),
    ],
)
def test_init_writes_a_valid_inventory(args: tuple[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "inventory.yaml"
    run = run_cli("init", *args, "-o", out)
    assert run.code == 0, run.err
    assert f"wrote {out}" in run.err
    _valid(out)
    assert "not-a-real-password" not in out.read_text(encoding="utf-8")


def test_init_refuses_to_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "inventory.yaml"
    out.write_text("keep me\n", encoding="utf-8")
    run = run_cli("init", "--hosts", FIX / "hosts.txt", "-o", out)
    assert run.code == 2
    assert "use --force" in run.err
    assert out.read_text(encoding="utf-8") == "keep me\n"
    run = run_cli("init", "--hosts", FIX / "hosts.txt", "-o", out, "--force")
    assert run.code == 0, run.err
    _valid(out)


def test_init_needs_exactly_one_source(tmp_path: Path) -> None:
    out = tmp_path / "inventory.yaml"
    none = run_cli("init", "-o", out)
    two = run_cli("init", "--hosts", FIX / "hosts.txt", "--from-nornir", FIX / "nornir", "-o", out)
    stray = run_cli("init", "--hosts", FIX / "hosts.txt", "--site", "dc1", "-o", out)
    for run in (none, two):
        assert run.code == 2
        assert "give exactly one of" in run.err
    assert stray.code == 2
    assert "--site and --role filter --from-netbox only" in stray.err
    assert not out.exists()


def test_init_bad_host_list_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "hosts.txt"
    bad.write_text("leaf1 10.0.0.1\nleaf2 10.0.0.2 extra\n", encoding="utf-8")
    run = run_cli("init", "--hosts", bad, "-o", tmp_path / "inventory.yaml")
    assert run.code == 2
    assert f"{bad}:2: expected `name [address]`" in run.err


class _Devices(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        page = "devices_page2.json" if "offset=2" in self.path else "devices_page1.json"
        host, port = self.server.server_address[:2]
        text = (FIX / "netbox" / page).read_text(encoding="utf-8")
        data = text.replace("{base}", f"http://{host}:{port}").encode()
        ok = self.headers.get("Authorization") == "Token secret-token-value"
        self.send_response(200 if ok else 403)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(data if ok else b'{"detail": "Invalid token"}')

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def netbox() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Devices)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _run(args: list[str], token: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "NETBOX_TOKEN"}
    if token is not None:
        env["NETBOX_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "rocetune", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=False,
        timeout=120,
    )


def test_init_from_netbox(netbox: str, tmp_path: Path) -> None:
    out = tmp_path / "inventory.yaml"
    run = _run(["init", "--from-netbox", netbox, "-o", str(out)], "secret-token-value")
    assert run.returncode == 0, run.stderr
    assert "wrote" in run.stderr
    _valid(out)
    text = out.read_text(encoding="utf-8")
    assert "secret-token-value" not in text + run.stderr + run.stdout
    assert "leaf1:" in text
    assert "spine1:" in text


def test_init_from_netbox_bad_token_and_unreachable(netbox: str, tmp_path: Path) -> None:
    out = tmp_path / "inventory.yaml"
    denied = _run(["init", "--from-netbox", netbox, "-o", str(out)], "bad-token-xyz")
    assert denied.returncode == 2
    assert "HTTP 403" in denied.stderr
    assert "NETBOX_TOKEN" in denied.stderr
    assert "bad-token-xyz" not in denied.stderr
    down = _run(["init", "--from-netbox", "http://127.0.0.1:9", "-o", str(out)], None)
    assert down.returncode == 3
    assert "cannot reach NetBox" in down.stderr
    assert not out.exists()
