"""The EOS apply driver against the EOS lab engine, in process (fault points of apply)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rocetune.platforms.common.cli_tx import UnreadableOutput, mode_script, plan_lines
from rocetune.platforms.eos.transaction import (
    EosTransaction,
    seconds_left,
    timer_sessions,
    timer_text,
)
from rocetune.platforms.transaction import DeviceChanges, TransactionError, TxContext
from tests.lab.engines.cli_session import CliEngineSession
from tests.lab.engines.eos import EosEngine

SPINE1 = Path(__file__).resolve().parents[3] / "inventories/lab/snapshots/spine1"
TAG = "rocetune-r1-spine1"
LINES = [
    "interface Ethernet1/1",
    "   mtu 9000",
    "qos profile ROCE_FABRIC",
    "   tx-queue 3",
    "      bandwidth percent 40",
    "priority-flow-control pause watchdog default timeout 0.3",
]
CHANGES = DeviceChanges("spine1", "eos", ({"commands": LINES[:2]}, {"commands": LINES[2:]}))


def _lab(**options: Any) -> tuple[EosEngine, CliEngineSession, str]:
    engine = EosEngine("spine1", {"snapshot": str(SPINE1), **options})
    return engine, CliEngineSession(engine, "eos"), engine.running_text()


def _intended() -> str:
    """The config the plan should give: the lines typed into plain configuration mode."""
    engine, session, _ = _lab()
    for line in ["configure", *mode_script(plan_lines(CHANGES.changes)), "end"]:
        session.run(line)
    return engine.running_text()


def _tx(run: str = "r1") -> EosTransaction:
    return EosTransaction(TxContext(run, "spine1", "CHG-1"))


@pytest.mark.parametrize(
    ("shape", "base"),
    [("4.31", "epoch"), ("4.31", "uptime"), ("4.32", "epoch"), ("4.32", "uptime")],
)
def test_happy_path_in_every_json_shape(shape: str, base: str) -> None:
    """Both pending-commit shapes and clocks; a skewed device clock does not matter."""
    engine, session, before = _lab(json_shape=shape, commit_time_base=base, clock_skew_s=-5400)
    tx = _tx()
    assert tx.precheck(session).foreign == ()
    tx.stage(session, CHANGES)
    assert engine.running_text() == before
    diff = tx.diff(session)
    assert "+   mtu 9000" in diff
    assert "-   mtu 9214" in diff
    tx.arm(session, 300)
    session.run("lab clock advance 100")
    state = tx.pending(session)
    assert state.armed
    assert state.name == TAG
    assert state.seconds_left == pytest.approx(200, abs=2)
    tx.confirm(session)
    assert not tx.pending(session).armed
    session.run("lab clock advance 1000")
    assert engine.running_text() == _intended()
    assert engine.startup is not None
    tx.save(session)
    assert "write memory" in session.sent
    assert session.sent.index("write memory") > session.sent.index(
        f"configure session {TAG} commit"
    )


def test_empty_diff_when_the_lines_are_already_there() -> None:
    """A plan already applied: the device's diff is empty."""
    engine, session, _ = _lab()
    for line in ["configure", "interface Ethernet1/1", "description leaf1_Ethernet0", "end"]:
        session.run(line)
    tx = _tx()
    tx.stage(
        session,
        DeviceChanges(
            "spine1", "eos", ({"commands": [*LINES[:1], "   description leaf1_Ethernet0"]},)
        ),
    )
    assert tx.diff(session) == ""
    tx.discard(session)
    assert engine.sessions[TAG].state == "aborted"


@pytest.mark.parametrize("state", ["pending", "timer"])
def test_foreign_session_refuses_stage(state: str) -> None:
    """An open session of someone else, or one with a pending timer: nothing is changed."""
    engine, session, before = _lab(foreign_session={"name": "netops", "state": state})
    tx = _tx()
    assert tx.precheck(session).foreign
    with pytest.raises(TransactionError, match="refusing"):
        tx.stage(session, CHANGES)
    assert TAG not in engine.sessions
    assert engine.running_text() == before


def test_refused_line_aborts_the_session() -> None:
    """A plan line the CLI refuses: the session is aborted, not left open."""
    engine, session, before = _lab(faults={"reject": ["bandwidth percent 40"]})
    with pytest.raises(TransactionError, match="Invalid input"):
        _tx().stage(session, CHANGES)
    assert engine.sessions[TAG].state == "aborted"
    assert engine.running_text() == before
    assert engine.prompt(1) == "spine1#"


@pytest.mark.parametrize(
    "line",
    [
        "interface Ethernet1/1\nshutdown",
        "write memory",
        "   end",
        "copy running-config x",
        "\x1b[A",
    ],
)
def test_unsafe_plan_lines_are_refused_before_anything_is_sent(line: str) -> None:
    _engine, session, _ = _lab()
    with pytest.raises(TransactionError):
        _tx().stage(session, DeviceChanges("spine1", "eos", ({"commands": [line]},)))
    assert session.sent == []


@pytest.mark.parametrize("run", ["r 1", "r1;reload", "r1\n", ""])
def test_unsafe_names_are_refused(run: str) -> None:
    with pytest.raises(TransactionError):
        EosTransaction(TxContext(run, "spine1", "CHG"))


@pytest.mark.parametrize(
    ("seconds", "text"), [(1, "00:00:01"), (300, "00:05:00"), (86399, "23:59:59")]
)
def test_timer_text(seconds: int, text: str) -> None:
    assert timer_text(seconds) == text


@pytest.mark.parametrize("seconds", [0, -5, 86400, 100000])
def test_timer_out_of_range_is_refused(seconds: int) -> None:
    """``hh:mm:ss`` has no day field: NAPALM's gmtime formatting wraps 24 h to 00:00:00."""
    with pytest.raises(TransactionError, match="commit timer"):
        timer_text(seconds)


def test_timer_expiry_reverts_and_confirm_fails() -> None:
    engine, session, before = _lab()
    tx = _tx()
    tx.stage(session, CHANGES)
    tx.arm(session, 120)
    session.run("lab clock advance 121")
    assert engine.running_text() == before
    assert not tx.pending(session).armed
    with pytest.raises(TransactionError, match="reverted"):
        tx.confirm(session)
    tx.rollback(session)  # after expiry: restores the copy, which changes nothing
    assert engine.running_text() == before


def test_commit_slower_than_its_timer() -> None:
    """The commit returns after its own timer fired: arm says so, the device is as before."""
    engine, session, before = _lab(faults={"delay": {f"configure session {TAG} commit": 400}})
    tx = _tx()
    tx.stage(session, CHANGES)
    with pytest.raises(TransactionError, match="not pending"):
        tx.arm(session, 300)
    assert engine.running_text() == before


def test_drop_before_arm_leaves_the_device_unchanged() -> None:
    engine, session, before = _lab(faults={"drop_before": [f"configure session {TAG} commit"]})
    tx = _tx()
    tx.stage(session, CHANGES)
    with pytest.raises(ConnectionError):
        tx.arm(session, 300)
    session = session.reconnect()
    recovered = _tx()  # a new driver object, as apply's recovery makes
    assert not recovered.pending(session).armed
    recovered.discard(session)
    assert engine.sessions[TAG].state == "aborted"
    assert engine.running_text() == before


def test_drop_after_arm_is_rolled_back_from_a_new_session() -> None:
    engine, session, before = _lab(faults={"drop_after": [f"configure session {TAG} commit"]})
    tx = _tx()
    tx.stage(session, CHANGES)
    with pytest.raises(ConnectionError):
        tx.arm(session, 300)
    session = session.reconnect()
    recovered = _tx()
    assert recovered.pending(session).armed
    recovered.rollback(session)
    assert engine.running_text() == before
    assert not recovered.pending(session).armed


@pytest.mark.parametrize("where", ["drop_before", "drop_after"])
def test_drop_during_confirm(where: str) -> None:
    """Before the confirm reached the device it is still armed (confirm again); after, the
    commit is confirmed (pending says not armed and the config is the plan's)."""
    engine, session, _ = _lab()
    tx = _tx()
    tx.stage(session, CHANGES)
    tx.arm(session, 300)
    session.run(f"lab fault {where} configure session {TAG} commit")
    with pytest.raises(ConnectionError):
        tx.confirm(session)
    session = session.reconnect()
    recovered = _tx()
    if where == "drop_before":
        assert recovered.pending(session).armed
        recovered.confirm(session)
    assert not recovered.pending(session).armed
    session.run("lab clock advance 1000")
    assert engine.running_text() == _intended()


def test_interactive_prompt_fails_the_step_and_is_answered_no() -> None:
    engine, session, _ = _lab(faults={"prompt": {"write memory": "Proceed? [confirm]"}})
    tx = _tx()
    tx.stage(session, CHANGES)
    tx.arm(session, 300)
    tx.confirm(session)
    with pytest.raises(TransactionError, match="interactive question"):
        tx.save(session)
    assert session.sent[-1] == "n"
    assert "   mtu 9000" not in _render_startup(engine)


def _render_startup(engine: EosEngine) -> str:
    from tests.lab.engines.clitree import render

    return render(engine.startup, 3)


def test_garbled_status_is_unreadable_not_refused() -> None:
    _, session, _ = _lab(faults={"garble": ["show configuration sessions"]})
    with pytest.raises(UnreadableOutput):
        _tx().precheck(session)


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


def test_rollback_that_fails_then_the_device_timer_fires() -> None:
    engine, session, before = _lab(faults={"rollback_fails": True})
    tx = _tx()
    tx.stage(session, CHANGES)
    tx.arm(session, 300)
    with pytest.raises(TransactionError, match="rollback"):
        tx.rollback(session)
    assert tx.pending(session).armed
    session.run("lab clock advance 301")
    assert engine.running_text() == before


def test_rollback_after_confirm_and_save_restores_running_and_startup() -> None:
    engine, session, before = _lab()
    tx = _tx()
    tx.stage(session, CHANGES)
    tx.arm(session, 300)
    tx.confirm(session)
    tx.save(session)
    engine.sessions.clear()  # EOS keeps one finished session: ours may be gone from the list
    again = _tx()
    again.rollback(session)
    again.save(session)
    assert engine.running_text() == before
    assert _render_startup(engine) == before


def test_save_is_refused_while_armed() -> None:
    engine, session, before = _lab()
    tx = _tx()
    tx.stage(session, CHANGES)
    tx.arm(session, 300)
    with pytest.raises(TransactionError, match="not confirmed"):
        tx.save(session)
    assert _render_startup(engine) == before


def test_max_open_sessions_of_others_are_foreign() -> None:
    _engine, session, _ = _lab()
    for n in range(5):
        session.run(f"configure session other{n}")
        session.run("end")
    assert len(_tx().precheck(session).foreign) == 5


def test_seconds_left_reads_epoch_and_uptime_expiries() -> None:
    version = {"uptime": 1000.0, "bootupTimestamp": 1_796_000_000.0}
    assert seconds_left(1_796_001_300.0, version) == 300
    assert seconds_left(1300.0, version) == 300
    assert seconds_left(None, version) is None
    assert seconds_left(900.0, version) == 0


def test_timer_sessions_reads_both_shapes() -> None:
    old = {
        "sessions": {
            "a": {"state": "pendingCommitTimer", "commitBy": 5.0},
            "b": {"state": "completed"},
        }
    }
    new = {
        "sessions": {"a": {"state": "committed"}},
        "commitTimerSessionName": "a",
        "commitTimerExpireTime": -1,
    }
    assert timer_sessions(old) == {"a": 5.0}
    assert timer_sessions(new) == {"a": None}
    assert timer_sessions({"sessions": {"a": {"state": "committed"}}}) == {}
