"""The failure paths of a device: recover, roll back, prove the rollback.

A device that may have been changed is brought back by the driver's ``rollback`` (or, when
that fails and the commit was armed, by the device's own timer), then re-collected until its
RoCE model equals the pre-change snapshot: only then ROLLED_BACK; otherwise STUCK. A confirm
that did not answer is first checked: nothing of ours pending and the plan running means it
landed.
"""

from __future__ import annotations

import threading
from typing import Protocol

from rocetune.apply.devrun import DeviceRun, Lost
from rocetune.apply.fleet import Fleet, Unreachable
from rocetune.apply.gates import Observation, differences, same_state
from rocetune.apply.options import ApplyOptions, Clock
from rocetune.apply.record import Record
from rocetune.apply.states import DeviceState
from rocetune.platforms.transaction import Transaction, TransactionError
from rocetune.session import Session
from rocetune.snapshot import Snapshot

D = DeviceState
__all__ = ["Lost", "prove_rollback", "recover", "rollback", "undo"]


class DeviceWorker(Protocol):
    """What the failure paths use of :class:`rocetune.apply.device.DeviceWorker`."""

    fleet: Fleet
    record: Record
    options: ApplyOptions
    clock: Clock
    stop: threading.Event

    def move(self, dev: DeviceRun, new: DeviceState, reason: str) -> None: ...

    def tx_for(self, dev: DeviceRun) -> Transaction | None: ...

    def open_session(self, dev: DeviceRun) -> Session: ...

    def call(self, dev: DeviceRun, step: str, fn: object, *args: object) -> object: ...

    def observe(
        self, dev: DeviceRun, snapshot: Snapshot, session: Session | None
    ) -> Observation: ...

    def collect_now(self, dev: DeviceRun) -> Snapshot: ...

    def save_done(
        self, dev: DeviceRun, tx: Transaction, session: Session | None, post: Observation | None
    ) -> None: ...


def recover(w: DeviceWorker, dev: DeviceRun, reason: str, *, confirming: bool = False) -> None:
    """The device may be changed: find out where it is and bring it back (or say STUCK)."""
    if dev.state in (D.PENDING, D.PRECHECKED, D.LOCKED):
        w.move(dev, D.ABORTED, reason)
        return
    if confirming and _finish_confirm(w, dev, reason):
        return
    rollback(w, dev, reason)


def _finish_confirm(w: DeviceWorker, dev: DeviceRun, reason: str) -> bool:
    """After a confirm that did not answer: did it land? (True: handled)."""
    tx = w.tx_for(dev)
    if tx is None or dev.intended is None:
        return False
    try:
        session = w.open_session(dev)
    except Unreachable:
        return False
    try:
        pending = w.call(dev, "pending", tx.pending, session)
        if getattr(pending, "armed", False):
            return False  # still armed: roll back (the gates are stale by now)
        post = w.observe(dev, w.collect_now(dev), None)
    except (TransactionError, Lost, Unreachable):
        session.close()
        return False
    if differences(dev.intended, post.model, w.fleet.intent):
        session.close()
        return False
    w.move(
        dev,
        D.CONFIRMED,
        f"{reason}; but the confirm landed (nothing pending, running config is the plan applied)",
    )
    try:
        w.save_done(dev, tx, session, post)
    finally:
        session.close()
    return True


def rollback(w: DeviceWorker, dev: DeviceRun, reason: str) -> None:
    """Roll the device back and prove it by re-collection (ROLLED_BACK or STUCK)."""
    was = dev.state
    w.move(dev, D.ROLLING_BACK, reason)
    prove_rollback(w, dev, undo(w, dev, was))


def undo(w: DeviceWorker, dev: DeviceRun, was: DeviceState) -> list[str]:
    """Send the rollback (or discard) for a device that was in ``was``; the problems."""
    tx = w.tx_for(dev)
    problems: list[str] = []
    try:
        session = w.open_session(dev)
    except Unreachable as exc:
        session = None
        problems.append(f"no session for the rollback: {exc}")
    if session is not None and tx is not None:
        try:
            undo = tx.rollback
            if was == D.STAGED:  # armed or not? (the session may have broken in arm)
                pending = w.call(dev, "pending", tx.pending, session)
                undo = tx.rollback if getattr(pending, "armed", False) else tx.discard
            w.call(dev, "rollback", undo, session)
            if was in (D.SAVED, D.DONE) or was == D.STUCK:
                w.call(dev, "save", tx.save, session)
        except (TransactionError, Lost) as exc:
            problems.append(f"rollback failed: {exc}")
        finally:
            session.close()
    elif tx is None:
        problems.append(f"platform {dev.planned.platform} has no apply driver")
    return problems


def prove_rollback(w: DeviceWorker, dev: DeviceRun, problems: list[str]) -> None:
    if dev.pre is None:
        w.move(dev, D.STUCK, "no pre-change snapshot to compare with: " + "; ".join(problems))
        return
    deadline = w.clock.now()
    if problems and dev.armed_at is not None:  # the device timer reverts it by itself
        deadline = dev.armed_at + w.options.confirm_within_s + w.options.margin_s
    why = ""
    attempt = 0
    while True:
        attempt += 1
        try:
            now_obs = w.observe(dev, w.collect_now(dev), None)
            same, why = same_state(dev.pre, now_obs, w.fleet.intent)
        except Unreachable as exc:
            same, why = False, f"re-collection failed: {exc}"
        if same:
            extra = f" ({'; '.join(problems)}, then the device timer)" if problems else ""
            w.record.write(
                "after",
                device=dev.name,
                config_hash=now_obs.config_hash,
                before_hash=dev.pre.config_hash,
            )
            w.move(
                dev,
                D.ROLLED_BACK,
                f"re-collection equals the pre-change snapshot: {why}{extra}",
            )
            return
        if attempt >= w.options.rollback_proofs and w.clock.now() >= deadline:
            break
        w.clock.sleep(w.options.poll_s)
    w.move(dev, D.STUCK, "; ".join([*problems, f"not back to the pre-change state: {why}"]))
