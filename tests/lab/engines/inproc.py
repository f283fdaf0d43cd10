"""An in-process :class:`rocetune.session.Session` over a lab engine (fast tests, no SSH).

``EngineSession(engine, mode)`` runs each command through :meth:`Engine.tick` and
:meth:`Engine.handle` the way the lab server does. ``mode="exec"`` reports errors from the
exit status and stderr (an SSH exec channel: hosts); ``mode="shell"`` from the text with the
platform's CLI error markers (an interactive netmiko session: switches). A reply that drops
the connection raises :class:`ConnectionError` and so does every later command, like a lost
SSH session. Shared by the apply drivers' tests of every platform.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Literal

from rocetune.platforms.common.cli_errors import command_error
from rocetune.session import Output
from tests.lab.engines.base import Engine

_CONNECTIONS = itertools.count(1000)


class EngineSession:
    """One connection to an engine."""

    def __init__(
        self, engine: Engine, mode: Literal["exec", "shell"] = "exec", platform: str = ""
    ) -> None:
        self.engine, self.mode, self.platform = engine, mode, platform
        self.conn = next(_CONNECTIONS)
        self.closed = False
        self.sent: list[str] = []

    def run(self, command: str) -> Output:
        if self.closed:
            raise ConnectionError("the session is closed")
        self.sent.append(command)
        self.engine.tick()
        reply = self.engine.handle(self.conn, command)
        if reply is None:
            if self.mode == "exec":
                return Output("", f"sh: 1: {command.split(maxsplit=1)[0]}: not found")
            return Output(f"-bash: {command.split(maxsplit=1)[0]}: command not found\n", None)
        if reply.disconnect:
            self.close()
            raise ConnectionError(f"connection lost during {command!r}")
        if self.mode == "exec":
            error = None
            if reply.exit_status != 0:
                lines = reply.stderr.strip().splitlines()
                error = lines[0] if lines else f"exit status {reply.exit_status}"
            return Output(reply.text, error)
        return Output(reply.text, command_error(self.platform, reply.text))

    def run_many(self, commands: Sequence[str]) -> list[Output]:
        return [self.run(c) for c in commands]

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.engine.connection_lost(self.conn)
