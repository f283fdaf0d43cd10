"""The orchestrator end to end on kv devices: happy path, faults, guard rails, the record."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.apply.states import DeviceState, RunState
from tests.apply.helpers import Lab, events

D = DeviceState


def test_happy_path_applies_confirms_saves(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    lab.add("leaf1", ("Ethernet0", "Ethernet4"))
    lab.add("leaf2")
    got = lab.run()
    assert got.exit_code == 0, got.reason
    assert got.state == RunState.COMPLETE
    assert got.states() == {"leaf1": D.DONE, "leaf2": D.DONE}
    for name, eng in lab.engines.items():
        assert eng.running == lab.intended[name]
        assert eng.startup == lab.intended[name]
        assert eng.armed is None
        assert not eng.staged
    evs = events(got)
    states = [e["state"] for e in evs if e["event"] == "device" and e["device"] == "leaf1"]
    assert states == [
        "PRECHECKED",
        "LOCKED",
        "STAGED",
        "ARMED",
        "VERIFYING",
        "CONFIRMED",
        "SAVED",
        "DONE",
    ]
    commands = [e["command"] for e in evs if e["event"] == "command" and e["device"] == "leaf1"]
    assert any(c.startswith("commit rocetune-") and c.endswith("timer 300") for c in commands)
    assert all(
        "s3cret" not in line for line in (got.directory / "audit.jsonl").read_text().splitlines()
    )


def test_stale_plan_changes_nothing(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    lab.add("leaf1")
    lab.add("leaf2")
    lab.engines["leaf2"].running["Ethernet8.mtu"] = "1500"  # someone changed it since the plan
    got = lab.run()
    assert got.state == RunState.REFUSED
    assert got.exit_code == 1
    assert "stale plan: leaf2" in got.reason
    assert all(e.log == ["show running"] for e in lab.engines.values())


@pytest.mark.parametrize(
    ("fault", "end"),
    [
        ("refuse-stage", D.ABORTED),
        ("garbled-diff", D.ABORTED),
        ("refuse-arm", D.ROLLED_BACK),
        ("drop-after-arm", D.ROLLED_BACK),
        ("drop-before-arm", D.ROLLED_BACK),
        ("slow-commit", D.ROLLED_BACK),
        ("reboot-armed", D.ROLLED_BACK),
        ("drop-before-confirm", D.ROLLED_BACK),
        ("drop-after-confirm", D.DONE),
        ("refuse-confirm", D.ROLLED_BACK),
        ("rollback-fails", D.DONE),
        ("foreign-session", D.ABORTED),
        ("refuse-save", D.STUCK),
    ],
)
def test_faults_end_safely(tmp_path: Path, fault: str, end: DeviceState) -> None:
    lab = Lab(tmp_path)
    lab.add("leaf1", fault=fault)
    got = lab.run(canary=0)
    state = got.states()["leaf1"]
    assert state == end, [e for e in events(got) if e["event"] == "device"]
    eng = lab.engines["leaf1"]
    if state == D.DONE:
        assert eng.running == lab.intended["leaf1"]
        assert eng.armed is None
    if state in (D.ROLLED_BACK, D.ABORTED):
        assert eng.running == lab.pre["leaf1"]
        assert got.exit_code == 1
    if state == D.STUCK:
        assert got.exit_code == 4


def test_gate_failure_rolls_back(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    lab.add("leaf1")
    # the plan fixes Ethernet0 but also breaks Ethernet8: a new error, the gate must refuse
    dev = lab.plan["devices"][0]
    dev["changes"][0]["commands"].append("set Ethernet8.mtu 1500")
    got = lab.run(canary=0)
    assert got.states()["leaf1"] == D.ROLLED_BACK
    assert lab.engines["leaf1"].running == lab.pre["leaf1"]
    gates = next(e for e in events(got) if e["event"] == "gates")["gates"]
    audit = next(g for g in gates if g["name"] == "audit")
    assert audit["status"] == "fail"
    assert "RT601 Ethernet8" in audit["detail"]


def test_rollback_that_never_works_is_stuck_after_the_timer(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    lab.add("leaf1", fault="rollback-fails-forever")
    dev = lab.plan["devices"][0]
    dev["changes"][0]["commands"].append("set Ethernet8.mtu 1500")  # fails the gate
    got = lab.run(canary=0)
    # the device timer reverted the armed commit even though the rollback command failed
    assert got.states()["leaf1"] == D.ROLLED_BACK
    assert lab.engines["leaf1"].fired == 1


def test_disruptive_needs_the_flag(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    lab.add("leaf1")
    lab.plan["devices"][0]["changes"][0]["disruptive"] = True
    got = lab.run()
    assert got.state == RunState.REFUSED
    assert "--allow-disruptive" in got.reason
    assert lab.engines["leaf1"].running == lab.pre["leaf1"]
    got = lab.run(allow_disruptive=True)
    assert got.states()["leaf1"] == D.DONE


def test_outside_window_is_refused(tmp_path: Path) -> None:
    from rocetune.apply.window import Window
    from tests.apply.kvlab import EPOCH

    lab = Lab(tmp_path)
    lab.add("leaf1")
    got = lab.run(window=Window(EPOCH + 3600, EPOCH + 7200))
    assert got.state == RunState.REFUSED
    assert "outside the maintenance window" in got.reason
    assert lab.engines["leaf1"].log == []


def test_window_too_short_for_a_wave_halts_before_it(tmp_path: Path) -> None:
    from rocetune.apply.window import Window
    from tests.apply.kvlab import EPOCH

    lab = Lab(tmp_path)
    lab.add("leaf1")
    got = lab.run(window=Window(EPOCH - 10, EPOCH + 200))
    assert got.state == RunState.HALTED
    assert "window has" in got.reason
    assert got.states()["leaf1"] == D.ABORTED
    assert lab.engines["leaf1"].running == lab.pre["leaf1"]


def test_unreachable_device_exit_3(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    lab.add("leaf1")
    lab.add("leaf2")
    lab.engines["leaf2"].down = True
    got = lab.run(canary=0, max_fail=1)
    assert got.states() == {"leaf1": D.DONE, "leaf2": D.ABORTED}
    assert got.exit_code == 3


def test_max_fail_halts_and_rolls_back_the_wave(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    for i in range(1, 5):
        lab.add(f"leaf{i}", fault="refuse-confirm" if i == 3 else "none")
    got = lab.run(canary=0, waves=("100%",))
    states = got.states()
    assert states["leaf3"] == D.ROLLED_BACK
    assert states["leaf1"] == D.ROLLED_BACK  # done, then rolled back with its wave
    assert got.state == RunState.HALTED
    assert got.exit_code == 1
    for name, eng in lab.engines.items():
        assert eng.running == lab.pre[name], name
        assert eng.startup == lab.pre[name], name


def test_dry_run_stages_diffs_and_discards(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    lab.add("leaf1")
    got = lab.run(dry_run=True)
    assert got.exit_code == 0
    assert got.states()["leaf1"] == D.ABORTED
    eng = lab.engines["leaf1"]
    assert eng.running == lab.pre["leaf1"]
    assert not eng.staged
    assert not any(c.startswith("commit") for c in eng.log)
    diffs = [e for e in events(got) if e["event"] == "diff"]
    assert diffs
    assert "+Ethernet0.mtu=9214" in diffs[0]["diff"]


def test_lease_refuses_a_second_run(tmp_path: Path) -> None:
    from rocetune.apply.record import RunLock
    from tests.apply.kvlab import EPOCH

    lab = Lab(tmp_path)
    lab.add("leaf1")
    lock = RunLock(tmp_path / "runs", lambda: EPOCH)
    lock.acquire("other", "CHG0", 3600)
    got = lab.run()
    assert got.state == RunState.REFUSED
    assert "locked by run other" in got.reason
    assert lab.engines["leaf1"].log == []


def test_verify_pairs_gate_the_canary_behind_them(tmp_path: Path) -> None:
    from rocetune.apply.fleet import Node, Topology
    from tests.apply.kvlab import KvFleet

    lab = Lab(tmp_path)
    lab.add("leaf1")
    lab.add("leaf2")
    lab.roles["gpu1"] = "host"
    lab.links = [("gpu1", "leaf1")]
    calls: list[tuple[tuple[str, str], ...]] = []

    class Failing(KvFleet):
        def verify(self, pairs):  # type: ignore[no-untyped-def]
            calls.append(tuple(pairs))
            return ["gpu1:eth2 -> gpu9:eth2: 12 Gb/s, below the line rate"]

    fleet = Failing(lab.engines)
    nodes = {n: Node(n, "kv", lab.roles[n]) for n in ("leaf1", "leaf2", "gpu1")}
    fleet.topology = Topology(nodes, (("gpu1", "leaf1"),))
    from rocetune.apply.planfile import load_plan
    from rocetune.apply.run import Run
    from tests.apply.kvlab import VirtualWallClock

    opts = lab.options(verify_pairs=(("gpu1:eth2", "gpu9:eth2"),))
    got = Run(fleet, opts, tmp_path / "runs", VirtualWallClock(lab.clock)).start(
        load_plan(lab.plan_path())
    )
    assert calls == [(("gpu1:eth2", "gpu9:eth2"),)]
    assert got.states()["leaf1"] == D.ROLLED_BACK  # the canary, behind the pair
    assert got.state == RunState.HALTED
    assert lab.engines["leaf2"].running == lab.pre["leaf2"]


def test_stop_signal_rolls_back_the_wave_in_flight(tmp_path: Path) -> None:
    import threading

    from rocetune.apply.planfile import load_plan
    from rocetune.apply.run import Run
    from rocetune.snapshot import Snapshot
    from tests.apply.kvlab import KvFleet, VirtualWallClock

    lab = Lab(tmp_path)
    lab.add("leaf1")
    lab.add("leaf2")
    stop = threading.Event()

    class Interrupted(KvFleet):
        def lint(self, device: str, snapshot: Snapshot):  # type: ignore[no-untyped-def]
            if device == "leaf2" and lab.engines["leaf2"].armed is not None:
                stop.set()  # Ctrl-C while leaf2's gates run
            return super().lint(device, snapshot)

    fleet = Interrupted(lab.engines, lab.fleet().topology)
    opts = lab.options(canary=0, waves=("100%",))  # one wave: leaf1 DONE before the stop
    run = Run(fleet, opts, tmp_path / "runs", VirtualWallClock(lab.clock), stop=stop)
    got = run.start(load_plan(lab.plan_path()))
    assert got.state == RunState.HALTED
    assert got.states() == {"leaf1": D.ROLLED_BACK, "leaf2": D.ROLLED_BACK}
    for name, eng in lab.engines.items():
        assert eng.running == lab.pre[name]
        assert eng.startup == lab.pre[name]


def test_a_save_cut_by_a_lost_session_is_retried(tmp_path: Path) -> None:
    from rocetune.apply.planfile import load_plan
    from rocetune.apply.run import Run
    from rocetune.platforms.transaction import TxContext
    from rocetune.session import Session
    from tests.apply.kvlab import KvFleet, KvTransaction, VirtualWallClock

    lab = Lab(tmp_path)
    lab.add("leaf1")
    cuts = [1]

    class Flaky(KvFleet):
        def transaction(self, device: str, context: TxContext) -> KvTransaction:
            tx = super().transaction(device, context)
            save = tx.save

            def flaky(session: Session) -> None:
                if cuts:
                    cuts.pop()
                    raise ConnectionError("connection lost during save")
                save(session)

            tx.save = flaky  # type: ignore[method-assign]
            return tx

    fleet = Flaky(lab.engines, lab.fleet().topology)
    got = Run(fleet, lab.options(canary=0), tmp_path / "runs", VirtualWallClock(lab.clock)).start(
        load_plan(lab.plan_path())
    )
    assert got.states() == {"leaf1": D.DONE}
    assert lab.engines["leaf1"].startup == lab.intended["leaf1"]
