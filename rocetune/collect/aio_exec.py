"""The asyncio exec transport for Linux hosts: every host connection of a process in one
event-loop thread (asyncssh), the same exec channels and framed lanes as
:mod:`rocetune.collect.exec_channel`.

Why: paramiko runs a transport thread per connection, and every channel open, exec request
and arriving segment is a hand-off between it and the worker thread (about 365 context
switches per host against about 28 for one asyncio thread; collect4/collect5 notes). Here a
worker hands a whole batch to the loop and sleeps until its outputs are ready: one wake per
batch, not per packet. The session contract (:class:`rocetune.session.Session`) is the
exec session's, so jobs, pool, device and writer do not change.

What stays as in the paramiko transport:

- host keys: the keys our own known_hosts reader (:mod:`rocetune.collect.known_hosts`) grants
  the endpoint are the only trusted keys (no CA, no X.509, no ~/.ssh/config, no default
  known_hosts of the library); none -> HOST_KEY_UNKNOWN, others -> HOST_KEY_MISMATCH;
  ``--insecure-host-keys`` accepts any key;
- limits: TCP within ``connect`` (the socket is connected by :meth:`Endpoint.sock` in the
  worker, so TCP errors classify as before), the SSH banner within min(banner, connect)
  (BANNER_TIMEOUT, retried; a peer sending kilobytes that are not SSH is the same), key
  exchange within ``connect`` and then authentication within ``auth`` (AUTH_TIMEOUT); each
  lane within ``read`` x its commands, bounded by the device deadline (COMMAND_TIMEOUT);
- output: each command's stdout is capped through :class:`shell_batch.Stream` (truncation,
  blocks, the lane's remaining commands re-run), stderr capped too; a host without a POSIX
  ``sh`` is diagnosed; a connection lost mid-batch is DISCONNECTED;
- a ProxyCommand/ProxyJump endpoint is served by the paramiko transport (it needs a
  subprocess for the stream);
- fork: the loop thread is created lazily in the process that uses it and forgotten in a
  forked child (:func:`os.register_at_fork`), which makes its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import socket
import threading
import time
from collections.abc import Coroutine, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from rocetune.collect import known_hosts, shell_batch
from rocetune.collect.ciphers import asyncssh_gcm_first
from rocetune.collect.exec_channel import LANES, ExecTransport, LaneResults
from rocetune.collect.reasons import CollectError, Reason
from rocetune.collect.target import Endpoint, Target, Timeouts, Trust, endpoint
from rocetune.collect.transport import check_command
from rocetune.session import Output, Session

if TYPE_CHECKING:
    import asyncssh

T = TypeVar("T")

_PEEK = 65536
"""Bytes a peer may send before its SSH version line (RFC 4253 allows other lines first)."""
_SLACK = 30.0
"""Seconds a worker waits for the loop past the limits the loop itself enforces (a safety
net: the loop's own deadlines end every call first)."""
_CLOSE_WAIT = 2.0
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


class _LoopThread:
    """The process's event loop, running in a daemon thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> asyncio.AbstractEventLoop:
        with self.lock:
            if self.loop is None or self.loop.is_closed():
                loop = asyncio.new_event_loop()
                loop.set_exception_handler(_quiet)
                thread = threading.Thread(
                    target=loop.run_forever, name="rocetune-ssh-loop", daemon=True
                )
                thread.start()
                self.loop = loop
            return self.loop

    def forget(self) -> None:
        """In a forked child: the parent's loop (and its thread) are not ours."""
        self.lock = threading.Lock()
        self.loop = None


_LOOP = _LoopThread()
os.register_at_fork(after_in_child=_LOOP.forget)


def _quiet(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Unretrieved errors of closed connections are not news: every failure that matters
    reaches the worker as an exception, classified once."""
    del loop
    logging.getLogger(__name__).debug("event loop: %s", context.get("message"))


def _call(coro: Coroutine[Any, Any, T], limit: float) -> T:
    """Run ``coro`` on the loop from a worker thread: the worker sleeps until it is done.

    ``limit`` is what the coroutine's own deadlines allow; the worker gives up ``_SLACK``
    seconds later (a safety net, never reached while the loop runs)."""
    future = asyncio.run_coroutine_threadsafe(coro, _LOOP.get())
    try:
        return future.result(timeout=max(0.0, limit) + _SLACK)
    except FutureTimeout:
        future.cancel()
        raise CollectError(Reason.COMMAND_TIMEOUT, "no answer before the deadline") from None


def quiet_asyncssh() -> None:
    """asyncssh logs connection events; the failure is reported once, classified."""
    logger = logging.getLogger("asyncssh")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())


def _text(exc: BaseException) -> str:
    """One short line of a library message (a peer's disconnect reason is the peer's
    text: control characters removed, length bounded)."""
    first = str(exc).strip().splitlines()
    line = _CONTROL.sub(" ", first[0] if first else type(exc).__name__)
    return line[:160]


def _connect_error(exc: BaseException, pinned: bool) -> CollectError:
    """An asyncssh connection failure as the reason the paramiko transport gives."""
    import asyncssh

    if isinstance(exc, CollectError):
        return exc
    if isinstance(exc, asyncssh.HostKeyNotVerifiable):
        if pinned:
            return CollectError(Reason.HOST_KEY_MISMATCH, "the host key differs from known_hosts")
        return CollectError(Reason.HOST_KEY_UNKNOWN, "the host is not in known_hosts")
    if isinstance(exc, asyncssh.PermissionDenied):
        return CollectError(Reason.AUTH_FAILED, "the device rejected the credentials")
    if isinstance(exc, asyncssh.ConnectionLost | ConnectionError | EOFError):
        return CollectError(Reason.DISCONNECTED, "the device closed the connection")
    if isinstance(exc, asyncssh.DisconnectError):
        return CollectError(Reason.SSH_ERROR, _text(exc))
    if isinstance(exc, MemoryError):
        return CollectError(Reason.OUT_OF_MEMORY, "out of memory while connecting")
    if isinstance(exc, OSError):
        return CollectError(Reason.DISCONNECTED, f"{type(exc).__name__}: {_text(exc)}")
    return CollectError(Reason.SSH_ERROR, f"{type(exc).__name__}: {_text(exc)}")


async def _banner(sock: socket.socket, timeout: float) -> None:
    """Wait until the peer's SSH version line has arrived (peeked, left for asyncssh).

    BANNER_TIMEOUT when it does not come within ``timeout``, the peer closes first, or
    ``_PEEK`` bytes came without one (not an SSH server).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    seen = -1
    none = CollectError(Reason.BANNER_TIMEOUT, "no SSH banner received")
    while True:
        try:
            data: bytes | None = sock.recv(_PEEK, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            data = None
        except OSError as exc:
            raise none from exc
        if data is not None:
            if not data or len(data) >= _PEEK:
                raise none
            if data.startswith(b"SSH-") or b"\nSSH-" in data:
                return
        left = deadline - loop.time()
        if left <= 0:
            raise none
        if data is None or len(data) == seen:
            # nothing yet, or the same partial lines: wait for more (readable again, or
            # a short sleep when the buffered bytes keep the socket readable)
            await (_readable(loop, sock, left) if data is None else asyncio.sleep(min(0.01, left)))
        if data is not None:
            seen = len(data)


async def _readable(loop: asyncio.AbstractEventLoop, sock: socket.socket, timeout: float) -> None:
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(sock.fileno(), wake)
    try:
        await asyncio.wait({ready}, timeout=timeout)
    finally:
        loop.remove_reader(sock.fileno())


class _Client:
    """Keeps the connection object asyncssh makes, to see how far a slow login got."""

    def __init__(self) -> None:
        self.conn: asyncssh.SSHClientConnection | None = None

    def make(self) -> asyncssh.SSHClient:
        import asyncssh

        owner = self

        class Client(asyncssh.SSHClient):
            def connection_made(self, conn: asyncssh.SSHClientConnection) -> None:
                owner.conn = conn

        return Client()

    def keys_exchanged(self) -> bool:
        return self.conn is not None and self.conn.get_server_host_key() is not None


@lru_cache(maxsize=4096)
def _public_key(keytype: str, key: str) -> Any:
    import asyncssh

    try:
        return asyncssh.import_public_key(f"{keytype} {key}")
    except (asyncssh.KeyImportError, ValueError):
        return None


class _Lane:
    """One exec channel's output as it arrives (an ``asyncssh.SSHClientSession``'s
    callbacks): stdout into the stream, stderr capped, the end and the exit status."""

    def __init__(self, stream: shell_batch.Stream, cap: int, ended: asyncio.Future[None]) -> None:
        self.stream, self.cap, self.ended = stream, cap, ended
        self.err = bytearray()
        self.status = -1
        self.eof = self.over = False
        self.error: CollectError | None = None
        self.chan: Any = None

    def connection_made(self, chan: Any) -> None:
        self.chan = chan

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if self.over or self.error is not None:
            return
        try:
            if datatype is None:
                self.over = self.stream.feed(data)
            else:
                self.err += data
                self.over = len(self.err) > self.cap
        except MemoryError:
            self.error = CollectError(Reason.OUT_OF_MEMORY, "out of memory while reading")
        if self.over or self.error is not None:  # stop reading: the channel is closed
            self.chan.close()
            self._end()

    def eof_received(self) -> bool:
        self.eof = True
        if self.status >= 0:
            self._end()
        return False

    def exit_status_received(self, status: int) -> None:
        self.status = status
        if self.eof:  # the exit status alone is no end: data may still wait for the window
            self._end()

    def exit_signal_received(self, *args: Any) -> None:
        del args

    def connection_lost(self, exc: BaseException | None) -> None:
        del exc
        self._end()

    def _end(self) -> None:
        if not self.ended.done():
            self.ended.set_result(None)


@lru_cache(maxsize=1)
def _lane_class() -> type[_Lane]:
    """:class:`_Lane` as an ``asyncssh.SSHClientSession`` (asyncssh imported on first use)."""
    import asyncssh

    return type("Lane", (_Lane, asyncssh.SSHClientSession), {})


class AioExecSession(LaneResults):
    """An asyncssh connection driven by the process's loop thread; commands in exec
    channels, ``lanes`` at a time, each running its lane as one framed ``sh`` script."""

    def __init__(
        self, conn: asyncssh.SSHClientConnection, read_timeout: float, **limits: Any
    ) -> None:
        super().__init__(read_timeout, **limits)
        self.conn = conn

    def _limit(self, commands: int) -> float:
        """Seconds the worker may wait for a call of ``commands`` commands per lane."""
        now = time.monotonic()
        return min(self.read_timeout * commands, self.device_deadline - now)

    def run(self, command: str) -> Output:
        """Run one command on its own channel; collect stdout, stderr, exit status."""
        check_command(command)
        start = time.monotonic()
        stream = shell_batch.Stream("", self.max_output, plain=True)
        err, status, over = _call(self._lane(command, command, 1, stream), self._limit(1))
        return self.single(stream, err, status, over, time.monotonic() - start)

    def run_many(self, commands: Sequence[str]) -> list[Output]:
        """Run commands spread over ``lanes`` channels at once; outputs in order (see
        :meth:`rocetune.collect.exec_channel.ExecSession.run_many`)."""
        lanes = self.split(commands)
        if len(commands) <= 1:
            return [self.run(c) for c in commands]
        start = time.monotonic()
        marker = shell_batch.new_marker()
        streams = [shell_batch.Stream(marker, self.max_output) for _ in lanes]
        ends = _call(self._lanes(lanes, marker, streams), self._limit(max(map(len, lanes))))
        results: dict[str, Output] = {}
        rest: list[str] = []
        for lane, stream, (got, when) in zip(lanes, streams, ends, strict=True):
            if isinstance(got, BaseException):
                raise got
            seconds = (when - start) / len(lane)
            rest += self.take_lane(lane, stream, got, seconds, results)
        if rest:
            results.update(zip(rest, self.run_many(rest), strict=True))
        return [results[c] for c in commands]

    async def _lanes(
        self, lanes: list[list[str]], marker: str, streams: list[shell_batch.Stream]
    ) -> list[tuple[tuple[str, int, bool] | BaseException, float]]:
        """Every lane at once; each lane's result (or error) and when it ended."""

        async def one(lane: list[str], stream: shell_batch.Stream) -> Any:
            try:
                got: Any = await self._lane(
                    shell_batch.exec_line(lane, marker), lane[0], len(lane), stream
                )
            except CollectError as exc:
                got = exc
            return got, time.monotonic()

        pairs = zip(lanes, streams, strict=True)
        return list(await asyncio.gather(*(one(lane, stream) for lane, stream in pairs)))

    async def _lane(
        self, line: str, first: str, commands: int, stream: shell_batch.Stream
    ) -> tuple[str, int, bool]:
        """Open a channel, run ``line``, read it to its end within the lane's deadline
        (``read_timeout`` per command, bounded by the device deadline; the clock does not
        restart per read, so a dripping peer cannot keep us waiting)."""
        deadline = min(time.monotonic() + self.read_timeout * commands, self.device_deadline)
        loop = asyncio.get_running_loop()
        ended: asyncio.Future[None] = loop.create_future()
        lane: Any = _lane_class()(stream, self.max_output, ended)  # an SSHClientSession
        try:
            chan, _ = await asyncio.wait_for(
                self.conn.create_session(lambda: lane, line, encoding=None),
                max(0.0, min(self.read_timeout, deadline - time.monotonic())),
            )
        except CollectError as exc:
            raise CollectError(exc.reason, exc.detail, first) from exc
        except MemoryError as exc:
            raise CollectError(Reason.OUT_OF_MEMORY, "out of memory while reading", first) from exc
        except Exception as exc:  # refused, timed out or lost: as paramiko's open_session
            detail = "the device closed the connection"
            raise CollectError(Reason.DISCONNECTED, detail, first) from exc
        try:
            chan.write_eof()
            await asyncio.wait_for(asyncio.shield(ended), max(0.0, deadline - time.monotonic()))
        except (TimeoutError, asyncio.TimeoutError) as exc:
            chan.close()
            why = "device deadline" if deadline >= self.device_deadline else "deadline"
            detail = f"output not complete before the {why}"
            raise CollectError(Reason.COMMAND_TIMEOUT, detail, first) from exc
        except Exception as exc:
            chan.close()
            detail = "the device closed the connection"
            raise CollectError(Reason.DISCONNECTED, detail, first) from exc
        chan.close()
        if lane.error is not None:
            raise CollectError(lane.error.reason, lane.error.detail, first)
        status = lane.status if not lane.over else -1
        return shell_batch.decode(lane.err, self.max_output), status, lane.over

    def close(self) -> None:
        """Close the connection (waits briefly for the goodbye to be sent), never raises."""
        close_connection(self.conn)


def close_connection(conn: asyncssh.SSHClientConnection) -> None:
    """Close ``conn`` from a worker thread, waiting at most ``_CLOSE_WAIT`` for the goodbye
    (:func:`_close`); never raises."""
    with contextlib.suppress(Exception):
        _call(_close(conn), _CLOSE_WAIT)


async def _close(conn: asyncssh.SSHClientConnection) -> None:
    """Say goodbye; a peer that does not take it within ``_CLOSE_WAIT`` (its window or the
    socket buffer full) has the connection dropped, so no socket outlives its session."""
    conn.close()
    try:
        await asyncio.wait_for(conn.wait_closed(), _CLOSE_WAIT)
    except Exception:
        conn.abort()


class AioExecTransport:
    """Sessions over exec channels of asyncssh connections in one loop thread (hosts);
    ProxyCommand/ProxyJump endpoints through the paramiko :class:`ExecTransport`."""

    def __init__(self, timeouts: Timeouts, trust: Trust, lanes: int = LANES) -> None:
        self.timeouts, self.trust, self.lanes = timeouts, trust, lanes
        self.proxied = ExecTransport(timeouts, trust, lanes)

    def open(self, target: Target) -> Session:
        """Connect (TCP here, in the worker), then SSH in the loop thread."""
        ep = endpoint(target)
        if ep.proxy is not None:
            return self.proxied.open_at(target, ep)
        conn = self.connect(target, ep)
        t = self.timeouts
        limits = {"lanes": self.lanes, "device_timeout": t.device}
        return AioExecSession(conn, t.read, **limits, max_output_bytes=t.max_output_bytes)

    def connect(self, target: Target, ep: Endpoint) -> asyncssh.SSHClientConnection:
        """TCP to ``ep`` here (in the worker), then SSH in the loop thread: the connection,
        its host key verified and the user authenticated (no channel yet)."""
        quiet_asyncssh()
        t = self.timeouts
        trusted = self._trusted(ep)
        sock = ep.sock(t.connect)
        try:
            limit = min(t.banner, t.connect) + t.connect + t.auth
            return _call(self._login(target, ep, sock, trusted), limit)
        except BaseException:
            with contextlib.suppress(OSError):
                sock.close()
            raise

    def _trusted(self, ep: Endpoint) -> list[Any] | None:
        """The keys known_hosts grants the endpoint (None: any key, --insecure-host-keys)."""
        if self.trust.insecure:
            return None
        if self.trust.known_hosts is None:
            return []
        found = known_hosts.load(self.trust.known_hosts).keys_for(ep.host, ep.port)
        keys = (_public_key(k.keytype, k.key) for k in found)
        return [k for k in keys if k is not None]

    async def _login(
        self, target: Target, ep: Endpoint, sock: socket.socket, trusted: list[Any] | None
    ) -> asyncssh.SSHClientConnection:
        import asyncssh

        t = self.timeouts
        sock.setblocking(False)
        await _banner(sock, min(t.banner, t.connect))
        cred = target.credentials
        client = _Client()
        keys: Any = None
        agent: Any = ()
        if cred.key_file is not None:
            keys, agent = [cred.key_file], None
        elif cred.use_keys:
            keys = ()
        connecting = asyncio.ensure_future(
            asyncssh.connect(
                ep.host,
                ep.port,
                sock=sock,
                client_factory=client.make,
                config=[],
                username=ep.username,
                password=cred.password,
                client_keys=keys,
                agent_path=agent,
                ignore_encrypted=True,
                known_hosts=None if trusted is None else (trusted, [], []),
                x509_trusted_certs=None,
                x509_trusted_cert_paths=[],
                encryption_algs=asyncssh_gcm_first(),
            )
        )
        return await _login_within(connecting, client, t, trusted is not None and bool(trusted))


async def _login_within(
    connecting: asyncio.Future[asyncssh.SSHClientConnection],
    client: _Client,
    t: Timeouts,
    pinned: bool,
) -> asyncssh.SSHClientConnection:
    """Key exchange within ``connect``, then (when the host key was accepted by then)
    authentication within ``auth`` more; the connection or the classified failure."""
    done, _ = await asyncio.wait({connecting}, timeout=t.connect)
    if not done and client.keys_exchanged():
        done, _ = await asyncio.wait({connecting}, timeout=t.auth)
    if not done:
        exchanged = client.keys_exchanged()
        await _cancel(connecting, client)
        if exchanged:
            raise CollectError(Reason.AUTH_TIMEOUT, "authentication did not finish in time")
        raise CollectError(Reason.SSH_ERROR, "the key exchange did not finish in time")
    try:
        return connecting.result()
    except BaseException as exc:
        raise _connect_error(exc, pinned) from exc


async def _cancel(task: asyncio.Future[Any], client: _Client) -> None:
    task.cancel()
    with contextlib.suppress(BaseException):
        await task
    if client.conn is not None:
        client.conn.abort()
