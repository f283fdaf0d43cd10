"""Cumulus change set: ``nv set`` / ``nv unset`` lines for the NVUE paths that differ.

Both configs are read into key trees (running: ``nv config show -o yaml``; intended: the
rendered ``<device>.nvue.yaml``), with interface ranges (``swp1-16``), DSCP and priority lists
(``0-25,27-47``) expanded so that ``swp31,32`` and ``swp31-32`` compare equal, then flattened
to leaf paths. A leaf the intended config has with another value (or not at all) is an
``nv set``; a running path under ``qos`` or ``interface <if> qos`` that the intended config
does not have is an ``nv unset`` of its shortest missing prefix (``nv unset qos roce``). Other
running paths are not rocetune's and are left alone. Each line's rollback is the inverse
(``nv set`` of the old value, ``nv unset`` of a new path). NVUE stages every line and applies
them together with ``nv config apply``; ``--confirm`` rolls back unless confirmed.
"""

from __future__ import annotations

import re
from typing import Any

from rocetune.model import Device
from rocetune.platforms.changes import Change, PlatformPlan
from rocetune.platforms.cumulus.commands import NV_CONFIG
from rocetune.platforms.cumulus.commands_text import is_commands_text, load_commands
from rocetune.platforms.cumulus.nvue_yaml import load_yaml
from rocetune.platforms.cumulus.tree import ConfigTree, Issues, KeyPath
from rocetune.platforms.cumulus.values import expand_ids, expand_names
from rocetune.snapshot import Snapshot
from rocetune.tune.target import DeviceTarget

WORD = re.compile(r"^[A-Za-z0-9_.:/,+@-]{1,128}$")
"""A word that may reach an ``nv`` command line (no spaces, quotes or separators)."""
ID_RANGES = {"dscp": (0, 63), "switch-priority": (0, 7), "traffic-class": (0, 7)}
HINT = (
    "stage the lines, then `nv config apply --confirm 10m -y` (explicit unit: a bare number is "
    "minutes, so 600 = 10 h) and, once verified, `nv config apply --confirm-yes`"
)
Leaves = dict[KeyPath, Any]


def _expand_key(parent: str | None, key: str) -> list[str]:
    if parent == "interface":
        return expand_names(key) or [key]
    if parent in ID_RANGES:
        ids = expand_ids(key, *ID_RANGES[parent])
        return [str(i) for i in ids] if ids else [key]
    return [key]


def flatten(node: Any, path: KeyPath = ()) -> Leaves:
    """Leaf path -> value, ranges expanded; ``{}`` marks a presence leaf."""
    if not isinstance(node, dict) or not node:
        return {path: node if not isinstance(node, dict) else {}}
    out: Leaves = {}
    parent = path[-1] if path else None
    for key, child in node.items():
        for name in _expand_key(parent, str(key)):
            out.update(flatten(child, (*path, name)))
    return out


def _owned(path: KeyPath) -> int | None:
    """Length of the rocetune-owned prefix of ``path`` (None: not rocetune's)."""
    if path[:1] == ("qos",):
        return 1
    if len(path) >= 3 and path[0] == "interface" and path[2] == "qos":
        return 3
    return None


def kind_of(path: KeyPath) -> str:
    """The neutral kind of an NVUE path."""
    words = set(path)
    rules = (
        ({"mtu"}, "mtu"),
        ({"speed"}, "speed"),
        ({"roce"}, "roce_mode"),
        ({"pfc-watchdog"}, "watchdog"),
        ({"port-buffer", "xoff-threshold", "xon-threshold", "cable-length"}, "buffers"),
        ({"traffic-pool", "advance-buffer-config", "buffer"}, "buffers"),
        ({"trust"}, "trust"),
        ({"pfc", "link-pause"}, "pfc"),
        ({"congestion-control"}, "ecn"),
        ({"egress-scheduler"}, "scheduling"),
        ({"mapping", "remark"}, "dscp_map"),
    )
    for keys, kind in rules:
        if words & keys:
            return kind
    return "other"


def _words(path: KeyPath, value: Any = None) -> str:
    parts = list(path) + ([] if value is None or isinstance(value, dict) else [str(value)])
    for word in parts:
        if not WORD.match(word):
            raise ValueError(f"refusing to write NVUE path word {word!r} into a command")
    return " ".join(parts)


def _set(path: KeyPath, value: Any) -> str:
    return "nv set " + _words(path, value)


def _unset(path: KeyPath) -> str:
    return "nv unset " + _words(path)


def _port(path: KeyPath) -> str | None:
    return path[1] if path[0] == "interface" and len(path) > 1 else None


def _missing_prefix(path: KeyPath, owned: int, prefixes: set[KeyPath]) -> KeyPath:
    for end in range(owned + 1, len(path) + 1):
        if path[:end] not in prefixes:
            return path[:end]
    return path


def diff_trees(running: dict[str, Any], intended: dict[str, Any]) -> PlatformPlan:
    """The ``nv set``/``nv unset`` change set from ``running`` to ``intended``."""
    old, new = flatten(running), flatten(intended)
    prefixes = {p[:i] for p in new for i in range(1, len(p) + 1)}
    plan = PlatformPlan(hint=HINT)
    for path, value in new.items():
        if path not in old or old[path] != value:
            back = _set(path, old[path]) if path in old else _unset(path)
            plan.changes.append(Change(_set(path, value), kind_of(path), _port(path), back))
    done: set[KeyPath] = set()
    for path in old:
        owned = _owned(path)
        if owned is None or path in new:
            continue
        gone = _missing_prefix(path, owned, prefixes)
        if gone in done or gone in prefixes:
            continue
        done.add(gone)
        back = "\n".join(_set(p, v) for p, v in old.items() if p[: len(gone)] == gone)
        plan.changes.append(Change(_unset(gone), kind_of(gone), _port(gone), back))
    return plan


def _tree(text: str, file: str) -> ConfigTree:
    issues = Issues(file)
    if is_commands_text(text):
        return load_commands(text, issues)
    return load_yaml(text, file, issues)


def changeset(
    snapshot: Snapshot, rendered: dict[str, str], device: Device, target: DeviceTarget
) -> PlatformPlan:
    """Diff the snapshot's NVUE config against the rendered ``<device>.nvue.yaml``."""
    del device, target
    source = snapshot.get(NV_CONFIG) or next(iter(snapshot), None)
    if source is None:
        raise ValueError("the snapshot has no NVUE config (nv config show -o yaml)")
    path, text = next((p, t) for p, t in rendered.items() if p.endswith(".nvue.yaml"))
    return diff_trees(_tree(source.text, source.path).root, _tree(text, path).root)
