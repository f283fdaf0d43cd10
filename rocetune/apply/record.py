"""The run record: ``runs/<run>/audit.jsonl`` (append-only, fsynced) and the run lock.

Every event is one JSON line written with ``O_APPEND`` and fsynced before the orchestrator
goes on, so a controller that dies leaves a record that says exactly how far each device got:
``--status`` prints it, ``--resume`` replays it, ``--rollback`` finds the devices to revert.
Lines carry the run, the change id, who, a sequence number and a UTC time; device events
carry the state and the reason; command events carry the commands and the redacted outputs.

The lock (:class:`RunLock`) is a lease in the runs directory, created exclusively: who holds
it (user@host, pid), the run and change id, and when it expires. A second apply in the same
runs directory is refused while the lease is live; an expired lease, or one held by a dead
process on this host, is taken over (and the takeover is recorded).
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocetune.apply.states import DeviceState, RunState
from rocetune.errors import RocetuneError

AUDIT = "audit.jsonl"
LOCK = "apply.lock"


class RecordError(RocetuneError):
    """The run directory cannot be used (exit 2)."""


def who() -> str:
    """``user@host`` of this controller."""
    try:
        user = getpass.getuser()
    except Exception:  # no passwd entry in a container
        user = str(os.getuid())
    return f"{user}@{socket.gethostname()}"


class Record:
    """An append-only, fsynced JSON-lines log of one run (thread safe)."""

    def __init__(self, directory: Path, run_id: str, change_id: str, clock: Any) -> None:
        self.directory, self.run_id, self.change_id = directory, run_id, change_id
        self.clock = clock
        self.path = directory / AUDIT
        self._lock = threading.Lock()
        self._seq = sum(1 for _ in read_events(self.path)) if self.path.exists() else 0
        self.who = who()

    def write(self, event: str, **fields: Any) -> dict[str, Any]:
        """Append one event and fsync it; returns the event as written."""
        with self._lock:
            self._seq += 1
            entry: dict[str, Any] = {
                "seq": self._seq,
                "ts": round(float(self.clock()), 3),
                "run": self.run_id,
                "change_id": self.change_id,
                "who": self.who,
                "event": event,
            }
            entry.update({k: v for k, v in fields.items() if v is not None})
            line = json.dumps(entry, sort_keys=True, default=str) + "\n"
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line.encode("utf-8"))
                os.fsync(fd)
            finally:
                os.close(fd)
            return entry

    def device(self, device: str, old: DeviceState, new: DeviceState, reason: str) -> None:
        """A device state change."""
        self.write("device", device=device, old=old.value, state=new.value, reason=reason)

    def run(self, state: RunState, reason: str, **fields: Any) -> None:
        """A run state change."""
        self.write("run", state=state.value, reason=reason, **fields)


def read_events(path: Path) -> Iterator[dict[str, Any]]:
    """The events of an audit log; a torn last line (controller died mid-write) is skipped."""
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.endswith("\n"):
                return
            with contextlib.suppress(json.JSONDecodeError):
                yield json.loads(line)


@dataclass
class RunSummary:
    """What a record says about a run (``--status``, ``--resume``, ``--rollback``)."""

    run_id: str
    start: dict[str, Any]
    run_state: str
    devices: dict[str, str]
    """Device -> its last recorded state."""
    reasons: dict[str, str]
    waves: list[list[str]]


def summarize(directory: Path) -> RunSummary:
    """Replay ``directory/audit.jsonl``."""
    path = directory / AUDIT
    if not path.is_file():
        raise RecordError(f"no run record {AUDIT} here", file=directory)
    start: dict[str, Any] = {}
    run_state = RunState.PLANNED.value
    devices: dict[str, str] = {}
    reasons: dict[str, str] = {}
    waves: list[list[str]] = []
    for ev in read_events(path):
        kind = ev.get("event")
        if kind == "start" and not start:
            start = ev
        elif kind == "run":
            run_state = str(ev.get("state"))
        elif kind == "device":
            devices[str(ev["device"])] = str(ev["state"])
            reasons[str(ev["device"])] = str(ev.get("reason", ""))
        elif kind == "wave":
            waves.append([str(d) for d in ev.get("devices", [])])
    if not start:
        raise RecordError("the run record has no start event", file=path)
    return RunSummary(str(start.get("run")), start, run_state, devices, reasons, waves)


@dataclass(frozen=True)
class Lease:
    """Who holds the runs directory."""

    run: str
    change_id: str
    owner: str
    pid: int
    host: str
    expires: float


def lock_name(shard: str | None) -> str:
    """The lease file of a run: one per shard (``apply-shard-1-of-4.lock``), so the shards
    of one plan can share a runs directory (their run directories never collide)."""
    if not shard:
        return LOCK
    index, _, count = shard.replace(" ", "").partition("/")
    return f"apply-shard-{index}-of-{count}.lock"


class RunLock:
    """The fleet lease ``<runs>/apply.lock`` (exclusive create; expiry; stale takeover)."""

    def __init__(self, runs: Path, clock: Any, name: str = LOCK) -> None:
        self.path = runs / name
        self.clock = clock
        self.held: Lease | None = None

    def current(self) -> Lease | None:
        """The lease on disk, or None."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return Lease(**data)
        except (OSError, ValueError, TypeError):
            return None

    def _stale(self, lease: Lease) -> str | None:
        if lease.expires <= self.clock():
            return "expired"
        if lease.host == socket.gethostname():
            try:
                os.kill(lease.pid, 0)
            except ProcessLookupError:
                return f"holder pid {lease.pid} is gone"
            except PermissionError:
                return None
        return None

    def acquire(self, run: str, change_id: str, ttl_s: float) -> str | None:
        """Take the lease; returns why a stale one was taken over (None: none was there).

        RecordError when another live run holds it.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lease = Lease(
            run, change_id, who(), os.getpid(), socket.gethostname(), self.clock() + ttl_s
        )
        body = json.dumps(lease.__dict__, sort_keys=True)
        taken = None
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                old = self.current()
                why = "unreadable lease" if old is None else self._stale(old)
                if old is not None and old.run == run:
                    why = "same run (resumed)"
                if why is None:
                    assert old is not None
                    msg = (
                        f"locked by run {old.run} (change {old.change_id}) of {old.owner}, "
                        f"pid {old.pid}, until the lease expires; wait or remove it if that "
                        "run is dead"
                    )
                    raise RecordError(msg, file=self.path) from None
                taken = f"took over the lease of run {old.run if old else '?'}: {why}"
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
                continue
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(body)
                fh.flush()
                os.fsync(fh.fileno())
            self.held = lease
            return taken
        raise RecordError("could not take the lease (another apply raced for it)", file=self.path)

    def release(self) -> None:
        """Drop the lease if it is still ours."""
        cur = self.current()
        if self.held is not None and cur is not None and cur.run == self.held.run:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
        self.held = None
