"""The transport seam: one session per device, commands run one after another.

- :class:`NetmikoTransport` (the default): an interactive SSH session through netmiko with
  the platform's device type, ``fast_cli``, and a known prompt (``auto_find_prompt=False``
  with an end-anchored prompt pattern, so a hostname inside the output never ends a read
  early). A rejected command is recognised by its text (:mod:`rocetune.platforms.common.
  cli_errors` patterns, the platform's ``error_marker``).
- :class:`rocetune.collect.exec_channel.ExecTransport`: one SSH exec channel per command
  over one paramiko connection (no PTY, no prompt scraping, real exit status and stderr,
  several commands at a time): for Linux hosts.

Both verify host keys against known_hosts (RejectPolicy) unless told otherwise.
"""

from __future__ import annotations

import contextlib
import logging
import re
import select
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from rocetune.collect import known_hosts
from rocetune.collect.reasons import CollectError, Reason
from rocetune.collect.target import Endpoint, Target, Timeouts, Trust, endpoint
from rocetune.platforms import get_driver
from rocetune.session import Output, Session

if TYPE_CHECKING:
    from rocetune.collect.shell_read import Answer, Limits

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class Transport(Protocol):
    """Opens sessions."""

    def open(self, target: Target) -> Session:
        """Connect and authenticate; raise on failure (classified by the caller)."""
        ...


def check_command(command: str) -> None:
    """Refuse a command with control characters (a newline would make it two commands)."""
    if not command.strip() or _CONTROL.search(command):
        raise CollectError(Reason.CONFIG, f"refusing to send command {command!r}")


def finish_text(text: str) -> str:
    text = text.replace("\r\n", "\n")
    return text + "\n" if text and not text.endswith("\n") else text


class ShellSession:
    """An interactive session: one command at a time, each read up to the prompt. A
    subclass sends the command and reads its answer (:meth:`read`)."""

    def __init__(
        self,
        platform: str,
        pattern: re.Pattern[str],
        read_timeout: float,
        device_timeout: float = float("inf"),
        max_output: int = 64 * 2**20,
    ) -> None:
        self.platform, self.pattern, self.read_timeout = platform, pattern, read_timeout
        self.driver = get_driver(platform)
        self.broken = False
        self.spent = False
        """True after a truncated output: the device may still be sending, so the session
        is in an unknown state and runs nothing more (the caller reconnects)."""
        self.deadline = time.monotonic() + device_timeout
        """The device deadline (time.monotonic); a reconnected session keeps the old one."""
        self.max_output = max_output
        self.blocks = False
        """Truncated outputs as blocks (:attr:`rocetune.session.Output.blocks`)."""

    def read(self, command: str, limits: Limits) -> Answer:
        """Send ``command``; its answer up to the prompt (or the cap)."""
        raise NotImplementedError

    def run(self, command: str) -> Output:
        """Send one command and read up to the prompt.

        Output past the cap is kept up to the cap, cut after its last complete line and
        marked truncated; the session is then spent (dropped, never reused).
        """
        from rocetune.collect.shell_read import Limits

        check_command(command)
        if self.spent:
            raise CollectError(Reason.INTERNAL, "session spent by a truncated output", command)
        start = time.monotonic()
        limits = Limits(start + self.read_timeout, self.deadline, self.max_output)
        try:
            answer = self.read(command, limits)
        except Exception as exc:
            self.broken = True
            raise _with_command(exc, command) from exc
        return self.output(answer, time.monotonic() - start)

    def output(self, answer: Answer, seconds: float) -> Output:
        """The command's :class:`Output` from the shell's answer (a truncated one spends
        the session; the platform's error text makes it a rejected command)."""
        if answer.truncated:
            self.broken = self.spent = True
            if answer.blocks is not None:
                parts = (b.replace("\r\n", "\n") for b in answer.blocks)
                return Output("", None, seconds, truncated_at=self.max_output, blocks=parts)
            return Output(finish_text(answer.text), None, seconds, truncated_at=self.max_output)
        text = finish_text(answer.text)
        error = self.driver.command_error(text) if self.driver is not None else None
        return Output(text, error, seconds)

    def run_many(self, commands: Sequence[str]) -> list[Output]:
        """One after another: an interactive session runs one command at a time."""
        return [self.run(command) for command in commands]


class NetmikoSession(ShellSession):
    """An interactive netmiko session: netmiko connects and prepares the terminal, each
    command's output is read by :func:`rocetune.collect.shell_read.send_and_read`."""

    def __init__(
        self,
        conn: Any,
        platform: str,
        read_timeout: float,
        device_timeout: float = float("inf"),
        max_output: int = 64 * 2**20,
    ) -> None:
        from rocetune.collect.shell_read import prompt_pattern

        pattern = prompt_pattern(str(conn.base_prompt))
        super().__init__(platform, pattern, read_timeout, device_timeout, max_output)
        self.conn = conn
        _fail_on_closed_channel(conn)

    def read(self, command: str, limits: Limits) -> Answer:
        """netmiko writes the command; rocetune reads the answer."""
        from rocetune.collect.shell_read import send_and_read

        return send_and_read(self.conn, command, self.pattern, limits, blocks=self.blocks)

    def close(self) -> None:
        """Disconnect (just drop the TCP connection after a failure), ignoring errors."""
        with contextlib.suppress(Exception):  # a failed goodbye changes nothing
            if self.broken:
                self.conn.paramiko_cleanup()
            else:
                self.conn.disconnect()


def _fail_on_closed_channel(conn: Any) -> None:
    """Make netmiko's own reads (``disconnect``, ``enable``) fail at once on a closed channel.

    netmiko keeps polling a closed channel until its read timeout and then reports a
    timeout (a Linux root shell closes on the ``exit`` of netmiko's ``disconnect``, which
    then waited 10 s); this turns "no data and the channel is gone" into EOFError.
    Command output is not read through netmiko (:mod:`rocetune.collect.shell_read`).
    """
    chan, channel = getattr(conn, "remote_conn", None), getattr(conn, "channel", None)
    if chan is None or channel is None or not hasattr(chan, "get_transport"):
        return
    inner = channel.read_channel

    def read_channel() -> str:
        data: str = inner()
        if not data:
            transport = chan.get_transport()
            if chan.closed or chan.eof_received or transport is None or not transport.is_active():
                raise EOFError("the device closed the connection")
        return data

    channel.read_channel = read_channel


def quiet_paramiko() -> None:
    """Stop paramiko's transport thread from printing tracebacks on stderr (the failure
    is reported once, classified); a handler configured by the caller still gets them."""
    logger = logging.getLogger("paramiko")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())


def _with_command(exc: Exception, command: str) -> CollectError:
    from rocetune.collect.reasons import classify

    failure = classify(exc)
    return CollectError(failure.reason, failure.detail, command)


def _connect(handler: Any, params: dict[str, Any], read_timeout: float) -> Any:
    """netmiko's connection steps (``BaseConnection._open``) with one fixed sleep replaced.

    netmiko sends a return after login and sleeps 100 ms before its session preparation
    reads; here the return is sent and we wait until the device answers (at most the read
    timeout). The session preparation that follows (prompt, terminal width, paging) is
    netmiko's, unchanged.
    """
    conn = handler(**params, auto_connect=False)
    _prefer_aead(conn)
    try:
        conn._modify_connection_params()
        conn.establish_connection()
        conn.write_channel(conn.RETURN)
        select.select([conn.remote_conn], [], [], read_timeout)  # readable: data or closed
        conn._try_session_preparation(force_data=False)
    except BaseException:
        with contextlib.suppress(Exception):  # what netmiko's own _open failure does
            conn.disconnect()
        raise
    return conn


def _prefer_aead(conn: Any) -> None:
    """Have netmiko's paramiko connection prefer AES-GCM, as exec channels do
    (:func:`rocetune.collect.ciphers.aead_first`: the same ciphers, GCM first; with
    CTR ciphers paramiko checks each packet's MAC in a per-byte Python loop). Host keys,
    key exchange and authentication are netmiko's, unchanged."""
    from rocetune.collect.ciphers import aead_first

    params = getattr(conn, "_connect_params_dict", None)
    if params is None:
        return

    def with_factory() -> dict[str, Any]:
        found: dict[str, Any] = params()
        found.setdefault("transport_factory", aead_first)
        return found

    conn._connect_params_dict = with_factory


class NetmikoTransport:
    """Sessions through netmiko's ConnectHandler."""

    def __init__(self, timeouts: Timeouts, trust: Trust) -> None:
        self.timeouts, self.trust = timeouts, trust

    def params(self, target: Target, ep: Endpoint) -> dict[str, Any]:
        """ConnectHandler keyword arguments (contains the password: never log them)."""
        cred, t = target.credentials, self.timeouts
        strict = not self.trust.insecure
        return {
            "device_type": target.device_type,
            "host": ep.host,
            "port": ep.port,
            "username": ep.username,
            "password": cred.password or "",
            "use_keys": cred.use_keys,
            "allow_agent": cred.use_keys and cred.key_file is None,
            "key_file": cred.key_file,
            "conn_timeout": t.connect,
            "banner_timeout": min(t.banner, t.connect),
            "auth_timeout": t.auth,
            "ssh_strict": strict,
            "system_host_keys": False,
            "alt_host_keys": strict,
            "alt_key_file": str(self.trust.known_hosts) if strict else "",
            "sock": ep.sock(t.connect),
            "fast_cli": True,
        }

    def open(self, target: Target) -> Session:
        """Connect, prepare the terminal, learn the prompt."""
        from netmiko import ConnectHandler

        quiet_paramiko()
        ep = endpoint(target)
        params = self.params(target, ep)
        if not params["ssh_strict"] or self.trust.known_hosts is None:
            conn = _connect(ConnectHandler, params, self.timeouts.read)
        else:
            keys = known_hosts.load(self.trust.known_hosts).keys_for(ep.host, ep.port)
            with known_hosts.one_host_file(keys, ep.host, ep.port) as path:
                params["alt_key_file"] = str(path)
                conn = _connect(ConnectHandler, params, self.timeouts.read)
        t = self.timeouts
        driver = get_driver(target.platform)
        if driver is not None and driver.enable_mode:
            conn.enable()
        return NetmikoSession(conn, target.platform, t.read, t.device, t.max_output_bytes)
