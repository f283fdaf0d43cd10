"""``rocetune plan``: per device, the ordered change set from running to intended, and rollback.

Running = the device's snapshot (SONiC CONFIG_DB JSON, NVUE YAML, EOS/NX-OS running-config;
hosts: the collected values); intended = the full render of :mod:`rocetune.render`. Each
platform's ``changeset.py`` diffs them in its own syntax (explicit registry below); this module
marks each change disruptive or not (:mod:`rocetune.platforms.changes`) and orders it:
non-disruptive changes first, then disruptive ones, each group in the platform's dependency
order.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from rocetune.errors import RocetuneError
from rocetune.model import Device
from rocetune.platforms.changes import Change, PlatformPlan, ordered
from rocetune.render.run import render_device
from rocetune.snapshot import Snapshot
from rocetune.tune.target import DeviceTarget, device_target

Planner = Callable[[Snapshot, dict[str, str], Device, DeviceTarget], PlatformPlan]
Status = Literal["changes", "no-change", "skipped", "error"]


def planners() -> dict[str, Planner]:
    """Platform -> its change-set function (explicit list)."""
    from rocetune.platforms.cumulus.changeset import changeset as cumulus
    from rocetune.platforms.eos.changeset import changeset as eos
    from rocetune.platforms.linux_host.changeset import changeset as linux_host
    from rocetune.platforms.nxos.changeset import changeset as nxos
    from rocetune.platforms.sonic.changeset import changeset as sonic

    return {"sonic": sonic, "cumulus": cumulus, "eos": eos, "nxos": nxos, "linux_host": linux_host}


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

    def to_json(self) -> dict[str, Any]:
        """The documented JSON shape of one device."""
        return {
            "device": self.name,
            "platform": self.platform,
            "status": self.status,
            "message": self.message,
            "changes": [
                {
                    "text": c.text,
                    "kind": c.kind,
                    "port": c.port,
                    "disruptive": c.disruptive,
                    "reason": c.reason,
                }
                for c in self.changes
            ],
            "rollback": self.rollback,
            "hint": self.hint,
            "notes": self.notes,
        }


def _rollback(plan: PlatformPlan, changes: list[Change]) -> list[str]:
    if plan.rollback is not None:
        return plan.rollback
    return [c.rollback for c in reversed(changes) if c.rollback]


def plan_device(name: str, device: Device, snapshot: Snapshot, fabric: Any) -> DevicePlan:
    """Render ``device`` and diff it against ``snapshot``."""
    planner = planners().get(device.platform)
    if planner is None:
        return DevicePlan(name, device.platform, "skipped", "no change-set support")
    rendered = render_device(fabric, name)
    if rendered.status != "rendered":
        status: Status = "error" if rendered.status == "error" else "skipped"
        return DevicePlan(name, device.platform, status, rendered.message)
    try:
        target = device_target(device, fabric.intent, fabric.links)
        got = planner(snapshot, {f.path: f.text for f in rendered.files}, device, target)
    except (ValueError, RocetuneError) as exc:
        return DevicePlan(name, device.platform, "error", f"{name}: {exc}")
    changes = ordered(got.changes)
    status = "changes" if changes else "no-change"
    notes = [*rendered.notes, *got.notes]
    return DevicePlan(
        name, device.platform, status, "", changes, _rollback(got, got.changes), got.hint, notes
    )


def to_json(plans: list[DevicePlan]) -> str:
    """JSON: a list of devices (see :meth:`DevicePlan.to_json`)."""
    return json.dumps([p.to_json() for p in plans], indent=2) + "\n"


def _device_text(p: DevicePlan) -> list[str]:
    head = f"== {p.name} ({p.platform or 'unknown platform'}): "
    if p.status in ("skipped", "error"):
        return [head + f"{p.status}: {p.message}"]
    if not p.changes:
        return [head + "no change"]
    n_dis = sum(c.disruptive for c in p.changes)
    lines = [head + f"{len(p.changes)} change(s), {n_dis} disruptive"]
    for i, c in enumerate(p.changes, 1):
        mark = "DISRUPTIVE" if c.disruptive else "hitless"
        where = f" [{c.port}]" if c.port else ""
        lines.append(f"  {i:>3}. {mark} {c.kind}{where}: {c.reason}")
        lines.extend(f"       {t}" for t in c.text.splitlines())
    lines.append("  rollback:")
    lines.extend(f"       {t}" for r in p.rollback for t in r.splitlines())
    if p.hint:
        lines.append(f"  apply: {p.hint}")
    lines.extend(f"  note: {n}" for n in p.notes)
    return lines


def to_text(plans: list[DevicePlan]) -> str:
    """Human-readable plan, one block per device."""
    return "\n".join(line for p in plans for line in _device_text(p)) + "\n"
