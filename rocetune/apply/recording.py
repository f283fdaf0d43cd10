"""A session wrapper that records every command a driver sends, with its redacted output."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rocetune.apply.record import Record
from rocetune.session import Output, Session

MAX_OUTPUT = 4000
"""Characters of one output kept in the record (the rest is counted, not kept)."""


def _clip(text: str) -> str:
    if len(text) <= MAX_OUTPUT:
        return text
    return text[:MAX_OUTPUT] + f"\n[... {len(text) - MAX_OUTPUT} more characters]"


class RecordingSession:
    """Runs commands on ``inner`` and appends each to the record (redacted)."""

    def __init__(
        self,
        inner: Session,
        record: Record,
        device: str,
        redact: Callable[[str], str],
        step: Callable[[], str],
    ) -> None:
        self.inner, self.record, self.device = inner, record, device
        self.redact, self.step = redact, step
        self.batch = getattr(inner, "batch", 1)

    def _log(self, command: str, out: Output | None, failure: str | None = None) -> None:
        fields: dict[str, object] = {"device": self.device, "step": self.step()}
        fields["command"] = self.redact(command)
        if out is not None:
            fields["output"] = _clip(self.redact(out.text))
            if out.error is not None:
                fields["error"] = self.redact(out.error)
        if failure is not None:
            fields["failure"] = self.redact(failure)
        self.record.write("command", **fields)

    def run(self, command: str) -> Output:
        """Run and record one command (a broken session is recorded, then re-raised)."""
        try:
            out = self.inner.run(command)
        except Exception as exc:
            self._log(command, None, f"{type(exc).__name__}: {exc}")
            raise
        self._log(command, out)
        return out

    def run_many(self, commands: Sequence[str]) -> list[Output]:
        """Run and record several commands."""
        try:
            outs = self.inner.run_many(commands)
        except Exception as exc:
            for c in commands:
                self._log(c, None, f"{type(exc).__name__}: {exc}")
            raise
        for c, o in zip(commands, outs, strict=False):
            self._log(c, o)
        return outs

    def close(self) -> None:
        """Close the inner session."""
        self.inner.close()
