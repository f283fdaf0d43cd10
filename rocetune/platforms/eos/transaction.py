"""Arista EOS apply driver: a named configuration session committed with a commit timer.

Mechanism (sources in ``docs/apply-eos-nxos.md``):

- ``configure session rocetune-<run>-<device>`` copies running config into a session; the
  plan lines are typed there and ``end`` leaves it uncommitted (Arista EOS manual,
  *Configure session*). ``show session-config named <S> diffs`` is the device's diff.
- ``configure session <S> commit timer hh:mm:ss`` commits and reverts by itself unless the
  session is committed a second time (``configure session <S> commit``) in time (Arista
  commit-timer TOI). There is no default timer, and ``hh:mm:ss`` has no day field, so a
  timer of 24 h or more is refused here (NAPALM formats it with ``gmtime`` and wraps).
- ``write memory`` runs only after the confirm: a reboot while armed boots the old config.
- ``show configuration sessions detail | json`` in both shapes (napalm-automation/napalm
  #2166): EOS <= 4.31 marks the session ``state: pendingCommitTimer`` with ``commitBy``;
  4.32+ says ``committed`` and names the pending session in the top-level
  ``commitTimerSessionName`` / ``commitTimerExpireTime``. NAPALM reads the expiry as
  seconds of uptime, the #2166 sample shows epoch seconds: this driver reads ``show version
  | json`` (``uptime`` and ``bootupTimestamp``) and takes the expiry as epoch when it is
  later than the boot timestamp, as uptime otherwise; either way time left is measured on
  the device's clock, so a skewed controller clock does not matter.
- Another session that is open (``pending``) or has a timer pending is foreign: EOS refuses
  a commit while another session's timer runs (napalm PR #1266) and a session commit
  overwrites changes made since the other session began (last writer wins), so stage refuses.
- Rollback: while armed, ``configure session <S> abort``; after the confirm, ``configure
  replace flash:<S>.before.cfg``, a copy of running config taken right before the session
  was opened (NAPALM replaces to a copy of *startup* config, which loses unsaved changes).
  **Unverified** on a real switch: the exact error wording of a refused commit (only the
  ``%`` marker is matched).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from rocetune.platforms.common.cli_tx import (
    UnreadableOutput,
    check_tag,
    mode_script,
    plan_lines,
    run,
)
from rocetune.platforms.transaction import DeviceChanges, Pending, Step, TransactionError, TxContext
from rocetune.session import Session

PLATFORM = "eos"
SESSIONS = "show configuration sessions detail | json"
COPIED = "Copy completed successfully"
OPEN_STATES = ("pending",)
"""A session opened and not committed (what NAPALM's lock refuses)."""
MAX_TIMER_S = 86_399


def timer_text(seconds: int) -> str:
    """``hh:mm:ss`` for ``commit timer`` (1 s .. 23:59:59)."""
    if not 0 < seconds <= MAX_TIMER_S:
        raise TransactionError("arm", f"commit timer must be 1..{MAX_TIMER_S} s, got {seconds}")
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def _json(step: Step, text: str, what: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UnreadableOutput(step, f"{what}: not JSON (garbled output?)", text) from exc
    if not isinstance(data, dict):
        raise UnreadableOutput(step, f"{what}: not a JSON object", text)
    return data


def timer_sessions(data: dict[str, Any]) -> dict[str, float | None]:
    """Session name -> its commit-timer expiry (device clock) for every timer-pending session,
    read from either JSON shape."""
    out: dict[str, float | None] = {}
    name = data.get("commitTimerSessionName")
    if isinstance(name, str) and name:  # EOS 4.32+
        expire = data.get("commitTimerExpireTime")
        out[name] = float(expire) if isinstance(expire, (int, float)) and expire >= 0 else None
    sessions = data.get("sessions")
    if isinstance(sessions, dict):  # EOS <= 4.31
        for sname, info in sessions.items():
            if isinstance(info, dict) and "pendingCommitTimer" in str(info.get("state", "")):
                by = info.get("commitBy")
                out[str(sname)] = float(by) if isinstance(by, (int, float)) and by >= 0 else None
    return out


def session_states(data: dict[str, Any]) -> dict[str, str]:
    """Session name -> its state string."""
    sessions = data.get("sessions")
    if not isinstance(sessions, dict):
        return {}
    return {str(n): str(i.get("state", "")) for n, i in sessions.items() if isinstance(i, dict)}


def seconds_left(expire: float | None, version: dict[str, Any]) -> float | None:
    """Time left of a timer expiring at ``expire`` (epoch or uptime seconds), on the
    device's clock; None when the device does not tell."""
    uptime, boot = version.get("uptime"), version.get("bootupTimestamp")
    if expire is None or not isinstance(uptime, (int, float)):
        return None
    if isinstance(boot, (int, float)) and expire > boot:
        return max(0.0, expire - (boot + uptime))
    return max(0.0, expire - uptime)


class EosTransaction:
    """One Arista EOS switch's transaction."""

    platform: ClassVar[str] = PLATFORM

    def __init__(self, context: TxContext) -> None:
        self.context = context
        self.tag = check_tag(context.tag)
        self.backup = f"flash:{self.tag}.before.cfg"
        self.staged = False

    # --- reading -------------------------------------------------------------------------
    def _status(self, session: Session, step: Step) -> tuple[dict[str, Any], dict[str, Any]]:
        data = _json(step, run(session, step, SESSIONS, PLATFORM), SESSIONS)
        version = _json(step, run(session, step, "show version | json", PLATFORM), "show version")
        return data, version

    def _pending(self, data: dict[str, Any], version: dict[str, Any]) -> Pending:
        timers = timer_sessions(data)
        foreign = [f"session {n} (commit timer pending)" for n in timers if n != self.tag]
        foreign += [
            f"session {n} (open, not committed)"
            for n, state in session_states(data).items()
            if n != self.tag and state in OPEN_STATES
        ]
        armed = self.tag in timers
        left = seconds_left(timers[self.tag], version) if armed else None
        return Pending(armed, self.tag if armed else None, left, tuple(foreign))

    def precheck(self, session: Session) -> Pending:
        """Our timer (if any) and every other open or timer-pending session."""
        return self._pending(*self._status(session, "precheck"))

    def pending(self, session: Session) -> Pending:
        """Whether our commit timer is still running, and how long it has left."""
        return self._pending(*self._status(session, "pending"))

    # --- steps ---------------------------------------------------------------------------
    def stage(self, session: Session, changes: DeviceChanges) -> None:
        """Copy running config aside, open the session, type the plan lines, leave it."""
        script = mode_script(plan_lines(changes.changes))
        if not script:
            raise TransactionError("stage", "the plan has no lines for this device")
        data, version = self._status(session, "stage")
        state = self._pending(data, version)
        if state.foreign:
            raise TransactionError("stage", f"refusing: {'; '.join(state.foreign)}")
        if self.tag in session_states(data):
            raise TransactionError("stage", f"session {self.tag} exists already on the device")
        run(session, "stage", f"copy running-config {self.backup}", PLATFORM, success=COPIED)
        run(session, "stage", f"configure session {self.tag}", PLATFORM)
        try:
            for line in script:
                run(session, "stage", line, PLATFORM)
        except TransactionError:
            self._abort_quietly(session)
            raise
        run(session, "stage", "end", PLATFORM)
        self.staged = True

    def _abort_quietly(self, session: Session) -> None:
        for command in ("end", f"configure session {self.tag} abort"):
            try:
                session.run(command)
            except Exception:
                return

    def diff(self, session: Session) -> str:
        """``show session-config named <S> diffs`` ('' when the session changes nothing)."""
        text = run(session, "diff", f"show session-config named {self.tag} diffs", PLATFORM)
        return text.strip("\n") + "\n" if text.strip() else ""

    def arm(self, session: Session, revert_in_s: int) -> None:
        """``configure session <S> commit timer hh:mm:ss``; then check the timer runs."""
        timer = timer_text(revert_in_s)
        if not self.staged:
            raise TransactionError("arm", "nothing staged")
        before = self.pending(session)
        if before.foreign:
            raise TransactionError("arm", f"refusing: {'; '.join(before.foreign)}")
        run(session, "arm", f"configure session {self.tag} commit timer {timer}", PLATFORM)
        if not self.pending(session).armed:
            msg = "the commit timer is not pending after the commit (expired or refused)"
            raise TransactionError("arm", msg)

    def confirm(self, session: Session) -> None:
        """Commit the session a second time (cancels the timer); fails when it expired."""
        if not self.pending(session).armed:
            raise TransactionError(
                "confirm", "our commit timer is not pending: the device reverted"
            )
        run(session, "confirm", f"configure session {self.tag} commit", PLATFORM)
        data, _ = self._status(session, "confirm")
        if self.tag in timer_sessions(data):
            raise TransactionError("confirm", "the commit timer is still pending after commit")

    def rollback(self, session: Session) -> None:
        """Abort while armed; otherwise replace running config with the copy taken at stage.

        Everything is read from the device (a new driver object recovers a run): a
        timer-pending session of ours is aborted; an open one is aborted; in every other
        case (confirmed, or the session already gone from the list, which keeps one finished
        session) ``configure replace`` restores the copy, which is also right, and changes
        nothing, after the timer has fired. Startup config is the caller's: it calls
        :meth:`save` again after rolling back a saved change."""
        data, _ = self._status(session, "rollback")
        if self.tag in timer_sessions(data):
            run(session, "rollback", f"configure session {self.tag} abort", PLATFORM)
            if self.tag in timer_sessions(self._status(session, "rollback")[0]):
                raise TransactionError("rollback", "the commit timer is still pending after abort")
            return
        if session_states(data).get(self.tag) in OPEN_STATES:
            run(session, "rollback", f"configure session {self.tag} abort", PLATFORM)
            return
        run(session, "rollback", f"configure replace {self.backup}", PLATFORM)

    def discard(self, session: Session) -> None:
        """Abort the open session (the device is as before); refuses an armed one."""
        data, _ = self._status(session, "discard")
        if self.tag in timer_sessions(data):
            raise TransactionError("discard", "armed: a rollback is needed, not a discard")
        if session_states(data).get(self.tag) in OPEN_STATES:
            run(session, "discard", f"configure session {self.tag} abort", PLATFORM)
        self.staged = False

    def save(self, session: Session) -> None:
        """``write memory``, only once the commit is confirmed."""
        if self.pending(session).armed:
            raise TransactionError("save", "the commit is not confirmed yet")
        run(session, "save", "write memory", PLATFORM, success=COPIED)
