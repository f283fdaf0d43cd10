"""Linux host apply driver against the stateful host engine, in process (exec channels).

Engine behaviours cite the NVIDIA NIC Configuration Operator README (runtime settings are
"Non-persistent (need to be applied after each boot)") and the NVIDIA MFT ``mlxconfig``
documentation (next-boot values, "reboot the system" for them to take effect).
"""

from __future__ import annotations

from typing import Any

import pytest

from rocetune.platforms.linux_host.transaction import HostTransaction, parse_line
from rocetune.platforms.transaction import TransactionError
from tests.lab.engines.linux_host import HostEngine
from tests.platforms.transaction.kit import changes, engine, session, transaction

QOS = "mlnx_qos_i_eth2.txt"
CNP = "cat_sys_class_net_eth2_ecn_roce_np_cnp_dscp.txt"
FW_FILE = "mlxconfig_d_0000_17_00_0_q.txt"
FW = {
    "kind": "firmware",
    "disruptive": True,
    "commands": ["mlxconfig -d 0000:17:00.0 -y set CNP_DSCP_P1=48"],
}


def _host(device: str = "gpu02", **options: Any) -> HostEngine:
    eng = engine(device, **options)
    assert isinstance(eng, HostEngine)
    return eng


def _armed(eng: HostEngine, device: str = "gpu02", seconds: int = 300) -> tuple[Any, Any]:
    s = session(eng)
    tx = transaction(device)
    assert tx.precheck(s).foreign == ()
    tx.stage(s, changes(device))
    tx.arm(s, seconds)
    return tx, s


def test_happy_path_capture_timer_apply_confirm_save() -> None:
    eng = _host()
    s = session(eng)
    tx = transaction("gpu02")
    tx.stage(s, changes("gpu02"))
    assert eng.outputs == eng.boot, "stage only reads"
    script = eng.box.files["/var/lib/rocetune/rocetune-r1-gpu02.restore.sh"].splitlines()
    assert script == ["#!/bin/sh", "mlnx_qos -i eth2 --trust pcp"], (
        "trust was pcp: no DSCP map to capture, restoring pcp leaves it unused"
    )
    assert tx.diff(s).splitlines()[0] == "mlnx_qos -i eth2 --trust dscp"
    tx.arm(s, 300)
    timer = next(i for i, c in enumerate(s.sent) if c.startswith("systemd-run"))
    first = s.sent.index("mlnx_qos -i eth2 --trust dscp")
    assert timer < first, "restore timer armed before the first change"
    assert "Priority trust state: dscp" in eng.outputs[QOS]
    tx.confirm(s)
    assert not tx.pending(s).armed
    tx.save(s)
    assert "rocetune-boot.service" in eng.box.enabled
    boot = [p for p in eng.box.files if p.startswith("/etc/rocetune/boot.d/")]
    assert len(boot) == 1
    assert boot[0].endswith("-rocetune-r1-gpu02.sh")
    applied = dict(eng.outputs)
    eng.control("reboot")
    assert eng.outputs == applied, "the boot unit re-applies the confirmed values"


def test_timer_expiry_restores_the_captured_values() -> None:
    eng = _host("gpu03")
    tx, s = _armed(eng, "gpu03", 60)
    assert eng.outputs[CNP].strip() == "48"
    eng.control("clock advance 61")
    assert eng.outputs == eng.boot
    with pytest.raises(TransactionError, match="fired"):
        tx.confirm(s)


def test_confirmed_but_unsaved_is_lost_on_reboot() -> None:
    eng = _host("gpu04")
    tx, s = _armed(eng, "gpu04")
    tx.confirm(s)
    eng.control("reboot")
    assert eng.outputs == eng.boot, "runtime settings do not survive a reboot"


def test_rollback_after_save_restores_and_removes_the_boot_script() -> None:
    eng = _host("gpu04")
    tx, s = _armed(eng, "gpu04")
    tx.confirm(s)
    tx.save(s)
    tx.rollback(s)
    assert eng.outputs == eng.boot
    assert not any(p.startswith("/etc/rocetune/boot.d/") for p in eng.box.files)
    eng.control("reboot")
    assert eng.outputs == eng.boot


def test_rollback_after_reboot_uses_the_plan_rollback() -> None:
    eng = _host("gpu04")
    tx, s = _armed(eng, "gpu04")
    tx.confirm(s)
    tx.save(s)
    eng.control("reboot")  # /run is gone, the boot unit re-applied the change
    assert "0   0   0   1   0   0   0   0" in eng.outputs["mlnx_qos_i_eth3.txt"]
    tx.rollback(session(eng))
    assert eng.outputs == eng.boot


def test_mlxconfig_refused_unless_disruptive_allowed() -> None:
    eng = _host()
    s = session(eng)
    with pytest.raises(TransactionError, match="allow-disruptive"):
        transaction("gpu02").stage(s, changes("gpu02", disruptive=False, extra=(FW,)))
    assert s.sent == []
    hitless = {**FW, "disruptive": False}
    with pytest.raises(TransactionError, match="hitless"):
        transaction("gpu02").stage(s, changes("gpu02", disruptive=True, extra=(hitless,)))


def test_mlxconfig_allowed_is_next_boot_and_restored() -> None:
    eng = _host()
    s = session(eng)
    tx = transaction("gpu02")
    assert isinstance(tx, HostTransaction)
    tx.stage(s, changes("gpu02", disruptive=True, extra=(FW,)))
    script = eng.box.files["/var/lib/rocetune/rocetune-r1-gpu02.restore.sh"]
    assert "mlxconfig -d 0000:17:00.0 -y set CNP_DSCP_P1=" in script
    tx.arm(s, 300)
    assert tx.needs_reboot == ["mlxconfig -d 0000:17:00.0 -y set CNP_DSCP_P1=48"]
    assert eng.state()["fw_pending"] == tx.needs_reboot
    tx.rollback(s)
    assert eng.outputs == eng.boot


@pytest.mark.parametrize(
    "bad",
    [
        "mlnx_qos -i eth2;reboot --trust dscp",
        "mlnx_qos -i -eth2 --trust dscp",
        "mlnx_qos -i averyveryverylongname0 --trust dscp",
        "echo 1 > /etc/passwd",
        "echo 1 > /sys/class/net/../../etc/ecn/roce_np/cnp_dscp",
        "ip link set dev eth2 mtu 9000 && reboot",
        "rm -rf /",
        "mlnx_qos -i eth2 --dscp2prio set,99,3",
    ],
)
def test_unsafe_or_unknown_lines_are_refused_before_anything_is_sent(bad: str) -> None:
    eng = _host()
    s = session(eng)
    with pytest.raises(TransactionError):
        transaction("gpu02").stage(s, changes("gpu02", extra=({"commands": [bad]},)))
    assert s.sent == []


def test_parse_line_targets() -> None:
    assert parse_line("mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0").target == ("pfc", "eth2")
    assert parse_line("ip link set dev eth3 mtu 9000").read == "cat /sys/class/net/eth3/mtu"


def test_drop_before_arm_changes_nothing() -> None:
    eng = _host("gpu03", faults=[{"kind": "drop_before", "on": "systemd-run"}])
    s = session(eng)
    tx = transaction("gpu03")
    tx.stage(s, changes("gpu03"))
    with pytest.raises(ConnectionError):
        tx.arm(s, 60)
    assert eng.outputs == eng.boot
    assert not eng.box.timers


def test_drop_during_confirm_leaves_the_restore_timer_running() -> None:
    eng = _host("gpu03", faults=[{"kind": "drop_before", "on": "systemctl stop"}])
    tx, s = _armed(eng, "gpu03", 60)
    with pytest.raises(ConnectionError):
        tx.confirm(s)
    assert tx.pending(session(eng)).armed
    eng.control("clock advance 61")
    assert eng.outputs == eng.boot


def test_reboot_while_armed_drops_the_runtime_change_and_the_timer() -> None:
    eng = _host("gpu03")
    tx, _s = _armed(eng, "gpu03")
    eng.control("reboot")
    assert eng.outputs == eng.boot
    assert not eng.box.timers
    assert tx.pending(session(eng)).armed is False


def test_other_runs_restore_timer_is_foreign() -> None:
    eng = _host("gpu03")
    _armed(eng, "gpu03")
    other = transaction("gpu03", run_id="r9").precheck(session(eng))
    assert other.foreign == ("timer rocetune-r1-gpu03-restore.timer",)


# --- engine behaviours ---------------------------------------------------------------
def test_engine_runtime_values_are_lost_on_reboot() -> None:
    """NIC Configuration Operator README: trust/PFC/ToS are "Non-persistent"."""
    eng = _host()
    s = session(eng)
    s.run("mlnx_qos -i eth2 --trust dscp")
    assert "Priority trust state: dscp" in s.run("mlnx_qos -i eth2").text
    eng.control("reboot")
    assert s.run("mlnx_qos -i eth2").text == eng.boot[QOS]


def test_engine_mlxconfig_is_a_next_boot_value_kept_across_reboots() -> None:
    """MFT mlxconfig docs: kept after reset; "For changes ... to take effect, reboot"."""
    eng = _host()
    s = session(eng)
    out = s.run("mlxconfig -d 0000:17:00.0 -y set CNP_DSCP_P1=48")
    assert "reboot" in out.text
    assert eng.state()["fw_pending"]
    eng.control("reboot")
    assert "CNP_DSCP_P1" in eng.outputs[FW_FILE]
    assert any(
        line.split()[-1] == "48"
        for line in s.run("mlxconfig -d 0000:17:00.0 q").text.splitlines()
        if "CNP_DSCP_P1" in line
    )
    assert eng.state()["fw_pending"] == []


def test_engine_output_back_to_boot_content_prints_the_boot_text() -> None:
    """Re-collecting after a restore gives the pre-change text (hash-comparable)."""
    eng = _host("gpu01")
    s = session(eng)
    s.run("mlnx_qos -i eth2 --dscp2prio set,26,0")
    assert s.run("mlnx_qos -i eth2").text != eng.boot[QOS]
    s.run("mlnx_qos -i eth2 --dscp2prio set,26,3")
    assert s.run("mlnx_qos -i eth2").text == eng.boot[QOS]


def test_rollback_refused_by_the_box_is_reported() -> None:
    eng = _host("gpu03", faults=[{"kind": "fail", "on": "/bin/sh -e /var/lib/rocetune"}])
    tx, s = _armed(eng, "gpu03")
    with pytest.raises(TransactionError, match="injected failure"):
        tx.rollback(s)
    assert eng.outputs != eng.boot, "nothing restored: the record must say so"


def test_values_changed_between_stage_and_arm_abort_before_anything_runs() -> None:
    eng = _host("gpu03")
    s = session(eng)
    tx = transaction("gpu03")
    tx.stage(s, changes("gpu03"))
    session(eng).run("echo 7 > /sys/class/net/eth2/ecn/roce_np/cnp_dscp")  # someone else
    with pytest.raises(TransactionError, match="changed since stage"):
        tx.arm(s, 60)
    assert not eng.box.timers
    assert eng.outputs[CNP].strip() == "7"
