"""The SSH device lab: one asyncssh process serving many emulated devices on 127.0.0.1.

Run ``python -m tests.lab.server CONFIG.json``. The config::

    {"host": "127.0.0.1", "host_key": "/tmp/x/host_key", "record": "/tmp/x/record.tsv",
     "devices": {"leaf1": {"platform": "sonic", "snapshot": "...", ...}}}

(device keys: :class:`tests.lab.devices.DeviceSpec`). Every device gets its own listener on
port 0 (the kernel picks). When all listen, one JSON line goes to stdout::

    {"pid": 123, "host_key": "ssh-ed25519 AAAA...", "devices": {"leaf1": {"port": 40001}}}

Interactive sessions (PTY + shell) behave like a network CLI: keystrokes are echoed while the
CLI is idle at its prompt; type-ahead is echoed only when the CLI gets to it (``echo:
device``; ``echo: tty`` echoes on receipt like a kernel tty, the prompt-glue stress mode).
Exec requests answer with the output on stdout and exit status 0, or the unknown-command text
on stderr and exit status 127. ``record`` gets one ``device<TAB>connection<TAB>command`` line
per command received (and ``[password auth]`` per password attempt). SIGTERM stops the server.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import signal
import socket
import sys
from pathlib import Path
from typing import Any, TextIO

import asyncssh

from tests.lab.devices import Answers, DeviceSpec
from tests.lab.engines import make_engine
from tests.lab.engines.base import Engine, Reply
from tests.lab.perftest import Perftest

PAGE_LINES = 24
AUTH = "[password auth]"
"""What the record says for a password authentication attempt."""
MORE = " --More-- "


class Lab:
    """Shared state of the server process."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.host: str = config.get("host", "127.0.0.1")
        self.devices = {
            name: DeviceSpec.from_json(name, data) for name, data in config["devices"].items()
        }
        self.answers = {name: Answers(spec) for name, spec in self.devices.items()}
        self.engines: dict[str, Engine] = {
            name: make_engine(name, spec.engine)
            for name, spec in self.devices.items()
            if spec.engine is not None
        }
        self.sessions: dict[str, int] = dict.fromkeys(self.devices, 0)
        self.perftest = Perftest(config.get("perftest_record"))
        record = config.get("record")
        self.record: TextIO | None = (
            open(record, "a", encoding="utf-8") if record else None  # noqa: SIM115
        )

    def new_connection(self, device: str) -> int:
        """Number the next SSH connection of ``device`` (1, 2, ...)."""
        self.sessions[device] += 1
        return self.sessions[device]

    def log(self, device: str, session: int, command: str) -> None:
        """Record a received command."""
        if self.record is not None:
            self.record.write(f"{device}\t{session}\t{command}\n")
            self.record.flush()


class DeviceSession(asyncssh.SSHServerSession):  # type: ignore[misc]
    """One shell or exec channel of a device."""

    def __init__(
        self, lab: Lab, spec: DeviceSpec, conn: asyncssh.SSHServerConnection, number: int
    ) -> None:
        self.lab, self.spec, self.conn, self.number = lab, spec, conn, number
        self.answers = lab.answers[spec.name]
        self.chan: asyncssh.SSHServerChannel | None = None
        self.exec_cmd: str | None = None
        self.buf = ""
        self.wakeup = asyncio.Event()
        self.paging = spec.pager
        self.task: asyncio.Task[None] | None = None
        self.last = ""
        self.closed = False
        self.engine = lab.engines.get(spec.name)

    # --- asyncssh callbacks --------------------------------------------------------------
    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:
        self.chan = chan

    def pty_requested(self, *args: object) -> bool:
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.exec_cmd = command
        return True

    def session_started(self) -> None:
        body = self._run_exec() if self.exec_cmd is not None else self._run_shell()
        self.task = asyncio.ensure_future(body)

    def data_received(self, data: str, datatype: object) -> None:
        if self.spec.echo == "tty" and self.chan is not None and not self.closed:
            self.chan.write(data.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\r\n"))
        self.buf += data
        self.wakeup.set()

    def eof_received(self) -> bool:
        if self.exec_cmd is not None:  # an exec command runs on after its stdin ends
            return True
        self.closed = True
        if self.chan is not None:
            self.chan.close()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.engine is not None:
            self.engine.connection_lost(self.number)
        if self.task is not None:
            self.task.cancel()

    # --- behaviour -----------------------------------------------------------------------
    @property
    def prompt(self) -> str:
        """The prompt now: the engine's (CLI modes) or the profile's."""
        if self.engine is not None:
            own = self.engine.prompt(self.number)
            if own is not None:
                return own
        return self.spec.prompt

    async def _engine(self, command: str) -> Reply | None:
        """The engine's answer to ``command`` (after its delay), or None."""
        if self.engine is None:
            return None
        self.engine.tick()
        reply = self.engine.handle(self.number, command)
        if reply is not None and reply.delay_s > 0:
            await asyncio.sleep(reply.delay_s)
        return reply

    def _write(self, text: str) -> None:
        if self.chan is not None and not self.closed:
            self.chan.write(text)

    async def _delay(self, command: str) -> None:
        seconds = (self.spec.latency_ms + self.spec.command_latency_ms.get(command, 0.0)) / 1000
        if seconds > 0:
            await asyncio.sleep(seconds)

    async def _hostile(self, command: str, *, stderr: bool = False) -> bool:
        """Play the hostile peer for ``command``; True when it answered (or never will)."""
        spec = self.spec
        if spec.hostile is None or spec.hostile == "no_sh" or command != spec.hostile_on:
            return False
        if spec.hostile == "drip":
            while not self.closed:
                self._write("x")
                await asyncio.sleep(0.2)
            return True
        chunk = "y" * 65535 + "\n"
        for _ in range(spec.flood_mib * 16):
            if self.closed:
                return True
            self._write(chunk)
            await asyncio.sleep(0)
        return False

    async def _run_exec(self) -> None:
        command = (self.exec_cmd or "").strip()
        batch = _batch(command)
        assert self.chan is not None
        if self.spec.hostile == "no_sh" and batch is not None:
            self.chan.write_stderr("bash: line 1: sh: command not found\n")
            self.chan.exit(127)
            return
        if batch is None and await self._hostile(command):
            return
        if batch is not None:
            await self._run_batch(*batch)
            return
        self.lab.log(self.spec.name, self.number, command)
        await self._delay(command)
        reply = await self._engine(command)
        if reply is not None:
            if reply.disconnect:
                self.chan.write(reply.text[: len(reply.text) // 2])
                self.conn.abort()
                return
            self.chan.write(reply.text)
            self.chan.write_stderr(reply.stderr)
            self.chan.exit(reply.exit_status)
            return
        dynamic = await self.lab.perftest.answer(self.spec, self.answers, command)
        if dynamic is not None:
            self.chan.write(dynamic[0])
            self.chan.write_stderr(dynamic[1])
            self.chan.exit(dynamic[2])
            return
        text = self.answers.get(command)
        if text is None:
            self.chan.write_stderr(self.answers.unknown_text(command) + "\n")
            self.chan.exit(127)
            return
        if command == self.spec.disconnect_on:
            self.chan.write(text[: len(text) // 2])
            self.conn.abort()
            return
        self.chan.write(text)
        self.chan.exit(0)

    async def _run_batch(self, marker: str, commands: list[str]) -> None:
        """What ``sh`` prints for rocetune's framed batch script (collect/shell_batch.py)."""
        assert self.chan is not None
        for command in commands:
            self.lab.log(self.spec.name, self.number, command)
            await self._delay(command)
            if self.closed:
                return
            if await self._hostile(command):
                if self.closed:
                    return
                self.chan.write(f"\n{marker} 0 \n")
                continue
            reply = await self._engine(command)
            if reply is not None:
                if reply.disconnect:
                    self.chan.write(reply.text[: len(reply.text) // 2])
                    self.conn.abort()
                    return
                line = (reply.stderr.splitlines() or [""])[0]
                self.chan.write(f"{reply.text}\n{marker} {reply.exit_status} {line}\n")
                continue
            dynamic = await self.lab.perftest.answer(self.spec, self.answers, command)
            if dynamic is not None:
                line = (dynamic[1].splitlines() or [""])[0]
                self.chan.write(f"{dynamic[0]}\n{marker} {dynamic[2]} {line}\n")
                continue
            text = self.answers.get(command)
            if command == self.spec.disconnect_on and text is not None:
                self.chan.write(text[: len(text) // 2])
                self.conn.abort()
                return
            if text is None:
                error = self.answers.unknown_text(command)
                self.chan.write(f"\n{marker} 127 {error.splitlines()[0]}\n")
            else:
                self.chan.write(f"{text}\n{marker} 0 \n")
        self.chan.exit(0)

    async def _next_char(self) -> str:
        while not self.buf:
            self.wakeup.clear()
            await self.wakeup.wait()
        ch, self.buf = self.buf[0], self.buf[1:]
        return ch

    async def _run_shell(self) -> None:
        self._write(self.spec.profile.banner + self.prompt)
        line = ""
        while not self.closed:
            ch = await self._next_char()
            prev, self.last = self.last, ch
            if ch == "\n" and prev == "\r":
                continue
            if ch in "\r\n":
                if self.spec.echo == "device":
                    self._write("\r\n")
                await self._handle(line.strip())
                line = ""
            elif ch == "\x03":
                line = ""
                self._write("^C\r\n" + self.prompt)
            else:
                if self.spec.echo == "device":
                    self._write(ch)
                line += ch

    async def _handle(self, command: str) -> None:
        if not command:
            self._write(self.prompt)
            return
        self.lab.log(self.spec.name, self.number, command)
        await self._delay(command)
        if self.closed:
            return
        reply = await self._engine(command)
        if self.closed:
            return
        if reply is not None:
            text = _terminal(reply.text)
            if reply.disconnect:
                self._write(text[: len(text) // 2])
                self.closed = True
                self.conn.abort()
                return
            await self._page(text)
            self._write(self.prompt)
            return
        profile = self.spec.profile
        if command in ("exit", "logout", "quit"):
            assert self.chan is not None
            self.closed = True
            self.chan.exit(0)
            return
        if command in profile.term_cmds:
            ack = profile.term_cmds[command]
            if command in profile.paging_off:
                self.paging = False
            self._write((ack + "\r\n" if ack else "") + self.prompt)
            return
        if await self._hostile(command):
            self._write("\r\n" + self.prompt)
            return
        text = self.answers.get(command)
        if text is None:
            text = self.answers.unknown_text(command)
        text = _terminal(text)
        if command == self.spec.disconnect_on:
            self._write(text[: len(text) // 2])
            self.closed = True
            self.conn.abort()
            return
        await self._page(text)
        self._write(self.prompt)

    async def _page(self, text: str) -> None:
        if not self.paging:
            self._write(text)
            return
        lines = text.split("\r\n")
        while len(lines) > PAGE_LINES:
            self._write("\r\n".join(lines[:PAGE_LINES]) + "\r\n" + MORE)
            lines = lines[PAGE_LINES:]
            key = await self._next_char()
            self._write("\r" + " " * len(MORE) + "\r")
            if key == "q":
                return
        self._write("\r\n".join(lines))


class DeviceServer(asyncssh.SSHServer):  # type: ignore[misc]
    """Authentication of one device's connections."""

    def __init__(self, lab: Lab, spec: DeviceSpec) -> None:
        self.lab, self.spec = lab, spec
        self.conn: asyncssh.SSHServerConnection | None = None
        self.number = 0

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        self.number = self.lab.new_connection(self.spec.name)

    def begin_auth(self, username: str) -> bool:
        if self.conn is not None and self.spec.authorized_keys and self.spec.auth == "ok":
            self.conn.set_authorized_keys(self.spec.authorized_keys)
        return True

    def password_auth_supported(self) -> bool:
        return True

    def public_key_auth_supported(self) -> bool:
        return self.spec.authorized_keys is not None

    async def validate_password(self, username: str, password: str) -> bool:
        self.lab.log(self.spec.name, self.number, AUTH)
        if self.spec.auth_delay_s:
            await asyncio.sleep(self.spec.auth_delay_s)
        if self.spec.auth == "reject":
            return False
        return username == self.spec.username and password == self.spec.password

    def session_requested(self) -> DeviceSession:
        assert self.conn is not None
        return DeviceSession(self.lab, self.spec, self.conn, self.number)


def _terminal(text: str) -> str:
    """``text`` with CRLF line ends and a final line end (as a terminal shows it)."""
    text = text.replace("\r\n", "\n")
    if text and not text.endswith("\n"):
        text += "\n"
    return text.replace("\n", "\r\n")


async def _tick(lab: Lab) -> None:
    """Fire engine timers every 50 ms, also while no command arrives."""
    while True:
        for engine in lab.engines.values():
            engine.tick()
        await asyncio.sleep(0.05)


_MARKER = re.compile(r"printf '\\n%s %s %s\\n' '(__RT_[0-9a-f]+)'")


def _batch(command: str) -> tuple[str, list[str]] | None:
    """(marker, commands) when ``command`` is rocetune's framed batch, else None."""
    if not command.startswith("sh -c "):
        return None
    script = shlex.split(command)[2]
    found = _MARKER.search(script)
    if found is None:
        return None
    lines = [line for line in script.splitlines() if line.startswith("__rt ")]
    return found.group(1), [shlex.split(line)[1] for line in lines]


async def _tarpit(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Hold the connection open and never speak."""
    try:
        while await reader.read(4096):
            pass
    finally:
        writer.close()


def _host_key(path: str | None) -> asyncssh.SSHKey:
    if path and Path(path).is_file():
        return asyncssh.read_private_key(path)
    key = asyncssh.generate_private_key("ssh-ed25519")
    if path:
        key.write_private_key(path)
        os.chmod(path, 0o600)
    return key


async def serve(config: dict[str, Any], out: TextIO) -> None:
    """Start every listener, print the ready line, run until SIGTERM/SIGINT."""
    lab = Lab(config)
    key = _host_key(config.get("host_key"))
    ports: dict[str, dict[str, Any]] = {}
    keep: list[Any] = []
    for name, spec in lab.devices.items():
        if spec.refuse:
            sock = socket.socket()
            sock.bind((lab.host, 0))
            keep.append(sock)
            port = sock.getsockname()[1]
        elif spec.tarpit:
            server = await asyncio.start_server(_tarpit, lab.host, 0)
            keep.append(server)
            port = server.sockets[0].getsockname()[1]
        else:
            acceptor = await asyncssh.create_server(
                lambda spec=spec: DeviceServer(lab, spec),
                lab.host,
                0,
                server_host_keys=[key],
                line_editor=False,
                keepalive_interval=0,
            )
            keep.append(acceptor)
            port = acceptor.sockets[0].getsockname()[1]
        ports[name] = {"port": port, "platform": spec.platform}
    host_key = key.export_public_key("openssh").decode().strip()
    out.write(json.dumps({"pid": os.getpid(), "host_key": host_key, "devices": ports}) + "\n")
    out.flush()
    ticker = asyncio.ensure_future(_tick(lab)) if lab.engines else None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    if ticker is not None:
        ticker.cancel()


def main(argv: list[str] | None = None) -> None:
    """Entry point: ``python -m tests.lab.server CONFIG.json``."""
    args = sys.argv[1:] if argv is None else argv
    config = json.loads(Path(args[0]).read_text(encoding="utf-8"))
    asyncio.run(serve(config, sys.stdout))


if __name__ == "__main__":
    main()
