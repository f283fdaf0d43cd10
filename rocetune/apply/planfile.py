"""Read a ``rocetune-plan/1`` file (``rocetune plan --format json``): apply's only input.

Everything apply changes comes from here: each device's changes in apply order, their
rollback, whether they are disruptive, the running-config hash the plan was made from, and
the findings (fingerprints) each change is meant to clear. A malformed plan is an input error
naming the file (and the line, for JSON syntax errors): exit 2, nothing is contacted.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocetune.errors import RocetuneError
from rocetune.platforms.transaction import DeviceChanges

FORMAT = "rocetune-plan/1"


class PlanFileError(RocetuneError):
    """The plan file cannot be used (exit 2)."""


@dataclass(frozen=True)
class PlannedDevice:
    """One device of the plan."""

    name: str
    platform: str
    status: str
    config_hash: str | None
    changes: tuple[dict[str, Any], ...]
    rollback: dict[str, Any]
    fixes: frozenset[str]
    """Fingerprints of the findings the changes are made to clear (theirs plus also_fixes)."""
    codes: tuple[str, ...]

    @property
    def disruptive(self) -> bool:
        """Whether any change is marked DISRUPTIVE."""
        return any(bool(c.get("disruptive")) for c in self.changes)

    def as_changes(self) -> DeviceChanges:
        """The driver's view of this device's changes."""
        return DeviceChanges(
            self.name, self.platform, self.changes, dict(self.rollback), self.disruptive
        )


@dataclass(frozen=True)
class ApplyPlan:
    """The whole plan file."""

    path: Path
    digest: str
    """``sha256:`` of the file's bytes: the record names exactly what was applied."""
    devices: dict[str, PlannedDevice] = field(default_factory=dict)

    def with_changes(self) -> list[PlannedDevice]:
        """Devices that have changes, by name."""
        return [d for d in self.devices.values() if d.status == "changes" and d.changes]


def _fail(path: Path, msg: str, line: int | None = None) -> PlanFileError:
    return PlanFileError(msg, file=path, line=line)


def _device(path: Path, i: int, raw: Any) -> PlannedDevice:
    where = f"devices[{i}]"
    if not isinstance(raw, dict):
        raise _fail(path, f"{where} is not an object")
    name, platform = raw.get("device"), raw.get("platform")
    if not isinstance(name, str) or not name:
        raise _fail(path, f"{where}.device is missing")
    if not isinstance(platform, str):
        raise _fail(path, f"{where} ({name}).platform is missing")
    changes = raw.get("changes") or []
    if not isinstance(changes, list) or not all(isinstance(c, dict) for c in changes):
        raise _fail(path, f"{where} ({name}).changes is not a list of objects")
    for c in changes:
        if not isinstance(c.get("commands", c.get("patch")), list):
            raise _fail(path, f"{name}: change {c.get('id', '?')} has no commands or patch")
    fixes = {fp for c in changes for fp in c.get("fixes") or ()}
    fixes |= set(raw.get("also_fixes") or ())
    status = str(raw.get("status", "changes"))
    digest = raw.get("running_config_hash")
    if status == "changes" and changes and not isinstance(digest, str):
        raise _fail(path, f"{name}: running_config_hash is missing (made by an older plan?)")
    return PlannedDevice(
        name,
        platform,
        status,
        digest if isinstance(digest, str) else None,
        tuple(changes),
        dict(raw.get("rollback") or {}),
        frozenset(str(f) for f in fixes),
        tuple(str(c) for c in (raw.get("summary") or {}).get("fixes") or ()),
    )


def load_plan(path: Path) -> ApplyPlan:
    """Read and check a plan file (PlanFileError with the file, and line, on any problem)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _fail(path, f"cannot read plan: {exc.strerror or exc}") from None
    try:
        doc = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise _fail(path, f"not JSON: {getattr(exc, 'msg', exc)}", line) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise _fail(path, f"not a {FORMAT} plan (format: {got!r})")
    raw_devices = doc.get("devices")
    if not isinstance(raw_devices, list):
        raise _fail(path, "devices is not a list")
    devices: dict[str, PlannedDevice] = {}
    for i, raw in enumerate(raw_devices):
        dev = _device(path, i, raw)
        if dev.name in devices:
            raise _fail(path, f"device {dev.name} appears twice")
        devices[dev.name] = dev
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    return ApplyPlan(path, digest, devices)
