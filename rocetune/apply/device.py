"""One device through its state machine (:mod:`rocetune.apply.states`).

:meth:`DeviceWorker.apply` runs precheck -> stage -> diff -> arm -> gates -> confirm -> save and
ends the device DONE, ABORTED (nothing was armed), ROLLED_BACK (proven by re-collection) or
STUCK (a human is needed). Two kinds of failure are told apart:

- the device *refused* a step (:class:`TransactionError`): its state is known from the step;
- the session *broke* (or the controller was told to stop): the state is unknown until a
  new session reads ``pending`` and a re-collection is compared with the pre-change snapshot
  and the plan applied.

Nothing is ever reported DONE unless the confirm returned, the device has nothing of ours
pending, and a re-collection equals the plan applied.
"""

from __future__ import annotations

import threading
from pathlib import Path

from rocetune.apply import recovery
from rocetune.apply.devrun import DeviceRun, Lost
from rocetune.apply.fleet import CounterRead, Fleet, Unreachable
from rocetune.apply.gates import (
    Gate,
    Observation,
    audit_gate,
    config_gate,
    counters_gate,
    differences,
    lldp_gate,
    passed,
)
from rocetune.apply.options import ApplyOptions, Clock, Observer
from rocetune.apply.record import Record
from rocetune.apply.recording import RecordingSession
from rocetune.apply.states import FINAL, DeviceState, check
from rocetune.model import Device, PortCounters
from rocetune.platforms.transaction import DeviceChanges, Transaction, TransactionError, TxContext
from rocetune.session import Session
from rocetune.snapshot import Snapshot, SnapshotMeta, read_directory, write_directory

D = DeviceState


class DeviceWorker:
    """Applies (and rolls back) devices of one run; one instance serves every thread."""

    def __init__(  # noqa: PLR0917 (the run collaborators)
        self,
        fleet: Fleet,
        record: Record,
        options: ApplyOptions,
        clock: Clock,
        observer: Observer,
        stop: threading.Event,
        run_id: str,
        store: Path,
    ) -> None:
        self.fleet, self.record, self.options = fleet, record, options
        self.clock, self.observer, self.stop = clock, observer, stop
        self.run_id, self.store = run_id, store
        self._steps: dict[str, str] = {}
        self.peers: dict[str, DeviceRun] = {}
        """Every device of the run (the run sets it): whose links may wait for a later wave."""
        self._mutex = threading.Lock()

    # --- bookkeeping -------------------------------------------------------------------------
    def move(self, dev: DeviceRun, new: DeviceState, reason: str) -> None:
        """Record and announce a transition (checked against the state machine)."""
        with self._mutex:
            check(dev.name, dev.state, new)
            old, dev.state, dev.reason = dev.state, new, reason
        self.record.device(dev.name, old, new, reason)
        self.observer.device_state(dev.name, new, reason)

    def _halted(self) -> str | None:
        if self.stop.is_set():
            return "stopped (signal or run halted)"
        if not self.options.window.open_at(self.clock.now()):
            return "the maintenance window closed"
        return None

    def tx_for(self, dev: DeviceRun) -> Transaction | None:
        ctx = TxContext(self.run_id, dev.name, self.options.change_id)
        return self.fleet.transaction(dev.name, ctx)

    def open_session(self, dev: DeviceRun) -> Session:
        try:
            inner = self.fleet.open(dev.name)
        except Unreachable:
            raise
        except Exception as exc:
            raise Unreachable(f"{type(exc).__name__}: {exc}") from exc

        def redact(text: str) -> str:
            return self.fleet.redact(dev.name, text)

        return RecordingSession(inner, self.record, dev.name, redact, lambda: self._step(dev))

    def _step(self, dev: DeviceRun) -> str:
        return self._steps.get(dev.name, "")

    def call(self, dev: DeviceRun, step: str, fn: object, *args: object) -> object:
        """Run a driver step; TransactionError passes, a broken session becomes _Lost."""
        self._steps[dev.name] = step
        try:
            return fn(*args)  # type: ignore[operator]
        except TransactionError:
            raise
        except Exception as exc:
            raise Lost(f"{step}: {type(exc).__name__}: {exc}") from exc

    def observe(self, dev: DeviceRun, snapshot: Snapshot, session: Session | None) -> Observation:
        """Parse, hash, lint and (with a session) read the counters of a snapshot."""
        name = dev.name
        counters: list[PortCounters] | None = None
        note = ""
        if session is not None:
            try:
                got = self.fleet.counters(name, session)
            except Exception as exc:
                got, note = None, f"counter read failed: {type(exc).__name__}: {exc}"[:300]
            if isinstance(got, CounterRead):
                counters, note = got.counters, got.note
            else:
                counters = got
        return Observation(
            self.fleet.model(name, snapshot),
            self.fleet.config_hash(name, snapshot),
            self.fleet.lint(name, snapshot),
            counters,
            note,
        )

    def collect_now(self, dev: DeviceRun) -> Snapshot:
        try:
            return self.fleet.collect(dev.name)
        except Unreachable:
            raise
        except Exception as exc:
            raise Unreachable(f"{type(exc).__name__}: {exc}") from exc

    def save_pre(self, dev: DeviceRun, snapshot: Snapshot) -> None:
        """Keep the pre-change snapshot in the run directory (resume and rollback read it)."""
        outputs = {n: f.text for n, f in snapshot.files.items()}
        meta = SnapshotMeta(dev.name, dev.planned.platform, snapshot.meta.collected_at)
        write_directory(self.store / "pre" / dev.name, outputs, meta)

    def load_pre(self, dev: DeviceRun) -> bool:
        """Read the kept pre-change snapshot back (False when there is none)."""
        where = self.store / "pre" / dev.name
        if not where.is_dir():
            return False
        snap = read_directory(where)
        dev.pre_snapshot = snap
        dev.pre = self.observe(dev, snap, None)
        dev.intended = self.intended(dev, snap)
        return True

    def intended(self, dev: DeviceRun, snap: Snapshot) -> Device:
        """What the device must run once the change is confirmed."""
        if dev.target is not None:
            return dev.target
        return self.fleet.model(dev.name, self.fleet.replay(dev.name, snap, dev.planned.changes))

    # --- the happy path ----------------------------------------------------------------------
    def apply(self, dev: DeviceRun) -> None:
        """Run one device to a final state; never raises."""
        try:
            self._apply(dev)
        except Exception as exc:  # a bug must not leave the device unrecorded
            if dev.state not in FINAL:
                self._recover(dev, f"internal error: {type(exc).__name__}: {exc}")

    def _abort(
        self,
        dev: DeviceRun,
        reason: str,
        tx: Transaction | None = None,
        session: Session | None = None,
    ) -> None:
        if tx is not None and session is not None and dev.state == D.STAGED:
            try:
                self.call(dev, "discard", tx.discard, session)
            except (TransactionError, Lost) as exc:
                self._recover(dev, f"{reason}; discard failed: {exc}")
                return
        self.move(dev, D.ABORTED, reason)

    def _precheck(self, dev: DeviceRun) -> tuple[Transaction, Session] | None:
        planned = dev.planned
        if planned.disruptive and not self.options.allow_disruptive:
            self.move(dev, D.ABORTED, "DISRUPTIVE changes need --allow-disruptive")
            return None
        tx = self.tx_for(dev)
        if tx is None:
            self.move(dev, D.ABORTED, f"platform {planned.platform} has no apply driver yet")
            return None
        try:
            snap = self.collect_now(dev)
            session = self.open_session(dev)
        except Unreachable as exc:
            dev.unreachable = True
            self.move(dev, D.ABORTED, f"unreachable: {exc}")
            return None
        digest = self.fleet.config_hash(dev.name, snap)
        if digest != planned.config_hash:
            session.close()
            self.move(
                dev,
                D.ABORTED,
                f"stale plan: running config hash {digest} is not the plan's {planned.config_hash}",
            )
            return None
        try:
            pending = self.call(dev, "precheck", tx.precheck, session)
        except (TransactionError, Lost) as exc:
            session.close()
            dev.unreachable = isinstance(exc, Lost)
            self.move(dev, D.ABORTED, f"precheck failed: {exc}")
            return None
        open_ = getattr(pending, "foreign", ()) or ()
        if open_ or getattr(pending, "armed", False):
            session.close()
            what = ", ".join(open_) or "a commit of this run is pending"
            self.move(dev, D.ABORTED, f"device busy: {what}")
            return None
        dev.pre_snapshot = snap
        dev.pre = self.observe(dev, snap, session)
        dev.intended = self.intended(dev, snap)
        self.save_pre(dev, snap)
        self.record.write(
            "pre", device=dev.name, config_hash=digest, findings=len(dev.pre.findings)
        )
        self.move(dev, D.PRECHECKED, "reachable, plan not stale, nothing pending")
        return tx, session

    def _apply(self, dev: DeviceRun) -> None:
        got = self._precheck(dev)
        if got is None:
            return
        tx, session = got
        try:
            self._staged(dev, tx, session)
        finally:
            session.close()

    def _staged(self, dev: DeviceRun, tx: Transaction, session: Session) -> None:
        why = self._halted()
        if why:
            self.move(dev, D.ABORTED, why)
            return
        self.move(dev, D.LOCKED, f"run lease held; device {dev.name} is this run's")
        changes = DeviceChanges(
            dev.name,
            dev.planned.platform,
            dev.planned.changes,
            dict(dev.planned.rollback),
            dev.planned.disruptive,
        )
        try:
            self.call(dev, "stage", tx.stage, session, changes)
            self.move(dev, D.STAGED, f"{len(changes.changes)} change(s) staged")
            diff = str(self.call(dev, "diff", tx.diff, session))
        except TransactionError as exc:
            if dev.state == D.LOCKED:
                self.move(dev, D.STAGED, "stage failed part way")
            self._abort(dev, f"device refused: {exc}", tx, session)
            return
        except Lost as exc:
            if dev.state == D.LOCKED:
                self.move(dev, D.STAGED, "session lost while staging")
            self._recover(dev, f"session lost before arming: {exc}")
            return
        self.record.write("diff", device=dev.name, diff=self.fleet.redact(dev.name, diff))
        if not diff.strip():
            self._abort(dev, "the device reports no difference: nothing to apply", tx, session)
            return
        if self.options.dry_run:
            self._abort(dev, "dry run: staged, diffed and discarded", tx, session)
            return
        self._arm(dev, tx, session)

    def _arm(self, dev: DeviceRun, tx: Transaction, session: Session) -> None:
        timer = self.options.confirm_within_s
        now = self.clock.now()
        why = self._halted()
        if why is None and not self.options.window.room_for(
            now, timer + self.options.budget.rollback_s
        ):
            why = "the window has no room left for the timer and a rollback"
        if why:
            self._abort(dev, why, tx, session)
            return
        try:
            self.call(dev, "arm", tx.arm, session, int(timer))
        except TransactionError as exc:
            self._recover(dev, f"arm refused: {exc}")
            return
        except Lost as exc:
            self._recover(dev, f"session lost while arming: {exc}")
            return
        dev.armed_at = now
        self.move(dev, D.ARMED, f"committed with a {int(timer)} s device-side revert timer")
        self._verify(dev, tx, session)

    def waiting(self, dev: DeviceRun) -> frozenset[str]:
        """Planned devices other than ``dev`` that do not run their plan (yet)."""
        return frozenset(n for n, d in self.peers.items() if n != dev.name and d.state != D.DONE)

    def _behind(self, device: str, pair: tuple[str, str]) -> bool:
        """Whether a ``host:nic`` pair runs through ``device`` (one of its hosts, or linked)."""
        hosts = {end.split(":", 1)[0] for end in pair}
        if device in hosts:
            return True
        return any(
            (a == device and b in hosts) or (b == device and a in hosts)
            for a, b in self.fleet.topology.links
        )

    def gates(self, dev: DeviceRun, post: Observation) -> list[Gate]:
        """Every gate of :mod:`rocetune.apply.gates` on ``post``."""
        assert dev.pre is not None
        assert dev.intended is not None
        intent = self.fleet.intent
        found = [
            config_gate(post, dev.intended, intent),
            audit_gate(dev.audit_base or dev.pre, post, dev.planned.fixes, self.waiting(dev)),
            counters_gate(dev.pre, post, intent.lossless_priorities, self.options.counter_limits),
            lldp_gate(dev.pre, post),
        ]
        if dev.canary and self.options.verify_pairs:
            mine = [p for p in self.options.verify_pairs if self._behind(dev.name, p)]
            if mine:
                problems = self.fleet.verify(mine)
                detail = "; ".join(problems) or f"{len(mine)} pair(s) passed"
                found.append(Gate("verify", "fail" if problems else "pass", detail))
        return found

    def _verify(self, dev: DeviceRun, tx: Transaction, session: Session) -> None:
        self.move(dev, D.VERIFYING, "re-collecting for the gates")
        settle = self.options.counters_settle_s
        every = self.options.settle_poll_s
        waited, polled = 0.0, 0.0
        while waited < settle and not self.stop.is_set():  # a signal ends the settle wait
            step = min(settle - waited, 0.1)
            self.clock.sleep(step)
            waited += step
            if waited - polled >= every and waited < settle and not self.stop.is_set():
                polled = waited  # the device may revert before the wait is over: ask it
                why = self._still_armed(dev, tx, session, waited)
                if why:
                    self._recover(dev, why)
                    return
        if settle > 0 and not self.stop.is_set():
            why = self._still_armed(dev, tx, session, settle)
            if why:
                self._recover(dev, why)
                return
        try:
            post = self.observe(dev, self.collect_now(dev), session)
        except Exception as exc:
            self._recover(dev, f"re-collection failed (management lost?): {exc}")
            return
        found = self.gates(dev, post)
        self.record.write("gates", device=dev.name, gates=[g.__dict__ for g in found])
        if not passed(found):
            bad = "; ".join(f"{g.name}: {g.detail}" for g in found if g.status == "fail")
            self._recover(dev, f"gate failed: {bad}")
            return
        why = self._halted()
        if why:
            self._recover(dev, why)
            return
        self._confirm(dev, tx, session, post)

    def _still_armed(
        self, dev: DeviceRun, tx: Transaction, session: Session, waited: float
    ) -> str | None:
        """During or after the settle wait: why the armed commit is gone or about to go.

        A device whose revert timer fired while we waited runs its old config again; the
        gates would only blame the config for a change the device itself took back. None:
        still armed with more than the margin left."""
        settle = self.options.counters_settle_s
        at = f"{settle:g} s --counters-settle"
        if waited < settle:
            at = f"after {waited:.0f} s of the {at}"
        try:
            pending = self.call(dev, "pending", tx.pending, session)
        except (TransactionError, Lost) as exc:
            return f"could not read the pending commit in the settle wait ({at}): {exc}"
        if not getattr(pending, "armed", False):
            return (
                f"the device's revert timer fired during the settle wait ({at}; "
                f"{self.options.confirm_within_s:g} s timer): the commit "
                "is no longer pending; shorten --counters-settle or lengthen --confirm-within"
            )
        device_left = getattr(pending, "seconds_left", None)
        if device_left is not None and device_left < self.options.margin_s:
            return (
                f"in the settle wait ({at}) the device says {device_left:.0f} s "
                "left on its revert timer: not gating"
            )
        return None

    def _confirm(
        self, dev: DeviceRun, tx: Transaction, session: Session, post: Observation
    ) -> None:
        assert dev.armed_at is not None
        left = dev.armed_at + self.options.confirm_within_s - self.clock.now()
        if left < self.options.margin_s:
            self._recover(dev, f"only {left:.0f} s left on the device timer: not confirming")
            return
        try:
            pending = self.call(dev, "pending", tx.pending, session)
            if not getattr(pending, "armed", False):
                self._recover(dev, "the commit is no longer pending (the device timer fired?)")
                return
            device_left = getattr(pending, "seconds_left", None)
            if device_left is not None and device_left < self.options.margin_s:
                self._recover(dev, f"the device says {device_left:.0f} s left: not confirming")
                return
            self.call(dev, "confirm", tx.confirm, session)
        except (TransactionError, Lost) as exc:
            self._recover(dev, f"confirm failed: {exc}", confirming=True)
            return
        self.move(dev, D.CONFIRMED, "gates passed; confirmed")
        self.save_done(dev, tx, session, post)

    def save_done(
        self, dev: DeviceRun, tx: Transaction, session: Session | None, post: Observation | None
    ) -> None:
        """Save a confirmed change (a save cut by a lost session is tried once more on a new
        one: saving is idempotent); a refused save leaves the device STUCK."""
        problem: Exception | None = None
        for attempt in range(2):
            fresh = None
            try:
                if session is None or attempt:
                    session = fresh = self.open_session(dev)
                self.call(dev, "save", tx.save, session)
                problem = None
                break
            except TransactionError as exc:
                problem = exc
                break
            except (Lost, Unreachable) as exc:
                problem = exc
            finally:
                if fresh is not None:
                    fresh.close()
        if problem is not None:
            self.move(dev, D.STUCK, f"confirmed, but saving failed: {problem} (save it by hand)")
            return
        self.move(dev, D.SAVED, "running config saved")
        self.finish_done(dev, post)

    def finish_done(self, dev: DeviceRun, post: Observation | None) -> None:
        assert dev.intended is not None
        try:
            final = self.observe(dev, self.collect_now(dev), None)
        except Unreachable as exc:
            self.move(dev, D.STUCK, f"saved, but the final re-collection failed: {exc}")
            return
        diff = differences(dev.intended, final.model, self.fleet.intent)
        if diff:
            self.move(
                dev,
                D.STUCK,
                "saved, but the device no longer runs the plan: " + "; ".join(diff[:3]),
            )
            return
        dev.after_hash = final.config_hash
        self.record.write(
            "after",
            device=dev.name,
            config_hash=final.config_hash,
            before_hash=dev.pre.config_hash if dev.pre else None,
        )
        self.move(dev, D.DONE, "re-collection equals the plan applied")

    # --- failure paths (rocetune.apply.recovery) ---------------------------------------------
    def _recover(self, dev: DeviceRun, reason: str, *, confirming: bool = False) -> None:
        recovery.recover(self, dev, reason, confirming=confirming)

    def rollback(self, dev: DeviceRun, reason: str) -> None:
        """Roll the device back and prove it by re-collection (ROLLED_BACK or STUCK)."""
        recovery.rollback(self, dev, reason)

    def undo(self, dev: DeviceRun, was: DeviceState) -> list[str]:
        """Send the rollback (or discard) for a device that was in ``was``; the problems."""
        return recovery.undo(self, dev, was)

    def prove_rollback(self, dev: DeviceRun, problems: list[str]) -> None:
        """Re-collect until the device equals its pre-change snapshot (else STUCK)."""
        recovery.prove_rollback(self, dev, problems)
