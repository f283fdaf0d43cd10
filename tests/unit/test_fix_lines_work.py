"""The reports' ``fix:`` lines plan each device without the plan's fabric-level summary
(issue 17, cold lab audit): every replay of a device's changes is one its re-check reads.
``tests/unit/test_fixcache.py`` checks the lines equal a full plan's (summary included)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rocetune import api
from rocetune.api import fixes
from tests.plan_counting import count_replays_and_checks

LAB = Path(__file__).resolve().parents[2] / "inventories" / "lab" / "inventory.yaml"


def test_fix_lines_replay_only_what_the_rechecks_read(monkeypatch: pytest.MonkeyPatch) -> None:
    result = api.audit(LAB)
    replays, checks = count_replays_and_checks(monkeypatch)
    whole: list[object] = []
    lint = fixes._region_lint

    def counting_lint(fabric: Any, provenance: Any, only: Any = None) -> Any:
        if only is None:
            whole.append(fabric)
        return lint(fabric, provenance, only)

    monkeypatch.setattr(fixes, "_region_lint", counting_lint)
    api.attach_fixes(result, processes=1)  # the counted re-checks are this process's
    assert result.fixes
    assert len(set(checks)) == 9  # every lab device with a remediable finding
    assert replays == checks  # no replay of all changes at once for a summary
    assert whole == []


def _count_device_runs(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Wrap the port and device rules' per-device runs; the list fills with the fabrics."""
    from rocetune.checks.base import DeviceRule, PortRule

    fabrics: list[object] = []
    for base in (PortRule, DeviceRule):
        run = base.run_device

        def counting(self: Any, dev: Any, ctx: Any, run: Any = run) -> Any:
            fabrics.append(ctx.fabric)
            return run(self, dev, ctx)

        monkeypatch.setattr(base, "run_device", counting)
    return fabrics


def test_rechecks_take_the_audits_records_of_what_a_change_leaves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rocetune.parsecache import ParseCache

    plain = api.audit(LAB)
    api.attach_fixes(plain)
    cache = ParseCache(tmp_path / "cache")
    result = api.audit(LAB, cache=cache)
    fabrics = _count_device_runs(monkeypatch)
    api.attach_fixes(result, cache, processes=1)  # the counted runs are this process's
    assert result.fixes == plain.fixes
    assert fabrics  # the replayed fabrics are checked
    assert not any(f is result.fabric for f in fabrics)  # the audited one: from its records

    again = api.audit(LAB)  # no cache: no records kept, the audited fabric is checked again
    fabrics.clear()
    api.attach_fixes(again, processes=1)
    assert again.fixes == plain.fixes
    assert any(f is again.fabric for f in fabrics)
