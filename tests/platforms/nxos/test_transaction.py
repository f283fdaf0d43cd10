"""The NX-OS apply driver against the NX-OS lab engine, in process (fault points of apply)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from rocetune.platforms.common.cli_tx import UnreadableOutput, mode_script, plan_lines
from rocetune.platforms.nxos.transaction import (
    NxosTransaction,
    device_time,
    schedules,
    start_time,
    user_checkpoints,
)
from rocetune.platforms.transaction import DeviceChanges, TransactionError, TxContext
from tests.lab.engines.cli_session import CliEngineSession
from tests.lab.engines.clitree import render
from tests.lab.engines.nxos import NxosEngine

SPINE2 = Path(__file__).resolve().parents[3] / "inventories/lab/snapshots/spine2"
TAG = "rocetune-r1-spine2"
LINES = [
    "policy-map type queuing custom-8q-out-policy",
    "  class type queuing c-out-8q-q3",
    "    random-detect minimum-threshold 1600 kbytes maximum-threshold 6400 kbytes"
    " drop-probability 20 weight 0 ecn",
    "interface Ethernet1/1",
    "  mtu 9000",
    "priority-flow-control watch-dog-interval on",
]
CHANGES = DeviceChanges("spine2", "nxos", ({"commands": LINES[:3]}, {"commands": LINES[3:]}))


def _lab(**options: Any) -> tuple[NxosEngine, CliEngineSession, str]:
    engine = NxosEngine("spine2", {"snapshot": str(SPINE2), **options})
    return engine, CliEngineSession(engine, "nxos"), engine.running_text()


def _intended(**options: Any) -> str:
    engine, session, _ = _lab(**options)
    for line in ["configure terminal", *mode_script(plan_lines(CHANGES.changes)), "end"]:
        session.run(line)
    return engine.running_text()


def _tx(run: str = "r1") -> NxosTransaction:
    return NxosTransaction(TxContext(run, "spine2", "CHG-1"))


def test_happy_path_leaves_exactly_the_plan() -> None:
    """Armed: the schedule is in the config; confirmed: old config + plan lines only."""
    engine, session, before = _lab(clock_skew_s=-86_000)
    tx = _tx()
    assert tx.precheck(session).foreign == ()
    tx.stage(session, CHANGES)
    assert engine.running_text() == before
    predicted = tx.diff(session)
    assert "+  mtu 9000" in predicted
    assert "-  mtu 9214" in predicted
    assert "+priority-flow-control watch-dog-interval on" in predicted
    tx.arm(session, 300)
    text = engine.running_text()
    assert f"scheduler schedule name {TAG}" in text
    assert "mtu 9000" in text
    assert "ecn" in tx.diff(session)
    state = tx.pending(session)
    assert state.armed
    assert state.seconds_left is not None
    assert 300 <= state.seconds_left <= 360
    session.run("lab clock advance 200")
    tx.confirm(session)
    assert not tx.pending(session).armed
    session.run("lab clock advance 1000")
    assert engine.running_text() == _intended()
    tx.save(session)
    assert render(engine.startup, 2) == _intended()


def test_scheduler_that_was_on_stays_on(tmp_path: Path) -> None:
    source = (SPINE2 / "show_running_config.txt").read_text(encoding="utf-8")
    config = tmp_path / "running.txt"
    config.write_text(source.replace("feature lldp\n", "feature lldp\nfeature scheduler\n"))
    engine, session, _ = _lab(running_config=str(config))
    tx = _tx()
    tx.stage(session, CHANGES)
    tx.arm(session, 300)
    _tx().confirm(session)  # a new driver object (resume) knows from the checkpoint
    assert "feature scheduler" in engine.running_text()
    assert _intended(running_config=str(config)) == engine.running_text()


def test_scheduler_that_was_off_is_turned_off_by_a_new_driver_object() -> None:
    engine, session, _ = _lab()
    tx = _tx()
    tx.stage(session, CHANGES)
    tx.arm(session, 300)
    assert "feature scheduler" in engine.running_text()
    _tx().confirm(session)
    assert "feature scheduler" not in engine.running_text()


def test_rotation_deletes_the_oldest_rocetune_checkpoint() -> None:
    names = ["rocetune-old1-spine2", "keep1", "rocetune-old2-spine2"] + [f"c{n}" for n in range(7)]
    engine, session, _ = _lab(checkpoints=names)
    _tx().stage(session, CHANGES)
    assert "rocetune-old1-spine2" not in engine.checkpoints
    assert "rocetune-old2-spine2" in engine.checkpoints
    assert TAG in engine.checkpoints
    assert len(engine.checkpoints) == 10


def test_full_checkpoint_table_without_rocetune_ones_is_refused() -> None:
    engine, session, before = _lab(checkpoints=[f"c{n}" for n in range(10)])
    with pytest.raises(TransactionError, match="limit"):
        _tx().stage(session, CHANGES)
    assert TAG not in engine.checkpoints
    assert engine.running_text() == before


def test_another_runs_armed_revert_refuses_stage() -> None:
    engine, session, before = _lab(foreign_schedule="rocetune-other-spine2")
    tx = _tx()
    assert tx.precheck(session).foreign
    with pytest.raises(TransactionError, match="refusing"):
        tx.stage(session, CHANGES)
    assert TAG not in engine.checkpoints
    assert engine.running_text() == before


def test_checkpoint_lock_of_another_user_refuses_stage() -> None:
    engine, session, before = _lab(foreign_lock=True)
    with pytest.raises(TransactionError, match="Another checkpoint"):
        _tx().stage(session, CHANGES)
    assert engine.running_text() == before


def test_timer_expiry_reverts_everything_and_discard_cleans_up() -> None:
    engine, session, before = _lab()
    tx = _tx()
    tx.stage(session, CHANGES)
    tx.arm(session, 120)
    session.run("lab clock advance 181")
    assert engine.running_text() == before
    with pytest.raises(TransactionError, match="ran"):
        tx.confirm(session)
    _tx().discard(session)
    assert TAG not in engine.checkpoints


def test_drop_while_entering_lines_is_rolled_back_from_a_new_session() -> None:
    engine, session, before = _lab(faults={"drop_before": ["interface Ethernet1/1"]})
    tx = _tx()
    tx.stage(session, CHANGES)
    with pytest.raises(ConnectionError):
        tx.arm(session, 300)
    session = session.reconnect()
    recovered = _tx()
    assert recovered.pending(session).armed  # the revert was armed before any line
    recovered.rollback(session)
    assert engine.running_text() == before
    assert not recovered.pending(session).armed


def test_drop_after_confirm_reads_back_as_confirmed() -> None:
    engine, session, _ = _lab()
    tx = _tx()
    tx.stage(session, CHANGES)
    tx.arm(session, 300)
    session.run("lab fault drop_after no feature scheduler")
    with pytest.raises(ConnectionError):
        tx.confirm(session)
    session = session.reconnect()
    assert not _tx().pending(session).armed
    session.run("lab clock advance 1000")
    assert "mtu 9000" in engine.running_text()


def test_rollback_that_fails_then_the_device_revert_fires() -> None:
    """A verification failure is a refusal; the scheduled revert still runs (and fails too:
    the lab fails every rollback), so the state stays changed: a human is needed."""
    engine, session, before = _lab(faults={"rollback_fails": True})
    tx = _tx()
    tx.stage(session, CHANGES)
    tx.arm(session, 300)
    with pytest.raises(TransactionError, match="Verification failed"):
        tx.rollback(session)
    assert engine.running_text() != before


def test_garbled_clock_is_unreadable_and_changes_nothing() -> None:
    engine, session, before = _lab(faults={"garble": ["show clock"]})
    tx = _tx()
    tx.stage(session, CHANGES)
    with pytest.raises(UnreadableOutput):
        tx.arm(session, 300)
    assert engine.running_text() == before
    assert not tx.pending(session).armed


def test_reboot_while_armed_boots_the_old_config() -> None:
    engine, session, before = _lab()
    tx = _tx()
    tx.stage(session, CHANGES)
    tx.arm(session, 300)
    with pytest.raises(ConnectionError):
        session.run("lab reboot")
    session = session.reconnect()
    assert engine.running_text() == before
    assert not tx.pending(session).armed


def test_save_only_after_confirm_and_rollback_after_save() -> None:
    engine, session, before = _lab()
    tx = _tx()
    tx.stage(session, CHANGES)
    tx.arm(session, 300)
    with pytest.raises(TransactionError, match="not confirmed"):
        tx.save(session)
    tx.confirm(session)
    tx.save(session)
    again = _tx()
    again.rollback(session)
    again.save(session)
    assert engine.running_text() == before
    assert render(engine.startup, 2) == before


@pytest.mark.parametrize("seconds", [0, 29, 86_401])
def test_revert_time_out_of_range_is_refused(seconds: int) -> None:
    _, session, _ = _lab()
    tx = _tx()
    tx.stage(session, CHANGES)
    with pytest.raises(TransactionError, match=r"30\.\.86400"):
        tx.arm(session, seconds)


def test_interactive_prompt_on_save() -> None:
    _, session, _ = _lab(faults={"prompt": {"copy running-config": "Overwrite (y/n)?"}})
    tx = _tx()
    tx.stage(session, CHANGES)
    tx.arm(session, 300)
    tx.confirm(session)
    with pytest.raises(TransactionError, match="interactive question"):
        tx.save(session)


def test_parsers() -> None:
    assert device_time("13:05:31.123 UTC Thu Dec 03 2026\nTime source is NTP\n") == datetime(
        2026, 12, 3, 13, 5, 31
    )
    with pytest.raises(UnreadableOutput):
        device_time("garbage")
    assert start_time(datetime(2026, 12, 3, 13, 5, 31), 300) == datetime(2026, 12, 3, 13, 11)
    assert start_time(datetime(2026, 12, 3, 13, 5, 0), 300) == datetime(2026, 12, 3, 13, 10)
    summary = (
        "User Checkpoint Summary\n----\n1) a:\nCreated by admin\nDescription: None\n\n"
        "2) rocetune-x:\nDescription: rocetune-scheduler-was-off\n"
        "System Checkpoint Summary\n----\n1) system-fm-vrrp:\n"
    )
    assert user_checkpoints(summary) == {"a": "None", "rocetune-x": "rocetune-scheduler-was-off"}
    listing = (
        "Schedule Name       : s\nSchedule Type       : Run once on Thu Dec 03 13:10:00 2026\n"
        "Last Execution Time : Yet to be executed\n"
    )
    assert schedules(listing) == {"s": (datetime(2026, 12, 3, 13, 10), True)}


def test_refused_line_rolls_back_at_once() -> None:
    """A plan line refused after the revert went in: back to the checkpoint now (state known)."""
    engine, session, before = _lab(faults={"reject": ["mtu 9000"]})
    tx = _tx()
    tx.stage(session, CHANGES)
    with pytest.raises(TransactionError, match="rolled back to checkpoint"):
        tx.arm(session, 300)
    assert engine.running_text() == before
    assert not tx.pending(session).armed
    assert engine.prompt(1) == "spine2# "


def test_refused_line_and_failing_rollback_is_an_unknown_state() -> None:
    _, session, _ = _lab(faults={"reject": ["mtu 9000"], "rollback_fails": True})
    tx = _tx()
    tx.stage(session, CHANGES)
    with pytest.raises(UnreadableOutput, match="failed"):
        tx.arm(session, 300)


def test_session_lost_while_entering_the_revert_is_cleaned_by_discard() -> None:
    engine, session, before = _lab(faults={"drop_after": [f"scheduler job name {TAG}"]})
    tx = _tx()
    tx.stage(session, CHANGES)
    with pytest.raises(ConnectionError):
        tx.arm(session, 300)
    session = session.reconnect()
    recovered = _tx()
    assert not recovered.pending(session).armed
    recovered.discard(session)
    assert engine.running_text() == before
    assert TAG not in engine.checkpoints


def test_lines_already_there_predict_an_empty_diff() -> None:
    """Nothing to apply: the replay of the plan on running config changes nothing."""
    _, session, _ = _lab()
    present = ["interface Ethernet1/1", "  mtu 9214", "  priority-flow-control mode on"]
    tx = _tx()
    tx.stage(session, DeviceChanges("spine2", "nxos", ({"commands": present},)))
    assert tx.diff(session) == ""
    tx.discard(session)
