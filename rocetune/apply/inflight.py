"""Devices in flight across the shards of one plan (``rocetune apply --shard I/N``).

A run keeps its waves inside the failure domains (:mod:`rocetune.apply.waves`), but the
shards of one plan run at the same time and each sees only its own devices: shard 0 could
change leaf1 while shard 1 changes leaf2, both uplinks of the same hosts. So sharded runs
that share a runs directory register the devices of each wave in ``<runs>/inflight/``
(one file per device: run, expiry) before working on them, and a device is admitted only
when its failure domains, counting the devices other runs have in flight, stay within
their caps; the rest wait for a later wave. Entries are removed when the wave ends and
expire at the end of the window (a dead controller does not block the others forever).

Shards on different machines must share the runs directory (e.g. NFS) for this guard;
without it, their waves are independent (docs/apply.md, "Sharded runs").
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from rocetune.apply.waves import Domain

_LOCK = ".lock"


class Inflight:
    """The in-flight registry of a runs directory."""

    def __init__(self, runs: Path, run_id: str, clock: Callable[[], float]) -> None:
        self.dir = runs / "inflight"
        self.run_id = run_id
        self.clock = clock

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.dir.mkdir(parents=True, exist_ok=True)
        lock = self.dir / _LOCK
        deadline = time.monotonic() + 30.0
        while True:
            try:
                fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                break
            except FileExistsError:
                if time.monotonic() > deadline:  # a holder died inside the lock: take it
                    lock.unlink(missing_ok=True)
                    continue
                time.sleep(0.01)
        try:
            os.write(fd, f"{os.getpid()}\n".encode())
            os.close(fd)
            yield
        finally:
            lock.unlink(missing_ok=True)

    def foreign(self) -> dict[str, str]:
        """Device -> run, for the unexpired entries of other runs."""
        out: dict[str, str] = {}
        now = self.clock()
        for path in self.dir.glob("*.json"):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if data.get("run") != self.run_id and float(data.get("expires", 0)) > now:
                out[path.stem] = str(data.get("run"))
        return out

    def admit(
        self, wave: Sequence[str], doms: Sequence[Domain], expires: float
    ) -> tuple[list[str], dict[str, str]]:
        """Register the devices of ``wave`` that fit beside the other runs' devices in
        flight; returns them and, for each one left out, why."""
        with self._locked():
            busy = self.foreign()
            taken: list[str] = []
            waiting: dict[str, str] = {}
            for device in wave:
                if device in busy:
                    waiting[device] = f"{device} itself in flight in run {busy[device]}"
                    continue
                chosen = set(busy) | set(taken) | {device}
                full = [d for d in doms if device in d.members and len(chosen & d.members) > d.cap]
                if full:
                    others = sorted((full[0].members & set(busy)) - {device})
                    runs = sorted({busy[o] for o in others})
                    waiting[device] = (
                        f"{full[0].why}: {', '.join(others)} in flight in run {', '.join(runs)}"
                    )
                    continue
                taken.append(device)
            for device in taken:
                body = json.dumps({"run": self.run_id, "expires": expires})
                (self.dir / f"{device}.json").write_text(body, encoding="utf-8")
            return taken, waiting

    def release(self, devices: Sequence[str]) -> None:
        """Remove this run's entries for ``devices``."""
        with self._locked():
            for device in devices:
                path = self.dir / f"{device}.json"
                try:
                    data = json.loads(path.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue
                if data.get("run") == self.run_id:
                    path.unlink(missing_ok=True)


__all__ = ["Inflight"]
