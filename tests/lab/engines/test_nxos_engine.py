"""The NX-OS lab engine: one test per documented behaviour it relies on (source in each)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rocetune.platforms import drivers
from rocetune.snapshot import Snapshot, SourceFile
from tests.lab.engines import make_engine
from tests.lab.engines.nxos import NxosEngine

SPINE2 = Path(__file__).resolve().parents[3] / "inventories/lab/snapshots/spine2"


def _engine(**options: Any) -> NxosEngine:
    engine = make_engine("spine2", {"kind": "nxos", "snapshot": str(SPINE2), **options})
    assert isinstance(engine, NxosEngine)
    return engine


def _run(engine: NxosEngine, *commands: str, conn: int = 1) -> str:
    out = ""
    for command in commands:
        engine.tick()
        reply = engine.handle(conn, command)
        assert reply is not None, command
        out = reply.text
    return out


def test_running_config_starts_from_the_snapshot_and_parses() -> None:
    """Initial running config = the snapshot file; rocetune's NX-OS parser reads it back
    after a change made through the CLI modes."""
    engine = _engine()
    assert _run(engine, "show running-config") == (SPINE2 / "show_running_config.txt").read_text(
        encoding="utf-8"
    )
    _run(engine, "configure terminal", "interface Ethernet1/1", "mtu 9000", "end")
    text = _run(engine, "show running-config")
    snap = Snapshot({"show_running_config.txt": SourceFile("show_running_config.txt", text)})
    device = drivers()["nxos"].parse(snap, "spine2", "spine").device
    assert device.ports["Ethernet1/1"].mtu == 9000


def test_prompts_follow_the_modes() -> None:
    """NX-OS prompts: ``host# ``, ``host(config)# ``, ``host(config-if)# ``,
    ``host(config-pmap-que)# ``, ``host(config-pmap-c-que)# ``."""
    engine = _engine()
    assert engine.prompt(1) == "spine2# "
    _run(engine, "configure terminal")
    assert engine.prompt(1) == "spine2(config)# "
    _run(engine, "policy-map type queuing custom-8q-out-policy")
    assert engine.prompt(1) == "spine2(config-pmap-que)# "
    _run(engine, "class type queuing c-out-8q-q3")
    assert engine.prompt(1) == "spine2(config-pmap-c-que)# "
    _run(engine, "interface Ethernet1/1")  # a top-level mode leaves the sub-modes
    assert engine.prompt(1) == "spine2(config-if)# "
    _run(engine, "exit", "exit")
    assert engine.prompt(1) == "spine2# "


def test_checkpoints_are_unique_and_at_most_ten() -> None:
    """N3548 System Management guide, *Configuring Rollback* (easymanua.ls p. 212): up to
    10 checkpoints, names must be unique. The error wording is the lab's own."""
    engine = _engine()
    for n in range(10):
        assert _run(engine, f"checkpoint c{n}") == "Done\n"
    assert _run(engine, "checkpoint c10").startswith("% ")
    _run(engine, "no checkpoint c0")
    assert _run(engine, "checkpoint c1").startswith("% ")
    assert _run(engine, "checkpoint c10") == "Done\n"
    summary = _run(engine, "show checkpoint summary")
    assert "1) c1:" in summary
    assert "10) c10:" in summary


def test_rollback_restores_the_checkpoint_and_can_fail() -> None:
    """N9K 10.5x *Configuring Rollback*: ``rollback running-config checkpoint NAME`` (atomic
    by default); a verification failure prints "Verification failed, Rolling back to
    previous configuration" (napalm-automation/napalm-ansible#168)."""
    engine = _engine()
    before = _run(engine, "show running-config")
    _run(engine, "checkpoint cp1 description test")
    assert "Description: test" in _run(engine, "show checkpoint summary")
    _run(engine, "configure terminal", "interface Ethernet1/1", "mtu 9000", "end")
    assert "completed successfully" in _run(engine, "rollback running-config checkpoint cp1")
    assert _run(engine, "show running-config") == before
    _run(engine, "configure terminal", "interface Ethernet1/1", "mtu 9000", "end")
    _run(engine, "lab fault rollback_fails")
    out = _run(engine, "rollback running-config checkpoint cp1 atomic")
    assert "Verification failed" in out
    assert "completed successfully" not in out
    assert "mtu 9000" in _run(engine, "show running-config")


def test_one_user_at_a_time() -> None:
    """N3548 guide: "Only one user can perform a checkpoint, rollback, or copy the running
    configuration to the startup configuration at the same time"."""
    engine = _engine(foreign_lock=True)
    assert _run(engine, "checkpoint cp1").startswith("% ")
    assert _run(engine, "copy running-config startup-config").startswith("% ")


def test_checkpoints_survive_a_reload_and_running_comes_from_startup() -> None:
    """N3548 guide: checkpoints are deleted only after ``write erase`` and a reload; running
    config after a reload is startup config (``copy running-config startup-config`` saves)."""
    engine = _engine()
    before = _run(engine, "show running-config")
    _run(engine, "checkpoint cp1")
    _run(engine, "configure terminal", "interface Ethernet1/1", "mtu 9000", "end")
    reply = engine.handle(1, "lab reboot")
    assert reply is not None
    assert reply.disconnect
    assert _run(engine, "show running-config", conn=2) == before
    assert "cp1" in _run(engine, "show checkpoint summary", conn=2)
    _run(engine, "configure terminal", "hostname x", "end", conn=2)
    assert "Copy complete." in _run(engine, "copy running-config startup-config", conn=2)
    assert "hostname x" in _run(engine, "show startup-config", conn=2)


def test_scheduler_runs_a_one_time_job_at_its_start_time() -> None:
    """N9K 10.5x *Configuring the Scheduler*: ``feature scheduler``, ``scheduler job name``
    (commands, ``end-job``), ``scheduler schedule name`` with ``job name`` and a one-time
    ``time start``; the job's commands run at that time (device clock)."""
    engine = _engine(clock_skew_s=-7200)  # the device clock is two hours behind
    assert "% Invalid" in _run(engine, "configure terminal", "scheduler job name j")
    at = time.strftime("%Y:%m:%d:%H:%M", time.gmtime(engine.epoch() + 180))
    _run(
        engine,
        "feature scheduler",
        "scheduler job name j",
        "copy running-config startup-config",
        "end-job",
        "scheduler schedule name j",
        "job name j",
        f"time start {at}",
        "exit",
        "interface Ethernet1/1",
        "mtu 9000",
        "end",
    )
    listing = _run(engine, "show scheduler schedule")
    assert "Schedule Name       : j" in listing
    assert "Yet to be executed" in listing
    _run(engine, "lab clock advance 60")
    assert "mtu 9000" not in _run(engine, "show startup-config")
    _run(engine, "lab clock advance 180")
    assert "mtu 9000" in _run(engine, "show startup-config")  # the job saved the config
    assert "Yet to be executed" not in _run(engine, "show scheduler schedule")
    assert any("schedule j runs" in line for line in engine.log)
