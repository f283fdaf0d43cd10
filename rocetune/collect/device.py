"""Collect one device over one session: its commands, then its follow-up commands.

Every output is redacted (the platform's redactor) the moment it arrives, before it is kept
anywhere. A rejected optional command is recorded in the metadata (status ``error``) and no
file is written for it; a rejected required command fails the device. An output that went
past the output cap is kept up to the cap (cut after its last complete line), written, and
recorded as ``truncated``; an interactive session it came from is dropped and the remaining
commands run on a new one (same device deadline). When collection writes a snapshot
(``spill_to``), a truncated output is redacted by windows into a file on disk
(:mod:`rocetune.collect.spill`) instead of being held whole a second time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from rocetune.collect.reasons import CollectError, Reason
from rocetune.collect.spill import Spilled, spill
from rocetune.collect.target import Target
from rocetune.collect.transport import Transport
from rocetune.platforms.base import Platform, Redactor
from rocetune.session import Output, Session
from rocetune.snapshot import Command, CommandRecord, Snapshot, SnapshotMeta, SourceFile


@dataclass
class Collected:
    """The redacted outputs of one device and its metadata."""

    outputs: dict[str, str] = field(default_factory=dict)
    """Snapshot file name -> redacted text (successful commands only)."""
    records: list[CommandRecord] = field(default_factory=list)
    spilled: dict[str, Spilled] = field(default_factory=dict)
    """Snapshot file name -> redacted truncated output kept on disk (see ``spill_to``)."""
    spill_to: Path | None = None
    """Where truncated outputs are spilled (the output directory); None: kept in memory."""

    def meta(self, device: str, platform: str) -> SnapshotMeta:
        """The snapshot metadata (collected now)."""
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        return SnapshotMeta(device, platform, stamp, tuple(self.records))

    def snapshot(self) -> Snapshot:
        """What was collected so far, as a snapshot (for follow-up commands).

        A spilled (truncated) output is given by its first :data:`~.spill.HEAD` bytes of
        whole lines, not read back whole: it is a prefix of the device's output either way.
        """
        files = {n: SourceFile(path=n, text=t) for n, t in self.outputs.items()}
        files.update((n, SourceFile(path=n, text=t.head())) for n, t in self.spilled.items())
        return Snapshot(files=files)

    def close(self) -> None:
        """Delete the spill files."""
        for spilled in self.spilled.values():
            spilled.close()

    @property
    def failed_optional(self) -> int:
        """How many optional commands the device rejected."""
        return sum(1 for r in self.records if r.status == "error")


def _record(command: Command, out: Output, redact: Redactor, got: Collected) -> None:
    seconds = round(out.seconds, 3)
    if out.error is not None:
        error = redact(command, out.error)
        if command.required:
            raise CollectError(Reason.COMMAND_ERROR, error, command.command)
        got.records.append(
            CommandRecord(command.command, command.filename, "error", error, seconds)
        )
        return
    if out.blocks is not None and got.spill_to is not None:
        got.spilled[command.filename] = spill(
            lambda t: redact(command, t), out.blocks, got.spill_to
        )
    elif out.blocks is not None:
        got.outputs[command.filename] = redact(command, "".join(out.blocks))
    else:
        got.outputs[command.filename] = redact(command, out.text)
    if out.truncated_at is not None:
        record = CommandRecord(
            command.command, command.filename, "truncated", None, seconds, out.truncated_at
        )
        got.records.append(record)
        return
    got.records.append(CommandRecord(command.command, command.filename, "ok", None, seconds))


class _Sessions:
    """The device's current session; a new one when a truncated output spent it."""

    def __init__(self, transport: Transport, target: Target, blocks: bool) -> None:
        self.transport, self.target, self.blocks = transport, target, blocks
        self.current: Session | None = self._open()

    def _open(self) -> Session:
        session = self.transport.open(self.target)
        if self.blocks and hasattr(session, "blocks"):
            session.blocks = True
        return session

    def get(self) -> Session:
        """The session to run the next commands on (reconnecting after a spent one)."""
        old = self.current
        assert old is not None
        if not getattr(old, "spent", False):
            return old
        old.close()
        self.current = None
        new = self._open()
        if hasattr(old, "deadline") and hasattr(new, "deadline"):
            new.deadline = old.deadline  # a reconnection does not extend the device's time
        self.current = new
        return new

    def close(self) -> None:
        """Close the current session."""
        if self.current is not None:
            self.current.close()


def _run(
    sessions: _Sessions,
    commands: Sequence[Command],
    redact: Redactor,
    got: Collected,
    stop: threading.Event | None,
) -> None:
    """Run the commands not run yet, ``session.batch`` per call (1 for a shell)."""
    done = {r.command for r in got.records}
    todo = list({c.command: c for c in commands if c.command not in done}.values())
    width = max(1, int(getattr(sessions.current, "batch", 1)))
    for i in range(0, len(todo), width):
        batch = todo[i : i + width]
        if stop is not None and stop.is_set():
            raise CollectError(Reason.INTERNAL, "interrupted", batch[0].command)
        session = sessions.get()
        outputs = session.run_many([c.command for c in batch])
        for command, out in zip(batch, outputs, strict=True):
            _record(command, out, redact, got)


def collect_device(
    target: Target,
    driver: Platform,
    nics: Sequence[str],
    transport: Transport,
    redact: Redactor,
    *,
    stop: threading.Event | None = None,
    spill_to: Path | None = None,
) -> Collected:
    """Open one session, run the driver's commands and follow-ups, close it. Truncated
    outputs are spilled to unnamed files in ``spill_to`` when given (the caller closes
    :class:`Collected` after writing it)."""
    try:
        commands = driver.commands(nics)
    except ValueError as exc:  # an invalid NIC name: never becomes a command
        raise CollectError(Reason.CONFIG, str(exc)) from exc
    got = Collected(spill_to=spill_to)
    try:
        sessions = _Sessions(transport, target, blocks=spill_to is not None)
        try:
            _run(sessions, commands, redact, got, stop)
            _run(sessions, driver.followup_commands(got.snapshot()), redact, got, stop)
        finally:
            sessions.close()
    except BaseException:
        got.close()
        raise
    return got


def elapsed(start: float) -> float:
    """Seconds since ``start`` (time.monotonic), rounded for display."""
    return round(time.monotonic() - start, 3)
