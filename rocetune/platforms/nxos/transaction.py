"""Cisco NX-OS apply driver: a named checkpoint, the lines, and a device-side armed revert.

Commands, sources and what is unverified: ``docs/apply-eos-nxos.md``.

NX-OS has no candidate configuration for merge changes, and its only documented commit
timer (``configure replace <file> commit-timeout <30-3600>``, then ``configure replace
commit``) needs a *complete* configuration file on bootflash ("should not be a partial
configuration", N9K 10.2x *Performing Configuration Replace*). rocetune plans are merge
lines and rocetune copies no files to switches yet, so this driver uses the other path the
research names: checkpoint + an armed revert the switch runs by itself.

- stage: rotate old ``rocetune-*`` checkpoints (at most 10 user checkpoints; N3548 guide,
  *Configuring Rollback*), then ``checkpoint rocetune-<run>-<device>``. Nothing is active.
- diff: before arm there is no on-box candidate, so the diff is the plan's lines marked
  ``+`` (labelled as such); once armed it is ``show diff rollback-patch checkpoint <S>
  running-config`` (the device's own diff against the checkpoint).
- arm: read the device clock (``show clock``), then in one configuration session: ``feature
  scheduler`` (only when absent), ``scheduler job name <S>`` running ``rollback
  running-config checkpoint <S>``, ``scheduler schedule name <S>`` with ``job name <S>`` and
  a one-time ``time start yyyy:mm:dd:HH:MM`` at device time + ``revert_in_s`` rounded up to
  the minute (the scheduler counts minutes), and only then the plan lines. The revert is
  armed before anything changes, so a lost session still reverts. The checkpoint predates
  the scheduler lines, so the revert removes them too.
- confirm: ``no scheduler schedule name <S>``, ``no scheduler job name <S>`` (and ``no
  feature scheduler`` when this driver enabled it): running config is then exactly the
  old config plus the plan lines.
- rollback: ``rollback running-config checkpoint <S>`` (atomic, the default), success only
  when the device prints "completed successfully" (NAPALM's ``nxos_ssh`` judges by
  "completed"); ``copy running-config startup-config`` again when this run had saved.
- save: ``copy running-config startup-config`` (only after the confirm).

**Unverified** on a real switch (N9K 10.5x *Configuring the Scheduler* documents jobs,
schedules and one-time start times, not this use): that a job may roll back the config that
defines it, the exact ``show scheduler schedule`` layout read here (``Schedule Name :``,
``Last Execution Time : Yet to be executed``), and that the job runs without a stored
password (remote-AAA users need ``scheduler aaa-authentication``). Foreign work is another
run's pending ``rocetune-*`` schedule; a checkpoint/rollback lock held by another user shows
as a refused ``checkpoint``/``rollback`` (only one user at a time, N3548 guide).
"""

from __future__ import annotations

import difflib
import re
from datetime import datetime, timedelta
from typing import ClassVar

from rocetune.platforms.common.cli_remedy import simulate_text
from rocetune.platforms.common.cli_tx import (
    UnreadableOutput,
    check_tag,
    mode_script,
    plan_lines,
    run,
)
from rocetune.platforms.nxos.remediate import SINGLE, UNIT
from rocetune.platforms.transaction import DeviceChanges, Pending, Step, TransactionError, TxContext
from rocetune.session import Session

PLATFORM = "nxos"
MAX_CHECKPOINTS = 10
_CLOCK = re.compile(
    r"(\d{1,2}):(\d{2}):(\d{2})(?:\.\d+)?\s+\S+\s+\w{3}\s+(\w{3})\s+(\d{1,2})\s+(\d{4})"
)
_MONTHS = {
    m: n
    for n, m in enumerate(
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], 1
    )
}
_CHECKPOINT = re.compile(r"^\d+\)\s+(\S+?):?\s*$")
_FIELD = re.compile(r"^(Schedule Name|Schedule Type|Last Execution Time)\s*:\s*(.*?)\s*$")
_RUN_ONCE = re.compile(r"Run once on \w{3} (\w{3})\s+(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})")
ROLLBACK_OK = "completed successfully"
SCHEDULER_OFF = "rocetune-scheduler-was-off"
"""Our checkpoint's description when the scheduler feature was off before the run: the
confirm turns it off again (kept on the device, so a new driver object knows it too)."""
COPY_OK = "Copy complete"


def device_time(text: str) -> datetime:
    """The time ``show clock`` prints (device local time, naive)."""
    m = _CLOCK.search(text)
    if m is None or m.group(4) not in _MONTHS:
        raise UnreadableOutput("arm", "show clock: no time in the output (garbled?)", text)
    h, mi, s, mon, d, y = m.groups()
    return datetime(int(y), _MONTHS[mon], int(d), int(h), int(mi), int(s))


def start_time(now: datetime, revert_in_s: int) -> datetime:
    """The scheduler's start minute: ``now + revert_in_s`` rounded up to a whole minute."""
    at = now + timedelta(seconds=revert_in_s)
    if at.second or at.microsecond:
        at = at.replace(second=0, microsecond=0) + timedelta(minutes=1)
    return at


def user_checkpoints(text: str) -> dict[str, str]:
    """User checkpoint name -> description, from ``show checkpoint summary``, in listed
    (creation) order."""
    found: dict[str, str] = {}
    name: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("System Checkpoint Summary"):
            break
        m = _CHECKPOINT.match(line)
        if m is not None:
            name = m.group(1)
            found[name] = ""
        elif name is not None and line.startswith("Description:"):
            found[name] = line.removeprefix("Description:").strip()
    return found


def schedules(text: str) -> dict[str, tuple[datetime | None, bool]]:
    """Schedule name -> (its one-time start, still to run) from ``show scheduler schedule``."""
    out: dict[str, tuple[datetime | None, bool]] = {}
    name: str | None = None
    when: datetime | None = None
    for line in text.splitlines():
        m = _FIELD.match(line.strip())
        if m is None:
            continue
        key, value = m.groups()
        if key == "Schedule Name":
            name, when = value, None
        elif key == "Schedule Type" and name is not None:
            r = _RUN_ONCE.search(value)
            if r is not None and r.group(1) in _MONTHS:
                mon, d, h, mi, s, y = r.groups()
                when = datetime(int(y), _MONTHS[mon], int(d), int(h), int(mi), int(s))
        elif key == "Last Execution Time" and name is not None:
            out[name] = (when, "Yet to be executed" in value)
    return out


class NxosTransaction:
    """One Cisco NX-OS switch's transaction."""

    platform: ClassVar[str] = PLATFORM

    def __init__(self, context: TxContext) -> None:
        self.context = context
        self.tag = check_tag(context.tag)
        self.script: list[str] = []
        self.predicted = ""
        """The diff rocetune's replay predicts (running -> running + plan lines)."""
        self.staged = False
        self.armed_once = False

    # --- reading -------------------------------------------------------------------------
    def _scheduler_on(self, session: Session, step: Step) -> bool:
        text = run(session, step, "show running-config", PLATFORM)
        return re.search(r"^feature scheduler\s*$", text, re.MULTILINE) is not None

    def _state(self, session: Session, step: Step) -> Pending:
        if not self._scheduler_on(session, step):
            return Pending()
        found = schedules(run(session, step, "show scheduler schedule", PLATFORM))
        foreign = tuple(
            f"schedule {n} (another run's armed revert)"
            for n, (_, waiting) in found.items()
            if n != self.tag and n.startswith("rocetune-") and waiting
        )
        when, waiting = found.get(self.tag, (None, False))
        if not waiting:
            return Pending(foreign=foreign)
        left = None
        if when is not None:
            now = device_time(run(session, step, "show clock", PLATFORM))
            left = max(0.0, (when - now).total_seconds())
        return Pending(True, self.tag, left, foreign)

    def precheck(self, session: Session) -> Pending:
        """Our armed revert (if any) and other runs' armed reverts."""
        return self._state(session, "precheck")

    def pending(self, session: Session) -> Pending:
        """Whether our revert is still scheduled, and how long it has left."""
        return self._state(session, "pending")

    # --- steps ---------------------------------------------------------------------------
    def stage(self, session: Session, changes: DeviceChanges) -> None:
        """Rotate old rocetune checkpoints, then take ours; the lines wait for :meth:`arm`."""
        lines = plan_lines(changes.changes)
        self.script = mode_script(lines)
        if not self.script:
            raise TransactionError("stage", "the plan has no lines for this device")
        state = self._state(session, "stage")
        if state.foreign:
            raise TransactionError("stage", f"refusing: {'; '.join(state.foreign)}")
        running = run(session, "stage", "show running-config", PLATFORM)
        blocks = ["\n".join(change["commands"]) for change in changes.changes]
        after = simulate_text(running, blocks, UNIT, SINGLE)
        self.predicted = "".join(
            difflib.unified_diff(
                running.splitlines(keepends=True),
                after.splitlines(keepends=True),
                "running-config",
                "running-config + plan (predicted by rocetune's replay)",
            )
        )
        off = re.search(r"^feature scheduler\s*$", running, re.MULTILINE) is None
        self._collect_stale_jobs(session, running)
        names = list(self._checkpoints(session, "stage"))
        if self.tag in names:
            raise TransactionError("stage", f"checkpoint {self.tag} exists already")
        self._rotate(session, names)
        command = f"checkpoint {self.tag}" + (f" description {SCHEDULER_OFF}" if off else "")
        run(session, "stage", command, PLATFORM, success="Done")
        self.staged = True

    def _collect_stale_jobs(self, session: Session, running: str) -> None:
        """Remove ``rocetune-*`` scheduler jobs that no schedule runs any more (left by a
        session lost half-way through a confirm on a switch whose scheduler was on)."""
        jobs = set(re.findall(r"^scheduler job name (rocetune-\S+)\s*$", running, re.MULTILINE))
        used = set(re.findall(r"^scheduler schedule name (\S+)\s*$", running, re.MULTILINE))
        stale = sorted(jobs - used)
        if not stale:
            return
        run(session, "stage", "configure terminal", PLATFORM)
        try:
            for job in stale:
                run(session, "stage", f"no scheduler job name {job}", PLATFORM)
        finally:
            self._leave(session)

    def _checkpoints(self, session: Session, step: Step) -> dict[str, str]:
        return user_checkpoints(run(session, step, "show checkpoint summary", PLATFORM))

    def _enabled_scheduler(self, session: Session, step: Step) -> bool:
        """Whether this run turned the scheduler feature on (our checkpoint says so)."""
        return self._checkpoints(session, step).get(self.tag) == SCHEDULER_OFF

    def _rotate(self, session: Session, names: list[str]) -> None:
        """Delete the oldest ``rocetune-*`` checkpoints until ours fits under the limit.

        Never one another run still needs: those runs' schedules are refused as foreign
        before this point, so a ``rocetune-*`` checkpoint here belongs to a finished run."""
        old = [n for n in names if n.startswith("rocetune-") and n != self.tag]
        while len(names) >= MAX_CHECKPOINTS:
            if not old:
                msg = f"{len(names)} user checkpoints (limit {MAX_CHECKPOINTS}), none rocetune's"
                raise TransactionError("stage", msg)
            victim = old.pop(0)
            run(session, "stage", f"no checkpoint {victim}", PLATFORM)
            names.remove(victim)

    def diff(self, session: Session) -> str:
        """Armed: the device's diff against our checkpoint. Staged: NX-OS has no candidate
        for merge changes, so the diff is the one rocetune's replay of the plan lines on the
        running config predicts ('' when the lines are there already)."""
        if self.armed_once:
            command = f"show diff rollback-patch checkpoint {self.tag} running-config"
            return run(session, "diff", command, PLATFORM)
        return self.predicted

    def arm(self, session: Session, revert_in_s: int) -> None:
        """Schedule the rollback to our checkpoint, then enter the plan lines."""
        if not self.staged:
            raise TransactionError("arm", "nothing staged")
        if not 30 <= revert_in_s <= 86_400:
            raise TransactionError("arm", f"revert timer must be 30..86400 s, got {revert_in_s}")
        now = device_time(run(session, "arm", "show clock", PLATFORM))
        at = start_time(now, revert_in_s)
        revert = [
            *(["feature scheduler"] if self._enabled_scheduler(session, "arm") else []),
            f"scheduler job name {self.tag}",
            f"rollback running-config checkpoint {self.tag}",
            "end-job",
            f"scheduler schedule name {self.tag}",
            f"job name {self.tag}",
            f"time start {at:%Y:%m:%d:%H:%M}",
            "exit",
        ]
        run(session, "arm", "configure terminal", PLATFORM)
        try:
            for line in revert:
                run(session, "arm", line, PLATFORM)
            if not self._waiting(session):
                raise TransactionError("arm", "the revert schedule is not pending")
            self.armed_once = True
            for line in self.script:
                run(session, "arm", line, PLATFORM)
        except TransactionError as refused:
            self._leave(session)
            self._undo(session, refused)
        self._leave(session)

    def _undo(self, session: Session, refused: TransactionError) -> None:
        """A line was refused after the revert lines went in: roll back to the checkpoint
        now, so the refusal leaves the device as before (else its state is unknown)."""
        try:
            self.rollback(session)
        except (TransactionError, UnreadableOutput) as failed:
            msg = f"{refused.message}; rollback to {self.tag} failed: {failed}"
            raise UnreadableOutput("arm", msg, refused.output) from refused
        msg = f"{refused.message}; rolled back to checkpoint {self.tag}"
        raise TransactionError("arm", msg, refused.output) from refused

    def _waiting(self, session: Session) -> bool:
        """Whether our schedule is listed as waiting (read from configuration mode)."""
        found = schedules(run(session, "arm", "show scheduler schedule", PLATFORM))
        return found.get(self.tag, (None, False))[1]

    @staticmethod
    def _leave(session: Session) -> None:
        try:
            session.run("end")
        except Exception:
            return

    def confirm(self, session: Session) -> None:
        """Remove the scheduled revert; fails when it has already run.

        When this run turned the scheduler on, ``no feature scheduler`` alone removes the
        feature with its schedule and job in one command (NX-OS removes a feature's
        configuration with the feature), so a lost session cannot leave half of it. Else
        the schedule goes first (that stops the revert), then the job; a job left behind by
        a lost session is removed by the next run's stage, or by calling confirm again
        (the schedule gone but our job still there means the confirm had begun: a revert
        that ran removes the job with everything else)."""
        running = run(session, "confirm", "show running-config", PLATFORM)
        job = f"scheduler job name {self.tag}" in running
        armed = self.pending(session).armed
        if not armed and not job:
            raise TransactionError("confirm", "our revert is not scheduled any more: it ran")
        if self._enabled_scheduler(session, "confirm"):
            steps = ["no feature scheduler"]
        else:
            steps = [f"no scheduler schedule name {self.tag}"] if armed else []
            steps += [f"no scheduler job name {self.tag}"] if job else []
        run(session, "confirm", "configure terminal", PLATFORM)
        try:
            for line in steps:
                run(session, "confirm", line, PLATFORM)
        finally:
            self._leave(session)
        if self.pending(session).armed:
            raise TransactionError("confirm", "the revert is still scheduled after confirm")

    def rollback(self, session: Session) -> None:
        """``rollback running-config checkpoint <S>`` (armed or confirmed; the checkpoint
        predates the schedule, so an armed revert goes too). Startup config is the caller's:
        it calls :meth:`save` again after rolling back a saved change.

        A failed rollback may have applied part of its patch ("you need to clean up these
        changes manually", N9K *Configuring Rollback*): without the success line the state is
        unknown (:class:`~rocetune.platforms.common.cli_tx.UnreadableOutput`), and a
        verification failure is a refusal (atomic mode restores the previous config)."""
        command = f"rollback running-config checkpoint {self.tag}"
        run(
            session,
            "rollback",
            command,
            PLATFORM,
            success=ROLLBACK_OK,
            failures=("Verification failed", "Rollback failed"),
        )

    def discard(self, session: Session) -> None:
        """Not armed: delete our checkpoint (after rolling back to it when part of the revert
        lines went in before a session was lost); refuses while armed."""
        if self.pending(session).armed:
            raise TransactionError("discard", "armed: a rollback is needed, not a discard")
        checkpoints = self._checkpoints(session, "discard")
        if self.tag not in checkpoints:
            return
        running = run(session, "discard", "show running-config", PLATFORM)
        ours = f"scheduler job name {self.tag}" in running or (
            f"scheduler schedule name {self.tag}" in running
        )
        turned_on = checkpoints[self.tag] == SCHEDULER_OFF and (
            re.search(r"^feature scheduler\s*$", running, re.MULTILINE) is not None
        )
        if ours or turned_on:  # a session lost while the revert was being entered
            self.rollback(session)
        run(session, "discard", f"no checkpoint {self.tag}", PLATFORM)
        self.staged = False

    def save(self, session: Session) -> None:
        """``copy running-config startup-config``, only once confirmed."""
        if self.pending(session).armed:
            raise TransactionError("save", "the change is not confirmed yet")
        run(session, "save", "copy running-config startup-config", PLATFORM, success=COPY_OK)
