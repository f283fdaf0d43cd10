"""An NVIDIA Onyx CLI for the SSH lab: user, enable, config and interface modes.

Prompts: ``sw > `` (user), ``sw # `` (enable), ``sw (config) # ``, ``sw (config interface
ethernet 1/1) # ``. ``enable`` / ``disable``, ``configure terminal`` (enable mode only),
``interface ethernet X`` (config mode), ``exit`` (one mode up; in enable or user mode it is
left to the server, which closes the session). ``no cli session paging enable`` and
``terminal length|width N`` are acknowledged silently in every mode. ``show`` commands are
refused in user mode except ``show version`` (Onyx shows the running configuration only
in enable mode); ``show running-config`` is answered from the engine's state when the spec
names a ``running`` file: that file plus every configuration command entered since (in the
flat form, an interface-mode command prefixed with its interface). Anything else falls
back to the canned answers. Errors are Onyx's: ``% Unrecognized command "x".``.

Spec: ``{"kind": "onyx", "running": "<path>"}`` (``running`` optional).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.lab.engines.base import Reply

_CONFIGURE = re.compile(r"^conf(?:ig(?:ure)?)?(?: t(?:erm(?:inal)?)?)?$")
_INTERFACE = re.compile(r"^interface (ethernet \d+/\d+(?:/\d+)?|port-channel \d+)$")
_SILENT = re.compile(r"^(?:(?:no )?cli session paging enable|terminal (?:length|width) \d+)$")


def unrecognized(word: str) -> Reply:
    """Onyx's answer to a command it does not know in this mode."""
    return Reply(f'% Unrecognized command "{word}".\nType "?" for help.\n')


class OnyxEngine:
    """Per-connection CLI modes over one shared running configuration."""

    def __init__(self, name: str, spec: dict[str, Any]) -> None:
        self.name = name
        running = spec.get("running")
        self.base = Path(running).read_text(encoding="utf-8") if running else None
        self.entered: list[str] = []
        self.modes: dict[int, str] = {}
        """Connection -> ``user``, ``enable``, ``config`` or ``interface <x>``."""

    def prompt(self, conn: int) -> str | None:
        """The prompt of the connection's mode."""
        mode = self.modes.get(conn, "user")
        if mode == "user":
            return f"{self.name} > "
        if mode == "enable":
            return f"{self.name} # "
        if mode == "config":
            return f"{self.name} (config) # "
        return f"{self.name} (config {mode}) # "

    def handle(self, conn: int, command: str) -> Reply | None:
        """Mode changes, mode errors and the running configuration; None: canned answers."""
        mode = self.modes.get(conn, "user")
        cmd = " ".join(command.split())
        if _SILENT.match(cmd):
            return Reply()
        if cmd == "enable":
            self.modes[conn] = "enable" if mode == "user" else mode
            return Reply()
        if cmd == "disable" and mode == "enable":
            self.modes[conn] = "user"
            return Reply()
        if cmd == "exit":
            return self._exit(conn, mode)
        if cmd.startswith(("show ", "sh ")):
            return self._show(cmd, mode)
        if _CONFIGURE.match(cmd):
            if mode != "enable":
                return unrecognized(cmd.split()[0])
            self.modes[conn] = "config"
            return Reply()
        if mode in ("user", "enable"):
            return None
        return self._configure(conn, mode, cmd)

    def _exit(self, conn: int, mode: str) -> Reply | None:
        if mode.startswith("interface "):
            self.modes[conn] = "config"
            return Reply()
        if mode == "config":
            self.modes[conn] = "enable"
            return Reply()
        return None

    def _show(self, cmd: str, mode: str) -> Reply | None:
        if mode == "user" and cmd != "show version":
            return unrecognized(cmd.split()[1] if len(cmd.split()) > 1 else "show")
        if cmd == "show running-config" and self.base is not None:
            added = "".join(f"   {line}\n" for line in self.entered)
            return Reply(self.base.rstrip("\n") + "\n" + added)
        return None

    def _configure(self, conn: int, mode: str, cmd: str) -> Reply:
        found = _INTERFACE.match(cmd)
        if found and mode == "config":
            self.modes[conn] = f"interface {found.group(1)}"
            return Reply()
        if cmd == "end":
            self.modes[conn] = "enable"
            return Reply()
        line = cmd if mode == "config" else f"{mode} {cmd}"
        self.entered.append(line)
        return Reply()

    def connection_lost(self, conn: int) -> None:
        """Forget the connection's mode."""
        self.modes.pop(conn, None)

    def tick(self) -> None:
        """No timers."""
