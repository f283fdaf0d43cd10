"""The EOS lab engine: one test per documented behaviour it relies on (source in each)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rocetune.platforms import drivers
from rocetune.snapshot import Snapshot, SourceFile
from tests.lab.engines import make_engine
from tests.lab.engines.eos import EosEngine

SPINE1 = Path(__file__).resolve().parents[3] / "inventories/lab/snapshots/spine1"


def _engine(**options: Any) -> EosEngine:
    engine = make_engine("spine1", {"kind": "eos", "snapshot": str(SPINE1), **options})
    assert isinstance(engine, EosEngine)
    return engine


def _run(engine: EosEngine, *commands: str, conn: int = 1) -> str:
    out = ""
    for command in commands:
        engine.tick()
        reply = engine.handle(conn, command)
        assert reply is not None, command
        out = reply.text
    return out


def _sessions(engine: EosEngine) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_run(engine, "show configuration sessions detail | json"))
    return data


def test_running_config_starts_from_the_snapshot_and_parses() -> None:
    """Initial running config = the snapshot file; rocetune's EOS parser reads the output."""
    engine = _engine()
    text = _run(engine, "show running-config")
    assert text == (SPINE1 / "show_running_config.txt").read_text(encoding="utf-8")
    snap = Snapshot({"show_running_config.txt": SourceFile("show_running_config.txt", text)})
    device = drivers()["eos"].parse(snap, "spine1", "spine").device
    assert "Ethernet1/1" in device.ports


def test_session_is_a_snapshot_and_commit_overwrites_later_changes() -> None:
    """Arista EOS manual, *Configure session* (arista.com/um-eos/eos-configure-session): a
    session copies running config when created; on commit running config gets the session's
    config, "overwriting any other configuration changes made since it creates the session"."""
    engine = _engine()
    _run(engine, "configure session s1", "interface Ethernet1/1", "mtu 9000", "end")
    _run(engine, "configure", "hostname other", "end", conn=2)  # a change after the session
    assert "hostname other" in _run(engine, "show running-config")
    assert "mtu 9000" not in _run(engine, "show running-config")  # staged is not active
    _run(engine, "configure session s1 commit")
    text = _run(engine, "show running-config")
    assert "   mtu 9000" in text
    assert "hostname spine1" in text  # last writer wins: the later change is gone


def test_session_diffs_are_a_unified_diff() -> None:
    """``show session-config diffs`` in the session (null.53bits.co.uk configuration-session
    example) and ``show session-config named S diffs`` outside it show running vs session."""
    engine = _engine()
    _run(engine, "configure session s1", "interface Ethernet1/1", "mtu 9000")
    inside = _run(engine, "show session-config diffs")
    _run(engine, "end")
    named = _run(engine, "show session-config named s1 diffs")
    assert inside == named
    assert "-   mtu 9214" in named
    assert "+   mtu 9000" in named
    assert named.startswith("--- system:/running-config")


def test_prompts_follow_the_modes() -> None:
    """EOS prompts: ``host#``, ``host(config)#``, ``host(config-s-NAME)#`` in a session."""
    engine = _engine()
    assert engine.prompt(1) == "spine1#"
    _run(engine, "configure session s1")
    assert engine.prompt(1) == "spine1(config-s-s1)#"
    _run(engine, "interface Ethernet1/1")
    assert engine.prompt(1) == "spine1(config-s-s1-if-Et1/1)#"
    _run(engine, "end")
    assert engine.prompt(1) == "spine1#"


def test_commit_timer_reverts_unless_committed_again() -> None:
    """Arista commit-timer TOI (eos.arista.com/author/7261-skommu): ``commit timer hh:mm:ss``
    rolls the session's changes back unless confirmed by "a second commit of that session";
    the revert is a config replace to a checkpoint (syslog in SUNET/cnaas-nms#395)."""
    engine = _engine()
    before = _run(engine, "show running-config")
    _run(engine, "configure session s1", "interface Ethernet1/1", "mtu 9000", "end")
    assert _run(engine, "configure session s1 commit timer 00:05:00") == ""
    assert "mtu 9000" in _run(engine, "show running-config")
    _run(engine, "lab clock advance 301")
    assert _run(engine, "show running-config") == before
    _run(engine, "configure session s2", "interface Ethernet1/1", "mtu 9000", "end")
    _run(engine, "configure session s2 commit timer 00:05:00")
    _run(engine, "lab clock advance 200")
    _run(engine, "configure session s2 commit")  # confirm
    _run(engine, "lab clock advance 600")
    assert "mtu 9000" in _run(engine, "show running-config")


def test_abort_while_the_timer_runs_rolls_back() -> None:
    """Arista commit-timer TOI: ``configure session S abort`` ends a pending commit."""
    engine = _engine()
    before = _run(engine, "show running-config")
    _run(engine, "configure session s1", "interface Ethernet1/1", "mtu 9000", "end")
    _run(engine, "configure session s1 commit timer 01:00:00")
    _run(engine, "configure session s1 abort")
    assert _run(engine, "show running-config") == before


def test_pending_json_shape_before_4_32() -> None:
    """napalm-automation/napalm#2166, EOS <= 4.31: the session's state is
    ``pendingCommitTimer`` with ``commitBy``; ``maxOpenSessions`` 5, ``maxSavedSessions`` 1."""
    engine = _engine(json_shape="4.31")
    _run(engine, "configure session s1", "interface Ethernet1/1", "mtu 9000", "end")
    _run(engine, "configure session s1 commit timer 00:10:00")
    data = _sessions(engine)
    assert data["sessions"]["s1"]["state"] == "pendingCommitTimer"
    assert data["sessions"]["s1"]["commitBy"] == pytest.approx(engine.epoch() + 600, abs=2)
    assert "commitTimerSessionName" not in data
    assert (data["maxOpenSessions"], data["maxSavedSessions"]) == (5, 1)


def test_pending_json_shape_from_4_32() -> None:
    """napalm-automation/napalm#2166, EOS 4.32+: sessions say ``committed`` at once; the
    top-level ``commitTimerSessionName`` / ``commitTimerExpireTime`` exist only while pending."""
    engine = _engine(json_shape="4.32", commit_time_base="uptime")
    _run(engine, "configure session s1", "interface Ethernet1/1", "mtu 9000", "end")
    _run(engine, "configure session s1 commit timer 00:10:00")
    data = _sessions(engine)
    assert data["sessions"]["s1"]["state"] == "committed"
    assert data["commitTimerSessionName"] == "s1"
    assert data["commitTimerExpireTime"] == pytest.approx(engine.uptime() + 600, abs=2)
    _run(engine, "configure session s1 commit")
    assert "commitTimerSessionName" not in _sessions(engine)


def test_max_open_sessions() -> None:
    """napalm#2166 sample: ``maxOpenSessions: 5``; leaked sessions block new ones (napalm
    #1041/#1042). The error wording is the lab's own."""
    engine = _engine()
    for n in range(5):
        _run(engine, f"configure session s{n}", "end")
    assert _run(engine, "configure session s5").startswith("% ")


def test_no_commit_in_another_session_while_a_timer_is_pending() -> None:
    """gcotone in napalm PR #1266: Arista does not allow a commit in another named session
    while a commit timer is pending."""
    engine = _engine(foreign_session={"name": "netops", "state": "timer"})
    _run(engine, "configure session mine", "interface Ethernet1/1", "mtu 9000", "end")
    assert _run(engine, "configure session mine commit").startswith("% Cannot commit")
    assert "mtu 9000" not in _run(engine, "show running-config")


def test_reboot_loses_pending_sessions_and_boots_startup() -> None:
    """Arista manual: an uncommitted session "will be discarded if the switch reboots";
    startup config changes only with ``write memory`` (NAPALM writes it on confirm only), so
    a reboot while the timer runs boots the old config."""
    engine = _engine()
    before = _run(engine, "show running-config")
    _run(engine, "configure session s1", "interface Ethernet1/1", "mtu 9000", "end")
    _run(engine, "configure session s1 commit timer 00:05:00")
    _run(engine, "configure session s2", "end")
    reply = engine.handle(1, "lab reboot")
    assert reply is not None
    assert reply.disconnect
    assert _run(engine, "show running-config", conn=2) == before
    assert _sessions(engine)["sessions"] == {}


def test_write_memory_and_configure_replace() -> None:
    """``write memory`` saves; ``copy running-config flash:F`` and ``configure replace
    flash:F`` (Arista Warrior 2nd ed. ch. 9) restore a saved copy."""
    engine = _engine()
    before = _run(engine, "show running-config")
    assert "Copy completed successfully" in _run(engine, "copy running-config flash:a.cfg")
    _run(engine, "configure", "hostname x", "end", "write memory")
    assert "hostname x" in _run(engine, "show startup-config")
    _run(engine, "configure replace flash:a.cfg")
    assert _run(engine, "show running-config") == before
    assert _run(engine, "configure replace flash:missing.cfg").startswith("% ")


def test_fault_knobs() -> None:
    """Drops before/after a command, a slow command, an interactive prompt, garbled output,
    rejected commands and clock skew (lab faults, not vendor behaviour)."""
    engine = _engine(clock_skew_s=3600)
    assert engine.epoch() - engine.clock.now() > 1_796_300_000 + 3599
    _run(engine, "lab fault drop_before configure session x")
    reply = engine.handle(1, "configure session x")
    assert reply is not None
    assert reply.disconnect
    assert "x" not in _sessions(engine)["sessions"]
    _run(engine, "lab fault drop_after configure session x")
    reply = engine.handle(1, "configure session x")
    assert reply is not None
    assert reply.disconnect
    engine.connection_lost(1)  # the server reports the dropped connection
    assert "x" in _sessions(engine)["sessions"]
    _run(engine, "lab fault prompt write memory|Proceed? [confirm]")
    assert _run(engine, "write memory") == "Proceed? [confirm]"
    assert "Copy completed" in _run(engine, "y")
    _run(engine, "lab fault garble show version")
    with pytest.raises(json.JSONDecodeError):
        json.loads(_run(engine, "show version | json"))
    _run(engine, "lab fault reject interface Ethernet1/1")
    assert _run(engine, "configure", "interface Ethernet1/1") == "% Invalid input\n"
    t0 = engine.clock.now()
    _run(engine, "end", "lab fault clear", "lab fault delay 90 write memory", "write memory")
    assert engine.clock.now() - t0 >= 90


def test_unknown_options_and_faults_are_refused() -> None:
    """A typo in a knob fails loudly instead of testing nothing."""
    with pytest.raises(ValueError, match="unknown engine options"):
        _engine(json_shap="4.31")
    with pytest.raises(ValueError, match="unknown engine faults"):
        _engine(faults={"drop_befor": ["x"]})


def test_faults_in_the_linux_engines_form() -> None:
    """``lab fault {json}`` and list-form ``faults``, as tests/lab/engines/box.py takes them,
    so one test can inject faults into every platform's engine."""
    engine = _engine(faults=[{"kind": "fail", "on": "write memory"}])
    assert _run(engine, "write memory").startswith("% Error")
    assert "Copy completed" in _run(engine, "write memory")  # times: 1
    _run(engine, 'lab fault {"kind": "slow", "on": "write memory", "seconds": 400}')
    t0 = engine.clock.now()
    _run(engine, "write memory")
    assert engine.clock.now() - t0 >= 400
    _run(engine, 'lab fault {"kind": "drop_after", "on": "configure session z"}')
    reply = engine.handle(1, "configure session z")
    assert reply is not None
    assert reply.disconnect
    state = json.loads(_run(engine, "lab state", conn=2))
    assert "fault drop_after on configure session z" in state["log"]
    with pytest.raises(ValueError, match="unknown fault kind"):
        _run(engine, 'lab fault {"kind": "explode", "on": "x"}')
