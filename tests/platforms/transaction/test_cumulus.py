"""Cumulus NVUE apply driver against the stateful NVUE engine, in process.

Engine behaviours cite the NVUE reference *Config Commands* (CumulusNetworks/docs
``content/nvue-reference/Config-Commands.md``), the Cumulus Linux 5.14 *NVUE CLI* page and,
where NVIDIA's pages are silent (marked unverified), the ``david-pili/napalm-cumulus`` fork.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from rocetune.platforms.cumulus.transaction import CumulusTransaction, confirm_time
from rocetune.platforms.transaction import TransactionError
from tests.lab.engines.cumulus import CumulusEngine
from tests.platforms.transaction.kit import changes, engine, session, transaction

LINE = "nv set qos mapping default-global dscp 26 switch-priority 3"


def _nvue(device: str = "leaf3", **options: Any) -> CumulusEngine:
    eng = engine(device, **options)
    assert isinstance(eng, CumulusEngine)
    return eng


def _original(eng: CumulusEngine) -> str:
    return str(eng.revisions[1]["text"])


def _armed(eng: CumulusEngine, seconds: int = 300, device: str = "leaf3") -> tuple[Any, Any]:
    s = session(eng)
    tx = transaction(device)
    assert tx.precheck(s).foreign == ()
    tx.stage(s, changes(device))
    tx.arm(s, seconds)
    return tx, s


# --- driver -----------------------------------------------------------------------------
@pytest.mark.parametrize("device", ["leaf3", "leaf4"])
def test_happy_path_confirm_records_revisions(device: str) -> None:
    eng = _nvue(device)
    tx, s = _armed(eng, device=device)
    assert isinstance(tx, CumulusTransaction)
    assert "nv config apply --confirm 5m -y" in s.sent
    assert tx.revision_before == "1"
    assert tx.revision == "2"
    assert tx.pending(s).armed
    assert eng.applied != _original(eng)
    tx.confirm(s)
    assert "nv config apply 2 --confirm-yes" in s.sent
    assert not tx.pending(s).armed
    tx.save(s)
    assert eng.startup == eng.applied != _original(eng)


def test_diff_is_the_pending_edit_and_discard_detaches() -> None:
    eng = _nvue()
    s = session(eng)
    tx = transaction("leaf3")
    tx.stage(s, changes("leaf3"))
    assert tx.diff(s).strip() == LINE
    tx.discard(s)
    assert eng.pending == []
    assert eng.applied == _original(eng)
    assert transaction("leaf3").precheck(s).foreign == ()


def test_confirm_window_expiry_rolls_back_and_confirm_fails() -> None:
    """NVUE reference: unconfirmed within the time, "the configuration rolls back"."""
    eng = _nvue()
    tx, s = _armed(eng, 90)  # 2 minutes: NVUE takes whole units
    eng.control("clock advance 121")
    assert eng.applied == _original(eng)
    with pytest.raises(TransactionError, match="expired"):
        tx.confirm(s)
    tx.rollback(s)
    assert eng.applied == _original(eng)


def test_rollback_while_armed_says_confirm_no() -> None:
    """napalm-cumulus fork (unverified in NVIDIA docs): `nv config apply <rev> --confirm-no`."""
    eng = _nvue()
    tx, s = _armed(eng)
    tx.rollback(s)
    assert "nv config apply 2 --confirm-no" in s.sent
    assert eng.applied == _original(eng)


def test_rollback_after_confirm_reapplies_the_revision_before() -> None:
    eng = _nvue()
    tx, s = _armed(eng)
    tx.confirm(s)
    tx.save(s)
    tx.rollback(s)
    assert "nv config apply 1 -y" in s.sent
    assert eng.applied == _original(eng) == eng.startup


@pytest.mark.parametrize("state", ["confirm", "pending"])
def test_foreign_pending_revision_is_refused(state: str) -> None:
    eng = _nvue(foreign={"state": state, "user": "alice"})
    s = session(eng)
    tx = transaction("leaf3")
    assert any("alice" in f for f in tx.precheck(s).foreign)
    with pytest.raises(TransactionError, match="not ours"):
        tx.stage(s, changes("leaf3"))
    assert eng.pending == []


def test_unapplied_pending_edits_are_foreign() -> None:
    eng = _nvue(foreign_diff=["nv set system hostname other"])
    s = session(eng)
    tx = transaction("leaf3")
    assert tx.precheck(s).foreign == ("unapplied pending edits (nv config diff is not empty)",)
    with pytest.raises(TransactionError, match="not this plan's"):
        tx.stage(s, changes("leaf3"))


def test_nvued_down_fails_the_precheck() -> None:
    """networkop/cx#9: every nv command fails with "Could not connect to nvued"."""
    eng = _nvue(nvued_down=True)
    with pytest.raises(TransactionError, match="Could not connect to nvued"):
        transaction("leaf3").precheck(session(eng))


@pytest.mark.parametrize(
    "bad",
    [
        "nv set system hostname a;reboot",
        "nv set x $(id)",
        "rm -rf /",
        "nv set a 'b c'",
        "nv set a\nb",
    ],
)
def test_unsafe_lines_are_refused_before_anything_is_sent(bad: str) -> None:
    eng = _nvue()
    s = session(eng)
    with pytest.raises(TransactionError):
        transaction("leaf3").stage(s, changes("leaf3", extra=({"commands": [bad]},)))
    assert s.sent == []


def test_confirm_time_always_has_a_unit() -> None:
    assert [confirm_time(s) for s in (1, 60, 61, 300, 3600)] == ["1m", "1m", "2m", "5m", "60m"]


def test_prompt_on_apply_is_answered_no() -> None:
    eng = _nvue(faults=[{"kind": "prompt", "on": "nv config apply --confirm"}])
    s = session(eng)
    tx = transaction("leaf3")
    tx.stage(s, changes("leaf3"))
    with pytest.raises(TransactionError, match="interactive question"):
        tx.arm(s, 300)
    assert eng.applied == _original(eng)
    tx.rollback(s)
    assert eng.pending == []


def test_reboot_while_armed_comes_back_unchanged() -> None:
    eng = _nvue()
    tx, _s = _armed(eng)
    eng.control("reboot")
    assert eng.applied == _original(eng)
    assert not tx.pending(session(eng)).armed


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        ({"kind": "drop_after", "on": "nv config apply --confirm"}, ConnectionError),
        ({"kind": "garble", "on": "nv config revision"}, TransactionError),
    ],
)
def test_lost_session_after_arm_is_reverted_by_the_timer(
    fault: dict[str, Any], error: type[Exception]
) -> None:
    eng = _nvue()
    s = session(eng)
    tx = transaction("leaf3")
    tx.stage(s, changes("leaf3"))
    eng.control("fault " + json.dumps(fault))
    with pytest.raises(error):
        tx.arm(s, 60)
    eng.control("clock advance 61")
    assert eng.applied == _original(eng)


# --- engine behaviours ---------------------------------------------------------------
def test_engine_bare_confirm_number_is_minutes() -> None:
    """NVUE reference: ``--confirm 60`` requires a confirm within one hour (bare = minutes)."""
    eng = _nvue()
    s = session(eng)
    s.run(LINE)
    s.run("nv config apply --confirm 1 -y")
    eng.control("clock advance 59")
    assert eng.applied != _original(eng)
    eng.control("clock advance 2")
    assert eng.applied == _original(eng)


def test_engine_apply_without_y_does_not_apply() -> None:
    """NVUE reference: ``nv config apply`` prompts; ``-y/--assume-yes`` answers it."""
    eng = _nvue()
    s = session(eng)
    s.run(LINE)
    assert s.run("nv config apply").error is not None
    assert eng.applied == _original(eng)


def test_engine_revision_json_shows_confirm_state() -> None:
    """napalm-cumulus fork (unverified in NVIDIA docs): state "confirm" while waiting."""
    eng = _nvue()
    s = session(eng)
    s.run(LINE)
    s.run("nv config apply --confirm 10m -y")
    states = json.loads(s.run("nv config revision -o json").text)
    assert states["2"]["state"] == "confirm"


def test_engine_apply_revision_is_the_rollback_primitive() -> None:
    """NVUE reference: ``nv config apply <revision>`` applies an earlier revision."""
    eng = _nvue()
    s = session(eng)
    s.run(LINE)
    s.run("nv config apply -y")
    assert eng.applied != _original(eng)
    s.run("nv config apply 1 -y")
    assert eng.applied == _original(eng)


def test_engine_show_prints_the_snapshot_text_and_parses_after_a_change() -> None:
    """The collector's ``nv config show -o yaml`` reads the applied revision."""
    eng = _nvue()
    s = session(eng)
    assert s.run("nv config show -o yaml").text == _original(eng)
    s.run(LINE)
    s.run("nv config apply -y")
    assert "switch-priority" in s.run("nv config show -o yaml").text


def test_rollback_refused_by_the_box_is_reported() -> None:
    eng = _nvue(faults=[{"kind": "fail", "on": "nv config apply 2 --confirm-no"}])
    tx, s = _armed(eng)
    with pytest.raises(TransactionError, match="injected failure"):
        tx.rollback(s)
