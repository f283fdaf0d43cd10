"""A sonic-cli (Klish) device for the lab: Enterprise SONiC's modal CLI over a bash login.

Login lands in bash (``admin@NAME:~$``); ``sonic-cli`` enters the Klish exec mode
(``NAME#``), ``configure terminal`` the configuration mode (``NAME(config)#``), and
``interface X``, ``qos map KIND NAME``, ``qos wred-policy NAME``, ``qos scheduler-policy
NAME`` (and ``queue N`` inside it) enter their sub-modes (``NAME(conf-if-Eth1/1)#``,
``NAME(conf-wred-ROCE)#`` ...); ``exit`` leaves one mode, ``end`` returns to exec. A command
outside the known vocabulary answers ``%Error: Invalid input detected at "^" marker.`` and
changes nothing. ``show running-configuration`` prints the initial running configuration
(the spec's ``running`` file) followed by every accepted configuration line, indented by
mode and closed with ``!``, so the Klish parser reads the changes in order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.lab.engines.base import Reply

ERROR = '%Error: Invalid input detected at "^" marker.'
_CONFIG_WORDS = frozenset(
    [
        "interface",
        "qos",
        "priority-flow-control",
        "buffer",
        "mtu",
        "speed",
        "fec",
        "shutdown",
        "no",
        "queue",
        "scheduler-policy",
        "qos-map",
        "cable-length",
        "dscp",
        "dot1p",
        "traffic-class",
        "pfc-priority",
        "green",
        "yellow",
        "red",
        "ecn",
        "type",
        "weight",
        "description",
        "hostname",
        "roce",
        "interface-naming",
        "ip",
        "ipv6",
    ]
)
_MODES = {"dscp-tc", "dot1p-tc", "tc-queue", "tc-pg", "tc-dscp", "pfc-priority-queue"}


class KlishEngine:
    """One Enterprise SONiC switch (see the module docstring)."""

    def __init__(self, device: str, spec: dict[str, Any]) -> None:
        self.name = device
        running = spec.get("running")
        self.base = Path(running).read_text(encoding="utf-8") if running else ""
        self.added: list[str] = []
        self.modes: dict[int, list[str]] = {}

    def prompt(self, conn: int) -> str | None:
        """bash, exec, config or a sub-mode prompt."""
        stack = self.modes.get(conn, [])
        if not stack:
            return f"admin@{self.name}:~$ "
        if len(stack) == 1:
            return f"{self.name}#"
        top = stack[-1]
        return f"{self.name}(config)#" if top == "config" else f"{self.name}(conf-{top})#"

    def connection_lost(self, conn: int) -> None:
        """Forget the connection's mode."""
        self.modes.pop(conn, None)

    def tick(self) -> None:
        """No timers."""

    def running(self) -> str:
        """``show running-configuration``."""
        text = self.base if self.base.endswith("\n") or not self.base else self.base + "\n"
        return text + "".join(line + "\n" for line in self.added)

    def handle(self, conn: int, command: str) -> Reply | None:
        """Answer one command line (None in bash: the canned answers reply)."""
        stack = self.modes.setdefault(conn, [])
        if not stack:
            if command == "sonic-cli":
                stack.append("exec")
                return Reply("")
            return None
        if command.startswith("terminal "):
            return Reply("")
        if command == "exit":
            self._leave(stack)
            return Reply("")
        if command == "end":
            while len(stack) > 1:
                self._leave(stack)
            return Reply("")
        if len(stack) == 1:
            return self._exec(stack, command)
        return self._config(stack, command)

    def _exec(self, stack: list[str], command: str) -> Reply:
        if command in ("configure terminal", "configure"):
            stack.append("config")
            return Reply("")
        if command.startswith("show running-configuration"):
            return Reply(self.running())
        if command == "write memory":
            return Reply("")
        return Reply(ERROR)

    def _config(self, stack: list[str], command: str) -> Reply:
        words = command.split()
        if not words or words[0] not in _CONFIG_WORDS:
            return Reply(ERROR)
        depth = len(stack) - 2
        mode = self._opens(words, stack[-1])
        if mode is None and stack[-1] == "config" and words[0] in ("dscp", "traffic-class"):
            return Reply(ERROR)
        self.added.append(" " * depth + command)
        if mode is not None:
            stack.append(mode)
        return Reply("")

    @staticmethod
    def _opens(words: list[str], top: str) -> str | None:
        if words[0] == "interface" and len(words) >= 2:
            return "if-" + "".join(words[1:])
        if words[:2] == ["qos", "map"] and len(words) == 4 and words[2] in _MODES:
            return f"{words[2]}-map-{words[3]}"
        if words[:2] == ["qos", "wred-policy"] and len(words) == 3:
            return f"wred-{words[2]}"
        if words[:2] == ["qos", "scheduler-policy"] and len(words) == 3:
            return f"sched-policy-{words[2]}"
        if words[0] == "queue" and len(words) == 2 and top.startswith("sched-policy-"):
            return f"scheduler-{top.removeprefix('sched-policy-')}-queue-{words[1]}"
        return None

    def _leave(self, stack: list[str]) -> None:
        left = stack.pop()
        if left not in ("exec", "config") and stack and stack[-1] == "config":
            self.added.append("!")


def make(device: str, spec: dict[str, Any]) -> KlishEngine:
    """The engine factory (tests/lab/engines registry)."""
    return KlishEngine(device, spec)
