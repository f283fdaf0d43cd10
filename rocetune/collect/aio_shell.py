"""The asyncio shell transport for switches: an interactive session (PTY and shell, as
netmiko opens it) over an asyncssh connection in the process's loop thread.

Why: netmiko rides on paramiko, which runs a transport thread per connection; every packet
is a hand-off between it and the worker thread, and netmiko's session preparation polls the
channel every 10 ms (measured: 3.8x the CPU of an asyncssh client sending the same commands
to 50 lab switches, 140x its context switches; ``benchmarks/collect.py --mix switches``).
Here the worker hands one command to the loop and sleeps until its answer is complete.

What it does, and what stays as with netmiko:

- login: :meth:`rocetune.collect.aio_exec.AioExecTransport.connect` (host keys from our
  known_hosts reader only, the same limits and failure reasons as for hosts);
- the shell: a ``vt100`` PTY 511 columns wide and 1000 lines high (netmiko's size); the
  login's output read until its last line ends like a prompt (``>``, ``#``, ``$`` or
  ``%``), then returns, one at a time, each answer read the same way, until two in a row
  end with the same line (netmiko's ``find_prompt`` sends a return and takes the last
  line): a banner line cut by a read cannot pass for it; then the session is read until it
  is quiet, so that no answer to a return runs into the first command. The base prompt
  drops the last character, as netmiko's ``set_base_prompt`` does;
- terminal set-up: the platform's :attr:`rocetune.platforms.base.Platform.shell_setup`
  (netmiko's set-up commands for the device type), each read to the prompt;
- each command's answer: :class:`rocetune.collect.shell_read.Reader`, the code that reads
  netmiko sessions (echo dropped, prompt found in the last line only, the cap counted on raw
  bytes, a truncated output spends the session), line ends and escape sequences by
  :class:`rocetune.collect.shell_read.Terminal`;
- not served here, through netmiko instead (:class:`rocetune.collect.transport.
  NetmikoTransport`): a platform without ``shell_setup`` or entering ``enable`` first
  (Onyx), a device whose inventory names its own netmiko ``device_type``, a ProxyCommand/
  ProxyJump endpoint, ``--switch-transport netmiko``.
"""

from __future__ import annotations

import asyncio
import re
import time
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rocetune.collect.aio_exec import AioExecTransport, _call, close_connection
from rocetune.collect.reasons import CollectError, Reason
from rocetune.collect.shell_read import (
    Answer,
    Decoder,
    Limits,
    Reader,
    Terminal,
    prompt_pattern,
)
from rocetune.collect.target import Target, Timeouts, Trust, endpoint
from rocetune.collect.transport import NetmikoTransport, ShellSession
from rocetune.platforms import get_driver
from rocetune.session import Session

if TYPE_CHECKING:
    import asyncssh

TERM_SIZE = (511, 1000)
"""Columns and lines of the PTY (netmiko's ``establish_connection`` defaults)."""
HELD_MAX = 65536
"""Bytes kept of what arrives between commands (stray prompts), fed to the next read."""
LOGIN_MAX = 1 << 20
"""Bytes a device may send after login before its prompt (a banner longer than this is no
banner: the session is not prepared)."""
NUDGE = 1.0
"""Seconds without a prompt after which the login is sent another return."""
SETTLE_MIN, SETTLE_MAX = 0.01, 0.5
"""Bounds of the quiet time that ends the login (:func:`_settle`), in seconds."""
_PROMPT_END = re.compile(r"\S[^\n]{0,199}[>#$%]\s*\Z")
"""A last line that may be a prompt: short, ending with a prompt character."""


class _Learn:
    """The login's output while the prompt is learned (the :class:`Reader` interface):
    each read's last line, once it ends like a prompt."""

    def __init__(self) -> None:
        self.text = Decoder(Terminal)
        self.tail = ""
        """The last line so far (normalised, escapes removed)."""
        self.received = 0

    def take(self, data: bytes) -> str | None:
        """Feed one read; its last line when that may be a prompt."""
        self.received += len(data)
        if self.received > LOGIN_MAX:
            raise CollectError(Reason.SSH_ERROR, "no prompt after a megabyte of login output")
        self.tail = (self.tail + self.text.block(data)).rsplit("\n", 1)[-1][-4096:]
        if self.text.carry:  # the last line is not over yet
            return None
        last = self.tail.strip()
        return last if _PROMPT_END.search(last) else None


class _Shell:
    """The interactive channel's callbacks (an ``asyncssh.SSHClientSession``): each read
    goes to the current reader; what comes between commands is held for the next one."""

    def __init__(self) -> None:
        self.chan: Any = None
        self.reader: Reader | _Learn | None = None
        self.waiter: asyncio.Future[Any] | None = None
        self.held = bytearray()
        self.lost = False

    def connection_made(self, chan: Any) -> None:
        self.chan = chan

    def data_received(self, data: bytes, datatype: int | None) -> None:
        del datatype  # a PTY session has one stream
        if self.reader is None:
            self.held += data
            del self.held[:-HELD_MAX]
            return
        self._take(data)

    def _take(self, data: bytes) -> None:
        assert self.reader is not None
        assert self.waiter is not None
        try:
            got = self.reader.take(data)
        except MemoryError:
            self._fail(CollectError(Reason.OUT_OF_MEMORY, "out of memory while reading"))
            return
        except CollectError as exc:
            self._fail(exc)
            return
        if got is not None:
            self.reader = None
            if not self.waiter.done():
                self.waiter.set_result(got)

    def _fail(self, exc: BaseException) -> None:
        self.reader = None
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(exc)

    def eof_received(self) -> bool:
        self.connection_lost(None)
        return False

    def connection_lost(self, exc: BaseException | None) -> None:
        del exc
        self.lost = True
        self._fail(EOFError("the device closed the connection"))

    async def exchange(self, reader: Reader | _Learn, line: str, limits: Limits) -> Any:
        """Send ``line`` (a command and a return, or returns), feed what comes to
        ``reader`` until it has its answer; raise on the deadline or a lost connection."""
        if self.lost:
            raise EOFError("the device closed the connection")
        self.reader, self.waiter = reader, asyncio.get_running_loop().create_future()
        if line:
            self.chan.write(line.encode())
        if self.held:
            held, self.held = bytes(self.held), bytearray()
            self._take(held)
        deadline = min(limits.deadline, limits.device_deadline)
        try:
            return await asyncio.wait_for(
                asyncio.shield(self.waiter), max(0.0, deadline - time.monotonic())
            )
        except (TimeoutError, asyncio.TimeoutError):
            if limits.device_deadline <= limits.deadline:
                detail = "output not complete before the device deadline"
            else:
                detail = "no prompt after the read timeout"
            raise CollectError(Reason.COMMAND_TIMEOUT, detail) from None
        finally:
            self.reader = None


@lru_cache(maxsize=1)
def _shell_class() -> type[_Shell]:
    """:class:`_Shell` as an ``asyncssh.SSHClientSession`` (asyncssh imported on first use)."""
    import asyncssh

    return type("Shell", (_Shell, asyncssh.SSHClientSession), {})


async def _prepare(
    conn: asyncssh.SSHClientConnection,
    setup: tuple[str, ...],
    read_timeout: float,
    device_deadline: float,
    cap: int,
) -> tuple[_Shell, str]:
    """Open the shell, learn the prompt, send the set-up commands: the shell and the base
    prompt. Each step has the read timeout, all of them the device deadline."""

    def limits() -> Limits:
        return Limits(time.monotonic() + read_timeout, device_deadline, cap)

    shell: Any = _shell_class()()
    first = limits()
    try:
        await asyncio.wait_for(
            conn.create_session(
                lambda: shell, term_type="vt100", term_size=TERM_SIZE, encoding=None
            ),
            max(0.0, min(first.deadline, device_deadline) - time.monotonic()),
        )
    except (TimeoutError, asyncio.TimeoutError):
        raise CollectError(Reason.SSH_ERROR, "the device did not open a shell in time") from None
    except Exception as exc:  # refused or lost, as paramiko's invoke_shell
        raise CollectError(Reason.DISCONNECTED, "the device refused a shell") from exc
    prompt = await _learn(shell, first)
    base = prompt[:-1] if prompt[-1] in ">#$%" else prompt
    pattern = prompt_pattern(base)
    for command in setup:
        step = limits()
        try:
            await shell.exchange(Reader(Terminal, command, pattern, cap), command + "\n", step)
        except CollectError as exc:
            raise CollectError(exc.reason, exc.detail, command) from None
    return shell, base


async def _learn(shell: _Shell, limits: Limits) -> str:
    """The prompt. First the login's own output is read until its last line ends like a
    prompt; then a return is sent, one at a time, each answer read until its last line ends
    like a prompt, until two answers in a row end with the same line (netmiko's
    ``find_prompt`` sends a return and takes the last line). Text cut by a read (a banner
    line ending in ``#``) does not repeat. A CLI that prints nothing until it is sent a
    return, or drops what is typed while it prints its banner, gets one every ``NUDGE``
    seconds. Then what the device still sends is read until it has been quiet for twice
    the last answer's time (:func:`_settle`): no return's answer is left to run into the
    first command's output (a tty echoes typed-ahead text before the shell answers)."""
    learn = _Learn()
    seen: str | None = None
    line = ""  # the login's own prompt first
    while True:
        now = time.monotonic()
        last = now + NUDGE >= min(limits.deadline, limits.device_deadline)
        step = limits if last else Limits(now + NUDGE, limits.device_deadline, limits.cap)
        try:
            prompt: str = await shell.exchange(learn, line, step)
        except CollectError as exc:
            if exc.reason is not Reason.COMMAND_TIMEOUT:
                raise
            if last:
                raise CollectError(exc.reason, "no prompt after login") from None
            line = "\n"
            continue
        if prompt == seen:
            await _settle(shell, learn, 2 * (time.monotonic() - now), limits)
            return prompt
        seen, line = prompt, "\n"


async def _settle(shell: _Shell, learn: _Learn, quiet: float, limits: Limits) -> None:
    """Read (and drop) what comes until nothing has come for ``quiet`` seconds (at least
    ``SETTLE_MIN``, at most ``SETTLE_MAX``)."""
    quiet = min(max(quiet, SETTLE_MIN), SETTLE_MAX)
    while True:
        step = Limits(time.monotonic() + quiet, limits.device_deadline, limits.cap)
        try:
            await shell.exchange(learn, "", step)
        except CollectError as exc:
            if exc.reason is Reason.COMMAND_TIMEOUT:
                return
            raise


class AioShellSession(ShellSession):
    """An interactive session over an asyncssh connection driven by the loop thread."""

    def __init__(
        self,
        conn: asyncssh.SSHClientConnection,
        shell: _Shell,
        platform: str,
        base_prompt: str,
        *,
        timeouts: Timeouts,
        deadline: float,
    ) -> None:
        super().__init__(platform, prompt_pattern(base_prompt), timeouts.read)
        self.conn, self.shell, self.deadline = conn, shell, deadline
        self.max_output = timeouts.max_output_bytes

    def read(self, command: str, limits: Limits) -> Answer:
        """The loop writes the command and reads its answer; the worker waits."""
        reader = Reader(Terminal, command, self.pattern, limits.cap, blocks=self.blocks)
        left = min(limits.deadline, limits.device_deadline) - time.monotonic()
        answer: Answer = _call(self.shell.exchange(reader, command + "\n", limits), left)
        return answer

    def close(self) -> None:
        """Close the connection (its goodbye waited for briefly), never raises."""
        close_connection(self.conn)


class AioShellTransport:
    """Switch sessions over asyncssh shells; what this transport does not serve (see the
    module docstring) through netmiko."""

    def __init__(self, timeouts: Timeouts, trust: Trust) -> None:
        self.timeouts, self.trust = timeouts, trust
        self.login = AioExecTransport(timeouts, trust)
        self.netmiko = NetmikoTransport(timeouts, trust)

    def serves(self, target: Target) -> bool:
        """True when this transport (not netmiko) opens ``target``'s sessions."""
        driver = get_driver(target.platform)
        return (
            driver is not None
            and driver.shell_setup is not None
            and not driver.enable_mode
            and target.device_type == driver.device_type
        )

    def open(self, target: Target) -> Session:
        """Connect and log in, open the shell, learn the prompt, set the terminal up."""
        ep = endpoint(target)
        driver = get_driver(target.platform)
        if ep.proxy is not None or driver is None or not self.serves(target):
            return self.netmiko.open(target)
        assert driver.shell_setup is not None
        t = self.timeouts
        deadline = time.monotonic() + t.device
        conn = self.login.connect(target, ep)
        try:
            steps = 1 + len(driver.shell_setup)
            prepare = _prepare(conn, driver.shell_setup, t.read, deadline, t.max_output_bytes)
            shell, base = _call(prepare, t.read * steps)
        except BaseException:
            close_connection(conn)
            raise
        return AioShellSession(conn, shell, target.platform, base, timeouts=t, deadline=deadline)
