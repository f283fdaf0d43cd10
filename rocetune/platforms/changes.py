"""What a platform's change-set helper returns to ``rocetune plan``, and which changes disrupt.

A platform helper (``rocetune/platforms/<p>/changeset.py``) diffs the device's running config
against the rendered intended config and returns :class:`Change` objects in its own syntax
(JSON Patch ops, ``nv set`` lines, CLI lines, host commands), each tagged with a neutral
*kind*. This module decides, per kind, whether the change is disruptive and why. It is the
contract between the platforms (which build changes) and :mod:`rocetune.render.plan`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from rocetune.model import Device
from rocetune.snapshot import Snapshot
from rocetune.tune.target import DeviceTarget

DISRUPTION: dict[str, tuple[bool, str]] = {
    "pfc": (
        True,
        "PFC enable/disable re-programs the port's lossless priority groups and pause "
        "generation: the port flaps or blocks traffic briefly (roce-knowledge R-SW-30, S4)",
    ),
    "buffers": (
        True,
        "a buffer/headroom profile change re-carves the port's ingress buffer: traffic is "
        "briefly blocked (roce-knowledge R-SW-30)",
    ),
    "roce_mode": (True, "changing the RoCE mode can flap interfaces (roce-knowledge S4)"),
    "mtu": (True, "an MTU change re-initialises the port (link flap) [judgement]"),
    "speed": (True, "a speed change re-negotiates the link (link flap) [judgement]"),
    "trust": (
        True,
        "a trust change re-classifies all traffic of the port: lossless traffic lands in "
        "another class until both ends agree [judgement]",
    ),
    "pause": (True, "changing link-level pause re-negotiates the link [judgement]"),
    "dscp_map": (
        False,
        "a DSCP/priority map change re-programs classification without a flap or buffer "
        "re-carve (traffic moves class at once: keep both link ends consistent) [judgement]",
    ),
    "ecn": (False, "ECN/WRED thresholds and DCQCN/CNP settings apply hitlessly [judgement]"),
    "scheduling": (False, "scheduler weights and strict priority apply hitlessly [judgement]"),
    "watchdog": (False, "PFC watchdog timers and actions apply hitlessly [judgement]"),
    "new_object": (
        False,
        "defines a new object (a buffer profile) that no port uses yet; the change that binds "
        "it is the one that touches traffic [judgement]",
    ),
    "firmware": (
        True,
        "an mlxconfig (non-volatile firmware) value takes effect only after a firmware reset "
        "or reboot of the host (NVIDIA MFT docs): drain the host first",
    ),
    "other": (False, "does not touch the data path's lossless configuration [judgement]"),
}
"""kind -> (disruptive, why). Sources: docs/roce-knowledge.md (ids in docs/sources.md); else
[judgement]."""

SEVERITY: tuple[str, ...] = (
    "firmware",
    "roce_mode",
    "speed",
    "mtu",
    "pause",
    "buffers",
    "pfc",
    "trust",
    "dscp_map",
    "ecn",
    "scheduling",
    "watchdog",
    "new_object",
    "other",
)
"""Kinds from most to least disruptive (a section's kind is its worst line's)."""


def worst(kinds: list[str]) -> str:
    """The most disruptive of ``kinds`` (``other`` when empty)."""
    known = [k for k in kinds if k in SEVERITY]
    return min(known, key=SEVERITY.index) if known else "other"


@dataclass(frozen=True)
class Change:
    """One change in the platform's own syntax."""

    text: str
    """The command(s) or JSON Patch op (one JSON object) that make the change."""
    kind: str
    """A key of :data:`DISRUPTION`."""
    port: str | None = None
    rollback: str | None = None
    """The inverse of this change (None when the platform computes rollback as a whole)."""
    fixes: tuple[str, ...] = ()
    """Fingerprints of the findings this change is made for (remediation plans)."""
    codes: tuple[str, ...] = ()
    """Rule codes of those findings (for the one-line summary)."""
    because: str | None = None
    """Why the change is needed when no finding asks for it directly (a follow-up)."""

    @property
    def disruptive(self) -> bool:
        """True when applying the change flaps a port or briefly blocks traffic."""
        return DISRUPTION.get(self.kind, DISRUPTION["other"])[0]

    @property
    def reason(self) -> str:
        """Why the change is (or is not) disruptive."""
        return DISRUPTION.get(self.kind, DISRUPTION["other"])[1]


@dataclass
class PlatformPlan:
    """What a platform helper found for one device."""

    changes: list[Change] = field(default_factory=list)
    rollback: list[str] | None = None
    """The whole rollback set when not per change (hier-config, host capture)."""
    hint: str | None = None
    """How to apply it safely (e.g. ``nv config apply --confirm``)."""
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Fix:
    """A vendor-neutral change one finding asks for, on one device (a remedy's output).

    ``setting`` names what to change; ``value`` is the target (see
    :mod:`rocetune.render.remedy` for the settings and their values). The platform's
    ``changeset.remediate`` turns fixes into native changes that edit the running config's
    own objects in place.
    """

    device: str
    port: str | None
    setting: str
    value: object
    fingerprint: str | None
    """The finding it fixes (None: a follow-up other fixes need)."""
    code: str
    because: str | None = None


def ordered(changes: list[Change]) -> list[Change]:
    """Non-disruptive first, then disruptive; the platform's order is kept within each."""
    return [c for c in changes if not c.disruptive] + [c for c in changes if c.disruptive]


Remediator = Callable[[list[Fix], Snapshot, Device, Callable[[], dict[str, str]]], PlatformPlan]
"""``(fixes, running snapshot, parsed device, render intended) -> the smallest native change
set``; the last argument renders the device's intended files on demand (SONiC reads its
buffer profiles from them)."""
Simulator = Callable[[Snapshot, list[str]], Snapshot]
"""Replay change texts on a snapshot the way the device applies them."""
ChangeSet = Callable[[Snapshot, dict[str, str], Device, DeviceTarget], PlatformPlan]
"""``(running snapshot, rendered files, device, tuned target) -> the full change set``
(``rocetune plan --converge``)."""


@dataclass(frozen=True, kw_only=True)
class Planner:
    """How a platform turns findings and intent into native changes, and writes them down."""

    remediate: Remediator
    simulate: Simulator
    changeset: ChangeSet
    safe_apply: str
    """The name of the platform's safe-apply method in the plan JSON (docs/plan.md)."""
    native: Literal["patch", "commands"] = "commands"
    """How a change text appears in the plan JSON: a JSON Patch op or command lines."""
    fix_ext: str = "sh"
    """Extension of ``render --only-fix`` files (``apply/<device>.fix.<ext>``)."""
    comment: str = "#"
    """Comment mark in those files (unused for ``patch`` files, which are JSON)."""
    prelude: tuple[str, ...] = ()
    """First lines of those files (a host script's ``#!/bin/sh``)."""
    config_files: tuple[str, ...] | None = None
    """Snapshot file-name prefixes that hold the configuration a plan changes (its
    ``running_config_hash``); None = every file except the operational outputs."""


def lazy_changeset(module: str) -> ChangeSet:
    """The ``changeset`` function of ``module``, imported on first use: only ``rocetune plan
    --converge`` diffs whole running configs, so loading a platform (an audit, its ``fix:``
    lines) does not load hier-config and its models."""

    def changeset(
        snapshot: Snapshot, rendered: dict[str, str], device: Device, target: DeviceTarget
    ) -> PlatformPlan:
        from importlib import import_module

        real: ChangeSet = import_module(module).changeset
        return real(snapshot, rendered, device, target)

    return changeset


def without_intent(remediate: Callable[[list[Fix], Snapshot, Device], PlatformPlan]) -> Remediator:
    """A :data:`Remediator` from a remediation that never needs the rendered intent."""

    def remediator(
        fixes: list[Fix], snapshot: Snapshot, device: Device, intended: Callable[[], dict[str, str]]
    ) -> PlatformPlan:
        del intended
        return remediate(fixes, snapshot, device)

    return remediator
