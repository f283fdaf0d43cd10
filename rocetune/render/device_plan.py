"""One device's plan: its changes, rollback and what the replay found (shared by both modes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rocetune.model import Finding
from rocetune.platforms.changes import Change

Status = Literal["changes", "no-change", "skipped", "error"]


@dataclass
class Unfixed:
    """A finding in scope that the plan does not fix, and why."""

    fingerprint: str
    finding: Finding
    why: str


@dataclass
class DevicePlan:
    """One device's plan."""

    name: str
    platform: str | None
    status: Status
    message: str = ""
    changes: list[Change] = field(default_factory=list)
    rollback: list[str] = field(default_factory=list)
    hint: str | None = None
    notes: list[str] = field(default_factory=list)
    config_hash: str | None = None
    also_fixes: list[str] = field(default_factory=list)
    """Fingerprints the replay clears that no change was made for."""
    unfixed: list[Unfixed] = field(default_factory=list)
    new_findings: list[Finding] = field(default_factory=list)
    """Findings the replayed plan raises (should be empty)."""
