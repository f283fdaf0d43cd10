"""EOS and NX-OS apply drivers against their lab engines over real SSH (netmiko sessions).

One lab process serves a device per scenario (engine state is per device). The sessions are
rocetune's own :class:`rocetune.collect.transport.NetmikoSession`, so configuration-mode
prompts (``spine1(config-s-...)#``, ``spine2(config-if)#``) go through the same prompt
matching as collection. The virtual clock runs 60x (a 5-minute timer is 5 real seconds);
tests that need a timer to fire advance the engine clock with its control command.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rocetune.collect.credentials import Credentials
from rocetune.collect.target import Target, Timeouts, Trust
from rocetune.collect.transport import NetmikoTransport
from rocetune.platforms import drivers
from rocetune.platforms.transaction import DeviceChanges, Transaction, TransactionError, TxContext
from rocetune.session import Session
from rocetune.snapshot import Snapshot, SourceFile
from tests.lab.lab import HOST, PASSWORD, USER, LabServer, run_cli, start_lab
from tests.lab.test_live_audit import findings_without_paths

ROOT = Path(__file__).resolve().parents[2]
SPINE1 = str(ROOT / "inventories/lab/snapshots/spine1")
SPINE2 = str(ROOT / "inventories/lab/snapshots/spine2")
EOS_LINES = [
    "interface Ethernet1/1",
    "   mtu 9000",
    "qos profile ROCE_FABRIC",
    "   tx-queue 3",
    "      bandwidth percent 40",
]
NXOS_LINES = [
    "policy-map type queuing custom-8q-out-policy",
    "  class type queuing c-out-8q-q3",
    "    random-detect minimum-threshold 1600 kbytes maximum-threshold 6400 kbytes"
    " drop-probability 20 weight 0 ecn",
    "priority-flow-control watch-dog-interval on",
]
SCENARIOS = ("happy", "expire", "foreign", "rollback", "save", "drop", "prompt")


def _eos(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    engine = {"kind": "eos", "snapshot": SPINE1, "rate": 60, **(extra or {})}
    return {"platform": "eos", "engine": engine}


def _nxos(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    engine = {"kind": "nxos", "snapshot": SPINE2, "rate": 60, **(extra or {})}
    return {"platform": "nxos", "engine": engine}


@pytest.fixture(scope="module")
def txlab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """A lab with one EOS and one NX-OS engine device per scenario."""
    devices: dict[str, dict[str, Any]] = {}
    for name in SCENARIOS:
        shape = {"json_shape": "4.31"} if name == "rollback" else {}
        foreign_eos = {"foreign_session": {"name": "netops-change", "state": "timer"}}
        foreign_nx = {"foreign_schedule": "rocetune-other-run-t-nx"}
        devices[f"t-eos-{name}"] = _eos(foreign_eos if name == "foreign" else shape)
        devices[f"t-nx-{name}"] = _nxos(foreign_nx if name == "foreign" else None)
    devices["t-eos-live"] = {**_eos(), "snapshot": SPINE1}  # LLDP etc. from the snapshot
    devices["t-nx-live"] = {**_nxos(), "snapshot": SPINE2}
    server = start_lab(devices, tmp_path_factory.mktemp("txlab"))
    try:
        yield server
    finally:
        server.stop()


def _open(lab: LabServer, name: str, tmp: Path, read: float = 20) -> Session:
    platform = str(lab.devices[name]["platform"])
    device_type = {"eos": "arista_eos", "nxos": "cisco_nxos"}[platform]
    target = Target(name, HOST, lab.ports[name], platform, device_type, Credentials(USER, PASSWORD))
    trust = Trust(lab.known_hosts(tmp / f"{name}.known_hosts"))
    return NetmikoTransport(Timeouts(read=read, device=120), trust).open(target)


def _changes(name: str) -> DeviceChanges:
    platform = "eos" if name.startswith("t-eos") else "nxos"
    lines = EOS_LINES if platform == "eos" else NXOS_LINES
    return DeviceChanges(name, platform, ({"commands": lines},))


def _tx(name: str, run: str = "r1") -> Transaction:
    platform = "eos" if name.startswith("t-eos") else "nxos"
    tx = drivers()[platform].transaction(TxContext(run, name, "CHG-1"))
    assert tx is not None
    return tx


def _running(session: Session) -> str:
    return session.run("show running-config").text


def _parsed(platform: str, name: str, text: str) -> Any:
    command = drivers()[platform].commands()[0]
    snap = Snapshot({command.filename: SourceFile(command.filename, text)})
    return drivers()[platform].parse(snap, name, "spine").device


@pytest.mark.parametrize("prefix", ["t-eos", "t-nx"])
def test_happy_path_confirms_and_saves(txlab: LabServer, tmp_path: Path, prefix: str) -> None:
    """stage -> diff -> arm -> confirm -> save: running = old + plan, startup = running."""
    name = f"{prefix}-happy"
    session = _open(txlab, name, tmp_path)
    try:
        before = _running(session)
        tx = _tx(name)
        assert tx.precheck(session).foreign == ()
        tx.stage(session, _changes(name))
        assert _running(session) == before  # staged is not active
        assert "9000" in tx.diff(session) or "ecn" in tx.diff(session)
        tx.arm(session, 300)
        state = tx.pending(session)
        assert state.armed
        assert state.seconds_left is not None
        assert 0 < state.seconds_left <= 360
        tx.confirm(session)
        assert not tx.pending(session).armed
        tx.save(session)
        after = _running(session)
        assert after != before
        assert "rocetune" not in after  # no session/scheduler residue in the config
        assert session.run("show startup-config").text == after
        platform = "eos" if prefix == "t-eos" else "nxos"
        assert _parsed(platform, name, after).name == name  # rocetune's parser reads it
    finally:
        session.close()


@pytest.mark.parametrize("prefix", ["t-eos", "t-nx"])
def test_timer_expiry_reverts_on_the_device(txlab: LabServer, tmp_path: Path, prefix: str) -> None:
    """Armed, then the controller goes away: the device reverts by itself; confirm fails."""
    name = f"{prefix}-expire"
    session = _open(txlab, name, tmp_path)
    before = _running(session)
    tx = _tx(name)
    tx.stage(session, _changes(name))
    tx.arm(session, 120)
    assert _running(session) != before
    session.close()  # management lost
    session = _open(txlab, name, tmp_path)
    try:
        session.run("lab clock advance 200")
        assert _running(session) == before
        assert not tx.pending(session).armed
        with pytest.raises(TransactionError, match="confirm"):
            tx.confirm(session)
    finally:
        session.close()


@pytest.mark.parametrize("prefix", ["t-eos", "t-nx"])
def test_foreign_pending_work_is_refused(txlab: LabServer, tmp_path: Path, prefix: str) -> None:
    """Another session with a pending timer / another run's armed revert: stage refuses."""
    name = f"{prefix}-foreign"
    session = _open(txlab, name, tmp_path)
    try:
        before = _running(session)
        tx = _tx(name)
        assert tx.precheck(session).foreign
        with pytest.raises(TransactionError, match="refusing"):
            tx.stage(session, _changes(name))
        assert _running(session) == before
    finally:
        session.close()


@pytest.mark.parametrize("prefix", ["t-eos", "t-nx"])
def test_rollback_armed_and_after_confirm(txlab: LabServer, tmp_path: Path, prefix: str) -> None:
    """Rollback while armed, then a second run confirmed + saved and rolled back by a new
    driver object (what ``--rollback RUN`` does): everything it needs is on the device."""
    name = f"{prefix}-rollback"
    session = _open(txlab, name, tmp_path)
    try:
        before = _running(session)
        tx = _tx(name, "r1")
        tx.stage(session, _changes(name))
        tx.arm(session, 300)
        tx.rollback(session)
        assert _running(session) == before
        assert not tx.pending(session).armed
        tx2 = _tx(name, "r2")
        tx2.stage(session, _changes(name))
        tx2.arm(session, 300)
        tx2.confirm(session)
        tx2.save(session)
        tx2 = _tx(name, "r2")
        tx2.rollback(session)
        assert _running(session) == before
        tx2.save(session)  # apply saves again after rolling back a saved change
        assert session.run("show startup-config").text == before
    finally:
        session.close()


@pytest.mark.parametrize("prefix", ["t-eos", "t-nx"])
def test_save_only_after_confirm_and_reboot_while_armed(
    txlab: LabServer, tmp_path: Path, prefix: str
) -> None:
    """save refuses while armed; a reboot while armed comes up with the old config."""
    name = f"{prefix}-save"
    session = _open(txlab, name, tmp_path)
    before = _running(session)
    tx = _tx(name)
    tx.stage(session, _changes(name))
    tx.arm(session, 300)
    with pytest.raises(TransactionError, match="save"):
        tx.save(session)
    with pytest.raises(Exception):  # noqa: B017, PT011 - the device drops the session
        session.run("lab reboot")
    session.close()
    session = _open(txlab, name, tmp_path)
    try:
        assert _running(session) == before
        assert not tx.pending(session).armed
        assert not re.search(r"rocetune", session.run("show startup-config").text)
    finally:
        session.close()


@pytest.mark.parametrize("prefix", ["t-eos", "t-nx"])
def test_ssh_drop_during_confirm_is_read_back(
    txlab: LabServer, tmp_path: Path, prefix: str
) -> None:
    """The connection drops right after the confirm reached the device: the session raises
    (state unknown, not a refusal); a new session and a new driver object read it back as
    confirmed and the config is the plan's."""
    name = f"{prefix}-drop"
    session = _open(txlab, name, tmp_path)
    tx = _tx(name)
    tx.stage(session, _changes(name))
    tx.arm(session, 300)
    applied = _running(session)
    last = (
        f"configure session rocetune-r1-{name} commit"
        if prefix == "t-eos"
        else "no feature scheduler"
    )
    session.run(f"lab fault drop_after {last}")
    with pytest.raises(Exception) as caught:  # noqa: PT011 - netmiko's own EOF/timeout errors
        tx.confirm(session)
    assert not isinstance(caught.value, TransactionError)
    session.close()
    session = _open(txlab, name, tmp_path)
    try:
        assert not _tx(name).pending(session).armed
        session.run("lab clock advance 1000")
        after = _running(session)
        assert "rocetune" not in after
        if prefix == "t-eos":
            assert after == applied
    finally:
        session.close()


@pytest.mark.parametrize("prefix", ["t-eos", "t-nx"])
def test_interactive_prompt_over_ssh_fails_the_step(
    txlab: LabServer, tmp_path: Path, prefix: str
) -> None:
    """A command that asks a question: either the question comes back (the driver answers
    "n" and refuses the step) or the read times out (state unknown); either way the device
    did not run it, and the confirmed change is rolled back from a new session."""
    name = f"{prefix}-prompt"
    session = _open(txlab, name, tmp_path, read=3)
    before = _running(session)
    tx = _tx(name)
    tx.stage(session, _changes(name))
    tx.arm(session, 300)
    tx.confirm(session)
    save = "write memory" if prefix == "t-eos" else "copy running-config startup-config"
    session.run(f"lab fault prompt {save}|Proceed? [confirm]")
    with pytest.raises(Exception) as caught:  # noqa: PT011 - or netmiko's read timeout
        tx.save(session)
    if isinstance(caught.value, TransactionError):  # the question came back: answered "n"
        assert "interactive question" in str(caught.value)
    session.close()
    session = _open(txlab, name, tmp_path)
    try:
        assert session.run("show startup-config").text == before
        _tx(name).rollback(session)
        assert _running(session) == before
    finally:
        session.close()


def _audit_inventory(lab: LabServer, path: Path, live: bool) -> Path:
    intent = {
        "lossless_priorities": [3],
        "roce_dscp": [26],
        "cnp": {"dscp": 48, "priority": 6},
        "mtu": {"host": 9000, "switch": 9214, "roce": 4096},
    }
    devices: dict[str, Any] = {}
    for name, platform, snapshot in (("t-eos-live", "eos", SPINE1), ("t-nx-live", "nxos", SPINE2)):
        entry: dict[str, Any] = {"platform": platform, "role": "spine"}
        if live:
            entry.update(host=HOST, port=lab.ports[name])
        else:
            entry.update(host="10.0.0.1", snapshot=snapshot)
        devices[name] = entry
    path.write_text(json.dumps({"intent": intent, "devices": devices}), encoding="utf-8")
    return path


def test_collection_through_the_engines_reads_like_the_snapshots(
    txlab: LabServer, tmp_path: Path
) -> None:
    """rocetune audit over SSH reads the EOS and NX-OS engines' state as it reads the
    snapshots they started from (RT004 aside: the lab names are not the snapshots' hostnames)."""
    known = txlab.known_hosts(tmp_path / "known_hosts")
    live_inv = _audit_inventory(txlab, tmp_path / "live.yaml", live=True)
    live = run_cli(
        "audit", live_inv, "--format", "json", "--known-hosts", known, "--ignore", "RT004"
    )
    off_inv = _audit_inventory(txlab, tmp_path / "off.yaml", live=False)
    offline = run_cli("audit", off_inv, "--format", "json", "--ignore", "RT004")
    assert live.code == offline.code, live.err
    assert findings_without_paths(live.out) == findings_without_paths(offline.out)
    assert json.loads(live.out)["devices"] == json.loads(offline.out)["devices"]
    assert "t-eos-live" in live.out
    assert "t-nx-live" in live.out
    assert findings_without_paths(live.out)  # the spines' planted faults are found
