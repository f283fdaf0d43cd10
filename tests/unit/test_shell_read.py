"""rocetune.collect.shell_read: the output of one interactive command, read by rocetune.

A real netmiko connection object (not connected) supplies netmiko's own line-end and ANSI
functions; its channel is a fake that hands out scripted chunks, so every chunking of the
same bytes can be tried.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rocetune.collect.reasons import CollectError, Reason
from rocetune.collect.shell_read import Limits, send_and_read
from rocetune.collect.writer import write_device
from rocetune.snapshot import CommandRecord, SnapshotMeta, write_directory

PROMPT = re.compile(
    r"(?:^|[\r\n])admin@leaf1:~[ \t]?(?:\([^()\r\n]{1,120}\)[ \t]?)?[>#$%]?[ \t]*\Z"
)


class FakeChannel:
    """paramiko Channel's read side: scripted chunks, then nothing (or EOF)."""

    def __init__(self, chunks: list[bytes], eof: bool = False) -> None:
        self.chunks, self.eof = list(chunks), eof
        self.timeout: float | None = None
        self.sent: list[str] = []

    def recv(self, n: int) -> bytes:
        if self.chunks:
            head = self.chunks[0]
            if len(head) > n:
                self.chunks[0] = head[n:]
                return head[:n]
            return self.chunks.pop(0)
        if self.eof:
            return b""
        time.sleep(min(self.timeout or 0.01, 0.01))
        raise TimeoutError

    def recv_ready(self) -> bool:
        return bool(self.chunks)

    def settimeout(self, value: float | None) -> None:
        self.timeout = value

    def gettimeout(self) -> float | None:
        return self.timeout


def _conn(chan: FakeChannel, device_type: str = "linux") -> Any:
    from netmiko import ConnectHandler

    conn: Any = ConnectHandler(device_type=device_type, host="192.0.2.1", auto_connect=False)
    conn.remote_conn = chan
    conn.ansi_escape_codes = True
    conn.write_channel = chan.sent.append
    return conn


def _limits(cap: int = 1 << 20, seconds: float = 5.0) -> Limits:
    now = time.monotonic()
    return Limits(now + seconds, now + 100, cap)


def _splits(data: bytes) -> Iterator[list[bytes]]:
    yield [data]
    yield [bytes([b]) for b in data]
    for size in (2, 3, 7, 64):
        yield [data[i : i + size] for i in range(0, len(data), size)]


REPLY = (
    b"stale\r\nadmin@leaf1:~$ show pfc\r\n"
    b"\x1b[1mPort\x1b[0m  Tx\r\n\r\nEthernet0  3\xc3\xa9\r\n"
    b"admin@leaf1:~$ "
)


@pytest.mark.parametrize("chunks", list(_splits(REPLY)), ids=lambda c: f"{len(c)}chunks")
def test_output_is_what_netmiko_returns_whatever_the_chunking(chunks: list[bytes]) -> None:
    chan = FakeChannel(chunks)
    answer = send_and_read(_conn(chan), "show pfc", PROMPT, _limits())
    assert answer.text == "Port  Tx\n\nEthernet0  3\u00e9\n"
    assert not answer.truncated
    assert chan.sent == ["show pfc\n"]


def test_prompt_inside_the_output_does_not_end_the_read() -> None:
    data = b"show x\r\nadmin@leaf1:~$ is not at the end\r\nlast\r\nadmin@leaf1:~$ "
    answer = send_and_read(_conn(FakeChannel([data])), "show x", PROMPT, _limits())
    assert answer.text == "admin@leaf1:~$ is not at the end\nlast\n"


def test_empty_output() -> None:
    data = b"hostname\r\nadmin@leaf1:~$ "
    assert send_and_read(_conn(FakeChannel([data])), "hostname", PROMPT, _limits()).text == ""


def test_flood_is_cut_at_the_cap_on_a_line_boundary() -> None:
    line = b"y" * 99 + b"\n"
    chan = FakeChannel([b"cat big\r\n", *[line * 100] * 50])  # 500 KB, never a prompt
    answer = send_and_read(_conn(chan), "cat big", PROMPT, _limits(cap=100_000))
    assert answer.truncated
    assert len(answer.text) <= 100_000
    assert answer.text.endswith("\n")
    assert set(answer.text.splitlines()) == {"y" * 99}
    assert len(answer.text) >= 100_000 - 100 - len("cat big\r\n")
    assert chan.chunks, "reading stopped at the cap"


def test_drip_stops_at_the_read_deadline() -> None:
    chan = FakeChannel([b"show x\r\n", b"x"])
    start = time.monotonic()
    with pytest.raises(CollectError) as err:
        send_and_read(_conn(chan), "show x", PROMPT, _limits(seconds=0.3))
    assert err.value.reason is Reason.COMMAND_TIMEOUT
    assert "read timeout" in err.value.detail
    assert time.monotonic() - start < 2


def test_device_deadline_is_named() -> None:
    now = time.monotonic()
    limits = Limits(now + 10, now + 0.2, 1 << 20)
    with pytest.raises(CollectError, match="device deadline"):
        send_and_read(_conn(FakeChannel([b"show x\r\n"])), "show x", PROMPT, limits)


def test_closed_channel_is_a_disconnect() -> None:
    with pytest.raises(EOFError):
        send_and_read(
            _conn(FakeChannel([b"show x\r\npart"], eof=True)), "show x", PROMPT, _limits()
        )


def test_writer_writes_the_bytes_write_directory_writes(tmp_path: Path) -> None:
    outputs = {"a.txt": "x\n\u00e9\n" * 1000, "b.json": "{}", "empty.txt": ""}
    meta = SnapshotMeta("leaf1", "sonic", "2026-01-01T00:00:00Z", (
        CommandRecord("show a", "a.txt", "ok", None, 0.1),
    ))  # fmt: skip
    write_directory(tmp_path / "ref", outputs, meta)
    for durable in (True, False):
        got = write_device(tmp_path / f"out{durable}", "ref", outputs, meta, durable=durable)
        names = sorted(p.name for p in (tmp_path / "ref").iterdir())
        assert sorted(p.name for p in got.iterdir()) == names
        for name in names:
            assert (got / name).read_bytes() == (tmp_path / "ref" / name).read_bytes()
