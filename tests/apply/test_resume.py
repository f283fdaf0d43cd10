"""--resume after the controller died, --rollback RUN, --status RUN."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.apply.planfile import load_plan
from rocetune.apply.resume import resume_run, rollback_run, status
from rocetune.apply.run import Run
from rocetune.apply.states import DeviceState, RunState
from rocetune.platforms.transaction import TxContext
from rocetune.session import Session
from rocetune.snapshot import Snapshot
from tests.apply.helpers import Lab
from tests.apply.kvlab import KvFleet, KvTransaction, VirtualWallClock

D = DeviceState


class ControllerDied(BaseException):
    """The controller process vanished (nothing after this point ran)."""


class DyingFleet(KvFleet):
    """Dies on the n-th collection, or right after the device confirmed."""

    def __init__(self, *args: object, die_at: int = 0, after_confirm: bool = False) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.collections, self.die_at, self.after_confirm = 0, die_at, after_confirm

    def collect(self, device: str) -> Snapshot:
        self.collections += 1
        if self.die_at and self.collections == self.die_at:
            raise ControllerDied
        return super().collect(device)

    def transaction(self, device: str, context: TxContext) -> KvTransaction:
        tx = super().transaction(device, context)
        if self.after_confirm:

            def save(session: Session) -> None:
                raise ControllerDied

            tx.save = save  # type: ignore[method-assign]
        return tx


def _crash(lab: Lab, fleet: KvFleet) -> str:
    run = Run(fleet, lab.options(canary=0), lab.tmp / "runs", VirtualWallClock(lab.clock))
    with pytest.raises(ControllerDied):
        run.start(load_plan(lab.plan_path()))
    return run.run_id


def _resume(lab: Lab, run_id: str):  # type: ignore[no-untyped-def]
    clock = VirtualWallClock(lab.clock)
    return resume_run(lab.fleet(), lab.tmp / "runs", run_id, clock, None, None, lab.options())


def test_resume_rolls_back_an_armed_device_then_continues(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    lab.add("leaf1")
    lab.add("leaf2")
    # collections: 2 stale checks, leaf1 precheck (3), leaf1 gates (4) -> dies while armed
    fleet = DyingFleet(lab.engines, lab.fleet().topology, die_at=4)
    run_id = _crash(lab, fleet)
    assert bool(lab.engines["leaf1"].armed)
    got = _resume(lab, run_id)
    assert got.states() == {"leaf1": D.ROLLED_BACK, "leaf2": D.DONE}
    assert lab.engines["leaf1"].running == lab.pre["leaf1"]
    assert lab.engines["leaf1"].armed is None
    assert lab.engines["leaf2"].running == lab.intended["leaf2"]
    assert got.exit_code == 1
    text = status(tmp_path / "runs", run_id)
    assert "leaf1" in text
    assert "ROLLED_BACK" in text


def test_resume_finds_a_landed_confirm(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    lab.add("leaf1")
    fleet = DyingFleet(lab.engines, lab.fleet().topology, after_confirm=True)
    run_id = _crash(lab, fleet)
    eng = lab.engines["leaf1"]
    assert eng.armed is None
    assert eng.startup == lab.pre["leaf1"]  # confirmed, not saved
    got = _resume(lab, run_id)
    assert got.states() == {"leaf1": D.DONE}
    assert eng.startup == lab.intended["leaf1"]
    assert got.exit_code == 0


def test_resume_after_the_device_timer_fired(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    lab.add("leaf1")
    fleet = DyingFleet(lab.engines, lab.fleet().topology, die_at=3)  # gates of leaf1
    run_id = _crash(lab, fleet)
    lab.clock.advance(301)  # nobody confirmed: the device reverts by itself
    got = _resume(lab, run_id)
    assert got.states() == {"leaf1": D.ROLLED_BACK}
    assert lab.engines["leaf1"].fired == 1


def test_rollback_run_reverts_done_devices(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    lab.add("leaf1", ("Ethernet0", "Ethernet4"))
    lab.add("leaf2")
    first = lab.run()
    assert first.exit_code == 0
    clock = VirtualWallClock(lab.clock)
    got = rollback_run(
        lab.fleet(), tmp_path / "runs", first.run_id, lab.options(), clock, None, None
    )
    assert got.state == RunState.ROLLED_BACK, got.reason
    assert got.states() == {"leaf1": D.DONE, "leaf2": D.DONE}
    for name, eng in lab.engines.items():
        assert eng.running == lab.pre[name]
        assert eng.startup == lab.pre[name]


def test_rollback_run_refuses_a_device_changed_since(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    lab.add("leaf1")
    first = lab.run()
    lab.engines["leaf1"].running["Ethernet8.mtu"] = "1500"
    clock = VirtualWallClock(lab.clock)
    got = rollback_run(
        lab.fleet(), tmp_path / "runs", first.run_id, lab.options(), clock, None, None
    )
    assert got.states() == {"leaf1": D.ABORTED}
    assert "stale plan" in got.devices["leaf1"].reason
