"""Cumulus NVUE engine: pending edits, revisions, ``--confirm`` timers, nvued down.

Spec: ``{"kind": "cumulus", "snapshot": DIR-or-FILE, "rate": 1, "autosave": true,
"nvued_down": false, "foreign": null | {"state": "confirm"|"pending", "user": "alice"},
"foreign_diff": [lines], "faults": [...]}``. The applied configuration starts as the
snapshot's ``nv config show -o yaml`` (printed unchanged while nothing changed).

Behaviours (NVUE reference *Config Commands*; Cumulus Linux 5.14 *NVUE CLI*; the
``david-pili/napalm-cumulus`` fork for what NVIDIA's pages do not show):

- ``nv set``/``nv unset`` edit the pending revision; ``nv config diff`` shows it;
  ``nv config detach`` drops it;
- ``nv config apply`` asks "Are you sure?" unless ``-y``;
- ``nv config apply --confirm <t> -y`` applies and rolls back by itself unless confirmed in
  time; a bare number is minutes (reference: ``--confirm 60`` = one hour), ``s``/``m``/``h``
  units are read; the revision's state is ``confirm`` meanwhile (fork, **unverified**);
- ``nv config apply [<rev>] --confirm-yes`` / ``--confirm-no`` (fork, **unverified**);
- ``nv config apply <rev> -y`` re-applies a revision (the rollback primitive);
- ``nv config revision -o json``: revision id -> ``{"state", "user"}`` (fork);
- auto-save (5.9+): a confirmed apply is saved (``applied_and_saved``); ``nv config save``;
  a reboot loads the saved configuration, so an unconfirmed apply is gone (what auto-save
  does with an unconfirmed apply is **unverified**: modelled as not saved);
- nvued down: every ``nv`` command fails with "Could not connect to nvued" (networkop/cx#9).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from rocetune.platforms.cumulus.commands import NV_CONFIG
from rocetune.platforms.cumulus.remediate import simulate
from rocetune.snapshot import Snapshot, SourceFile
from tests.lab.engines.box import BoxEngine, Result, fail, ok
from tests.lab.engines.counters import nvue_qos, nvue_watchdog

USER = "cumulus"


class CumulusEngine(BoxEngine):
    """A Cumulus Linux switch's NVUE behind the lab's SSH listener."""

    platform = "cumulus"

    def __init__(self, device: str, spec: dict[str, Any]) -> None:
        super().__init__(device, spec)
        snap = Path(spec["snapshot"])
        source = snap / "nv_config_show_o_yaml.yaml" if snap.is_dir() else snap
        self.applied = source.read_text(encoding="utf-8")
        self.original = self.applied
        self.startup = self.applied
        self.autosave = bool(spec.get("autosave", True))
        self.nvued_down = bool(spec.get("nvued_down", False))
        self.revisions: dict[int, dict[str, Any]] = {
            1: {"state": "applied_and_saved", "user": USER, "text": self.applied}
        }
        self.pending: list[str] = list(spec.get("foreign_diff", []))
        self.pending_rev: int | None = None
        self.confirm: tuple[int, str] | None = None
        """(revision waiting for a confirm, the configuration to go back to)."""
        self._confirm_due = float("inf")
        foreign = spec.get("foreign")
        if foreign:
            self.revisions[50] = {
                "state": foreign.get("state", "confirm"),
                "user": foreign.get("user", "alice"),
                "text": self.applied,
            }

    def control(self, line: str) -> Result:
        if line.startswith("nvued "):
            self.nvued_down = line.split()[1] == "down"
            return ok()
        return super().control(line)

    def reboot(self) -> None:
        super().reboot()
        self.applied = self.startup
        self.pending, self.pending_rev = [], None
        if self.confirm is not None:
            self.revisions[self.confirm[0]]["state"] = "confirm_expired"
            self.confirm = None

    def state(self) -> dict[str, Any]:
        return {
            **super().state(),
            "applied": self.applied,
            "startup": self.startup,
            "pending": self.pending,
            "revisions": {
                k: {"state": v["state"], "user": v["user"]} for k, v in self.revisions.items()
            },
        }

    def tick(self) -> None:
        super().tick()
        if self.confirm is not None and self._confirm_due <= self.clock.now():
            rev, back = self.confirm
            self.applied, self.confirm = back, None
            self.revisions[rev]["state"] = "confirm_expired"

    # --- commands --------------------------------------------------------------------
    def command(self, argv: list[str]) -> Result | None:
        if argv[:1] != ["nv"]:
            return None
        if self.nvued_down:
            return fail("Error: Could not connect to nvued")
        if argv == ["nv", "config", "show", "-o", "yaml"]:
            return Result(self.applied)
        if argv[1:3] == ["show", "interface"] and argv[4:] in (
            ["counters", "qos"],
            ["qos", "pfc-watchdog"],
        ):
            port = self.counter_lab.read([argv[3]], self.applied != self.original)[argv[3]]
            return ok(nvue_qos(port) if argv[4] == "counters" else nvue_watchdog(port))
        if argv[1:2] in (["set"], ["unset"]) and len(argv) > 2:
            return self._edit(argv)
        if argv[1:2] != ["config"] or len(argv) < 3:
            return None
        verb, args = argv[2], argv[3:]
        if verb == "diff" and not args:
            return ok("\n".join(self.pending)) if self.pending else Result()
        if verb == "detach":
            if self.pending_rev is not None:
                del self.revisions[self.pending_rev]
            self.pending, self.pending_rev = [], None
            return ok()
        if verb == "revision" and args == ["-o", "json"]:
            data = {
                str(k): {"state": v["state"], "user": v["user"]} for k, v in self.revisions.items()
            }
            return ok(json.dumps(data, indent=2))
        if verb == "save":
            self.startup = self.applied
            self._mark_saved()
            return ok("saved")
        if verb == "apply":
            return self._apply(args)
        return fail(f"Error: unknown command: nv config {verb}")

    def _edit(self, argv: list[str]) -> Result:
        if any(not re.fullmatch(r"[A-Za-z0-9_.,:/@%+=*-]+", w) for w in argv[2:]):
            return fail(f"Error: Invalid config path: {' '.join(argv[2:])}")
        if self.pending_rev is None:
            self.pending_rev = max(self.revisions) + 1
            self.revisions[self.pending_rev] = {"state": "pending", "user": USER, "text": ""}
        self.pending.append(" ".join(argv))
        return Result()

    def _render(self, lines: list[str], base: str) -> str:
        snap = Snapshot(files={NV_CONFIG.filename: SourceFile("applied", base)})
        return simulate(snap, lines).files[NV_CONFIG.filename].text

    def _apply(self, args: list[str]) -> Result:
        yes = "-y" in args or "--assume-yes" in args
        words = [a for a in args if a not in ("-y", "--assume-yes")]
        if "--confirm-yes" in words or "--confirm-no" in words:
            return self._answer(words)
        confirm_s: float | None = None
        if "--confirm" in words:
            i = words.index("--confirm")
            value = words[i + 1] if i + 1 < len(words) else ""
            m = re.fullmatch(r"(\d+)([smh]?)", value)
            if m is None:
                return fail(f"Error: invalid --confirm time {value!r}")
            confirm_s = int(m[1]) * {"": 60, "s": 1, "m": 60, "h": 3600}[m[2]]
            del words[i : i + 2]
        if not yes:  # the real CLI asks "Are you sure?"; the lab refuses instead
            return fail("Error: confirmation needed: run with -y")
        if words:  # nv config apply <rev> -y: re-apply an earlier revision
            rev = int(words[0]) if words[0].isdigit() else -1
            if rev not in self.revisions or not self.revisions[rev]["text"]:
                return fail(f"Error: revision {words[0]} not found")
            text = self.revisions[rev]["text"]
            new = max(self.revisions) + 1
            self.revisions[new] = {"state": "applied", "user": USER, "text": text}
            self._supersede(new)
            self.applied = text
            self._autosave(new)
            return ok(f"applied [rev_id: {new}]")
        if self.confirm is not None:
            return fail("Error: a revision is waiting for a confirm (--confirm-yes/--confirm-no)")
        if not self.pending:
            return ok("Warning: The current config is the same as the target config.")
        rev = self.pending_rev if self.pending_rev is not None else max(self.revisions) + 1
        try:
            text = self._render(self.pending, self.applied)
        except ValueError as exc:
            return fail(f"Error: {exc}")
        self.revisions[rev] = {"state": "applied", "user": USER, "text": text}
        back, self.applied = self.applied, text
        self.pending, self.pending_rev = [], None
        if confirm_s is not None:
            self.revisions[rev]["state"] = "confirm"
            self.confirm = (rev, back)
            self._confirm_due = self.clock.now() + confirm_s
            return ok(f"applied [rev_id: {rev}] (confirm within {int(confirm_s)}s)")
        self._supersede(rev)
        self._autosave(rev)
        return ok(f"applied [rev_id: {rev}]")

    def _answer(self, words: list[str]) -> Result:
        if self.confirm is None:
            return fail("Error: no revision is waiting for a confirm")
        rev, back = self.confirm
        named = [w for w in words if w.isdigit()]
        if named and int(named[0]) != rev:
            return fail(f"Error: revision {named[0]} is not waiting for a confirm")
        self.confirm = None
        if "--confirm-yes" in words:
            self.revisions[rev]["state"] = "applied"
            self._supersede(rev)
            self._autosave(rev)
            return ok(f"confirmed [rev_id: {rev}]")
        self.applied = back
        self.revisions[rev]["state"] = "confirm_rejected"
        return ok(f"rolled back [rev_id: {rev}]")

    def _supersede(self, rev: int) -> None:
        for k, v in self.revisions.items():
            if k != rev and v["state"] in ("applied", "applied_and_saved"):
                v["state"] = "inactive"

    def _autosave(self, rev: int) -> None:
        if self.autosave:
            self.startup = self.applied
            self.revisions[rev]["state"] = "applied_and_saved"

    def _mark_saved(self) -> None:
        for v in self.revisions.values():
            if v["state"] == "applied":
                v["state"] = "applied_and_saved"
