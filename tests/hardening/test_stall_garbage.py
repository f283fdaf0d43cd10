"""Peers that are not SSH servers at all: one accepts the TCP connection and never says a
word (stall), one answers with endless non-SSH bytes (garbage). The real CLI gives both up
after its connect/banner limit and the retries, reports them as not collected (exit 3) and
leaves no snapshot for them; an endless stream is never held whole.

The peers are raw TCP servers in this process (no SSH library), so what the client sees is
exactly what a hostile or misconfigured port would send. Each peer serves a switch
(netmiko) and a Linux host (the asyncio exec transport).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.paths import ROOT

_GARBAGE = b"\x00\xffGARBAGE not ssh\x1b[2J\r\n" * 256


class _Peer:
    """A TCP server that stalls or sends garbage to every connection until closed."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                while not self.stop.is_set():
                    if self.mode == "garbage":
                        conn.sendall(_GARBAGE)
                    self.stop.wait(0.01)
            except OSError:
                return

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


PLATFORMS = {"sw": "eos", "h": "linux_host"}
"""Name prefix -> platform: a switch (netmiko) and a host (the asyncio exec transport)."""


@pytest.fixture
def peers() -> Iterator[dict[str, _Peer]]:
    made = {f"{kind}-{mode}": _Peer(mode) for kind in PLATFORMS for mode in ("stall", "garbage")}
    yield made
    for peer in made.values():
        peer.close()


def test_stalling_and_garbage_peers_are_given_up_and_reported(
    peers: dict[str, _Peer], tmp_path: Path
) -> None:
    inventory = tmp_path / "inventory.yaml"
    inventory.write_text(
        "devices:\n"
        + "".join(
            f"  {name}: {{host: 127.0.0.1, port: {peer.port}, username: u, "
            f"platform: {PLATFORMS[name.split('-')[0]]}}}\n"
            for name, peer in peers.items()
        ),
        encoding="utf-8",
    )
    known = tmp_path / "known_hosts"
    known.write_text("", encoding="utf-8")
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable, "-m", "rocetune", "collect", str(inventory), "-o", str(out),
            "--known-hosts", str(known), "--connect-timeout", "1", "--retries", "1",
        ],
        capture_output=True, text=True, cwd=ROOT, check=False, timeout=120,
        env={"ROCETUNE_PASSWORD": "x", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 3, done.stderr
    for name, peer in peers.items():
        assert peer.accepted >= 2, f"{name}: connected and retried once"
        assert f"{name}: banner timeout" in done.stderr, done.stderr
        assert f"{name}: banner timeout: no SSH banner received (after 2 attempts)" in done.stderr
        assert not (out / name).exists()
    assert "GARBAGE" not in done.stderr + done.stdout, "the peer's bytes are not echoed"
    assert "collected 0/4 device(s)" in done.stderr
