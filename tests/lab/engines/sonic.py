"""SONiC engine: CONFIG_DB with Generic Config Updater checkpoints, patches and rollback.

Spec: ``{"kind": "sonic", "snapshot": DIR, "rate": 1, "fail_at": k, "rollback_fails": false,
"protect_lossless_profiles": false, "faults": [...]}``. CONFIG_DB and the startup config
start as the snapshot's ``show runningconfiguration all``; ``show runningconfiguration all``
prints the running one (the snapshot's exact text while nothing changed, so a plan's hash
still matches), ``show pfc priority`` is derived from ``PORT_QOS_MAP`` when the snapshot had it.

Behaviours (sonic-utilities ``config/main.py`` and ``generic_config_updater/
generic_updater.py``, code reading; SONiC GCU design document):

- ``config checkpoint <n>`` stores running CONFIG_DB (``/etc/sonic/checkpoints/<n>.cp.json``:
  survives a reboot); ``list-checkpoints`` prints a JSON list; ``delete-checkpoint``;
- ``config apply-patch [-d] FILE``: validates the whole patch first, then applies the changes
  one by one with no automatic rollback: with ``fail_at: k`` the k-th change fails and the
  first k-1 stay applied ("partial apply", GCU design document); ``-d`` changes nothing and
  prints ``** DRY RUN EXECUTION **``; ``BUFFER_POOL`` changes are refused (empty allow-list
  in ``gcu_field_operation_validators.conf.json``);
- ``config rollback <n>``: running := the checkpoint, or "Failed to rollback config" with
  ``rollback_fails``, or when it would remove an auto-created ``pg_lossless_*`` buffer profile
  while ``protect_lossless_profiles`` (sonic-buildimage#20664);
- ``config save -y``: startup := running; a reboot loads startup (an unsaved change is gone);
- no lock: another writer is modelled with ``lab set <json-pointer> <json>`` (a test control).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rocetune.platforms.common.jsonpatch import apply_ops, split_pointer
from tests.lab.engines.box import BoxEngine, Result, fail, ok
from tests.lab.engines.counters import PortCounts, sonic_pfc, sonic_pfcwd, sonic_queues

APPLIED = "Patch applied successfully."


class SonicEngine(BoxEngine):
    """A SONiC switch's CONFIG_DB behind the lab's SSH listener."""

    platform = "sonic"

    def __init__(self, device: str, spec: dict[str, Any]) -> None:
        super().__init__(device, spec)
        snap = Path(spec["snapshot"])
        source = snap / "show_runningconfiguration_all.json" if snap.is_dir() else snap
        self.original_text = source.read_text(encoding="utf-8")
        self.original: dict[str, Any] = json.loads(self.original_text)
        self.running: dict[str, Any] = json.loads(self.original_text)
        self.startup: dict[str, Any] = json.loads(self.original_text)
        self.pfc_priority = snap.is_dir() and (snap / "show_pfc_priority.txt").is_file()
        self.checkpoints: dict[str, dict[str, Any]] = {}
        self.fail_at = spec.get("fail_at")
        self.rollback_fails = bool(spec.get("rollback_fails", False))
        self.protect = bool(spec.get("protect_lossless_profiles", False))
        self.applies = 0

    def control(self, line: str) -> Result:
        words = line.split(maxsplit=2)
        if words[:1] == ["set"] and len(words) == 3:
            op = json.dumps({"op": "add", "path": words[1], "value": json.loads(words[2])})
            self.running = apply_ops(self.running, [op])
            return ok("set")
        if words[:2] == ["option", "fail_at"]:
            self.fail_at = int(words[2]) if words[2] != "none" else None
            return ok()
        if words[:2] == ["option", "rollback_fails"]:
            self.rollback_fails = words[2] == "true"
            return ok()
        return super().control(line)

    def reboot(self) -> None:
        super().reboot()
        self.running = json.loads(json.dumps(self.startup))

    def state(self) -> dict[str, Any]:
        return {
            **super().state(),
            "running": self.running,
            "startup": self.startup,
            "checkpoints": sorted(self.checkpoints),
        }

    # --- outputs ---------------------------------------------------------------------
    def running_text(self) -> str:
        if self.running == self.original:
            return self.original_text
        return json.dumps(self.running, indent=4, sort_keys=True) + "\n"

    def _pfc_priority(self) -> str:
        rows = [
            (port, str(entry.get("pfc_enable", "N/A")))
            for port, entry in sorted(self.running.get("PORT_QOS_MAP", {}).items())
            if port != "global"
        ]
        width = max([len("Interface"), *(len(p) for p, _ in rows)])
        lines = [f"{'Interface':<{width}}  Lossless priorities", f"{'-' * width}  {'-' * 21}"]
        lines += [f"{p:<{width}}  {v}" for p, v in rows]
        return "\n" + "\n".join(lines) + "\n"

    # --- commands --------------------------------------------------------------------
    def _counts(self) -> dict[str, PortCounts]:
        ports = sorted(self.running.get("PORT", {}), key=lambda n: (len(n), n))
        return self.counter_lab.read(ports, self.running != self.original)

    def command(self, argv: list[str]) -> Result | None:
        if argv == ["show", "runningconfiguration", "all"]:
            return Result(self.running_text())
        if argv == ["show", "pfc", "counters"]:
            return ok(sonic_pfc(self._counts()))
        if argv == ["show", "pfcwd", "stats"]:
            return ok(sonic_pfcwd(self._counts(), [3]))
        if argv == ["show", "queue", "counters"]:
            return ok(sonic_queues(self._counts()))
        if argv == ["show", "pfc", "priority"] and self.pfc_priority:
            return ok(self._pfc_priority())
        if argv[:1] != ["config"] or len(argv) < 2:
            return None
        sub, args = argv[1], argv[2:]
        if sub == "checkpoint" and len(args) == 1:
            self.checkpoints[args[0]] = json.loads(json.dumps(self.running))
            return ok(
                "Config Rollbacker: Config checkpoint starting.\nCheckpoint created successfully."
            )
        if sub == "list-checkpoints":
            return ok(json.dumps(sorted(self.checkpoints), indent=4))
        if sub == "delete-checkpoint" and len(args) == 1:
            if self.checkpoints.pop(args[0], None) is None:
                return self._usage(f"Checkpoint '{args[0]}' does not exist")
            return ok("Checkpoint deleted successfully.")
        if sub == "apply-patch" and args:
            return self._apply_patch(args)
        if sub == "rollback" and len(args) == 1:
            return self._rollback(args[0])
        if sub == "save" and args == ["-y"]:
            self.startup = json.loads(json.dumps(self.running))
            return ok(
                "Running command: /usr/local/bin/sonic-cfggen -d --print-data > "
                "/etc/sonic/config_db.json"
            )
        return self._usage(f"No such command '{sub}'")

    def _usage(self, why: str) -> Result:
        return fail(f"Usage: config [OPTIONS] COMMAND [ARGS]...\nError: {why}", 2)

    def _apply_patch(self, args: list[str]) -> Result:
        dry = "-d" in args or "--dry-run" in args
        path = args[-1]
        if path not in self.box.files:
            return self._usage(f"Could not open file '{path}': No such file or directory")
        head = "** DRY RUN EXECUTION **\n" if dry else ""
        try:
            ops = json.loads(self.box.files[path])
            texts = [json.dumps(op) for op in ops]
            apply_ops(self.running, texts)  # simulate the whole patch first
            for op in ops:
                if split_pointer(op["path"])[0] == "BUFFER_POOL":
                    raise ValueError(f"Modification of BUFFER_POOL is not allowed: {op['path']}")
        except (ValueError, KeyError, TypeError) as exc:
            return self._failed(head, str(exc))
        if dry:
            return ok(head + "Patch Applier: applying 1 change(s)\n" + APPLIED)
        self.applies += 1
        for k, text in enumerate(texts, start=1):
            if self.fail_at is not None and k == int(self.fail_at):
                return self._failed(head, f"Failed to apply change {k} of {len(texts)}: {text}")
            self.running = apply_ops(self.running, [text])
        return ok(f"Patch Applier: applying {len(texts)} change(s)\n{APPLIED}")

    def _failed(self, head: str, why: str) -> Result:
        message = f"Failed to apply patch due to: {why}"
        return Result(
            head
            + message
            + "\nUsage: config apply-patch [OPTIONS] PATCH_FILE_PATH\n"
            + f"Error: {why}\n",
            message,
            1,
        )

    def _rollback(self, name: str) -> Result:
        if name not in self.checkpoints:
            return fail(f"Failed to rollback config\nError: Checkpoint '{name}' does not exist")
        target = self.checkpoints[name]
        if self.rollback_fails:
            return fail("Failed to rollback config\nError: injected rollback failure")
        profiles = set(self.running.get("BUFFER_PROFILE", {})) - set(
            target.get("BUFFER_PROFILE", {})
        )
        if self.protect and any(p.startswith("pg_lossless_") for p in profiles):
            return fail(
                "Failed to rollback config\nError: Modification of BUFFER_PROFILE table is "
                f"not allowed: {sorted(profiles)}"
            )
        self.running = json.loads(json.dumps(target))
        return ok("Config Rollbacker: Config rollback starting.\nConfig rolled back successfully.")
