"""SONiC remediation: the smallest JSON Patch that fixes each finding, editing objects in place.

Each fix edits the CONFIG_DB objects the port already uses: ``pfc_enable`` of its
``PORT_QOS_MAP`` entry (``3`` is added to ``"4"`` -> ``"3,4"``, no new map), the DSCP entry of
the ``DSCP_TO_TC_MAP`` the port binds, the ``PFC_WD`` entry's action, the ``ecn`` field of the
``WRED_PROFILE`` its lossless queue uses. A longer cable needs a bigger headroom: the profile
the full render computes for that length is added (a new, unused object) when the running
config has none of that name, then the port's lossless PG is re-bound to it and its
``CABLE_LENGTH`` updated. Every op's rollback is its inverse (``add`` of the old value or
``remove`` of the added path), applied in reverse order: unbind before delete.

Safe apply (sonic-utilities ``config/main.py``; the GCU design document
``doc/config-generic-update-rollback/SONiC_Generic_Config_Update_and_Rollback_Design.md``):
``config checkpoint <name>``, ``config apply-patch <file>`` (``-d`` dry-runs it), and on
failure ``config rollback <name>``; GCU has no commit timer and no lock, and ``config save``
persists.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, cast

from rocetune.model import Device
from rocetune.platforms.changes import Change, Fix, PlatformPlan
from rocetune.platforms.common.jsonpatch import PatchEditor, apply_ops
from rocetune.platforms.sonic.commands import CONFIG_DB
from rocetune.snapshot import Snapshot, SourceFile

SAFE_APPLY = (
    "sudo config checkpoint rocetune-before; sudo config apply-patch -d <patch.json> (dry run); "
    "sudo config apply-patch <patch.json>; on failure: sudo config rollback rocetune-before; "
    "keep: sudo config save -y (GCU has no commit timer: see docs/plan.md)"
)


def _name(ref: Any) -> str | None:
    """``[DSCP_TO_TC_MAP|X]`` / ``X`` -> ``X``."""
    if not isinstance(ref, str) or not ref:
        return None
    return ref.strip("[]").split("|")[-1]


def _ints(text: Any) -> set[int]:
    if not isinstance(text, str) or not text.strip():
        return set()
    return {int(x) for x in text.split(",") if x.strip().isdigit()}


def running_config(snapshot: Snapshot) -> tuple[SourceFile, dict[str, Any]]:
    """The snapshot's CONFIG_DB JSON."""
    source = snapshot.get(CONFIG_DB)
    if source is None:
        raise ValueError("the snapshot has no running CONFIG_DB (show runningconfiguration all)")
    data = json.loads(source.text)
    if not isinstance(data, dict):
        raise ValueError(f"{source.path}: not a JSON object")
    return source, data


class _Sonic:
    def __init__(self, doc: dict[str, Any], intended: Callable[[], dict[str, Any]]) -> None:
        self.ed = PatchEditor(doc)
        self.intended = intended
        self.notes: list[str] = []

    def set(self, fix: Fix, parts: tuple[str, ...], value: Any, kind: str) -> None:
        fps = (fix.fingerprint,) if fix.fingerprint else ()
        self.ed.set(parts, value, kind, fix.port, fixes=fps, codes=(fix.code,), because=fix.because)

    def pfc(self, fix: Fix, add: bool) -> None:
        assert fix.port is not None
        current = _ints(self.ed.get("PORT_QOS_MAP", fix.port, "pfc_enable"))
        prios = set(fix.value) if isinstance(fix.value, frozenset) else set()
        new = current | prios if add else current - prios
        self.set(fix, ("PORT_QOS_MAP", fix.port, "pfc_enable"), _csv(new), "pfc")

    def dscp(self, fix: Fix) -> None:
        ports = [fix.port] if fix.port else list(self.ed.get("PORT_QOS_MAP") or {})
        maps = {_name(self.ed.get("PORT_QOS_MAP", p, "dscp_to_tc_map")) for p in ports}
        maps.discard(None)
        if not maps:
            self.notes.append(f"{fix.code} on {fix.port}: the port binds no DSCP_TO_TC_MAP")
            return
        pairs: tuple[tuple[int, int], ...] = fix.value  # type: ignore[assignment]
        for name in sorted(m for m in maps if m):
            for dscp, prio in pairs:
                self.set(fix, ("DSCP_TO_TC_MAP", name, str(dscp)), str(prio), "dscp_map")

    def watchdog(self, fix: Fix, action_only: bool) -> None:
        ports = [fix.port] if fix.port else sorted(self.ed.get("PFC_WD") or {})
        for port in ports:
            if port == "GLOBAL":
                continue
            if action_only:
                if self.ed.get("PFC_WD", port) is not None:
                    self.set(fix, ("PFC_WD", port, "action"), fix.value, "watchdog")
                continue
            detect, restore, action = cast("tuple[float, float, str]", fix.value)
            pfc = self.ed.get("PORT_QOS_MAP", port, "pfc_enable")
            self.set(fix, ("PORT_QOS_MAP", port, "pfcwd_sw_enable"), pfc or "", "watchdog")
            entry = {
                "action": action,
                "detection_time": f"{detect:g}",
                "restoration_time": f"{restore:g}",
            }
            if self.ed.get("PFC_WD", port) is None:
                self.set(fix, ("PFC_WD", port), entry, "watchdog")
                continue
            for fname, value in entry.items():
                self.set(fix, ("PFC_WD", port, fname), value, "watchdog")

    def mtu(self, fix: Fix) -> None:
        assert fix.port is not None
        self.set(fix, ("PORT", fix.port, "mtu"), str(fix.value), "mtu")

    def ecn(self, fix: Fix) -> None:
        queue = str(fix.value)
        profiles = set()
        for key, entry in (self.ed.get("QUEUE") or {}).items():
            _, _, q = key.partition("|")
            if q == queue and isinstance(entry, dict) and _name(entry.get("wred_profile")):
                profiles.add(_name(entry.get("wred_profile")))
        if not profiles:
            self.notes.append(f"{fix.code}: no WRED_PROFILE is bound to queue {queue}")
        for name in sorted(p for p in profiles if p):
            self.set(fix, ("WRED_PROFILE", name, "ecn"), "ecn_all", "ecn")

    def cable(self, fix: Fix) -> None:
        assert fix.port is not None
        want = self.intended()
        lengths: dict[str, Any] = next(iter((want.get("CABLE_LENGTH") or {}).values()), {})
        table = next(iter(self.ed.get("CABLE_LENGTH") or {"AZURE": {}}), "AZURE")
        pgs = {
            k: v
            for k, v in (want.get("BUFFER_PG") or {}).items()
            if k.partition("|")[0] == fix.port
        }
        for key, entry in sorted(pgs.items()):
            name = _name(entry.get("profile"))
            if name is None or _name(self.ed.get("BUFFER_PG", key, "profile")) == name:
                continue
            profile = (want.get("BUFFER_PROFILE") or {}).get(name)
            if profile is None:
                continue
            if self.ed.get("BUFFER_PROFILE", name) is None:
                self.set(fix, ("BUFFER_PROFILE", name), profile, "new_object")
            self.set(fix, ("BUFFER_PG", key, "profile"), name, "buffers")
        if fix.port in lengths:
            self.set(fix, ("CABLE_LENGTH", table, fix.port), lengths[fix.port], "buffers")


def _csv(prios: set[int]) -> str:
    return ",".join(str(p) for p in sorted(prios))


def remediate(
    fixes: list[Fix],
    snapshot: Snapshot,
    device: Device,
    intended: Callable[[], dict[str, str]],
) -> PlatformPlan:
    """JSON Patch changes for ``fixes`` against the snapshot's CONFIG_DB."""
    del device
    _, running = running_config(snapshot)

    def want() -> dict[str, Any]:
        files = intended()
        text = next(t for p, t in files.items() if p.endswith(".config_db.json"))
        data: dict[str, Any] = json.loads(text)
        return data

    s = _Sonic(running, want)
    for fix in fixes:
        if fix.setting in ("pfc_add", "pfc_remove"):
            s.pfc(fix, fix.setting == "pfc_add")
        elif fix.setting == "dscp":
            s.dscp(fix)
        elif fix.setting in ("watchdog_on", "watchdog_action"):
            s.watchdog(fix, fix.setting == "watchdog_action")
        elif fix.setting == "mtu":
            s.mtu(fix)
        elif fix.setting == "ecn_queue":
            s.ecn(fix)
        elif fix.setting == "cable_length":
            s.cable(fix)
        else:
            s.notes.append(f"{fix.code}: no automatic SONiC remedy for {fix.setting}")
    plan = PlatformPlan(hint=SAFE_APPLY, notes=s.notes)
    for e in s.ed.edits.values():
        plan.changes.append(
            Change(
                e.text,
                e.kind,
                e.port,
                e.rollback,
                tuple(sorted(e.fixes)),
                tuple(sorted(e.codes)),
                e.because,
            )
        )
    return plan


def simulate(snapshot: Snapshot, ops: list[str]) -> Snapshot:
    """The snapshot with the JSON Patch ops applied to its CONFIG_DB (for checking a plan)."""
    source, running = running_config(snapshot)
    patched = apply_ops(running, ops)
    files = dict(snapshot.files)
    files[CONFIG_DB.filename] = SourceFile(source.path, json.dumps(patched, indent=4))
    return Snapshot(files=files, meta=snapshot.meta, origin=snapshot.origin)
