"""The asyncio exec transport's own pieces, without a lab: the banner wait over a real
socket pair, the classification of asyncssh failures, the loop thread after a fork.
(Over real SSH: tests/lab/test_host_transport.py.)"""

from __future__ import annotations

import asyncio
import multiprocessing
import socket
import threading
import time
from collections.abc import Iterator

import asyncssh
import pytest

from rocetune.collect import aio_exec
from rocetune.collect.reasons import CollectError, Reason


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    ours, peer = socket.socketpair()
    ours.setblocking(False)
    yield ours, peer
    ours.close()
    peer.close()


def _banner(sock: socket.socket, timeout: float) -> float:
    start = time.monotonic()
    asyncio.run(aio_exec._banner(sock, timeout))
    return time.monotonic() - start


def test_banner_waits_for_the_version_line_and_leaves_it_unread(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    ours, peer = pair
    threading.Timer(0.1, lambda: peer.sendall(b"hello\r\nSSH-2.0-Test\r\n")).start()
    assert _banner(ours, 5) < 4
    ours.setblocking(True)
    assert ours.recv(100) == b"hello\r\nSSH-2.0-Test\r\n", "peeked, not consumed"


def test_banner_after_partial_lines(pair: tuple[socket.socket, socket.socket]) -> None:
    ours, peer = pair
    peer.sendall(b"pre-banner notice\r\n")
    threading.Timer(0.1, lambda: peer.sendall(b"SSH-2.0-Test\r\n")).start()
    assert _banner(ours, 5) < 4


@pytest.mark.parametrize(
    ("send", "close"),
    [(b"", False), (b"not ssh\r\n", False), (b"", True), (b"x" * (aio_exec._PEEK + 10), False)],
    ids=["stall", "garbage-line", "closed", "flood"],
)
def test_no_banner_is_a_banner_timeout(
    pair: tuple[socket.socket, socket.socket], send: bytes, close: bool
) -> None:
    ours, peer = pair
    if send:
        threading.Thread(target=peer.sendall, args=(send,), daemon=True).start()
    if close:
        peer.shutdown(socket.SHUT_WR)
    with pytest.raises(CollectError) as info:
        _banner(ours, 0.5)
    assert info.value.reason is Reason.BANNER_TIMEOUT


@pytest.mark.parametrize(
    ("exc", "pinned", "reason"),
    [
        (asyncssh.HostKeyNotVerifiable("Host key is not trusted"), False, Reason.HOST_KEY_UNKNOWN),
        (asyncssh.HostKeyNotVerifiable("Host key is not trusted"), True, Reason.HOST_KEY_MISMATCH),
        (asyncssh.PermissionDenied("Permission denied"), True, Reason.AUTH_FAILED),
        (asyncssh.ConnectionLost("Connection lost"), True, Reason.DISCONNECTED),
        (ConnectionResetError(104, "reset"), True, Reason.DISCONNECTED),
        (asyncssh.KeyExchangeFailed("No matching encryption"), True, Reason.SSH_ERROR),
        (asyncssh.ProtocolError("bad\x1b[2J packet\nsecond line"), True, Reason.SSH_ERROR),
    ],
)
def test_connect_errors_map_to_the_paramiko_reasons(
    exc: BaseException, pinned: bool, reason: Reason
) -> None:
    got = aio_exec._connect_error(exc, pinned)
    assert got.reason is reason
    assert "\x1b" not in got.detail
    assert "\n" not in got.detail


def _child(q: multiprocessing.Queue[object]) -> None:
    fresh = aio_exec._LOOP.loop is None
    result = aio_exec._call(asyncio.sleep(0, result="ran"), 5)
    q.put((fresh, result, aio_exec._LOOP.loop is not None))


def test_a_forked_child_runs_its_own_loop() -> None:
    assert aio_exec._call(asyncio.sleep(0, result=1), 5) == 1
    parent = aio_exec._LOOP.loop
    ctx = multiprocessing.get_context("fork")
    q: multiprocessing.Queue[object] = ctx.Queue()
    proc = ctx.Process(target=_child, args=(q,))
    proc.start()
    got = q.get(timeout=30)
    proc.join(30)
    assert got == (True, "ran", True)
    assert aio_exec._LOOP.loop is parent, "the parent's loop is unchanged"
