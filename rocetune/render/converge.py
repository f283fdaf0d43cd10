"""``rocetune plan --converge``: per device, the full change set from running to intended.

Running = the device's snapshot (SONiC CONFIG_DB JSON, NVUE YAML, EOS/NX-OS running-config;
hosts: the collected values); intended = the full render of :mod:`rocetune.render`. Each
platform's ``changeset.py`` diffs them in its own syntax (its ``Planner.changeset``); this module
marks each change disruptive or not (:mod:`rocetune.platforms.changes`) and orders it:
non-disruptive changes first, then disruptive ones, each group in the platform's dependency
order.
"""

from __future__ import annotations

from typing import Any

from rocetune.errors import RocetuneError
from rocetune.model import Device
from rocetune.platforms import get_driver
from rocetune.platforms.changes import Change, PlatformPlan, ordered
from rocetune.render.device_plan import DevicePlan, Status
from rocetune.render.run import render_device
from rocetune.snapshot import Snapshot
from rocetune.tune.target import device_target


def _rollback(plan: PlatformPlan, changes: list[Change]) -> list[str]:
    if plan.rollback is not None:
        return plan.rollback
    return [c.rollback for c in reversed(changes) if c.rollback]


def plan_device(name: str, device: Device, snapshot: Snapshot, fabric: Any) -> DevicePlan:
    """Render ``device`` and diff it against ``snapshot``."""
    driver = get_driver(device.platform)
    if driver is None or driver.planner is None:
        return DevicePlan(name, device.platform, "skipped", "no change-set support")
    rendered = render_device(fabric, name)
    if rendered.status != "rendered":
        status: Status = "error" if rendered.status == "error" else "skipped"
        return DevicePlan(name, device.platform, status, rendered.message)
    try:
        target = device_target(device, fabric.intent, fabric.links)
        got = driver.planner.changeset(
            snapshot, {f.path: f.text for f in rendered.files}, device, target
        )
    except (ValueError, RocetuneError) as exc:
        return DevicePlan(name, device.platform, "error", f"{name}: {exc}")
    changes = ordered(got.changes)
    status = "changes" if changes else "no-change"
    notes = [*rendered.notes, *got.notes]
    return DevicePlan(
        name, device.platform, status, "", changes, _rollback(got, got.changes), got.hint, notes
    )
