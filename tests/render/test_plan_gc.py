"""The plan keeps what it made so far out of the cyclic collector's full passes: each
device's plan is settled (collected, then frozen) once made, and nothing stays frozen after."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

from rocetune import api
from rocetune.api import parsing
from rocetune.api.fixes import plan_audited, replay_lint
from rocetune.inventory import load_inventory
from rocetune.model import Severity
from rocetune.render.plan import Source
from tests.plan_counting import count_replays_and_checks

LAB = Path(__file__).resolve().parents[2] / "inventories" / "lab" / "inventory.yaml"


def test_the_plan_settles_after_each_device_and_leaves_nothing_frozen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    result = api.audit(LAB, processes=1)
    sources = [Source(e.name, e.platform, e.snapshot) for e in load_inventory(LAB).devices.values()]
    calls: list[int] = []
    settle = parsing._settle

    def counted() -> None:
        settle()
        calls.append(gc.get_freeze_count())

    monkeypatch.setattr(parsing, "_settle", counted)
    report = plan_audited(result, sources, replay_lint, Severity.ERROR)
    assert len(calls) == len(sources) == len(report.devices)
    assert all(calls)  # what each device's plan kept is frozen (api.parsing._settle)
    assert gc.get_freeze_count() == 0
    monkeypatch.undo()
    again = plan_audited(result, sources, replay_lint, Severity.ERROR)
    assert [d.changes for d in again.devices] == [d.changes for d in report.devices]


def test_the_summary_reuses_each_devices_checked_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    from rocetune.render import plan as plan_module
    from rocetune.render.plan_output import to_json

    plan_device = plan_module._plan_device
    replays, checks = count_replays_and_checks(monkeypatch)
    report = api.plan(LAB, processes=1)
    changed = [d.name for d in report.devices if d.changes]
    assert changed
    extra = len(replays) - len(checks)  # the summary's replays of all changes at once
    assert 0 <= extra < len(changed)  # only where the plan's order is not the order checked

    def without_reuse(*args: Any) -> Any:
        return plan_device(*args)[0], None

    monkeypatch.setattr(plan_module, "_plan_device", without_reuse)
    replays.clear()
    checks.clear()
    again = api.plan(LAB, processes=1)
    assert len(replays) - len(checks) == len(changed)
    assert to_json(again) == to_json(report)
