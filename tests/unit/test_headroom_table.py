"""tools/headroom_table.py: the issue 12 closing table is computed, not typed in."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

TOOL = Path(__file__).parents[2] / "tools" / "headroom_table.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("headroom_table", TOOL)
    assert spec is not None
    assert spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["headroom_table"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_issue_table_rocetune_equals_lua() -> None:
    rows = _tool().nvidia_rows(every=False, lua=None)
    skus = {r[0] for r in rows}
    assert {"ACS-MSN2700", "ACS-MSN3800", "ACS-MSN4600C", "ACS-MSN4700", "ACS-SN5600"} <= skus
    assert all(r[6] == "+0" for r in rows)
    row = next(r for r in rows if r[:3] == ["ACS-MSN4600C", "400G", "300m"])
    assert row[3:6] == ["274432", "373760", "274432"]


def test_broadcom_rows_against_the_estimate() -> None:
    rows = _tool().broadcom_rows()
    assert len(rows) > 1000
    below = [r for r in rows if int(r[5]) < 0]
    assert below
    assert all(r[2] == "300m" for r in below)


def test_main_prints_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert _tool().main([]) == 0
    out = capsys.readouterr().out
    assert "| SKU | speed | cable | lua xoff |" in out
    assert "largest |rocetune - lua| = 0 B" in out
