"""The plan's re-checks share the per-device part of fabric-wide rules (RT705, RT306, the RoCE
scope; rocetune.checks.memo) so that planning N changed devices is not N fabric-wide passes,
and each re-check is made in delta form (rocetune.engine.recheck: findings only on the
devices the change can affect). The plan must be the one made without either: pinned here
on the lab, on a fleet where every device changes, and on generated fabrics with
fabric-wide faults planted (RT705 outliers, an RT706 hop, an RT708 peer link)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchmarks.fabricgen import generate
from benchmarks.plan_scale import inventory
from rocetune.api import fixes
from rocetune.checks import memo
from rocetune.cli import cli
from rocetune.render import plan as plan_module

LAB = Path(__file__).resolve().parents[2] / "inventories" / "lab" / "inventory.yaml"


def _plans(inventory_path: Path) -> list[str]:
    runner = CliRunner()
    out = []
    for fail_on in ("error", "info"):
        args = ["plan", "--no-cache", "--format", "json", "--fail-on", fail_on]
        got = runner.invoke(cli, [*args, str(inventory_path)])
        assert got.exit_code in {0, 1}, got.output
        out.append(got.output)
    return out


def _compare(inventory_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    shared = _plans(inventory_path)
    with monkeypatch.context() as m:
        m.setattr(plan_module, "shared_per_device", contextlib.nullcontext)
        alone = _plans(inventory_path)
        m.setattr(fixes, "replay_recheck", None)  # and each re-check two full lints
        slow = _plans(inventory_path)
    assert shared == alone == slow
    return shared


def test_lab_plan_equals_the_unshared_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    got = json.loads(_compare(LAB, monkeypatch)[1])
    assert any(d["changes"] for d in got["devices"])


def test_every_device_changed_plan_equals_the_unshared_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    got = json.loads(_compare(inventory(tmp_path, 9), monkeypatch)[0])
    assert sum(1 for d in got["devices"] if d["changes"]) >= 6


@pytest.mark.parametrize("hosts", [True, False])
def test_generated_fabric_plan_equals_the_unshared_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hosts: bool
) -> None:
    made = generate(tmp_path / "fabric", 0.01 if hosts else 0.02, hosts=hosts)
    text = "\n".join(_compare(made.inventory, monkeypatch))
    for code in ("RT705", "RT706", "RT708"):
        assert code in text


def test_sharing_is_by_identity_and_only_inside_the_block() -> None:
    calls: list[int] = []

    def compute() -> int:
        calls.append(1)
        return len(calls)

    a, b = object(), object()
    assert memo.per_device(("x",), (a,), compute) == 1  # outside: always computed
    assert memo.per_device(("x",), (a,), compute) == 2
    with memo.shared_per_device():
        assert memo.per_device(("x",), (a,), compute) == 3
        assert memo.per_device(("x",), (a,), compute) == 3
        assert memo.per_device(("y",), (a,), compute) == 4
        assert memo.per_device(("x",), (b,), compute) == 5
    assert memo.per_device(("x",), (a,), compute) == 6
