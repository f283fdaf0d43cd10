"""perftest in the SSH device lab: background servers, clients, ``ss``, ``kill``, counters.

Answers the command shapes :mod:`rocetune.verify.runner` sends (anything else falls through
to the device's canned answers):

- ``nohup timeout L ib_write_bw ARGS > LOG 2>&1 < /dev/null & echo $!``: a server starts
  listening on its ``-p`` port; the answer is its new pid;
- ``ss -ltn``: the device's listening servers; ``kill -0 PID``: alive or not;
- ``timeout L ib_write_bw ARGS ADDRESS 2>&1``: a client; when a server listens on the port
  (any device: every lab device is 127.0.0.1) it completes and the server exits, as
  perftest's does after one test; otherwise "Couldn't connect";
- ``cat LOG``: the server's output (banner and header only while nobody connected);
- ``kill PID``, ``rm -f LOG``;
- ``ethtool -S IF`` / the ``hw_counters`` grep: the snapshot answer, counters grown by
  ``counter_growth`` steps times the number of reads.

A device's ``perftest`` maps ``TOOL`` (defaults) and ``TOOL RDMADEV`` (overrides) to
``client``/``server`` output files, ``client_delay_ms`` (above ``timeout``'s limit: exit 124
after the limit), ``client_exit`` (a failing client; its server keeps listening) and
``listen: false`` (the server dies at once). Every start, exit and kill is appended to the
``perftest_record`` file (``start|exit|kill|kill-failed <TAB> device <TAB> pid <TAB> port``).
"""

from __future__ import annotations

import asyncio
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.lab.devices import Answers, DeviceSpec

COULD_NOT_CONNECT = (
    "Couldn't connect to {address}:{port}\n"
    "Unable to open file descriptor for socket connection Unable to init the socket connection\n"
)
_TOOLS = ("ib_write_bw", "ib_send_lat")
_KILL0 = re.compile(r"kill -0 (\d+)")
_KILL = re.compile(r"kill (\d+)")
_LOG = re.compile(r"(?:cat|rm -f) (/tmp/rocetune-perftest-[\w.-]+\.log)")
_HW = re.compile(r"grep -H \. /sys/class/infiniband/([\w.-]+)/ports/1/hw_counters/\*")
_STATS = re.compile(r"ethtool -S ([\w.:@-]+)")


@dataclass
class Server:
    """One background perftest server."""

    device: str
    pid: int
    port: int
    log: str
    text: str
    state: str = "listening"


def _adder(grown: int) -> Callable[[re.Match[str]], str]:
    def add(m: re.Match[str]) -> str:
        return f"{m[1]}{int(m[2]) + grown}"

    return add


def _option(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv and argv.index(flag) + 1 < len(argv) else None


class Perftest:
    """The lab-wide perftest state (all devices share one process)."""

    def __init__(self, record: str | None) -> None:
        self.servers: dict[int, Server] = {}
        self.next_pid = 40001
        self.reads: dict[tuple[str, str], int] = {}
        self.record = Path(record) if record else None

    def _log(self, event: str, server: Server) -> None:
        if self.record is not None:
            with self.record.open("a", encoding="utf-8") as fh:
                fh.write(f"{event}\t{server.device}\t{server.pid}\t{server.port}\n")

    @staticmethod
    def _settings(spec: DeviceSpec, argv: list[str]) -> dict[str, Any]:
        tool, dev = argv[0], _option(argv, "-d")
        return {**spec.perftest.get(tool, {}), **spec.perftest.get(f"{tool} {dev}", {})}

    async def answer(
        self, spec: DeviceSpec, answers: Answers, command: str
    ) -> tuple[str, str, int] | None:
        """(stdout, stderr, exit status) for a perftest-related command, else None."""
        words = command.split()
        if not words:
            return None
        if words[0] == "nohup":
            return (*self._start(spec, shlex.split(command)), 0)
        if words[0] == "timeout" and len(words) > 2 and words[2] in _TOOLS:
            text, status = await self._client(spec, shlex.split(command))
            return text, "", status  # 2>&1: everything on stdout
        if command == "ss -ltn":
            return self._ss(spec), "", 0
        got = self._simple(spec, answers, command)
        if got is None:
            return None
        return (got[0], "", 0) if got[1] == 0 else ("", got[0], got[1])

    def _simple(self, spec: DeviceSpec, answers: Answers, command: str) -> tuple[str, int] | None:
        if found := _KILL0.fullmatch(command):
            server = self.servers.get(int(found.group(1)))
            alive = (
                server is not None and server.device == spec.name and server.state == "listening"
            )
            return ("", 0) if alive else ("", 1)
        if found := _KILL.fullmatch(command):
            return self._kill(spec, int(found.group(1)))
        if found := _LOG.fullmatch(command):
            if command.startswith("rm"):
                return "", 0
            return self._cat(spec, found.group(1))
        name = None
        if found := (_STATS.fullmatch(command) or _HW.fullmatch(command)):
            name = found.group(1)
        if name is None or name not in spec.counter_growth:
            return None
        return self._grown(spec, answers, command, name)

    def _start(self, spec: DeviceSpec, words: list[str]) -> tuple[str, str]:
        end = words.index(">")
        argv, log = words[3:end], words[end + 1]
        settings = self._settings(spec, argv)
        text = Path(settings["server"]).read_text(encoding="utf-8") if "server" in settings else ""
        server = Server(spec.name, self.next_pid, int(_option(argv, "-p") or 0), log, text)
        self.next_pid += 1
        self.servers[server.pid] = server
        self._log("start", server)
        if not settings.get("listen", True):
            server.state = "exited"
            self._log("exit", server)
        return f"{server.pid}\n", ""

    async def _client(self, spec: DeviceSpec, words: list[str]) -> tuple[str, int]:
        limit, argv = float(words[1]), words[2:]
        if argv[-1] == "2>&1":
            argv = argv[:-1]
        settings = self._settings(spec, argv)
        delay = float(settings.get("client_delay_ms", 0)) / 1000
        if delay > limit:
            await asyncio.sleep(limit)
            return "", 124
        await asyncio.sleep(delay)
        port = int(_option(argv, "-p") or 0)
        server = next(
            (s for s in self.servers.values() if s.port == port and s.state == "listening"), None
        )
        if server is None:
            return COULD_NOT_CONNECT.format(address=argv[-1], port=port), 1
        text = Path(settings["client"]).read_text(encoding="utf-8")
        status = int(settings.get("client_exit", 0))
        if status == 0:
            server.state = "exited"
            self._log("exit", server)
        return text, status

    def _ss(self, spec: DeviceSpec) -> str:
        lines = ["State  Recv-Q Send-Q Local Address:Port  Peer Address:Port Process"]
        lines += [
            f"LISTEN 0      5            0.0.0.0:{s.port}        0.0.0.0:*"
            for s in self.servers.values()
            if s.device == spec.name and s.state == "listening"
        ]
        return "\n".join(lines) + "\n"

    def _kill(self, spec: DeviceSpec, pid: int) -> tuple[str, int]:
        server = self.servers.get(pid)
        if server is None or server.device != spec.name or server.state != "listening":
            if server is not None:
                self._log("kill-failed", server)
            return f"-bash: kill: ({pid}) - No such process\n", 1
        server.state = "killed"
        self._log("kill", server)
        return "", 0

    def _cat(self, spec: DeviceSpec, log: str) -> tuple[str, int]:
        server = next((s for s in self.servers.values() if s.log == log), None)
        if server is None or server.device != spec.name:
            return f"cat: {log}: No such file or directory\n", 1
        if server.state == "exited":
            return server.text, 0
        cut = server.text.find("Waiting for client")
        return (server.text if cut < 0 else server.text[: server.text.find("\n", cut) + 1]), 0

    def _grown(
        self, spec: DeviceSpec, answers: Answers, command: str, name: str
    ) -> tuple[str, int] | None:
        text = answers.get(command)
        if text is None:
            return None
        key = (spec.name, command)
        self.reads[key] = self.reads.get(key, 0) + 1
        for counter, step in spec.counter_growth[name].items():
            pattern = re.compile(rf"((?:^|[\s/]){re.escape(counter)}:\s*)(\d+)", re.MULTILINE)
            text = pattern.sub(_adder(step * self.reads[key]), text)
        return text, 0
