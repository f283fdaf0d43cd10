"""Cumulus Linux NVUE apply driver: ``nv set`` lines, ``nv config apply --confirm <N>m -y``.

NVUE reference *Config Commands* (CumulusNetworks/docs ``content/nvue-reference/
Config-Commands.md``): ``nv config apply --confirm [time]`` applies and rolls back by itself
unless confirmed (default ten minutes); ``nv config apply <revision>`` re-applies a revision
(the rollback primitive); ``nv config diff``; ``nv config detach`` drops the pending edits;
``-y`` answers the prompt. The unit of ``--confirm`` differs between document versions (a
bare ``60`` is one hour in the reference, 5.14 writes ``60m``), so this driver always writes
the unit. Cumulus 5.9+ saves on apply; ``nv config save`` is still run after confirm for 5.8
and older.

**Unverified in NVIDIA's documents** (used by the ``david-pili/napalm-cumulus`` fork and lab
material): confirming with ``nv config apply [<rev>] --confirm-yes``, aborting with
``--confirm-no``, the ``nv config revision -o json`` object (revision id -> ``{"state": ...}``
with ``state == "confirm"`` while a confirm is pending), and what auto-save does with an
unconfirmed apply. The driver reads revisions before and after the apply, so the revision
it created, and the one it replaced, are recorded (:attr:`CumulusTransaction.revision`,
:attr:`CumulusTransaction.revision_before`).

The steps, their sources and how to finish or undo a run by hand: ``docs/apply-platforms-linux.md``.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from typing import Any, ClassVar

from rocetune.platforms.common.txsafe import check_tag, check_text, run
from rocetune.platforms.transaction import (
    DeviceChanges,
    Pending,
    Step,
    TransactionError,
    TxContext,
)
from rocetune.session import Session

PLATFORM = "cumulus"
LINE = re.compile(r"nv (?:set|unset)(?: [A-Za-z0-9_.,:/@%+=*-]+)+")
"""An ``nv set``/``nv unset`` line: words of safe characters (no quotes, ``;``, ``$``, ``|``)."""
OPEN = frozenset({"confirm", "pending", "applying", "ays", "apply"})
"""Revision states that mean a change is in flight (``confirm``: waiting for a confirm)."""
APPLIED = frozenset({"applied", "applied_and_saved"})
FAILURES = ("Could not connect to nvued", "Error:", "Aborted")


def validate_lines(changes: DeviceChanges | dict[str, Any], step: Step = "stage") -> list[str]:
    """The ``nv set``/``nv unset`` lines of the plan changes, validated; TransactionError."""
    items = changes.changes if isinstance(changes, DeviceChanges) else (changes,)
    lines: list[str] = []
    for change in items:
        commands = change.get("commands")
        if not isinstance(commands, list):
            raise TransactionError(step, "an NVUE change has no 'commands' list")
        for raw in commands:
            if not isinstance(raw, str):
                raise TransactionError(step, f"not a command line: {raw!r}")
            line = " ".join(check_text(step, raw, "NVUE line").split())
            if not line or line.startswith("#"):
                continue
            if LINE.fullmatch(line) is None:
                raise TransactionError(step, f"not a safe nv set/unset line: {line!r}")
            lines.append(line)
    return lines


def confirm_time(seconds: int) -> str:
    """``--confirm`` argument with an explicit unit (whole minutes, at least one)."""
    return f"{max(1, math.ceil(seconds / 60))}m"


class CumulusTransaction:
    """One Cumulus NVUE switch's transaction."""

    platform: ClassVar[str] = PLATFORM

    def __init__(self, context: TxContext) -> None:
        self.context = context
        self.tag = check_tag(context.tag)
        self.lines: list[str] = []
        self.rollback_lines: list[str] = []
        self.known: set[str] = set()
        """Revision ids that existed before our apply (never ours)."""
        self.revision: str | None = None
        """The revision our apply created."""
        self.revision_before: str | None = None
        """The revision applied before ours (what a rollback after confirm re-applies)."""
        self.staged = False
        self.record = f".rocetune/{self.tag}.nvue.json"
        """Revisions of this run kept on the box (login user's home), so a new driver instance
        (recovery, ``--rollback RUN``) finds its revision: ``{"before", "known", "revision"}``."""

    def _save_record(self, session: Session, step: Step) -> None:
        data = {"before": self.revision_before, "known": sorted(self.known, key=_rev_key)}
        if self.revision is not None:
            data["revision"] = self.revision
        text = json.dumps(data, sort_keys=True)
        run(session, step, "mkdir -p .rocetune", PLATFORM)
        run(session, step, f"printf '%s\\n' {shlex.quote(text)} > {self.record}", PLATFORM)

    def _recall(self, session: Session, step: Step) -> None:
        """Load this run's revisions from the box when this instance did not stage."""
        if self.revision is not None or self.known:
            return
        probe = f"test -f {self.record} && cat {self.record} || echo '{{}}'"
        try:
            data = json.loads(run(session, step, probe, PLATFORM))
        except ValueError:
            return
        if not isinstance(data, dict):
            return
        self.known = {str(r) for r in data.get("known", [])}
        before, revision = data.get("before"), data.get("revision")
        self.revision_before = str(before) if before is not None else None
        self.revision = str(revision) if revision is not None else None
        if self.revision is None and self.known:  # lost before the record was completed
            ours = [
                r
                for r, i in self._revisions(session, step).items()
                if r not in self.known and i.get("state") in ("confirm", *APPLIED)
            ]
            self.revision = max(ours, key=_rev_key) if ours else None

    def _revisions(self, session: Session, step: Step) -> dict[str, dict[str, Any]]:
        text = run(session, step, "nv config revision -o json", PLATFORM, failures=FAILURES[:1])
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise TransactionError(step, "nv config revision: not JSON", text) from exc
        if not isinstance(data, dict):
            raise TransactionError(step, "nv config revision: not a JSON object", text)
        return {str(k): v if isinstance(v, dict) else {} for k, v in data.items()}

    def _diff(self, session: Session, step: Step) -> str:
        return run(session, step, "nv config diff", PLATFORM, failures=FAILURES[:2])

    def precheck(self, session: Session) -> Pending:
        """Refuse-worthy: another revision in flight, or unapplied edits already pending."""
        revisions = self._revisions(session, "precheck")
        foreign: list[str] = []
        armed = False
        for rev, info in revisions.items():
            state = str(info.get("state", ""))
            if rev == self.revision and state == "confirm":
                armed = True
            elif state in OPEN:
                foreign.append(f"revision {rev} ({state}, user {info.get('user', '?')})")
        if not armed and self._diff(session, "precheck").strip():
            foreign.append("unapplied pending edits (nv config diff is not empty)")
        return Pending(armed=armed, name=self.revision if armed else None, foreign=tuple(foreign))

    def stage(self, session: Session, changes: DeviceChanges) -> None:
        """Record the revisions, then enter the ``nv set``/``nv unset`` lines."""
        self.lines = validate_lines(changes)
        if changes.rollback:
            self.rollback_lines = validate_lines(changes.rollback)
        revisions = self._revisions(session, "stage")
        self.known = set(revisions)
        busy = [r for r, i in revisions.items() if str(i.get("state", "")) in OPEN]
        if busy:
            raise TransactionError("stage", f"revisions in flight that are not ours: {busy}")
        applied = [r for r, i in revisions.items() if str(i.get("state", "")) in APPLIED]
        self.revision_before = max(applied, key=_rev_key) if applied else None
        if self._diff(session, "stage").strip():
            raise TransactionError("stage", "pending edits exist that are not this plan's")
        self._save_record(session, "stage")
        for line in self.lines:
            run(session, "stage", line, PLATFORM, failures=FAILURES[:2])
        self.staged = True

    def diff(self, session: Session) -> str:
        """``nv config diff``: the pending edits against the applied revision."""
        return self._diff(session, "diff")

    def arm(self, session: Session, revert_in_s: int) -> None:
        """``nv config apply --confirm <N>m -y``; find the revision it left waiting."""
        if not self.staged:
            raise TransactionError("arm", "nothing staged")
        if revert_in_s <= 0:
            raise TransactionError("arm", f"revert timer must be positive, got {revert_in_s}")
        run(
            session,
            "arm",
            f"nv config apply --confirm {confirm_time(revert_in_s)} -y",
            PLATFORM,
            failures=FAILURES,
        )
        waiting = [
            r
            for r, i in self._revisions(session, "arm").items()
            if r not in self.known and i.get("state") == "confirm"
        ]
        if len(waiting) != 1:
            raise TransactionError("arm", f"expected one new revision waiting, found {waiting}")
        self.revision = waiting[0]
        self._save_record(session, "arm")

    def pending(self, session: Session) -> Pending:
        """Armed while our revision waits in state ``confirm``."""
        self._recall(session, "pending")
        revisions = self._revisions(session, "pending")
        armed = self.revision is not None and revisions.get(self.revision, {}).get("state") == (
            "confirm"
        )
        foreign = tuple(
            f"revision {r} ({i.get('state')})"
            for r, i in revisions.items()
            if r != self.revision and str(i.get("state", "")) in OPEN
        )
        return Pending(armed=armed, name=self.revision if armed else None, foreign=foreign)

    def confirm(self, session: Session) -> None:
        """``nv config apply <rev> --confirm-yes``; fails when the confirm window passed."""
        if not self.pending(session).armed:
            raise TransactionError("confirm", f"revision {self.revision} is not waiting: expired")
        run(
            session,
            "confirm",
            f"nv config apply {self.revision} --confirm-yes",
            PLATFORM,
            failures=FAILURES,
        )
        state = self._revisions(session, "confirm").get(self.revision or "", {}).get("state")
        if state not in APPLIED:
            msg = f"revision {self.revision} is {state!r} after confirm"
            raise TransactionError("confirm", msg)

    def rollback(self, session: Session) -> None:
        """Abort a waiting revision (``--confirm-no``), or re-apply the one before ours."""
        self._recall(session, "rollback")
        revisions = self._revisions(session, "rollback")
        state = revisions.get(self.revision or "", {}).get("state") if self.revision else None
        if state == "confirm":
            cmd = f"nv config apply {self.revision} --confirm-no"
            run(session, "rollback", cmd, PLATFORM, failures=FAILURES)
        elif state in APPLIED and self.revision_before is not None:
            cmd = f"nv config apply {self.revision_before} -y"
            run(session, "rollback", cmd, PLATFORM, failures=FAILURES)
        elif state in APPLIED and self.rollback_lines:
            for line in self.rollback_lines:
                run(session, "rollback", line, PLATFORM, failures=FAILURES[:2])
            run(session, "rollback", "nv config apply -y", PLATFORM, failures=FAILURES)
        elif self.revision is None and self.staged:
            self.discard(session)
            return
        # else: the confirm timer already expired and NVUE rolled back by itself
        if self._diff(session, "rollback").strip():
            run(session, "rollback", "nv config detach", PLATFORM, failures=FAILURES[:2])

    def discard(self, session: Session) -> None:
        """``nv config detach``: drop the pending edits."""
        run(session, "discard", "nv config detach", PLATFORM, failures=FAILURES[:2])
        self.staged = False

    def save(self, session: Session) -> None:
        """``nv config save`` (auto-save covers 5.9+; 5.8 and older need it)."""
        if self.pending(session).armed:
            raise TransactionError("save", "still armed: confirm first")
        run(session, "save", "nv config save", PLATFORM, failures=FAILURES)


def _rev_key(rev: str) -> tuple[int, str]:
    return (int(rev), rev) if rev.isdigit() else (-1, rev)
