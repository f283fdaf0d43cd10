"""Cumulus NVUE remediation: ``nv set`` lines that edit the objects the switch already uses.

A DSCP fix sets only the named DSCPs in the mapping profile the port uses (``default-global``
unless ``interface <if> qos mapping profile`` names another), grouped one line per priority;
an MTU fix sets ``interface <if> link mtu``; an ECN fix turns ``ecn`` on in the
congestion-control profile's traffic class. Each line's rollback sets the old value back, or
``nv unset`` the path when the running config did not have it (NVUE then falls back to its
default, which is what the switch ran before).

Safe apply: stage the lines, review ``nv config diff``, then ``nv config apply --confirm 10m
-y`` and, once verified, ``nv config apply --confirm-yes``. The unit matters: the NVUE
reference (https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Config-Commands)
reads ``nv config apply --confirm 60`` as one hour (minutes), so ``--confirm 600`` meant ten
hours; Cumulus Linux 5.14's NVUE CLI page writes the unit (``--confirm 60m`` = one hour).
Abort: ``nv config apply --confirm-no`` or let the timer expire.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from rocetune.model import Device
from rocetune.platforms.changes import Change, Fix, PlatformPlan
from rocetune.platforms.common.jsonpatch import Edit
from rocetune.platforms.cumulus.changeset import WORD, flatten
from rocetune.platforms.cumulus.commands import NV_CONFIG
from rocetune.platforms.cumulus.commands_text import is_commands_text, load_commands
from rocetune.platforms.cumulus.nvue_yaml import load_yaml
from rocetune.platforms.cumulus.tree import Issues, KeyPath
from rocetune.snapshot import Snapshot, SourceFile

SAFE_APPLY = (
    "stage the lines, check `nv config diff`, then `nv config apply --confirm 10m -y` "
    "(the unit is explicit: a bare number is minutes on the NVUE reference, so 600 = 10 h); "
    "after verifying: `nv config apply --confirm-yes`; abort: `nv config apply --confirm-no`"
)


def _source(snapshot: Snapshot) -> SourceFile:
    source = snapshot.get(NV_CONFIG) or next(iter(snapshot), None)
    if source is None:
        raise ValueError("the snapshot has no NVUE config (nv config show -o yaml)")
    return source


def _leaves(source: SourceFile) -> dict[KeyPath, Any]:
    issues = Issues(source.path)
    if is_commands_text(source.text):
        tree = load_commands(source.text, issues)
    else:
        tree = load_yaml(source.text, source.path, issues)
    return flatten(tree.root)


def _words(*parts: object) -> str:
    words = [str(p) for p in parts]
    for w in words:
        if not WORD.match(w):
            raise ValueError(f"refusing to write NVUE word {w!r} into a command")
    return " ".join(words)


def _ranges(ids: list[int]) -> str:
    """[24, 25, 27, 28] -> ``24-25,27-28``."""
    runs: list[list[int]] = []
    for i in sorted(ids):
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


class _Nvue:
    def __init__(self, leaves: dict[KeyPath, Any]) -> None:
        self.leaves = leaves
        self.prefixes = {p[:i] for p in leaves for i in range(1, len(p) + 1)}
        self.edits: dict[str, Edit] = {}
        self.notes: list[str] = []

    def add(self, fix: Fix, text: str, back: str, kind: str, *, shared: bool = False) -> None:
        edit = self.edits.get(text)
        if edit is None:
            port = None if shared else fix.port
            edit = Edit(text, back, text, True, kind, port, because=fix.because)
            self.edits[text] = edit
        if fix.fingerprint:
            edit.fixes.add(fix.fingerprint)
        edit.codes.add(fix.code)

    def unset(self, path: KeyPath) -> str:
        """``nv unset`` of the shortest prefix of ``path`` the running config lacks."""
        for end in range(1, len(path) + 1):
            if path[:end] not in self.prefixes:
                return "nv unset " + _words(*path[:end])
        return "nv unset " + _words(*path)

    def mapping_profile(self, port: str | None) -> str:
        if port is not None:
            bound = self.leaves.get(("interface", port, "qos", "mapping", "profile"))
            if isinstance(bound, str):
                return bound
        return "default-global"

    def dscp(self, fix: Fix) -> None:
        profile = self.mapping_profile(fix.port)
        pairs: tuple[tuple[int, int], ...] = fix.value  # type: ignore[assignment]
        base = ("qos", "mapping", profile, "dscp")
        changed = [
            (d, p) for d, p in pairs if self.leaves.get((*base, str(d), "switch-priority")) != p
        ]
        by_new: dict[int, list[int]] = defaultdict(list)
        for d, p in changed:
            by_new[p].append(d)
        for prio, dscps in sorted(by_new.items()):
            text = "nv set " + _words(*base, _ranges(dscps), "switch-priority", prio)
            old: dict[object, list[int]] = defaultdict(list)
            for d in dscps:
                old[self.leaves.get((*base, str(d), "switch-priority"))].append(d)
            backs: list[str] = []
            for value, ds in sorted(old.items(), key=lambda kv: str(kv[0])):
                if value is None:
                    backs.extend(self.unset((*base, str(d))) for d in ds)
                else:
                    backs.append("nv set " + _words(*base, _ranges(ds), "switch-priority", value))
            self.add(fix, text, "\n".join(dict.fromkeys(backs)), "dscp_map", shared=True)

    def mtu(self, fix: Fix) -> None:
        assert fix.port is not None
        path = ("interface", fix.port, "link", "mtu")
        old = self.leaves.get(path)
        back = self.unset(path) if old is None else "nv set " + _words(*path, old)
        self.add(fix, "nv set " + _words(*path, fix.value), back, "mtu")

    def ecn(self, fix: Fix) -> None:
        profiles = sorted(
            {p[2] for p in self.leaves if p[:2] == ("qos", "congestion-control") and len(p) > 2}
        ) or ["default-global"]
        for profile in profiles:
            path = ("qos", "congestion-control", profile, "traffic-class", str(fix.value), "ecn")
            old = self.leaves.get(path)
            if old == "enable":
                continue
            back = self.unset(path) if old is None else "nv set " + _words(*path, old)
            self.add(fix, "nv set " + _words(*path, "enable"), back, "ecn", shared=True)


def remediate(fixes: list[Fix], snapshot: Snapshot, device: Device) -> PlatformPlan:
    """``nv set`` changes for ``fixes`` against the snapshot's NVUE config."""
    del device
    n = _Nvue(_leaves(_source(snapshot)))
    for fix in fixes:
        if fix.setting == "dscp":
            n.dscp(fix)
        elif fix.setting == "mtu":
            n.mtu(fix)
        elif fix.setting == "ecn_queue":
            n.ecn(fix)
        else:
            n.notes.append(f"{fix.code}: no automatic NVUE remedy for {fix.setting}")
    plan = PlatformPlan(hint=SAFE_APPLY, notes=n.notes)
    for e in n.edits.values():
        plan.changes.append(
            Change(
                e.new,
                e.kind,
                e.port,
                str(e.old),
                tuple(sorted(e.fixes)),
                tuple(sorted(e.codes)),
                e.because,
            )
        )
    return plan


def _typed(node: Any) -> Any:
    """Digit strings -> ints, as ``nv config show -o yaml`` writes numbers."""
    if isinstance(node, dict):
        return {k: _typed(v) for k, v in node.items()}
    if isinstance(node, str) and node.isdigit():
        return int(node)
    return node


def _item(words: list[str]) -> str:
    """One ``nv set``/``nv unset`` line as a YAML (JSON flow) revision item."""
    verb, path = words[1], words[2:]
    if verb == "set":
        tree = load_commands("nv set " + " ".join(path), Issues("plan")).root
        return "- set: " + json.dumps(_typed(tree), sort_keys=True)
    node: Any = None
    for key in reversed(path):
        node = {key: node}
    return "- unset: " + json.dumps(node, sort_keys=True)


def simulate(snapshot: Snapshot, lines: list[str]) -> Snapshot:
    """The snapshot with ``nv set``/``nv unset`` lines applied (for checking a plan)."""
    source = _source(snapshot)
    commands = [ln.strip() for text in lines for ln in text.splitlines() if ln.strip()]
    if is_commands_text(source.text):
        text = source.text.rstrip("\n") + "\n" + "\n".join(commands) + "\n"
    else:
        items = [_item(c.split()) for c in commands]
        text = source.text.rstrip("\n") + "\n" + "\n".join(items) + "\n"
    files = {k: (SourceFile(v.path, text) if v is source else v) for k, v in snapshot.files.items()}
    return Snapshot(files=files, meta=snapshot.meta, origin=snapshot.origin)
