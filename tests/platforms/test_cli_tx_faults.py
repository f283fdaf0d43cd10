"""EOS and NX-OS drivers under a dropped session at every command of an apply (Hypothesis).

The run is the one ``rocetune apply`` makes (precheck, stage, diff, arm, pending, confirm,
save); the connection drops before or after the k-th command. Recovery is the one of the
apply contract: a new session and a new driver object, ``pending``; armed -> ``rollback``,
else ``discard``. Whatever k is, the device ends with the config from before or the planned
one, with no revert left armed and no rocetune object left in the config, and stays so
when time passes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rocetune.platforms import drivers
from rocetune.platforms.common.cli_tx import UnreadableOutput, mode_script, plan_lines
from rocetune.platforms.transaction import DeviceChanges, TransactionError, TxContext
from rocetune.session import Output
from tests.lab.engines.cli_engine import CliEngine
from tests.lab.engines.cli_session import CliEngineSession
from tests.lab.engines.clitree import render
from tests.lab.engines.eos import EosEngine
from tests.lab.engines.nxos import NxosEngine

SNAPSHOTS = Path(__file__).resolve().parents[2] / "inventories/lab/snapshots"
PLANS: dict[str, list[list[str]]] = {
    "eos": [
        ["interface Ethernet1/1", "   mtu 9000"],
        ["qos profile ROCE_FABRIC", "   tx-queue 3", "      bandwidth percent 40"],
        ["priority-flow-control pause watchdog default timeout 0.3"],
    ],
    "nxos": [
        [
            "policy-map type queuing custom-8q-out-policy",
            "  class type queuing c-out-8q-q3",
            "    random-detect minimum-threshold 1600 kbytes maximum-threshold 6400 kbytes"
            " drop-probability 20 weight 0 ecn",
        ],
        ["interface Ethernet1/1", "  mtu 9000"],
        ["priority-flow-control watch-dog-interval on"],
    ],
}


class DroppingSession(CliEngineSession):
    """Drops the connection before or after its ``at``-th command."""

    def __init__(self, engine: CliEngine, platform: str, at: int, after: bool) -> None:
        super().__init__(engine, platform)
        self.at, self.after, self.count = at, after, 0

    def run(self, command: str) -> Output:
        n, self.count = self.count, self.count + 1
        if n == self.at and not self.after:
            self.close()
            raise ConnectionError(f"dropped before {command!r}")
        out = super().run(command)
        if n == self.at:
            self.close()
            raise ConnectionError(f"dropped after {command!r}")
        return out


def _engine(platform: str, shape: str) -> CliEngine:
    if platform == "eos":
        return EosEngine("spine1", {"snapshot": str(SNAPSHOTS / "spine1"), "json_shape": shape})
    return NxosEngine("spine2", {"snapshot": str(SNAPSHOTS / "spine2")})


def _intended(platform: str, changes: DeviceChanges) -> str:
    engine = _engine(platform, "4.32")
    session = CliEngineSession(engine, platform)
    for line in ["configure terminal", *mode_script(plan_lines(changes.changes)), "end"]:
        session.run(line)
    return engine.running_text()


def _apply(platform: str, engine: CliEngine, changes: DeviceChanges, at: int, after: bool) -> str:
    """One apply with a drop at command ``at``; the outcome ("done" or "recovered")."""
    name = engine.device
    context = TxContext("r1", name, "CHG-1")
    session = DroppingSession(engine, platform, at, after)
    tx: Any = drivers()[platform].transaction(context)
    try:
        tx.precheck(session)
        tx.stage(session, changes)
        tx.diff(session)
        tx.arm(session, 300)
        if tx.pending(session).armed:
            tx.confirm(session)
            tx.save(session)
            return "done"
    except (ConnectionError, TransactionError, UnreadableOutput):
        pass
    fresh = CliEngineSession(engine, platform, conn=9)
    recovery: Any = drivers()[platform].transaction(context)
    if recovery.pending(fresh).armed:
        recovery.rollback(fresh)
    else:
        recovery.discard(fresh)
    return "recovered"


@settings(max_examples=80, deadline=None)
@given(
    platform=st.sampled_from(["eos", "nxos"]),
    shape=st.sampled_from(["4.31", "4.32"]),
    groups=st.sets(st.integers(0, 2), min_size=1),
    at=st.integers(0, 45),
    after=st.booleans(),
)
def test_a_drop_anywhere_ends_before_or_planned(
    platform: str, shape: str, groups: set[int], at: int, after: bool
) -> None:
    lines = [{"commands": PLANS[platform][g]} for g in sorted(groups)]
    engine = _engine(platform, shape)
    changes = DeviceChanges(engine.device, platform, tuple(lines))
    before, intended = engine.running_text(), _intended(platform, changes)
    outcome = _apply(platform, engine, changes, at, after)
    now = engine.running_text()
    assert now in (before, intended)
    assert "rocetune" not in now
    if outcome == "done":
        assert now == intended
        assert render(engine.startup, engine.dialect.indent) == intended
    fresh = CliEngineSession(engine, platform, conn=10)
    fresh.run("lab clock advance 7200")
    assert engine.running_text() == now  # nothing armed is left to fire later
