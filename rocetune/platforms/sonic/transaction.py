"""SONiC apply driver: GCU checkpoint + apply-patch, with an on-box dead-man timer.

Generic Config Updater (sonic-utilities ``config/main.py`` and
``generic_config_updater/generic_updater.py``; SONiC "Generic Config Update and Rollback"
design document) gives ``config checkpoint <name>``, ``config apply-patch [-d] <file>``,
``config rollback <name>``, ``config delete-checkpoint <name>`` and ``config save -y``. It has
no commit timer, no lock (``ConfigLock.acquire_lock`` is a TODO) and no automatic rollback
(a failing patch can leave CONFIG_DB half changed). So this driver:

- checkpoints first, writes the JSON Patch to a file on the box and dry-runs it (``-d``);
- re-reads CONFIG_DB right before the commit and aborts on drift since :meth:`stage` (the
  only protection against a concurrent writer, since there is no lock);
- arms ``systemd-run --unit=<tag>-revert --on-active=<T>s config rollback <tag>`` *before*
  ``apply-patch``, so a session lost in the middle of the apply still reverts on the box;
- confirms by stopping ``<tag>-revert.timer``; saves with ``config save -y`` only after the
  confirm, then deletes the checkpoint and the patch file. The plan's rollback patch stays in
  ``~/.rocetune/<tag>.rollback.json`` (written at stage), so ``rollback`` works from a new
  driver instance after the checkpoint is gone (``--rollback RUN``), and is removed by it.

GCU prints ``Patch applied successfully.``, ``Config rolled back successfully.``,
``Checkpoint created successfully.`` and ``Checkpoint deleted successfully.`` on success
(sonic-utilities ``config/main.py``, code reading); a step is done only when that line is
there. ``config`` needs root (``sudo``). That ``systemd-run`` finds ``config`` through the
transient unit's default PATH is **unverified** on a SONiC image (it is a Debian systemd).

The steps, their sources and how to finish or undo a run by hand: ``docs/apply-platforms-linux.md``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, ClassVar

from rocetune.platforms.common.jsonpatch import apply_ops
from rocetune.platforms.common.txsafe import (
    check_tag,
    check_text,
    run,
    timer_active,
    write_file,
)
from rocetune.platforms.sonic.commands import CONFIG_DB
from rocetune.platforms.transaction import (
    DeviceChanges,
    Pending,
    Step,
    TransactionError,
    TxContext,
)
from rocetune.session import Session

PLATFORM = "sonic"
OPS = frozenset({"add", "remove", "replace"})
APPLIED = "Patch applied successfully."
ROLLED_BACK = "Config rolled back successfully."
CHECKPOINTED = "Checkpoint created successfully."
DELETED = "Checkpoint deleted successfully."
FAILURES = ("Failed to apply patch", "Failed to rollback", "Failed to create checkpoint")


def validate_patch(changes: DeviceChanges | dict[str, Any], step: Step = "stage") -> list[Any]:
    """The RFC 6902 ops of ``changes`` (plan ``patch`` arrays), validated; TransactionError."""
    items = changes.changes if isinstance(changes, DeviceChanges) else (changes,)
    ops: list[Any] = []
    for change in items:
        patch = change.get("patch")
        if not isinstance(patch, list):
            raise TransactionError(step, "a SONiC change has no JSON Patch array ('patch')")
        for op in patch:
            if not isinstance(op, dict) or op.get("op") not in OPS:
                raise TransactionError(step, f"unsupported JSON Patch op: {op!r}")
            path = op.get("path")
            if not isinstance(path, str) or not path.startswith("/"):
                raise TransactionError(step, f"not a JSON pointer: {path!r}")
            check_text(step, path, "patch path")
            if op["op"] != "remove" and "value" not in op:
                raise TransactionError(step, f"{op['op']} without a value: {path}")
            extra = set(op) - {"op", "path", "value"}
            if extra:
                raise TransactionError(step, f"unexpected keys {sorted(extra)} in op {path}")
            ops.append({k: op[k] for k in ("op", "path", "value") if k in op})
    return ops


def _digest(doc: Any) -> str:
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


class SonicTransaction:
    """One SONiC switch's transaction (see the module docstring for the steps)."""

    platform: ClassVar[str] = PLATFORM

    def __init__(self, context: TxContext) -> None:
        self.context = context
        self.tag = check_tag(context.tag)
        self.unit = f"{self.tag}-revert"
        self.patch_file = f"/tmp/{self.tag}.patch.json"
        self.rollback_file = f".rocetune/{self.tag}.rollback.json"
        """The plan's rollback patch, kept in the login user's home (persistent) so a new
        driver instance (``--rollback RUN``, recovery) can undo a saved run whose checkpoint
        is gone."""
        self.ops: list[Any] = []
        self.rollback_ops: list[Any] = []
        self.baseline: str | None = None
        """Digest of CONFIG_DB as read at :meth:`stage` (drift check before the commit)."""
        self.saved = False

    # --- reading ---------------------------------------------------------------------
    def _config_db(self, session: Session, step: Step) -> dict[str, Any]:
        text = run(session, step, CONFIG_DB.command, PLATFORM)
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise TransactionError(step, f"CONFIG_DB is not JSON: {exc}", text) from exc
        if not isinstance(data, dict):
            raise TransactionError(step, "CONFIG_DB is not a JSON object", text)
        return data

    def _checkpoints(self, session: Session, step: Step) -> list[str]:
        text = run(session, step, "sudo config list-checkpoints", PLATFORM)
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise TransactionError(step, "config list-checkpoints: not JSON", text) from exc
        names = [d.get("name") if isinstance(d, dict) else d for d in data]
        return [n for n in names if isinstance(n, str)]

    def _timers(self, session: Session, step: Step) -> list[str]:
        text = run(
            session,
            step,
            "systemctl list-units --all --plain --no-legend --type=timer 'rocetune-*'",
            PLATFORM,
        )
        units = [line.split()[0] for line in text.splitlines() if line.split()]
        return [u for u in units if u.startswith("rocetune-") and u.endswith(".timer")]

    def _armed(self, session: Session, step: Step) -> bool:
        return timer_active(session, step, self.unit, PLATFORM)

    # --- contract ----------------------------------------------------------------------
    def precheck(self, session: Session) -> Pending:
        """Other runs' checkpoints and armed revert timers are foreign; ours means armed."""
        timers = self._timers(session, "precheck")
        checkpoints = self._checkpoints(session, "precheck")
        own_timer = f"{self.unit}.timer"
        foreign = [f"timer {t}" for t in timers if t != own_timer]
        foreign += [
            f"checkpoint {c}" for c in checkpoints if c.startswith("rocetune-") and c != self.tag
        ]
        armed = own_timer in timers and self._armed(session, "precheck")
        return Pending(armed=armed, name=self.tag if armed else None, foreign=tuple(foreign))

    def stage(self, session: Session, changes: DeviceChanges) -> None:
        """Validate the patch, check it applies, checkpoint, write the file, dry-run it."""
        self.ops = validate_patch(changes)
        if changes.rollback:
            self.rollback_ops = validate_patch(changes.rollback)
        running = self._config_db(session, "stage")
        try:
            apply_ops(running, [json.dumps(op) for op in self.ops])
        except (ValueError, KeyError, TypeError) as exc:
            msg = f"the patch does not apply to CONFIG_DB: {exc}"
            raise TransactionError("stage", msg) from exc
        self.baseline = _digest(running)
        run(session, "stage", f"sudo config checkpoint {self.tag}", PLATFORM, success=CHECKPOINTED)
        if self.rollback_ops:
            run(session, "stage", "mkdir -p .rocetune", PLATFORM)
            self._write_patch(session, self.rollback_ops, "stage", self.rollback_file)
        self._write_patch(session, self.ops, "stage")
        run(
            session,
            "stage",
            f"sudo config apply-patch -d {self.patch_file}",
            PLATFORM,
            success=APPLIED,
            failures=FAILURES,
        )

    def _write_patch(
        self, session: Session, ops: list[Any], step: Step, path: str | None = None
    ) -> None:
        path = path or self.patch_file
        # ensure_ascii: every character of the file is printable ASCII (no control chars)
        text = json.dumps(ops, separators=(",", ":"), sort_keys=True, ensure_ascii=True)
        check_text(step, text, "patch")
        for command in write_file(path, text):
            run(session, step, command, PLATFORM)
        back = run(session, step, f"cat {path}", PLATFORM).strip()
        try:
            same = json.loads(back) == ops
        except ValueError:
            same = False
        if not same:
            raise TransactionError(step, "the patch file on the box differs from the plan", back)

    def diff(self, session: Session) -> str:
        """The ops that change CONFIG_DB now (JSON, one op per line); '' when none would."""
        running = self._config_db(session, "diff")
        try:
            after = apply_ops(running, [json.dumps(op) for op in self.ops])
        except (ValueError, KeyError, TypeError) as exc:
            raise TransactionError("diff", f"the patch does not apply: {exc}") from exc
        if after == running:
            return ""
        return "\n".join(json.dumps(op, sort_keys=True) for op in self.ops) + "\n"

    def arm(self, session: Session, revert_in_s: int) -> None:
        """Drift check, arm the revert timer, then apply the patch."""
        if revert_in_s <= 0:
            raise TransactionError("arm", f"revert timer must be positive, got {revert_in_s}")
        if self.baseline is None:
            raise TransactionError("arm", "nothing staged")
        if _digest(self._config_db(session, "arm")) != self.baseline:
            raise TransactionError(
                "arm", "CONFIG_DB changed since stage (another writer; SONiC has no lock)"
            )
        run(
            session,
            "arm",
            f"sudo systemd-run --unit={self.unit} --on-active={int(revert_in_s)}s "
            f"config rollback {self.tag}",
            PLATFORM,
        )
        run(
            session,
            "arm",
            f"sudo config apply-patch {self.patch_file}",
            PLATFORM,
            success=APPLIED,
            failures=FAILURES,
        )

    def pending(self, session: Session) -> Pending:
        """Armed while our revert timer is active."""
        armed = self._armed(session, "pending")
        return Pending(armed=armed, name=self.tag if armed else None)

    def confirm(self, session: Session) -> None:
        """Stop the revert timer; fail when it already fired (the box rolled back)."""
        if not self._armed(session, "confirm"):
            raise TransactionError("confirm", f"{self.unit}.timer is not active: it fired")
        run(session, "confirm", f"sudo systemctl stop {self.unit}.timer", PLATFORM)
        probe = f"systemctl is-active {self.unit}.service || true"
        state = run(session, "confirm", probe, PLATFORM)
        if state.strip().splitlines()[-1:] in (["active"], ["activating"]):
            raise TransactionError("confirm", "the rollback started before the timer stopped")
        if self._armed(session, "confirm"):
            raise TransactionError("confirm", f"{self.unit}.timer is still active")

    def rollback(self, session: Session) -> None:
        """Stop the timer and roll back to the checkpoint (or apply the plan's rollback)."""
        run(session, "rollback", f"sudo systemctl stop {self.unit}.timer || true", PLATFORM)
        if self.tag in self._checkpoints(session, "rollback"):
            run(
                session,
                "rollback",
                f"sudo config rollback {self.tag}",
                PLATFORM,
                success=ROLLED_BACK,
                failures=FAILURES,
            )
        else:
            if not self._exists(session, self.rollback_file):
                if not self.rollback_ops:
                    msg = f"no checkpoint {self.tag} and no rollback patch on the box"
                    raise TransactionError("rollback", msg)
                run(session, "rollback", "mkdir -p .rocetune", PLATFORM)
                self._write_patch(session, self.rollback_ops, "rollback", self.rollback_file)
            run(
                session,
                "rollback",
                f"sudo config apply-patch {self.rollback_file}",
                PLATFORM,
                success=APPLIED,
                failures=FAILURES,
            )
        if self.saved:
            run(session, "rollback", "sudo config save -y", PLATFORM)
        self._cleanup(session, "rollback")
        run(session, "rollback", f"rm -f {self.rollback_file}", PLATFORM)

    def _exists(self, session: Session, path: str) -> bool:
        out = run(session, "rollback", f"test -f {path} && echo yes || echo no", PLATFORM)
        return out.strip().splitlines()[-1:] == ["yes"]

    def discard(self, session: Session) -> None:
        """Nothing was applied: drop the checkpoint and the patch files."""
        self._cleanup(session, "discard")
        run(session, "discard", f"rm -f {self.rollback_file}", PLATFORM)

    def save(self, session: Session) -> None:
        """``config save -y`` (CONFIG_DB -> /etc/sonic/config_db.json), then clean up."""
        if self._armed(session, "save"):
            raise TransactionError("save", "still armed: confirm first")
        run(session, "save", "sudo config save -y", PLATFORM)
        self.saved = True
        self._cleanup(session, "save")

    def _cleanup(self, session: Session, step: Step) -> None:
        if self.tag in self._checkpoints(session, step):
            delete = f"sudo config delete-checkpoint {self.tag}"
            run(session, step, delete, PLATFORM, success=DELETED)
        run(session, step, f"rm -f {self.patch_file}", PLATFORM)
