"""An in-process :class:`rocetune.session.Session` on a lab engine (no SSH): fast tests.

It reads like rocetune's netmiko session: the text of each command, and as its error the
first ``% ...`` line among the first three (how EOS and NX-OS report one); a dropped connection
(``Reply.disconnect``) raises ConnectionError and the engine forgets that connection's modes,
as the SSH lab does. ``reconnect`` opens the next connection (number + 1).
"""

from __future__ import annotations

from collections.abc import Sequence

from rocetune.session import Output
from tests.lab.engines.cli_engine import CliEngine


class CliEngineSession:
    """One connection to ``engine``."""

    def __init__(self, engine: CliEngine, platform: str, conn: int = 1) -> None:
        self.engine, self.platform, self.conn = engine, platform, conn
        self.sent: list[str] = []
        self.broken = False

    def run(self, command: str) -> Output:
        """Run one command on the engine."""
        if self.broken:
            raise ConnectionError("session closed")
        self.sent.append(command)
        self.engine.tick()
        reply = self.engine.handle(self.conn, command)
        if reply is None:
            text = self.engine.invalid + "\n"
        else:
            text = reply.text
            if reply.disconnect:
                self.broken = True
                self.engine.connection_lost(self.conn)
                raise ConnectionError(f"the device closed the connection during {command!r}")
        lines = [line.strip() for line in text.splitlines() if line.strip()][:3]
        return Output(text, next((line for line in lines if line.startswith("% ")), None))

    def run_many(self, commands: Sequence[str]) -> list[Output]:
        """One after another."""
        return [self.run(c) for c in commands]

    def close(self) -> None:
        """Drop the connection."""
        self.engine.connection_lost(self.conn)
        self.broken = True

    def reconnect(self) -> CliEngineSession:
        """A new connection to the same engine."""
        self.close()
        return CliEngineSession(self.engine, self.platform, self.conn + 1)
