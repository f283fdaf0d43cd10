"""SONiC change set: RFC 6902 JSON Patch ops between the running and intended QoS tables.

Only the tables rocetune renders are compared. Entries and fields the intended config has are
added (``add`` replaces an existing value); fields of an entry both have that only the
running entry has are removed, except in shared entries (``PORT``, ``CABLE_LENGTH``,
``DEVICE_METADATA``, ``PFC_WD``) whose other fields are not rocetune's. Per-port entries
(``PORT_QOS_MAP``, ``BUFFER_PG``, ``BUFFER_QUEUE``, ``QUEUE``) of a rendered port that the
intended config does not have are removed (a stale PG range would overlap); named objects
(maps, profiles, schedulers) only the running config has are left in place (other ports may
still use them) and named in a note. Ops come in dependency order: objects before the entries
that reference them. Each op's rollback is its inverse (remove an added path, add back the
old value).
"""

from __future__ import annotations

import json
from typing import Any

from rocetune.model import Device
from rocetune.platforms.changes import Change, PlatformPlan
from rocetune.platforms.sonic.commands import CONFIG_DB
from rocetune.platforms.sonic.remediate import SAFE_APPLY
from rocetune.snapshot import Snapshot
from rocetune.tune.target import DeviceTarget

ORDER = (
    "DSCP_TO_TC_MAP",
    "TC_TO_PRIORITY_GROUP_MAP",
    "TC_TO_QUEUE_MAP",
    "MAP_PFC_PRIORITY_TO_QUEUE",
    "SCHEDULER",
    "WRED_PROFILE",
    "BUFFER_POOL",
    "BUFFER_PROFILE",
    "DEVICE_METADATA",
    "CABLE_LENGTH",
    "PORT",
    "PORT_QOS_MAP",
    "BUFFER_PG",
    "BUFFER_QUEUE",
    "QUEUE",
    "PFC_WD",
)
SHARED = frozenset({"PORT", "CABLE_LENGTH", "DEVICE_METADATA", "PFC_WD"})
PER_PORT = frozenset({"PORT_QOS_MAP", "BUFFER_PG", "BUFFER_QUEUE", "QUEUE"})
TABLE_KIND = {
    "DSCP_TO_TC_MAP": "dscp_map",
    "TC_TO_PRIORITY_GROUP_MAP": "buffers",
    "TC_TO_QUEUE_MAP": "dscp_map",
    "MAP_PFC_PRIORITY_TO_QUEUE": "pfc",
    "SCHEDULER": "scheduling",
    "WRED_PROFILE": "ecn",
    "BUFFER_POOL": "buffers",
    "BUFFER_PROFILE": "buffers",
    "DEVICE_METADATA": "buffers",
    "CABLE_LENGTH": "buffers",
    "BUFFER_PG": "buffers",
    "BUFFER_QUEUE": "buffers",
    "PFC_WD": "watchdog",
}
FIELD_KIND = {
    ("PORT", "mtu"): "mtu",
    ("PORT", "speed"): "speed",
    ("PORT_QOS_MAP", "pfc_enable"): "pfc",
    ("PORT_QOS_MAP", "pfc_to_queue_map"): "pfc",
    ("PORT_QOS_MAP", "pfc_to_pg_map"): "pfc",
    ("PORT_QOS_MAP", "pfcwd_sw_enable"): "watchdog",
    ("PORT_QOS_MAP", "tc_to_pg_map"): "buffers",
    ("QUEUE", "wred_profile"): "ecn",
}


def pointer(*parts: str) -> str:
    """An RFC 6901 JSON pointer (``~`` -> ``~0``, ``/`` -> ``~1``)."""
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def _kind(table: str, field: str | None) -> str:
    if field is not None and (table, field) in FIELD_KIND:
        return FIELD_KIND[(table, field)]
    return TABLE_KIND.get(table, "scheduling" if table == "QUEUE" else "dscp_map")


def _port_of(table: str, key: str) -> str | None:
    if table in PER_PORT or table in {"PORT", "PFC_WD"}:
        return key.split("|", 1)[0] if key != "GLOBAL" else None
    return None


def _op(op: str, path: str, value: Any = None) -> str:
    body: dict[str, Any] = {"op": op, "path": path}
    if op != "remove":
        body["value"] = value
    return json.dumps(body, sort_keys=True)


def _change(table: str, key: str, field: str | None, old: Any, new: Any) -> Change:
    path = pointer(table, key) if field is None else pointer(table, key, field)
    text = _op("remove", path) if new is None else _op("add", path, new)
    back = _op("remove", path) if old is None else _op("add", path, old)
    return Change(text, _kind(table, field), _port_of(table, key), back)


def _entry_changes(table: str, key: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    out: list[Change] = []
    for fname, value in new.items():
        if old.get(fname) != value:
            out.append(_change(table, key, fname, old.get(fname), value))
    if table not in SHARED:
        out.extend(_change(table, key, f, old[f], None) for f in old if f not in new)
    return out


def _table_changes(
    table: str, running: dict[str, Any] | None, intended: dict[str, Any], ports: set[str]
) -> tuple[list[Change], list[str]]:
    if running is None:
        return [
            Change(
                _op("add", pointer(table), intended),
                _kind(table, None),
                None,
                _op("remove", pointer(table)),
            )
        ], []
    out: list[Change] = []
    for key, fields in intended.items():
        old = running.get(key)
        if not isinstance(old, dict):
            out.append(_change(table, key, None, None, fields))
        else:
            out.extend(_entry_changes(table, key, old, fields))
    left: list[str] = []
    for key, old in running.items():
        if key in intended:
            continue
        if table in PER_PORT and key.split("|", 1)[0] in ports:
            out.append(_change(table, key, None, old, None))
        elif table not in SHARED and table not in PER_PORT:
            left.append(f"{table}|{key}")
    return out, left


def diff_config_db(running: dict[str, Any], intended: dict[str, Any]) -> PlatformPlan:
    """The JSON Patch change set from ``running`` to ``intended`` (tables rocetune renders)."""
    ports = set(intended.get("PORT", {}))
    plan = PlatformPlan(hint=SAFE_APPLY)
    left: list[str] = []
    for table in (*ORDER, *(t for t in intended if t not in ORDER)):
        if table not in intended:
            continue
        got, stale = _table_changes(table, running.get(table), intended[table], ports)
        plan.changes.extend(got)
        left.extend(stale)
    if left:
        plan.notes.append("left in place (not rendered, may be used elsewhere): " + ", ".join(left))
    return plan


def changeset(
    snapshot: Snapshot, rendered: dict[str, str], device: Device, target: DeviceTarget
) -> PlatformPlan:
    """Diff the snapshot's CONFIG_DB against the rendered ``<device>.config_db.json``."""
    del device, target
    source = snapshot.get(CONFIG_DB)
    if source is None:
        raise ValueError("the snapshot has no running CONFIG_DB (show runningconfiguration all)")
    full = next(text for path, text in rendered.items() if path.endswith(".config_db.json"))
    try:
        running = json.loads(source.text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{source.path}: invalid JSON: {exc.msg}") from exc
    if not isinstance(running, dict):
        raise ValueError(f"{source.path}: not a JSON object")
    return diff_config_db(running, json.loads(full))
