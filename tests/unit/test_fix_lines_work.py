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
    api.attach_fixes(result)
    assert result.fixes
    assert len(set(checks)) == 9  # every lab device with a remediable finding
    assert replays == checks  # no replay of all changes at once for a summary
    assert whole == []
