"""The plan keeps what it made so far out of the cyclic collector's full passes: each
device's plan is settled (collected, then frozen) once made, and nothing stays frozen after."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from rocetune import api
from rocetune.api import parsing
from rocetune.api.fixes import plan_audited, replay_lint
from rocetune.inventory import load_inventory
from rocetune.model import Severity
from rocetune.render.plan import Source

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
