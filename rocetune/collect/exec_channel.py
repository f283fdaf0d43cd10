"""The exec-channel transport for Linux hosts: one paramiko connection, exec channels.

No PTY and no prompt: commands run in SSH ``exec`` channels, so stdout, stderr and the exit
status come back separately and nothing depends on the shell's prompt. A batch of
independent commands is spread over up to :data:`LANES` channels at the same time
(OpenSSH allows 10 sessions per connection by default, ``MaxSessions``); each channel runs
its lane of commands one after another in one ``sh`` script with framed results
(:mod:`rocetune.collect.shell_batch`), because a channel costs more client CPU than the
commands. Host keys, credentials and timeouts are the same as netmiko's.
"""

from __future__ import annotations

import base64
import contextlib
import select
import socket
import time
from collections.abc import Sequence
from typing import Any

from rocetune.collect import known_hosts, shell_batch
from rocetune.collect.ciphers import aead_first
from rocetune.collect.reasons import CollectError, Reason
from rocetune.collect.target import Endpoint, Target, Timeouts, Trust, endpoint
from rocetune.collect.transport import check_command, finish_text, quiet_paramiko
from rocetune.session import Output, Session

LANES = 8
"""Channels open at the same time on one connection (below OpenSSH's MaxSessions 10)."""
BATCH = 256
"""Commands handed to one ``run_many`` call (device.py groups commands by this)."""


def _failure(exc: Exception, command: str) -> CollectError:
    if isinstance(exc, CollectError):
        return CollectError(exc.reason, exc.detail, command)
    if isinstance(exc, MemoryError):
        return CollectError(Reason.OUT_OF_MEMORY, "out of memory while reading", command)
    if isinstance(exc, socket.timeout | TimeoutError):
        return CollectError(Reason.COMMAND_TIMEOUT, "no output before the read timeout", command)
    return CollectError(Reason.DISCONNECTED, "the device closed the connection", command)


class LaneResults:
    """What the paramiko and asyncio exec sessions share: their limits, and the outputs
    from what a channel returned (a lone command's, or a lane's framed batch)."""

    batch = BATCH

    def __init__(
        self,
        read_timeout: float,
        lanes: int = LANES,
        device_timeout: float = float("inf"),
        max_output_bytes: int = 64 * 2**20,
    ) -> None:
        self.read_timeout, self.lanes = read_timeout, lanes
        self.device_deadline = time.monotonic() + device_timeout
        self.max_output = max_output_bytes
        self.blocks = False
        """Truncated outputs as blocks (:attr:`rocetune.session.Output.blocks`)."""

    def split(self, commands: Sequence[str]) -> list[list[str]]:
        """Check the commands; spread them round robin over up to ``lanes`` lanes."""
        for command in commands:
            check_command(command)
        return [list(commands[i :: self.lanes]) for i in range(min(self.lanes, len(commands)))]

    def single(
        self, stream: shell_batch.Stream, err: str, status: int, over: bool, seconds: float
    ) -> Output:
        """The output of one command run alone on its channel (``plain`` stream)."""
        if over:
            return self._truncated(stream, seconds)
        out = stream.text()
        error = None
        if status != 0:
            lines = err.strip().splitlines()
            error = (lines[0] if lines else f"exit status {status}")[:200]
        return Output(finish_text(out), error, seconds)

    def take_lane(
        self,
        lane: Sequence[str],
        stream: shell_batch.Stream,
        end: tuple[str, int, bool],
        seconds: float,
        results: dict[str, Output],
    ) -> list[str]:
        """Put a finished lane's outputs into ``results``; return the lane's commands to run
        again (those after an output that went past the cap: its channel was closed there).

        A lane that ran none of its commands with exit status 126/127 means the host has no
        POSIX sh (COMMAND_ERROR); one that stopped early, a lost connection (DISCONNECTED).
        """
        err, status, over = end
        framed = stream.done
        rest: list[str] = []
        if over:
            results[lane[len(framed)]] = self._truncated(stream, seconds)
            rest = list(lane[len(framed) + 1 :])
        elif not framed and status in (126, 127):
            raise CollectError(Reason.COMMAND_ERROR, _no_sh(err, status), lane[0])
        elif len(framed) < len(lane):
            pending = lane[len(framed)]
            raise CollectError(Reason.DISCONNECTED, "the batch ended early", pending)
        for command, item in zip(lane, framed, strict=False):
            error = None
            if item.status != 0:
                error = (item.stderr_line or f"exit status {item.status}")[:200]
            results[command] = Output(finish_text(item.stdout), error, seconds)
        return rest

    def _truncated(self, stream: shell_batch.Stream, seconds: float) -> Output:
        """The output of a command that went past the cap, up to its last complete line."""
        if self.blocks:
            blocks = (b.replace("\r\n", "\n") for b in stream.truncated_blocks())
            return Output("", None, seconds, truncated_at=self.max_output, blocks=blocks)
        text = finish_text(stream.truncated())
        return Output(text, None, seconds, truncated_at=self.max_output)


class ExecSession(LaneResults):
    """A paramiko connection; commands in exec channels, ``lanes`` channels at a time."""

    def __init__(self, client: Any, read_timeout: float, **limits: Any) -> None:
        super().__init__(read_timeout, **limits)
        self.client = client

    def _start(self, line: str, first: str) -> Any:
        try:
            transport = self.client.get_transport()
            if transport is None or not transport.is_active():
                raise CollectError(Reason.DISCONNECTED, "the device closed the connection")
            chan = transport.open_session(timeout=self.read_timeout)
            chan.settimeout(self.read_timeout)
            chan.exec_command(line)
            chan.shutdown_write()
        except Exception as exc:
            raise _failure(exc, first) from exc
        return chan

    def _read(
        self, chan: Any, pending: str, commands: int, stream: shell_batch.Stream
    ) -> tuple[str, int, bool]:
        """Read a channel to its end within a deadline, each command's output capped.

        The deadline is ``read_timeout`` per command of the channel (a peer that drips a
        byte now and then cannot keep us waiting: the clock does not restart per read),
        bounded by the device's own deadline. Stdout goes to ``stream``; when the command
        being read goes past ``max_output`` bytes (or stderr does), reading stops and the
        channel is closed: returns (stderr, exit status or -1, True).
        """
        deadline = min(time.monotonic() + self.read_timeout * commands, self.device_deadline)
        err = bytearray()
        over = False
        try:
            while not over:
                busy = False
                if chan.recv_ready():
                    over = stream.feed(chan.recv(65536))
                    busy = True
                if chan.recv_stderr_ready():
                    err += chan.recv_stderr(65536)
                    over = over or len(err) > self.max_output
                    busy = True
                if over or (not busy and _finished(chan)):
                    break
                if time.monotonic() > deadline:
                    why = "device deadline" if deadline >= self.device_deadline else "deadline"
                    raise CollectError(
                        Reason.COMMAND_TIMEOUT, f"output not complete before the {why}"
                    )
                if not busy:
                    _wait(chan, deadline)
            status = chan.exit_status if not over and chan.exit_status_ready() else -1
            chan.close()
        except Exception as exc:
            with contextlib.suppress(Exception):
                chan.close()
            raise _failure(exc, pending) from exc
        return shell_batch.decode(err, self.max_output), status, over

    def run(self, command: str) -> Output:
        """Run one command on its own channel; collect stdout, stderr, exit status.

        Output past the cap is cut after its last complete line and marked truncated
        (its channel is closed; the connection goes on).
        """
        check_command(command)
        start = time.monotonic()
        stream = shell_batch.Stream("", self.max_output, plain=True)
        err, status, over = self._read(self._start(command, command), command, 1, stream)
        return self.single(stream, err, status, over, time.monotonic() - start)

    def run_many(self, commands: Sequence[str]) -> list[Output]:
        """Run commands spread over ``lanes`` channels at once; outputs in order.

        A command whose output goes past the cap is kept truncated; its lane's channel is
        closed there and the lane's remaining commands run again on new channels.
        """
        lanes = self.split(commands)
        if len(commands) == 1:
            return [self.run(commands[0])]
        start = time.monotonic()
        marker = shell_batch.new_marker()
        chans = [self._start(shell_batch.exec_line(lane, marker), lane[0]) for lane in lanes]
        results: dict[str, Output] = {}
        rest: list[str] = []
        for lane, chan in zip(lanes, chans, strict=True):
            stream = shell_batch.Stream(marker, self.max_output)
            end = self._read(chan, lane[0], len(lane), stream)
            seconds = (time.monotonic() - start) / len(lane)
            rest += self.take_lane(lane, stream, end, seconds, results)
        if rest:
            results.update(zip(rest, self.run_many(rest), strict=True))
        return [results[c] for c in commands]

    def close(self) -> None:
        """Close the connection, ignoring errors."""
        with contextlib.suppress(Exception):  # a failed goodbye changes nothing
            self.client.close()


class ExecTransport:
    """Sessions over paramiko exec channels (hosts)."""

    def __init__(self, timeouts: Timeouts, trust: Trust, lanes: int = LANES) -> None:
        self.timeouts, self.trust, self.lanes = timeouts, trust, lanes

    def open(self, target: Target) -> Session:
        """Connect and authenticate with the same trust and timeouts as netmiko."""
        return self.open_at(target, endpoint(target))

    def open_at(self, target: Target, ep: Endpoint) -> Session:
        """:meth:`open` with the target's endpoint already resolved."""
        import paramiko  # type: ignore[import-untyped,unused-ignore]

        quiet_paramiko()
        client = paramiko.SSHClient()
        if self.trust.insecure:
            client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        else:
            _trust_keys(client, self.trust, ep.host, ep.port)
            client.set_missing_host_key_policy(paramiko.RejectPolicy())
        cred, t = target.credentials, self.timeouts
        try:
            client.connect(
                ep.host,
                port=ep.port,
                username=ep.username,
                password=cred.password,
                key_filename=cred.key_file,
                look_for_keys=cred.use_keys,
                allow_agent=cred.use_keys and cred.key_file is None,
                timeout=t.connect,
                banner_timeout=min(t.banner, t.connect),
                auth_timeout=t.auth,
                sock=ep.sock(t.connect),
                transport_factory=aead_first,
            )
        except BaseException:
            client.close()
            raise
        limits = {"lanes": self.lanes, "device_timeout": t.device}
        return ExecSession(client, t.read, **limits, max_output_bytes=t.max_output_bytes)


def _trust_keys(client: Any, trust: Trust, host: str, port: int) -> None:
    """Give paramiko the keys known_hosts grants this endpoint (read as OpenSSH does)."""
    import paramiko  # type: ignore[import-untyped,unused-ignore]

    if trust.known_hosts is None:
        return
    store = client.get_host_keys()
    name = known_hosts.endpoint_name(host, port)
    for k in known_hosts.load(trust.known_hosts).keys_for(host, port):
        try:
            pkey = paramiko.PKey.from_type_string(k.keytype, base64.b64decode(k.key))
        except Exception:
            continue
        store.add(name, k.keytype, pkey)


def _wait(chan: Any, deadline: float) -> None:
    """Sleep until the channel has data, ends, or an exit status comes (or a second, or the
    deadline, passes): a blocking wait instead of polling (a poll every few ms in each of
    32 worker threads cost CPU and the GIL). The channel's ``fileno`` is paramiko's pipe,
    readable while stdout or stderr holds data and for good after EOF or CLOSE."""
    timeout = max(0.0, min(deadline - time.monotonic(), 1.0))
    if chan.eof_received or chan.closed:
        chan.status_event.wait(timeout)
    else:
        select.select([chan], [], [], timeout)


def _finished(chan: Any) -> bool:
    """All output read: EOF (with the exit status) or CLOSE came, and nothing is buffered.

    The exit status alone is no end: a server may send it while data still waits for
    the flow-control window. EOF is optional before CLOSE; both follow the last data.
    """
    if chan.recv_ready() or chan.recv_stderr_ready():
        return False
    return bool(chan.closed) or (bool(chan.eof_received) and chan.exit_status_ready())


def _no_sh(err: str, status: int) -> str:
    first = (err.strip().splitlines() or [f"exit status {status}"])[0][:160]
    return (
        f"the host has no POSIX sh for batched commands ({first}); "
        "use --host-transport shell for this host"
    )
