"""SONiC apply driver against the stateful SONiC engine, in process.

Engine behaviours cite sonic-utilities ``config/main.py`` / ``generic_config_updater/
generic_updater.py`` (code reading) and the SONiC GCU design document; the research notes
are in the repository's apply documentation.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from rocetune.platforms.sonic.pfc_priority import read_pfc_priority
from rocetune.platforms.sonic.transaction import SonicTransaction, validate_patch
from rocetune.platforms.transaction import DeviceChanges, TransactionError
from tests.lab.engines.sonic import SonicEngine
from tests.platforms.transaction.kit import SNAPSHOT, changes, engine, session, transaction


def _sonic(**options: Any) -> SonicEngine:
    eng = engine("leaf1", **options)
    assert isinstance(eng, SonicEngine)
    return eng


def _patched(eng: SonicEngine) -> dict[str, Any]:
    port = eng.original["PORT_QOS_MAP"]["Ethernet8"]
    return {
        "pfc": eng.running["PORT_QOS_MAP"]["Ethernet8"].get("pfc_enable"),
        "wd": eng.running.get("PFC_WD", {}).get("Ethernet8"),
        "before": port.get("pfc_enable"),
    }


def _armed(eng: SonicEngine, seconds: int = 300) -> tuple[Any, Any]:
    s = session(eng)
    tx = transaction("leaf1")
    assert tx.precheck(s).foreign == ()
    tx.stage(s, changes("leaf1"))
    tx.arm(s, seconds)
    return tx, s


# --- driver -----------------------------------------------------------------------------
def test_happy_path_checkpoint_dry_run_timer_apply_confirm_save() -> None:
    eng = _sonic()
    s = session(eng)
    tx = transaction("leaf1")
    assert tx.precheck(s).armed is False
    tx.stage(s, changes("leaf1"))
    assert eng.running == eng.original, "stage changes nothing"
    assert '"/PORT_QOS_MAP/Ethernet8/pfc_enable"' in tx.diff(s)
    tx.arm(s, 300)
    assert tx.pending(s).armed
    assert _patched(eng)["pfc"] == "3"
    tx.confirm(s)
    assert not tx.pending(s).armed
    tx.save(s)
    assert eng.startup == eng.running
    assert eng.checkpoints == {}
    assert not any(p.startswith("/tmp/") for p in eng.box.files)
    order = [c.split()[:3] for c in s.sent if c.startswith("sudo ")]
    assert order.index(["sudo", "config", "checkpoint"]) < order.index(
        ["sudo", "config", "apply-patch"]
    )
    dry = s.sent.index("sudo config apply-patch -d /tmp/rocetune-r1-leaf1.patch.json")
    timer = next(i for i, c in enumerate(s.sent) if c.startswith("sudo systemd-run"))
    apply = s.sent.index("sudo config apply-patch /tmp/rocetune-r1-leaf1.patch.json")
    assert dry < timer < apply, "dry run first, timer armed before the real apply"
    assert (
        "sudo systemd-run --unit=rocetune-r1-leaf1-revert --on-active=300s "
        "config rollback rocetune-r1-leaf1" in s.sent
    )
    assert "sudo systemctl stop rocetune-r1-leaf1-revert.timer" in s.sent
    assert s.sent.index("sudo config save -y") > s.sent.index(
        "sudo systemctl stop rocetune-r1-leaf1-revert.timer"
    )


def test_timer_expiry_reverts_on_the_box_and_confirm_fails() -> None:
    eng = _sonic()
    tx, s = _armed(eng, 60)
    eng.control("clock advance 61")
    assert eng.running == eng.original
    assert eng.box.fired == ["rocetune-r1-leaf1-revert"]
    assert tx.pending(s).armed is False
    with pytest.raises(TransactionError, match="fired"):
        tx.confirm(s)
    tx.rollback(s)  # idempotent after the box rolled back
    assert eng.running == eng.original
    assert eng.checkpoints == {}


def test_apply_patch_failing_mid_way_is_partial_then_rolled_back() -> None:
    """GCU design document: no automatic rollback, "the user should take care of it"."""
    eng = _sonic(fail_at=3)
    s = session(eng)
    tx = transaction("leaf1")
    tx.stage(s, changes("leaf1"))  # the dry run validates, it does not fail at change 3
    with pytest.raises(TransactionError, match="Failed to apply patch"):
        tx.arm(s, 300)
    assert eng.running != eng.original, "GCU has no automatic rollback: half applied"
    tx.rollback(s)
    assert eng.running == eng.original
    assert not eng.box.timers


def test_drift_since_stage_aborts_before_anything_is_applied() -> None:
    """generic_updater.py: ConfigLock.acquire_lock is a TODO: nothing stops another writer."""
    eng = _sonic()
    s = session(eng)
    tx = transaction("leaf1")
    tx.stage(s, changes("leaf1"))
    eng.control('set /DEVICE_METADATA/localhost/hostname "someone-else"')
    with pytest.raises(TransactionError, match="changed since stage"):
        tx.arm(s, 300)
    assert not eng.box.timers
    assert eng.running["PORT_QOS_MAP"] == eng.original["PORT_QOS_MAP"]
    tx.discard(s)
    assert eng.checkpoints == {}


def test_other_runs_checkpoint_and_timer_are_foreign() -> None:
    eng = _sonic()
    other, s = _armed(eng)
    mine = transaction("leaf1", run_id="r2")
    foreign = mine.precheck(session(eng)).foreign
    assert "timer rocetune-r1-leaf1-revert.timer" in foreign
    assert "checkpoint rocetune-r1-leaf1" in foreign
    assert other.precheck(s).armed is True


def test_rollback_failure_is_reported() -> None:
    eng = _sonic(rollback_fails=True)
    tx, s = _armed(eng)
    with pytest.raises(TransactionError, match="Failed to rollback"):
        tx.rollback(s)


@pytest.mark.parametrize(
    "bad",
    [
        {"op": "move", "path": "/A/b", "from": "/A/c"},
        {"op": "add", "path": "PORT/x", "value": 1},
        {"op": "add", "path": "/PORT/x\ny", "value": 1},
        {"op": "add", "path": "/PORT/x"},
        {"op": "add", "path": "/PORT/x", "value": 1, "extra": 2},
    ],
)
def test_invalid_patch_is_refused_before_anything_is_sent(bad: dict[str, Any]) -> None:
    eng = _sonic()
    s = session(eng)
    with pytest.raises(TransactionError):
        transaction("leaf1").stage(s, changes("leaf1", extra=({"patch": [bad]},)))
    assert s.sent == []


def test_patch_file_is_written_in_chunks_and_read_back() -> None:
    eng = _sonic()
    s = session(eng)
    missing = {"patch": [{"op": "replace", "path": "/PORT/Ethernet999/mtu", "value": "9100"}]}
    with pytest.raises(TransactionError, match="does not apply"):
        transaction("leaf1").stage(s, changes("leaf1", extra=(missing,)))
    value = {"op": "add", "path": "/PORT/Ethernet8/description", "value": "a'b" * 700}
    tx = transaction("leaf1")
    tx.stage(s, changes("leaf1", extra=({"patch": [value]},)))
    writes = [c for c in s.sent if c.startswith("printf ")]
    assert len(writes) > 1
    assert all(len(c) < 1000 for c in writes)
    assert json.loads(eng.box.files["/tmp/rocetune-r1-leaf1.patch.json"])[-1] == value


def test_saved_change_survives_reboot_unsaved_does_not() -> None:
    """SONiC config setup: `config save` writes /etc/sonic/config_db.json, loaded at boot."""
    eng = _sonic()
    tx, s = _armed(eng)
    tx.confirm(s)
    eng.control("reboot")
    assert eng.running == eng.original, "confirmed but not saved: gone after a reboot"
    eng2 = _sonic()
    tx2, s2 = _armed(eng2)
    tx2.confirm(s2)
    tx2.save(s2)
    patched = json.loads(json.dumps(eng2.running))
    eng2.control("reboot")
    assert eng2.running == patched


def test_reboot_while_armed_comes_back_unchanged() -> None:
    eng = _sonic()
    tx, _s = _armed(eng)
    eng.control("reboot")
    assert eng.running == eng.original
    assert not eng.box.timers
    assert tx.pending(session(eng)).armed is False


def test_rollback_after_save_applies_the_plan_rollback_and_saves() -> None:
    eng = _sonic()
    tx, s = _armed(eng)
    tx.confirm(s)
    tx.save(s)
    tx.rollback(s)
    assert eng.running == eng.original
    assert eng.startup == eng.original


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        ({"kind": "drop_before", "on": "sudo systemd-run"}, ConnectionError),
        ({"kind": "drop_after", "on": "sudo config apply-patch /tmp"}, ConnectionError),
        ({"kind": "garble", "on": "sudo config apply-patch /tmp"}, TransactionError),
    ],
)
def test_lost_or_garbled_arm_is_an_error_and_the_box_ends_unchanged(
    fault: dict[str, Any], error: type[Exception]
) -> None:
    """A lost session is not a refusal (state unknown: apply recovers); garbage is refused."""
    eng = _sonic(faults=[fault])
    s = session(eng)
    tx = transaction("leaf1")
    tx.stage(s, changes("leaf1"))
    with pytest.raises(error):
        tx.arm(s, 120)
    eng.control("clock advance 121")  # the controller never comes back: the timer decides
    assert eng.running == eng.original


def test_drop_during_confirm_leaves_the_timer_to_revert() -> None:
    eng = _sonic(faults=[{"kind": "drop_before", "on": "sudo systemctl stop"}])
    tx, s = _armed(eng, 120)
    with pytest.raises(ConnectionError):
        tx.confirm(s)
    s2 = session(eng)
    assert tx.pending(s2).armed, "nothing stopped: still armed"
    eng.control("clock advance 121")
    assert eng.running == eng.original


def test_commit_slower_than_the_timer_is_rolled_back_by_the_box() -> None:
    eng = _sonic(faults=[{"kind": "slow", "on": "sudo config apply-patch /tmp", "seconds": 200}])
    tx, s = _armed(eng, 120)
    assert tx.pending(s).armed is False
    assert eng.running == eng.original
    with pytest.raises(TransactionError):
        tx.confirm(s)


def test_interactive_prompt_is_answered_no_and_fails_the_step() -> None:
    eng = _sonic(faults=[{"kind": "prompt", "on": "sudo config checkpoint"}])
    s = session(eng)
    with pytest.raises(TransactionError, match="interactive question"):
        transaction("leaf1").stage(s, changes("leaf1"))
    assert s.sent[-1] == "n"
    assert eng.checkpoints == {}


def test_validate_patch_keeps_only_the_op_keys() -> None:
    ops = validate_patch(
        DeviceChanges("x", "sonic", ({"patch": [{"op": "remove", "path": "/A"}]},))
    )
    assert ops == [{"op": "remove", "path": "/A"}]
    assert SonicTransaction.platform == "sonic"


# --- engine behaviours ---------------------------------------------------------------
def test_engine_running_config_prints_the_snapshot_text_until_it_changes() -> None:
    """A plan's running-config hash is over the exact text: unchanged text, same hash."""
    eng = _sonic()
    s = session(eng)
    assert s.run("show runningconfiguration all").text == eng.original_text
    s.run(
        'printf \'%s\' \'[{"op":"add","path":"/PORT_QOS_MAP/Ethernet8/x","value":"1"}]\' > /tmp/p'
    )
    s.run("sudo config apply-patch /tmp/p")
    assert (
        json.loads(s.run("show runningconfiguration all").text)["PORT_QOS_MAP"]["Ethernet8"]["x"]
        == "1"
    )


def test_engine_dry_run_changes_nothing() -> None:
    """config/main.py: ``-d/--dry-run`` "test out the command without affecting config state"."""
    eng = _sonic()
    s = session(eng)
    s.run(
        'printf \'%s\' \'[{"op":"add","path":"/PORT_QOS_MAP/Ethernet8/x","value":"1"}]\' > /tmp/p'
    )
    out = s.run("sudo config apply-patch -d /tmp/p").text
    assert "** DRY RUN EXECUTION **" in out
    assert "Patch applied successfully." in out
    assert eng.running == eng.original


def test_engine_buffer_pool_changes_are_refused() -> None:
    """gcu_field_operation_validators.conf.json: BUFFER_POOL changes have an empty allow-list."""
    eng = _sonic()
    s = session(eng)
    pool = next(iter(eng.running["BUFFER_POOL"]))
    op = json.dumps([{"op": "replace", "path": f"/BUFFER_POOL/{pool}/size", "value": "1"}])
    s.run(f"printf '%s' '{op}' > /tmp/p")
    out = s.run("sudo config apply-patch /tmp/p")
    assert out.error is not None
    assert "Failed to apply patch" in out.text
    assert eng.running == eng.original


def test_engine_rollback_cannot_remove_auto_created_lossless_profiles() -> None:
    """sonic-buildimage#20664: GCU rollback fails on auto-created pg_lossless_* profiles."""
    eng = _sonic(protect_lossless_profiles=True)
    s = session(eng)
    s.run("sudo config checkpoint cp")
    op = [
        {
            "op": "add",
            "path": "/BUFFER_PROFILE/pg_lossless_400000_77m_profile",
            "value": {"xon": "1"},
        }
    ]
    s.run(f"printf '%s' '{json.dumps(op)}' > /tmp/p")
    assert "Patch applied successfully." in s.run("sudo config apply-patch /tmp/p").text
    out = s.run("sudo config rollback cp")
    assert "Failed to rollback config" in out.text
    assert out.error is not None


def test_engine_checkpoints_list_as_json_and_survive_reboot() -> None:
    """generic_updater.py: list-checkpoints prints a JSON list; /etc/sonic/checkpoints stays."""
    eng = _sonic()
    s = session(eng)
    assert "Checkpoint created successfully." in s.run("sudo config checkpoint a").text
    eng.control("reboot")
    assert json.loads(s.run("sudo config list-checkpoints").text) == ["a"]
    assert "Checkpoint deleted successfully." in s.run("sudo config delete-checkpoint a").text


def test_engine_clock_skew_does_not_move_relative_timers() -> None:
    """systemd.timer(5): OnActiveSec= is relative to activation (monotonic), not the wall clock."""
    eng = _sonic(clock_skew_s=-3600)
    s = session(eng)
    wall = int(s.run("date +%s").text)
    s.run("sudo config checkpoint c")
    s.run("sudo systemd-run --unit=u --on-active=10s config rollback c")
    eng.control("clock advance 11")
    assert eng.box.fired == ["u"]
    assert int(s.run("date +%s").text) - wall >= 11


def test_engine_show_pfc_priority_follows_port_qos_map(tmp_path: Path) -> None:
    """sonic-utilities pfc/main.py showPfcPrio: PORT_QOS_MAP pfc_enable per key, N/A unset."""
    snap = tmp_path / "leaf1"
    shutil.copytree(SNAPSHOT["leaf1"], snap)
    (snap / "show_pfc_priority.txt").write_text("\n", encoding="utf-8")
    eng = engine("leaf1", snapshot=str(snap))
    s = session(eng)
    op = [{"op": "add", "path": "/PORT_QOS_MAP/Ethernet8/pfc_enable", "value": "3,4"}]
    s.run(f"printf '%s' '{json.dumps(op)}' > /tmp/p")
    s.run("sudo config apply-patch /tmp/p")
    table = read_pfc_priority(s.run("show pfc priority").text)
    assert table.found
    assert table.problems == []
    assert table.ports["Ethernet8"][0] == (3, 4)
