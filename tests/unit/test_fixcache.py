"""The ``fix:`` lines' cache (rocetune.api.fixcache, issue 17): a repeated audit of unchanged
inputs plans nothing and gets the fixes of a fresh plan; a change to anything the plan reads
(a planned snapshot's text, the intent, the findings) is a new key, planned again."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from rocetune import api
from rocetune.api import fixcache
from rocetune.model import AuditResult
from rocetune.parsecache import ParseCache
from rocetune.render import plan as plan_module

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "inventories" / "lab"


@pytest.fixture
def plans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per remediation plan made (plan_fabric calls)."""
    seen: list[int] = []
    real = plan_module.plan_fabric

    def counting(*args: Any, **kwargs: Any) -> Any:
        seen.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(plan_module, "plan_fabric", counting)
    return seen


def _fixes(inventory: Path, cache: ParseCache | None) -> AuditResult:
    result = api.audit(inventory, cache=cache)
    api.attach_fixes(result, cache)
    return result


def test_repeated_audit_plans_nothing_and_gets_the_same_fixes(
    tmp_path: Path, plans: list[int]
) -> None:
    inventory = LAB / "inventory.yaml"
    plain = _fixes(inventory, None).fixes
    assert plain  # the lab has planted faults with fixes
    assert len(plans) == 1
    cold = _fixes(inventory, ParseCache(tmp_path / "c")).fixes
    warm = _fixes(inventory, ParseCache(tmp_path / "c")).fixes
    assert len(plans) == 2  # the warm run planned nothing
    assert list(cold.items()) == list(warm.items()) == list(plain.items())
    assert list((tmp_path / "c" / "fixes").rglob("*.json"))


def _lab_copy(tmp_path: Path) -> Path:
    lab = tmp_path / "lab"
    shutil.copytree(LAB, lab)
    return lab / "inventory.yaml"


def test_a_changed_planned_snapshot_or_intent_is_planned_again(
    tmp_path: Path, plans: list[int]
) -> None:
    inventory = _lab_copy(tmp_path)
    cache = tmp_path / "c"
    _fixes(inventory, ParseCache(cache))
    _fixes(inventory, ParseCache(cache))
    assert len(plans) == 1
    # a comment in a planned device's running config: the same model, another text to edit
    config = inventory.parent / "snapshots" / "spine1" / "show_running_config.txt"
    assert config.is_file()
    config.write_text(config.read_text() + "! edited\n")
    again = _fixes(inventory, ParseCache(cache))
    assert len(plans) == 2
    assert again.fixes == _fixes(inventory, None).fixes
    text = inventory.read_text().replace("detection_ms: 200", "detection_ms: 100")
    inventory.write_text(text)
    _fixes(inventory, ParseCache(cache))
    assert len(plans) == 4  # the uncached run above, then the new intent


def test_a_damaged_or_foreign_entry_is_a_miss(tmp_path: Path, plans: list[int]) -> None:
    inventory = LAB / "inventory.yaml"
    cache = tmp_path / "c"
    want = _fixes(inventory, ParseCache(cache)).fixes
    (entry,) = (cache / "fixes").rglob("*.json")
    entry.write_text('{"key": "another", "fixes": []}')
    assert _fixes(inventory, ParseCache(cache)).fixes == want
    entry.write_text("{not json")
    assert _fixes(inventory, ParseCache(cache)).fixes == want
    assert len(plans) == 3
    assert fixcache.load(ParseCache(cache), entry.stem) is not None  # rewritten
