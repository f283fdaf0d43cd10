"""Count the plan's replays and per-device checks (tests of how much work a plan does)."""

from __future__ import annotations

from typing import Any

import pytest

from rocetune.render import plan as plan_module


def count_replays_and_checks(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str]]:
    """Wrap ``plan._replay`` and ``plan._Ctx.check``; the lists fill with device names."""
    replays: list[str] = []
    checks: list[str] = []
    replay, check = plan_module._replay, plan_module._Ctx.check

    def counting_replay(ctx: Any, name: str, *args: Any) -> Any:
        replays.append(name)
        return replay(ctx, name, *args)

    def counting_check(self: Any, name: str, *args: Any) -> Any:
        checks.append(name)
        return check(self, name, *args)

    monkeypatch.setattr(plan_module, "_replay", counting_replay)
    monkeypatch.setattr(plan_module._Ctx, "check", counting_check)
    return replays, checks
